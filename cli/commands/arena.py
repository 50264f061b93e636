"""``gallerist arena``: a tournament between bot specs, with ratings (the library is
`ai.arena.tournament` and `ai.arena.ratings`)."""
from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sys
from collections.abc import Callable
from typing import Any

from gallerist.ai.words import counted
from gallerist.cli.commands import CliError
from gallerist.cli.commands.options import (MAX_GAMES, MAX_WORKERS, check_output_path,
                                               game_count, seed_value, worker_count)

__all__ = ["add", "run"]


def add(sub: Any) -> None:
    """Add ``arena`` to the subcommands."""
    ap = sub.add_parser(
        "arena", help="a tournament between bots, with ratings",
        description="Play a tournament between bot specs (every seating on the same setup "
                    "seed), print win rates with 95% intervals, a pairwise table and "
                    "Bradley-Terry ratings with profile-likelihood intervals; write results "
                    "JSON, the games as JSON Lines and a PNG of the ratings. A bot may be "
                    "remote: remote:HOST:PORT,bot=mcts,iterations=500. An arena stopped early "
                    "(Ctrl-C, a failed game) can be finished with --resume or summarised "
                    "with --summarise from its records.")
    ap.set_defaults(func=run)
    ap.add_argument("bots", nargs="*",
                    help='bot specs, e.g. "mcts:iterations=1000" expectimax:depth=2 greedy random')
    ap.add_argument("--players", type=int, default=None, choices=(1, 2, 3, 4),
                    help="players per game (1: solo against Lacerda, scored by mean money; default 2)")
    ap.add_argument("--games", type=game_count, default=None,
                    help=f"games to play at least (rounded up so every seating is played; "
                         f"1..{MAX_GAMES:,}; default 20)")
    ap.add_argument("--workers", type=worker_count, default=None,
                    help=f"parallel games, 1..{MAX_WORKERS} (default: all cores)")
    ap.add_argument("--seed", type=seed_value, default=None,
                    help="first setup seed, 0..2^63-1 (default 0)")
    ap.add_argument("--backend", choices=("local", "ray"), default="local",
                    help="local processes, or Ray tasks (pip install -e '.[ray]')")
    ap.add_argument("--ray-address", default=None, help="Ray cluster address (default: a local cluster)")
    ap.add_argument("--records", default=None,
                    help="JSON Lines file the games are appended to (default arena-games.jsonl; "
                         "a file of another arena is refused)")
    again = ap.add_mutually_exclusive_group()
    again.add_argument("--resume", metavar="RECORDS",
                       help="finish the arena of a records file: play only its missing games "
                            "(same schedule, same seeds), append them, summarise all")
    again.add_argument("--summarise", "--summarize", metavar="RECORDS",
                       help="summarise the arena of a records file without playing")
    ap.add_argument("--run", default=None,
                    help="with --resume/--summarise: the run id (default: the file's last run)")
    ap.add_argument("--out", default="arena-results.json", help="results as JSON")
    ap.add_argument("--png", default="arena-ratings.png", help="ratings picture")
    ap.add_argument("--html", default=None, metavar="FILE",
                    help="also write the report as an HTML page, each game linked to its "
                         "review page (REVIEWS/game-N.html) when one exists")
    ap.add_argument("--reviews", default=None, metavar="DIR",
                    help="folder of the games' review pages (default: the --html page's folder)")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")


#: The schedule's options and their defaults (taken from the records with --resume).
SCHEDULE_DEFAULTS = {"players": 2, "games": 20, "seed": 0}
#: Where a new arena's games go by default.
DEFAULT_RECORDS = "arena-games.jsonl"


def _check_arguments(args: argparse.Namespace) -> str | None:
    """Check the combination of arguments and fill in the schedule's defaults; return
    the records file to resume or summarise (None: a new arena)."""
    again = args.resume or args.summarise
    option = "--resume" if args.resume else "--summarise"
    if again:
        given = [f"--{k}" for k in (*SCHEDULE_DEFAULTS, "records") if getattr(args, k) is not None]
        if args.bots or given:
            what = ", ".join((["bot specs"] if args.bots else []) + given)
            raise CliError(f"{option} takes the bots, the schedule and the records from "
                           f"{again}; do not give {what}")
        if not os.path.isfile(again):
            raise CliError(f"{option} {again}: no such file (give the records file of an arena)")
        return str(again)
    if args.run is not None:
        raise CliError("--run goes with --resume or --summarise")
    if not args.bots:
        raise CliError("give the bot specs to play (or --resume/--summarise RECORDS)")
    from gallerist.ai.arena.tournament import check_specs
    try:   # before any file is looked at: a bad spec is the error to report
        check_specs(args.bots)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    for key, value in {**SCHEDULE_DEFAULTS, "records": DEFAULT_RECORDS}.items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    return None


