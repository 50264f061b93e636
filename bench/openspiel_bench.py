"""Our MCTS against OpenSpiel's MCTS on The Gallerist, side by side in one process.

Usage:
    python bench/openspiel_bench.py --quick     # about a minute
    python bench/openspiel_bench.py             # a few minutes
    python bench/openspiel_bench.py --games 20 --time-ms 100 --json out.json

Needs the optional extra (``pip install -e ".[openspiel]"``).

1. Speed at equal settings, on the same positions: every search runs the same number of
   simulations from each position, each simulation ending in one uniformly random
   rollout to the end of the game, backing up the terminal returns (our MCTS with
   ``rollout=random, cutoff=0, margin_weight=0``; OpenSpiel's with its random-rollout
   evaluator, ``solve`` off), with the same exploration constant and one thread; each
   search is timed as the fastest of ``--repeat`` identical runs (same seeds). Reported:
   iterations per second of our ``MctsBot.analyze`` (its ``elapsed_ms``: preparing the
   tree, searching, root statistics), of OpenSpiel's C++ ``MCTSBot.mcts_search`` and of
   its Python ``MCTSBot.mcts_search`` (the call alone) on the game registered in
   ``ai.interop.openspiel_game``, and the ratios.
2. Strength at equal wall time: seat-rotated arena games (``ai.arena.tournament.run_tournament``,
   paired seatings on the same setup seeds) between ``mcts:time_ms=T`` and
   ``openspiel-mcts:time_ms=T`` (OpenSpiel's C++ search with ``max_wall_clock_time``),
   each at its defaults otherwise. Reported: win rates with game counts and 95% Wilson
   intervals.

It is a script, not a test: nothing fails on slow numbers.
"""
from __future__ import annotations

import argparse
import os
import platform
from typing import Any, Callable

from gallerist import engine
from gallerist.ai.arena.tournament import format_report, run_tournament
from gallerist.ai.values import Budget
from gallerist.ai.bots.mcts import MctsBot
from gallerist.ai.interop.openspiel_bots import OpenSpielMctsBot
from figures import write_json
from positions import sample_states


def _timed(search: Callable[[], tuple[int, float]], repeat: int) -> tuple[int, float]:
    """(iterations, seconds) of the fastest of `repeat` identical runs (same seeds, so
    the same work): the shared machine's hiccups only ever slow a run down."""
    runs = [search() for _ in range(repeat)]
    return min(runs, key=lambda r: r[1])


def speed(states: list[engine.GameState], simulations: int, c: float, python_states: int,
          python_simulations: int, seed: int, repeat: int) -> dict[str, Any]:
    """Iterations per second of the three searches on the same positions; each search
    is timed from its start to its result (bots are built before the clock starts)."""
    def ours(s: engine.GameState) -> tuple[int, float]:
        bot = MctsBot(seed=seed, rollout="random", cutoff=0, margin_weight=0.0, reuse=False, c=c)
        a = bot.analyze(s, Budget(iterations=simulations))    # elapsed_ms: prepare, search, root stats
        return a.iterations, a.elapsed_ms / 1000.0

    def openspiel(s: engine.GameState, impl: str, sims: int) -> tuple[int, float]:
        bot = OpenSpielMctsBot(seed=seed, impl=impl, uct_c=c, solve=False)
        root, _, ms = bot.search(s, Budget(iterations=sims))   # ms: mcts_search alone
        return int(root.explore_count), ms / 1000.0

    rows = []
    # "ours_py": our search on the positions OpenSpiel's Python MCTS also ran on, so
    # that each ratio compares the same positions.
    totals = {"ours": [0.0, 0.0], "cpp": [0.0, 0.0], "python": [0.0, 0.0], "ours_py": [0.0, 0.0]}
    for i, s in enumerate(states):
        row: dict[str, Any] = {"state": i, "decisions_played": len(s.history), "legal": len(s.legal_actions())}
        runs = {"ours": _timed(lambda: ours(s), repeat),
                "cpp": _timed(lambda: openspiel(s, "cpp", simulations), repeat)}
        if i < python_states:
            runs["python"] = _timed(lambda: openspiel(s, "python", python_simulations), repeat)
            runs["ours_py"] = runs["ours"]
        for key, (n, dt) in runs.items():
            row[key] = n / dt
            totals[key][0] += n
            totals[key][1] += dt
        rows.append(row)
        print(f"  state {i}: {row['decisions_played']:>3} actions played, {row['legal']:>2} legal | "
              f"ours {row['ours']:>9,.0f} it/s | OpenSpiel C++ {row['cpp']:>6,.0f} it/s"
              + (f" | OpenSpiel Python {row['python']:>5,.1f} it/s" if "python" in row else ""), flush=True)
    rate = {k: (n / t if t > 0 else 0.0) for k, (n, t) in totals.items()}
    return {"simulations": simulations, "python_simulations": python_simulations, "c": c, "repeat": repeat,
            "rows": rows, "iterations_per_s": rate,
            "ratio_vs_cpp": rate["ours"] / rate["cpp"] if rate["cpp"] else None,
            "ratio_vs_python": rate["ours_py"] / rate["python"] if rate["python"] else None}


