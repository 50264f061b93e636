"""``gallerist bots [BOT...]``: the bots and every option of each, with its default,
range and meaning, read from the bots' declarations (ai.bots.options; docs/bots.md
holds the same tables)."""
from __future__ import annotations

import argparse
import difflib
import sys
from typing import Any

from gallerist.ai.bots.docs import listing, markdown
from gallerist.ai.bots.spec import BOTS
from gallerist.cli.commands import CliError
from gallerist.cli.commands.options import add_command

__all__ = ["add", "run"]


def add(sub: Any) -> None:
    """Add ``bots`` to the subcommands."""
    p = add_command(
        sub, "bots", run, help="list the bots and their options",
        description="Print every bot a spec can name and each of its options: its default, "
                    "the values allowed and what it does, where it applies and the "
                    "service's cap on it. A spec sets options as in "
                    "'mcts:iterations=2000,c=0.7'.")
    p.add_argument("names", nargs="*", metavar="BOT",
                   help=f"only these bots (default: all of {', '.join(BOTS)})")
    p.add_argument("--markdown", action="store_true",
                   help="print Markdown tables, as in docs/bots.md")


def run(args: argparse.Namespace) -> int:
    """``gallerist bots``."""
    for name in args.names:
        if name not in BOTS:
            close = difflib.get_close_matches(name, BOTS, n=1)
            guess = f"; did you mean {close[0]!r}?" if close else ""
            raise CliError(f"unknown bot {name!r} (known: {', '.join(BOTS)}){guess}")
    bots = {name: BOTS[name] for name in args.names or BOTS}
    sys.stdout.write(markdown(bots) if args.markdown else listing(bots))
    return 0
