"""Cost of a level's move: milliseconds per decision of each level (the calibrated numbers
of its analysis included, as the service returns them) over the decisions of games
played by the level against itself, with the mean, the 99th percentile and the
largest. Target: level 1's mean at most 5 ms; no level's move longer than its
iterations need.

Usage:
    python bench/levels_bench.py [--games 2] [--levels 1,2,...] [--out bench/data/levels_bench.json]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import time

from gallerist import engine
from gallerist.ai.bots.levels import LEVELS, LevelBot


def measure(level: int, games: int, seed: int) -> dict:
    """Time every decision of `games` games of `level` against itself."""
    times: list[float] = []
    for g in range(games):
        bots = [LevelBot(level=level, seed=seed + 10 * g + seat) for seat in range(2)]
        state = engine.new_game(2, seed=seed + g)
        rng = random.Random(seed + g)
        while not state.is_terminal():
            if state.is_chance():
                state.apply_random_chance(rng.randrange(1 << 30))
                continue
            view = state.view(state.current_player)
            t = time.perf_counter()
            action = bots[state.current_player].choose(view)
            times.append((time.perf_counter() - t) * 1000.0)
            state.apply(action)
    times.sort()
    return {"level": level, "iterations": LEVELS[level - 1].iterations, "decisions": len(times),
            "mean_ms": sum(times) / len(times), "p99_ms": times[int(0.99 * (len(times) - 1))],
            "max_ms": times[-1]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=2, help="games per level (default 2)")
    ap.add_argument("--levels", default=None, help="levels to time (default all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="write the figures as JSON here")
    args = ap.parse_args(argv)
    levels = ([int(x) for x in args.levels.split(",")] if args.levels
              else list(range(1, len(LEVELS) + 1)))
    print(f"{'level':>5} {'iterations':>10} {'decisions':>9} {'mean ms':>8} {'p99 ms':>8} {'max ms':>8}")
    rows = []
    for level in levels:
        r = measure(level, args.games, args.seed)
        rows.append(r)
        print(f"{r['level']:>5} {r['iterations']:>10} {r['decisions']:>9} {r['mean_ms']:>8.2f} "
              f"{r['p99_ms']:>8.2f} {r['max_ms']:>8.2f}", flush=True)
    print(f"load average (1 min) {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
