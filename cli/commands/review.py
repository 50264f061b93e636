"""``gallerist review ANALYSIS.jsonl --html OUT``: the review page of an analyzed game
(`ai.review.page`)."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from gallerist.ai.words import counted
from gallerist.cli.commands import CliError
from gallerist.cli.commands.options import add_command, check_output_path

__all__ = ["add", "run"]


def add(sub: Any) -> None:
    """Add ``review`` to the subcommands."""
    p = add_command(
        sub, "review", run, help="write the review page of an analyzed game",
        description="Write a self-contained HTML page (no server, no network) of a game "
                    "analyzed by `gallerist analyze`: the board at every decision, the "
                    "labelled moves, a chart of the win probabilities, the best moves.")
    p.add_argument("analysis", help="the JSON Lines written by `gallerist analyze`")
    p.add_argument("--html", default="review.html", help="the page to write (default review.html)")


def run(args: argparse.Namespace) -> int:
    """``gallerist review``."""
    from gallerist.ai.review.page import ReviewError, write_review_page

    check_output_path(args.html, "--html")
    try:
        n = write_review_page(args.analysis, args.html)
    except ReviewError as exc:   # the analysis file is not one
        raise CliError(str(exc)) from None
    except OSError as exc:   # reading the analysis (2) or writing the page (1)
        raise CliError(f"{exc.filename or args.analysis}: {exc.strerror or exc}",
                       status=1 if exc.filename == args.html else 2) from None
    print(f"wrote {args.html} ({counted(n, 'position')})", file=sys.stderr)
    return 0
