"""Search benchmark: MCTS and expectimax speed, and a short strength table.

Usage:
    python bench/search_bench.py            # full run (a few minutes)
    python bench/search_bench.py --quick    # a smaller run (about a minute)

Prints, in one run: MCTS iterations/s and simulated decisions/s with 1 and 2 threads
(and the speed-up), the ratio of MCTS's simulated decisions/s to random_playouts'
decisions/s (tree overhead), expectimax nodes/s, and win rates from seat-rotated games.
"""
from __future__ import annotations

import argparse
import os
import time

from gallerist import engine
from gallerist import ai
from gallerist.ai.arena.play import play_game
from figures import write_json
from positions import sample_states


def mcts_speed(states: list[engine.GameState], threads: int, iterations: int) -> dict:
    """Raw search speed (no analysis post-processing)."""
    eng = ai.MctsBot(threads=threads, rollout="random").engine(2)   # the C search alone
    import threading
    total_iter = 0
    total_dec = 0
    t0 = time.perf_counter()
    for i, s in enumerate(states):
        eng.prepare(s, s.current_player, i + 1, False)
        per = iterations // threads
        ws = [threading.Thread(target=eng.run, args=(k, per, 0.0)) for k in range(threads)]
        for w in ws:
            w.start()
        for w in ws:
            w.join()
        st = eng.stats()
        total_iter += st["iterations"]
        total_dec += st["decisions"]
    dt = time.perf_counter() - t0
    return {"threads": threads, "iterations_per_s": total_iter / dt, "decisions_per_s": total_dec / dt,
            "decisions_per_iteration": total_dec / max(1, total_iter)}


def expectimax_speed(states: list[engine.GameState], depth: int) -> dict:
    bot = ai.make_bot(f"expectimax:depth={depth}")
    nodes = 0
    t0 = time.perf_counter()
    for s in states:
        nodes += bot.analyze(s).nodes
    dt = time.perf_counter() - t0
    return {"depth": depth, "nodes_per_s": nodes / dt, "ms_per_analysis": 1000 * dt / len(states)}


def match(spec_a: str, spec_b: str, games: int, seed: int) -> dict:
    """Seat-rotated 2-player games: each setup seed is played with both seatings."""
    wins = 0.0
    t0 = time.perf_counter()
    for g in range(games):
        seat = g % 2
        a = ai.make_bot(spec_a, seed=seed + g)
        b = ai.make_bot(spec_b, seed=seed + 10_000 + g)
        final = play_game([a, b] if seat == 0 else [b, a], seed=seed + g // 2)
        wins += final.returns()[seat]
    return {"a": spec_a, "b": spec_b, "games": games, "win_rate_a": wins / games,
            "seconds": time.perf_counter() - t0}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="smaller counts")
    ap.add_argument("--json", help="also write the results to this file")
    ap.add_argument("--games", type=int, default=None, help="games per strength pairing")
    ap.add_argument("--time-ms", type=float, default=None, help="search time per decision in the strength table")
    args = ap.parse_args(argv)
    quick = args.quick
    results: dict = {"machine": {"cpus": os.cpu_count()}}

    states = sample_states(2, 6 if quick else 20, seed=1, plies=(30, 200))
    iters = 2000 if quick else 5000
    one = mcts_speed(states, 1, iters)
    two = mcts_speed(states, 2, iters)
    ref = engine.random_playouts(2, 200 if quick else 1000, seed=3)
    ref_rate = ref["decisions"] / ref["seconds"]
    results["mcts"] = [one, two]
    results["random_playouts_decisions_per_s"] = ref_rate
    print("MCTS (2 players, random rollouts to the end)")
    print(f"  {'threads':>7} {'iterations/s':>14} {'decisions/s':>14} {'decisions/iter':>15}")
    for r in (one, two):
        print(f"  {r['threads']:>7} {r['iterations_per_s']:>14,.0f} {r['decisions_per_s']:>14,.0f} "
              f"{r['decisions_per_iteration']:>15.1f}")
    print(f"  speed-up on 2 threads: {two['iterations_per_s'] / one['iterations_per_s']:.2f}x")
    print(f"  random_playouts: {ref_rate:,.0f} decisions/s; MCTS 1-thread simulated decisions/s "
          f"are {one['decisions_per_s'] / ref_rate:.2f} of it (tree overhead)")

    print("Expectimax (2 players)")
    for d in (1, 2, 3):
        r = expectimax_speed(states[: 4 if quick else 10], d)
        results.setdefault("expectimax", []).append(r)
        print(f"  depth {d}: {r['nodes_per_s']:,.0f} nodes/s, {r['ms_per_analysis']:.1f} ms per analysis")

    games = args.games or (4 if quick else 20)
    tm = args.time_ms if args.time_ms is not None else (50 if quick else 200)
    pairings = [(f"mcts:time_ms={tm:g}", "greedy"), (f"mcts:time_ms={tm:g}", "random"),
                (f"expectimax:depth=8,time_ms={tm:g}", "greedy"), ("greedy", "random")]
    print(f"Strength (2 players, {games} seat-rotated games each, {tm:g} ms per decision)")
    for a, b in pairings:
        r = match(a, b, games, seed=500)
        results.setdefault("strength", []).append(r)
        print(f"  {a:<36} vs {b:<8} win rate {100 * r['win_rate_a']:5.1f}% over {games} games "
              f"({r['seconds']:.0f} s)")
    write_json(args.json, results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
