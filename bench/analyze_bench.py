"""Game analysis benchmark (`gallerist analyze`): the wall time of analysing a whole
2-player game at a time budget per position, with W worker processes; the issue's target
is <= 20 s for a game of about 150 decisions at 200 ms per position on 2 cores.

The game is a recorded one (default: tests/data/analyze_game.jsonl, greedy vs MCTS, 171
decisions), analyzed exactly as the command does it (`ai.review.analysis.analyze_game`): each
position gets a fresh bot, and a played move that the search barely visited gets a
second search on a quarter of the budget.

Usage:
    python bench/analyze_bench.py [--record FILE] [--game N] [--time-ms 200]
                                  [--workers 1,2] [--bot mcts]
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from gallerist.ai.values import Budget
from gallerist.ai.review.analysis import analyze_game
from gallerist.ai.review.games import read_game

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--record", default=str(ROOT / "tests" / "data" / "analyze_game.jsonl"))
    ap.add_argument("--game", type=int, default=None)
    ap.add_argument("--bot", default="mcts")
    ap.add_argument("--time-ms", type=float, default=200.0)
    ap.add_argument("--workers", default="2", help="worker counts to measure, e.g. 1,2")
    args = ap.parse_args(argv)
    game = read_game(args.record, args.game)
    decisions = len(game.decisions())
    load = os.getloadavg()[0]
    print(f"{args.record} game {game.game}: {decisions} decisions, {game.players} players; "
          f"{args.bot} at {args.time_ms:g} ms per position; load average {load:.1f} on "
          f"{os.cpu_count()} cores")
    print(f"{'workers':>7} {'seconds':>8} {'pos/s':>7} {'2nd searches':>13} {'ideal s':>8}")
    for workers in (int(w) for w in args.workers.split(",")):
        t0 = time.perf_counter()
        lines = list(analyze_game(game, args.bot, Budget(time_ms=args.time_ms), workers=workers))
        seconds = time.perf_counter() - t0
        second = sum(1 for x in lines if x["searches"] == 2)
        ideal = (decisions + 0.25 * second) * args.time_ms / 1000.0 / workers
        print(f"{workers:>7} {seconds:>8.1f} {len(lines) / seconds:>7.1f} "
              f"{second:>6} ({100 * second / len(lines):.0f}%) {ideal:>8.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
