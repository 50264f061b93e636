"""``gallerist levels``: the opponent levels (ai.bots.levels), each with its measured
rating on the ladder's scale and the settings it plays."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from gallerist.cli.commands.options import add_command

__all__ = ["add", "run"]


def add(sub: Any) -> None:
    """Add ``levels`` to the subcommands."""
    p = add_command(
        sub, "levels", run, help="list the opponent levels and their measured ratings",
        description="Print every level a spec can name (level:N) with its rating on the "
                    "ladder's Elo scale (random = 0; 95% interval; gallerist ladder --levels "
                    "measures them) and how it plays: the default bot's search of that many "
                    "iterations, then a pick among its best few moves (temperature on the "
                    "search's 0-1 values, never one more than max_loss below the best). "
                    "level:elo=E interpolates between the levels around E.")
    p.add_argument("--markdown", action="store_true", help="print a Markdown table")


def run(args: argparse.Namespace) -> int:
    """``gallerist levels``."""
    from gallerist.ai.bots.levels import level_ratings, levels_table

    rated = level_ratings()
    sys.stdout.write(levels_table(rated, markdown=args.markdown))
    if rated and not args.markdown:
        low, high = min(rated, key=lambda r: r.elo), max(rated, key=lambda r: r.elo)
        print(f"\nlevel:elo=E takes E from {low.elo:.0f} to {high.elo:.0f}; random is 0 Elo, "
              "the default bot at 1,000 iterations is the top level.")
    return 0
