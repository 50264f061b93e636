"""Run the capacity matrix of bench/RESULTS.md: one `bench/loadtest.py` run per row, by
budget and by workers or replicas, and print the rows as a Markdown table with the
command that reproduces each.

Usage:
    python bench/capacity.py                     # every row, 30 s each (~15 minutes)
    python bench/capacity.py --duration 10 --only time_ms=10 --only iterations=200
    python bench/capacity.py --json capacity.json
    python bench/capacity.py --compare-balancer  # 2 workers, 2 replicas round robin, nginx

Rows run one after another, each with fresh servers. The machine is shared: other work
inflates the tails and takes cores. Each row prints the CPU that everything else on the
machine used during the run ("others CPU", 100% = one core) and the load average before
it; with ``--repeat N`` each row runs N times and the run with the least other CPU is kept.
"""
from __future__ import annotations

import argparse
import sys
from typing import Any

from figures import write_json
from gallerist.cli.load.driver import run
from loadtest import RESULTS

#: (budget mix, workers per server, replicas, SuggestMoves users, game players)
MATRIX: list[tuple[str, int, int, int, int]] = [
    (budget, workers, replicas, workers * replicas, 0)
    for budget in ("time_ms=10", "time_ms=50", "iterations=200", "iterations=1000")
    for workers, replicas in ((1, 1), (2, 1), (1, 2))
] + [
    ("time_ms=10", 2, 2, 4, 0),           # 4 searches on 2 cores: oversubscribed
    ("iterations=200", 2, 2, 4, 0),
    ("time_ms=10", 2, 1, 4, 0),           # more users than slots: RESOURCE_EXHAUSTED, retried
    ("time_ms=10*2,time_ms=50,iterations=1000", 2, 1, 2, 1),   # the default mix + a player
]

#: The rows of --compare-balancer, for each budget: one server with 2 workers, then two
#: single-slot replicas behind locust's round-robin channel and behind nginx.
#: (workers, replicas, balancer)
BALANCER_SETUPS: list[tuple[int, int, str | None]] = [(2, 1, None), (1, 2, None), (1, 2, "nginx")]
BALANCER_BUDGETS = ("iterations=200", "iterations=1000")


def command(budget: str, workers: int, replicas: int, users: int, players: int,
            duration: float, balancer: str | None = None) -> str:
    """The loadtest command line of a row."""
    return (f"python bench/loadtest.py --duration {duration:g} --workers {workers} "
            f"--replicas {replicas} --users {users} --players {players} --budgets '{budget}'"
            + (f" --balancer {balancer}" if balancer else ""))


def rows(budgets: list[str] | None, compare_balancer: bool,
         ) -> list[tuple[str, int, int, int, int, str | None]]:
    """The rows to run: the matrix, or the balancer comparison; only `budgets` if given."""
    if compare_balancer:
        return [(budget, w, r, w * r, 0, b) for budget in budgets or BALANCER_BUDGETS
                for w, r, b in BALANCER_SETUPS]
    return [(*row, None) for row in MATRIX if budgets is None or row[0] in budgets]


def setup_name(workers: int, replicas: int, balancer: str | None) -> str:
    """"2 x 1", "1 x 2 round robin", "1 x 2 nginx"."""
    if replicas == 1 and balancer is None:
        return f"{workers} x 1"
    return f"{workers} x {replicas} {balancer or 'round robin'}"


def main(argv: list[str] | None = None) -> int:
    """Run the matrix and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=float, default=30.0,
                        help="seconds per row (default 30)")
    parser.add_argument("--only", action="append", default=None, metavar="MIX",
                        help="only rows whose budget mix is this (repeatable)")
    parser.add_argument("--out", default=RESULTS, help="report directory (default bench/results)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs per row; the one with the least other CPU is kept")
    parser.add_argument("--json", metavar="FILE", help="also write every summary here")
    parser.add_argument("--compare-balancer", action="store_true",
                        help="only these rows, at iterations=200 and 1000 (or --only): one "
                             "server with 2 workers, 2 single-slot replicas behind round "
                             "robin, the same behind nginx (Debian's nginx package)")
    args = parser.parse_args(argv)
    results: list[dict[str, Any]] = []
    header = ("| budget | workers x replicas | users (+players) | hints/s | p50 ms | p95 ms | "
              "p99 ms | failures | busy retries (% of calls) | server CPU | locust CPU | "
              "others CPU | load before | command |")
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    for i, (budget, workers, replicas, users, players, balancer) in enumerate(
            rows(args.only, args.compare_balancer)):
        runs = [run(duration=args.duration, users=users, players=players, workers=workers,
                    replicas=replicas, budgets=budget, out=args.out, name=f"capacity{i}_{k}",
                    balancer=balancer, quiet=True) for k in range(max(1, args.repeat))]
        summary = min(runs, key=lambda r: r["background_cpu_percent"])
        summary["runs"] = [{"hints_per_s": r["hints_per_s"],
                            "background_cpu_percent": r["background_cpu_percent"]} for r in runs]
        results.append(summary)
        hint_rows = [v for k, v in summary["rpcs"].items() if k.startswith("SuggestMoves")]
        # one budget: one row; a mix: the worst percentiles over its budgets
        p50 = max(r["p50"] for r in hint_rows)
        p95 = max(r["p95"] for r in hint_rows)
        p99 = max(r["p99"] for r in hint_rows)
        share = 100.0 * summary["retries"] / max(1, summary["hint_requests"])
        again = command(budget, workers, replicas, users, players, args.duration, balancer)
        line = (f"| {budget} | {setup_name(workers, replicas, balancer)} | {users}"
                f"{f' (+{players})' if players else ''} | {summary['hints_per_s']:.1f} | "
                f"{p50:.0f} | {p95:.0f} | {p99:.0f} | {summary['failures']} | "
                f"{summary['retries']} ({share:.1f}%) | {summary['server_cpu_percent']:.0f}% | "
                f"{summary['locust_cpu_percent']:.0f}% | "
                f"{max(0.0, summary['background_cpu_percent']):.0f}% | "
                f"{summary['load_average_before'][0]:.2f} | "
                f"`{again}` |")
        lines.append(line)
        print(line, flush=True)
    print("\n" + "\n".join(lines))
    write_json(args.json, results, default=float)
    return 0 if all(r["failures"] == 0 for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
