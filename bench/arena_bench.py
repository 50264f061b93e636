"""Arena benchmark: games per second of random-vs-random and greedy-vs-greedy
tournaments with 1 and 2 workers, and on the local Ray backend (its overhead per game).

Usage:
    python bench/arena_bench.py [--games N] [--no-ray]
"""
from __future__ import annotations

import argparse

from gallerist.ai.arena.tournament import run_tournament


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=200, help="games per measurement")
    ap.add_argument("--no-ray", action="store_true", help="skip the Ray backend")
    args = ap.parse_args(argv)
    if not args.no_ray:
        import ray
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        run_tournament(["random"], players=2, games=4, workers=2, seed=0, backend="ray")  # warm-up
    print(f"{'pairing':<18} {'backend':<8} {'workers':>7} {'games':>6} {'seconds':>8} {'games/s':>9}")
    for pair in (["random"], ["greedy"]):
        bots = pair      # one bot playing itself
        rates = {}
        for backend, workers in (("local", 1), ("local", 2)) + (() if args.no_ray else (("ray", 2),)):
            t = run_tournament(bots, players=2, games=args.games, workers=workers, seed=1, backend=backend)
            rate = len(t.records) / t.seconds
            rates[(backend, workers)] = rate
            print(f"{pair[0] + ' vs ' + pair[0]:<18} {backend:<8} {workers:>7} {len(t.records):>6} "
                  f"{t.seconds:>8.2f} {rate:>9.1f}")
        if ("ray", 2) in rates:
            overhead_ms = 1000 * (2 / rates[("ray", 2)] - 2 / rates[("local", 2)])
            print(f"  Ray overhead per game (2 workers, cluster already running): {overhead_ms:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
