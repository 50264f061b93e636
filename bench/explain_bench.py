"""What explaining a hint costs: the default bot's search of a position at a time budget
(the hint), then the explanations of its best 5 moves (ai.explain.explain_analysis, what
the service adds to every hint), on positions of random games at 1 to 4 players, one
at a time in this process. Target: explaining adds at most 20% to a 200 ms hint.

With `--sample N FILE` it writes instead, for reading, N positions of recorded games
between ladder levels (bench/data/ladder, every player count) with the board, the
hint's best moves and their explanations (`gallerist hint --why`'s text).

Usage:
    python bench/explain_bench.py [--positions 10] [--time-ms 200] [--json FILE]
    python bench/explain_bench.py --sample 20 explanations.txt [--time-ms 200]
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from gallerist import engine
from gallerist.ai.values import Budget
from gallerist.ai.bots.spec import DEFAULT_BOT, make_bot
from gallerist.ai.explain import MAX_EXPLAINED, explain_analysis
from gallerist.ai.review.games import read_game
from gallerist.server.convert import hint_response
from gallerist.server.search import Report
from gallerist.cli.text import format_hint

LADDER = ("bench/data/ladder/ladder-solo-games.jsonl", "bench/data/ladder/ladder-games.jsonl",
          "bench/data/ladder/ladder-3p-games.jsonl", "bench/data/ladder/ladder-4p-games.jsonl")


def positions(players: int, count: int, seed: int) -> list[engine.GameState]:
    """`count` decision points of random games, 10 to 300 steps in."""
    rng = random.Random(seed)
    out: list[engine.GameState] = []
    game = 0
    while len(out) < count:
        s = engine.new_game(players, seed + game)
        game += 1
        stop = rng.randrange(10, 300)
        for _ in range(stop):
            if s.is_terminal():
                break
            if s.is_chance():
                s.apply_random_chance(rng.randrange(1 << 30))
            else:
                s.apply(rng.choice(s.legal_actions()))
        if not s.is_terminal() and not s.is_chance() and len(s.legal_actions()) > 1:
            out.append(s)
    return out


def measure(players: int, count: int, time_ms: float, seed: int) -> dict[str, float]:
    """The hint's and the explanations' milliseconds at one player count."""
    bot = make_bot(f"{DEFAULT_BOT},time_ms={time_ms:g},threads=1", seed=seed)
    search, explain, steps = [], [], []
    for state in positions(players, count, seed):
        t0 = time.perf_counter()
        analysis = bot.analyze(state)
        t1 = time.perf_counter()
        explained = explain_analysis(state, analysis, MAX_EXPLAINED)
        t2 = time.perf_counter()
        search.append((t1 - t0) * 1000.0)
        explain.append((t2 - t1) * 1000.0)
        steps.append(sum(len(e.line) for e in explained) / max(1, len(explained)))
    return {"players": players, "positions": count,
            "hint_ms_p50": statistics.median(search), "explain_ms_p50": statistics.median(explain),
            "explain_ms_max": max(explain),
            "added_percent": 100.0 * statistics.fmean(explain) / statistics.fmean(search),
            "line_steps_mean": statistics.fmean(steps)}


def sample(count: int, path: str, time_ms: float, seed: int) -> None:
    """Write `count` explained positions of recorded ladder games to `path`."""
    rng = random.Random(seed)
    bot = make_bot(f"{DEFAULT_BOT},time_ms={time_ms:g},threads=1", seed=seed)
    with open(path, "w") as out:
        for i in range(count):
            game = read_game(LADDER[i % len(LADDER)], rng.randrange(40))
            while True:
                ply = rng.randrange(len(game.actions))
                state = game.state_at(ply)
                if not state.is_chance() and len(state.legal_actions()) > 1:
                    break
            analysis = bot.analyze(state)
            report = Report(analysis=analysis, final=True, stopped=False, budget=bot.budget_for(Budget()),
                            deadline_limited=False, elapsed_ms=analysis.elapsed_ms,
                            legal_move_count=len(state.legal_actions()), bot_spec="", model="",
                            state=state)
            text = format_hint(hint_response(report, 5), limit=3, why=True, state=state)
            out.write(f"=== {i + 1}. {game.names} game {game.game}, ply {ply}, "
                      f"{state.num_players} players, P{state.current_player} to move\n")
            out.write(state.view(state.current_player).render() + "\n\n" + text + "\n\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=10, help="positions a player count")
    ap.add_argument("--time-ms", type=float, default=200.0, help="the hint's time budget")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", metavar="FILE", help="write the table as JSON")
    ap.add_argument("--sample", nargs=2, metavar=("N", "FILE"),
                    help="write N explained positions of recorded games to FILE, for reading")
    args = ap.parse_args(argv)
    if args.sample:
        sample(int(args.sample[0]), args.sample[1], args.time_ms, args.seed)
        print(f"wrote {args.sample[0]} explained positions to {args.sample[1]}")
        return 0
    rows = [measure(n, args.positions, args.time_ms, args.seed) for n in (1, 2, 3, 4)]
    print(f"{'players':>7} {'positions':>9} {'hint ms p50':>11} {'explain ms p50':>14} "
          f"{'explain ms max':>14} {'explain adds':>12} {'line steps':>10}")
    for r in rows:
        print(f"{r['players']:>7} {r['positions']:>9} {r['hint_ms_p50']:>11.1f} "
              f"{r['explain_ms_p50']:>14.2f} {r['explain_ms_max']:>14.2f} "
              f"{r['added_percent']:>11.2f}% {r['line_steps_mean']:>10.1f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"time_ms": args.time_ms, "rows": rows}, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