def _tournament(args: argparse.Namespace, again: str | None, workers: int,
                progress: Callable[[int, int], None]) -> Any:
    """Play (or resume, or only read) the tournament the arguments ask for."""
    from gallerist.ai.arena.tournament import resume_tournament, run_tournament, summarise_records

    if args.summarise:
        return summarise_records(args.summarise, args.run)
    if again:
        return resume_tournament(again, run=args.run, workers=workers, backend=args.backend,
                                 ray_address=args.ray_address, progress=progress)
    return run_tournament(args.bots, players=args.players, games=args.games,
                          workers=workers, seed=args.seed, backend=args.backend,
                          ray_address=args.ray_address, records_path=args.records,
                          progress=progress)


def run(args: argparse.Namespace) -> int:
    """``gallerist arena``."""
    from tqdm import tqdm
    from tqdm.contrib.logging import logging_redirect_tqdm

    from gallerist.ai.arena.tournament import format_report, plot_ratings
    from gallerist.ai.arena.report import preload

    again = _check_arguments(args)
    records = again or args.records
    # Every output path is checked before the first game: a bad one must not cost the games.
    outputs = [("--out", args.out), ("--png", args.png)]
    if args.html:
        outputs.append(("--html", args.html))
    if not args.summarise:
        outputs.append(("--resume" if args.resume else "--records", records))
    for option, path in outputs:
        check_output_path(path, option)
    workers = args.workers or os.cpu_count() or 1
    preload()
    show = not (args.no_progress or args.summarise)
    # The bar starts with the library's first report, once the records and the bots were
    # checked: an error before the first game is one line, not glued to a bar.
    bars: list[Any] = []

    def progress(done: int, total: int) -> None:
        if not show:
            return
        if not bars:
            bars.append(tqdm(total=total, initial=done, unit="game", desc="arena",
                             file=sys.stderr))
        bars[0].total = total
        bars[0].update(done - bars[0].n)

    # While the bar is up, the library's log lines (e.g. "interrupted: keeping 3 finished
    # games") are written above it, not glued to it.
    redirect = (logging_redirect_tqdm(loggers=[logging.getLogger("gallerist")])
                if show else contextlib.nullcontext())
    try:
        with redirect:
            t = _tournament(args, again, workers, progress)
    except (ValueError, OSError, ConnectionError) as exc:
        # a service that does not answer is a failure (1), anything else bad input (2)
        raise CliError(str(exc), status=1 if isinstance(exc, ConnectionError) else 2) from None
    finally:
        for bar in bars:   # closed first: the error goes on its own line
            bar.close()
    report = t.report()
    print(format_report(report))
    try:
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump(report, fh, indent=2)
        if report["games"]:
            plot_ratings(report, args.png)
    except OSError as exc:
        raise CliError(f"cannot write the results: {exc}; the games are in {records}",
                       status=1) from None
    if args.html:
        from gallerist.ai.arena.html import write_html_report
        try:
            linked = write_html_report(report, t.records, args.html, records, png=args.png,
                                       reviews=args.reviews)
        except OSError as exc:
            raise CliError(f"cannot write {args.html}: {exc.strerror or exc}", status=1) from None
        print(f"HTML report: {args.html} ({counted(linked, 'game')} linked to a review page)")
    print(f"\nresults: {args.out}  games: {records}  picture: {args.png}")
    if t.error:
        raise CliError(f"{t.error}; the finished games ({len(t.records)}) are summarised above; "
                       f"finish the arena with: gallerist arena --resume {records}", status=1)
    if t.interrupted and not args.summarise:
        print(f"interrupted: {counted(len(t.records), 'finished game')} kept; continue "
              f"with: gallerist arena --resume {records}", file=sys.stderr)
        return 130
    return 0
