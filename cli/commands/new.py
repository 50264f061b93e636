"""``gallerist new``: write a new game's state as JSON."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from gallerist import engine
from gallerist.cli.commands import CliError
from gallerist.cli.commands.options import (add_command, add_players, check_output_path,
                                               int_range, seed_value)

__all__ = ["add", "run"]


def add(sub: Any) -> None:
    """Add ``new`` to the subcommands."""
    p = add_command(
        sub, "new", run, help="write a new game's state as JSON",
        description="Write the state of a new game (after setup) as JSON, the format 'gallerist "
                    "hint' reads and the service's GameState in protobuf's JSON mapping.")
    add_players(p, "number of players")
    p.add_argument("--seed", type=seed_value, default=0, help="setup seed, 0..2^63-1 (default 0)")
    p.add_argument("-o", "--output", default="-", help="file to write (default: stdout)")
    p.add_argument("--indent", type=int_range(0, 16), default=None, metavar="N",
                   help="indent the JSON by N spaces (default: one line)")


def run(args: argparse.Namespace) -> int:
    """``gallerist new``."""
    check_output_path(args.output, "--output")
    try:
        state = engine.new_game(num_players=args.players, seed=args.seed)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    text = state.to_json()
    if args.indent is not None:
        text = json.dumps(json.loads(text), indent=args.indent, sort_keys=True)
    if args.output == "-":
        sys.stdout.write(text + "\n")
    else:
        try:
            Path(args.output).write_text(text + "\n")
        except OSError as exc:
            raise CliError(f"cannot write {args.output}: {exc.strerror or exc}",
                           status=1) from None
        print(f"wrote a {args.players}-player game (seed {args.seed}) to {args.output}",
              file=sys.stderr)
    return 0
