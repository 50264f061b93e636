"""Self-play benchmark (scale target): games/s and positions/s of `gallerist
selfplay` with 1 and 2 workers, on local processes and on a local Ray cluster, with an
iteration-budgeted MCTS (deterministic work per game, so the runs compare). Target: 2
workers >= 1.7x one worker, on both backends.

Each measurement plays the same games (same seed) into a fresh directory; the Ray cluster
is started before the clock starts (with as many CPUs as workers) and warmed up with one
game, so the figures are the steady rate, not Ray's start-up. The machine's 1-minute load average at the end of
each measurement is printed with it: other work on the cores takes CPU from the 2-worker
runs first, and a load above the core count makes the speed-up meaningless.

Usage:
    python bench/selfplay_bench.py [--spec mcts:iterations=100] [--games 12] [--no-ray]
        [--out bench/data/selfplay_bench.json]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time

from gallerist.ai.selfplay.run import run_selfplay


def measure(spec: str, players: int, games: int, workers: int, backend: str, seed: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        t0, c0 = time.perf_counter(), os.times()
        run = run_selfplay(spec, players=players, games=games, out=os.path.join(tmp, "sp"),
                           workers=workers, backend=backend, seed=seed, games_per_shard=games)
        seconds, c1 = time.perf_counter() - t0, os.times()
    # CPU time of this process and its worker processes (local backend; Ray's workers are
    # not our children): the same games should cost the same CPU with 1 or 2 workers.
    cpu = None if backend == "ray" else sum(getattr(c1, k) - getattr(c0, k) for k in (
        "user", "system", "children_user", "children_system"))
    return {"backend": backend, "workers": workers, "games": run.games, "positions": run.positions,
            "seconds": seconds, "load_average_1min": os.getloadavg()[0], "cpu_seconds": cpu, "games_per_s": run.games / seconds,
            "positions_per_s": run.positions / seconds}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--spec", default="mcts:iterations=100", help="bot spec (an iteration budget)")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=12, help="games per measurement")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-ray", action="store_true", help="skip the Ray backend")
    ap.add_argument("--out", default=None, help="write the figures as JSON here")
    args = ap.parse_args(argv)
    configs = [("local", 1), ("local", 2)] + ([] if args.no_ray else [("ray", 1), ("ray", 2)])
    rows = []
    print(f"{args.spec}, {args.players} players, {args.games} games per measurement, "
          f"{os.cpu_count()} cores")
    print(f"{'backend':<8} {'workers':>7} {'games':>6} {'positions':>9} {'seconds':>8} "
          f"{'games/s':>8} {'positions/s':>11} {'load':>5} {'cpu s':>6}")
    for backend, workers in configs:
        if backend == "ray":
            import ray
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
            measure(args.spec, args.players, workers, workers, "ray", args.seed + 10_000)  # warm-up
        try:
            row = measure(args.spec, args.players, args.games, workers, backend, args.seed)
        finally:
            if backend == "ray":
                ray.shutdown()
        rows.append(row)
        cpu = row["cpu_seconds"]
        print(f"{backend:<8} {workers:>7} {row['games']:>6} {row['positions']:>9} {row['seconds']:>8.2f} "
              f"{row['games_per_s']:>8.3f} {row['positions_per_s']:>11.1f} {row['load_average_1min']:>5.1f} "
              f"{'-' if cpu is None else f'{cpu:.1f}':>6}")
    speedups = {}
    for backend in ("local", "ray"):
        one = [r for r in rows if r["backend"] == backend and r["workers"] == 1]
        two = [r for r in rows if r["backend"] == backend and r["workers"] == 2]
        if one and two:
            speedups[backend] = two[0]["games_per_s"] / one[0]["games_per_s"]
            print(f"{backend}: 2 workers {speedups[backend]:.2f}x one worker (target >= 1.7x)")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump({"spec": args.spec, "players": args.players, "games": args.games,
                       "seed": args.seed, "cores": os.cpu_count(), "machine": platform.machine(),
                       "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                       "rows": rows, "speedup_2_workers": speedups}, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