def strength(players: int, time_ms: float, games: int, workers: int, seed: int) -> dict[str, Any]:
    """Seat-rotated arena games at equal time per move."""
    bots = [f"mcts:time_ms={time_ms:g}", f"openspiel-mcts:time_ms={time_ms:g}"]

    def progress(n: int, total: int) -> None:
        print(f"  game {n}/{total}", flush=True)

    t = run_tournament(bots, players=players, games=games, workers=workers, seed=seed, progress=progress)
    report = t.report(bootstrap=100)
    print(format_report(report))
    return report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small counts (about a minute)")
    ap.add_argument("--players", type=int, default=2, help="players (2-4)")
    ap.add_argument("--states", type=int, default=None, help="positions for the speed table")
    ap.add_argument("--simulations", type=int, default=None, help="simulations per search (ours, OpenSpiel C++)")
    ap.add_argument("--python-states", type=int, default=None, help="positions for OpenSpiel's Python MCTS")
    ap.add_argument("--python-simulations", type=int, default=None, help="its simulations per search")
    ap.add_argument("--repeat", type=int, default=3, help="runs per search in the speed table (fastest kept)")
    ap.add_argument("--c", type=float, default=1.0, help="exploration constant of both searches (speed table)")
    ap.add_argument("--time-ms", type=float, default=None, help="time per move in the strength games")
    ap.add_argument("--games", type=int, default=None, help="strength games (rounded up to whole seatings)")
    ap.add_argument("--workers", type=int, default=1, help="processes for the strength games")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", help="also write every number to this JSON file")
    args = ap.parse_args(argv)
    q = args.quick
    n_states = args.states or (3 if q else 8)
    sims = args.simulations or (200 if q else 1000)
    py_states = args.python_states if args.python_states is not None else (2 if q else 4)
    py_sims = args.python_simulations or (50 if q else 200)
    time_ms = args.time_ms or (50.0 if q else 100.0)
    games = args.games or (2 if q else 8)

    import pyspiel
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores "
          f"(shared, noisy), Python {platform.python_version()}, OpenSpiel "
          f"{getattr(pyspiel, '__version__', '?')}")
    print(f"\n1. speed at equal settings: {args.players} players, {n_states} positions, {sims} simulations "
          f"(OpenSpiel Python: {py_states} positions x {py_sims}), random rollouts to the end, c={args.c:g}, "
          f"fastest of {max(1, args.repeat)} identical runs")
    states = sample_states(args.players, n_states, args.seed, plies=(10, 220), min_legal=2)
    sp = speed(states, sims, args.c, py_states, py_sims, args.seed, max(1, args.repeat))
    r = sp["iterations_per_s"]
    print(f"  total: ours {r['ours']:,.0f} it/s | OpenSpiel C++ {r['cpp']:,.0f} it/s"
          + (f" | OpenSpiel Python {r['python']:,.1f} it/s" if r["python"] else ""))
    print(f"  ratio ours / OpenSpiel C++ MCTS: {sp['ratio_vs_cpp']:.0f}x"
          + (f"; ours / OpenSpiel Python MCTS: {sp['ratio_vs_python']:.0f}x (on its {py_states} positions: "
             f"ours {r['ours_py']:,.0f} it/s)" if sp["ratio_vs_python"] else ""))
    print(f"\n2. strength at equal wall time: {time_ms:g} ms per move, {args.players} players, "
          f"seat-rotated games (>= {games})")
    st = strength(args.players, time_ms, games, args.workers, args.seed)
    write_json(args.json, {"speed": sp, "strength": st}, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
