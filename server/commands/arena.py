"""``gallerist arena``: a tournament between bot specs, with ratings (the library is
`ai.arena` and `ai.ratings`)."""
from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sys
from typing import Any

from gallerist.server.commands import CliError
from gallerist.server.commands.options import check_output_path

__all__ = ["add", "run"]


def add(sub: Any) -> None:
    """Add ``arena`` to the subcommands."""
    ap = sub.add_parser(
        "arena", help="a tournament between bots, with ratings",
        description="Play a tournament between bot specs (every seating on the same setup "
                    "seed), print win rates with 95%% intervals, a pairwise table and "
                    "Bradley-Terry ratings with bootstrap intervals; write results JSON, "
                    "the games as JSON Lines and a PNG of the ratings. A bot may be remote: "
                    "remote:HOST:PORT,bot=mcts,iterations=500.")
    ap.set_defaults(func=run)
    ap.add_argument("bots", nargs="+", help='bot specs, e.g. "mcts:iterations=1000" expectimax:depth=2 greedy random')
    ap.add_argument("--players", type=int, default=2, choices=(1, 2, 3, 4),
                    help="players per game (1: solo against Lacerda, scored by mean money)")
    ap.add_argument("--games", type=int, default=20,
                    help="games to play at least (rounded up so every seating is played)")
    ap.add_argument("--workers", type=int, default=0, help="parallel games (default: all cores)")
    ap.add_argument("--seed", type=int, default=0, help="first setup seed")
    ap.add_argument("--backend", choices=("local", "ray"), default="local",
                    help="local processes, or Ray tasks (pip install -e '.[ray]')")
    ap.add_argument("--ray-address", default=None, help="Ray cluster address (default: a local cluster)")
    ap.add_argument("--records", default="arena-games.jsonl", help="JSON Lines file the games are appended to")
    ap.add_argument("--out", default="arena-results.json", help="results as JSON")
    ap.add_argument("--png", default="arena-ratings.png", help="ratings picture")
    ap.add_argument("--bootstrap", type=int, default=200, help="bootstrap resamples for rating intervals")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    """``gallerist arena``."""
    from tqdm import tqdm
    from tqdm.contrib.logging import logging_redirect_tqdm

    from gallerist.ai.arena import format_report, plot_ratings, run_tournament

    # Every output path is checked before the first game: a bad one must not cost the games.
    for option, path in (("--out", args.out), ("--records", args.records), ("--png", args.png)):
        check_output_path(path, option)
    workers = args.workers or os.cpu_count() or 1
    bar = None if args.no_progress else tqdm(total=None, unit="game", desc="arena", file=sys.stderr)

    def progress(done: int, total: int) -> None:
        if bar is not None:
            bar.total = total
            bar.update(done - bar.n)

    # While the bar is up, the library's log lines (e.g. "interrupted: keeping 3 finished
    # games") are written above it, not glued to it.
    redirect = (logging_redirect_tqdm(loggers=[logging.getLogger("gallerist")])
                if bar is not None else contextlib.nullcontext())
    try:
        with redirect:
            t = run_tournament(args.bots, players=args.players, games=args.games,
                               workers=workers, seed=args.seed, backend=args.backend,
                               ray_address=args.ray_address, records_path=args.records,
                               progress=progress)
    except ValueError as exc:
        if bar is not None:   # the error goes on its own line, not after the bar's
            bar.close()
            bar = None
        raise CliError(str(exc)) from None
    finally:
        if bar is not None:
            bar.close()
    report = t.report(bootstrap=args.bootstrap)
    print(format_report(report))
    try:
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump(report, fh, indent=2)
        if report["games"]:
            plot_ratings(report, args.png)
    except OSError as exc:
        raise CliError(f"cannot write the results: {exc}; the games are in {args.records}",
                       status=1) from None
    print(f"\nresults: {args.out}  games: {args.records}  picture: {args.png}")
    return 130 if t.interrupted else 0
