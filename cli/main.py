"""The ``gallerist`` command line: serve hints, ask for hints, play and create games, run
arenas, replay, record self-play, load-test, train a learned evaluation and fit the
calibration. This module builds the parser and dispatches; each command is a module of
`cli.commands`.

Run ``gallerist --help`` or ``gallerist <command> --help``. ``gallerist demo`` starts the
service on localhost, asks it for a hint for a mid-game position and prints it.
"""
from __future__ import annotations

import argparse
import importlib.metadata
import os
import re
import sys
from collections.abc import Sequence
from typing import NoReturn

from gallerist.ai.calibration.maps import CalibrationError
from gallerist.ai.net.model_file import ModelFileError
from gallerist.ai.signals import stop_on_signals
from gallerist.cli.commands.model_option import model_option
from gallerist.server.demo_state import DemoPositionError
from gallerist.server.status import ServiceError, status_of
from gallerist.cli.commands import balancer_config
from gallerist.cli.commands import calibrate, generations, netplay
from gallerist.cli.commands import (CliError, analyze, apply, arena, bots, demo, hint,
                                       label, ladder, legal, levels, loadtest, new, play, replay,
                                       review, selfplay, serve, train)

__all__ = ["CliError", "build_parser", "main", "version"]

EPILOG = """\
examples:
  gallerist demo                                  service + hint for a demo position
  gallerist serve --port 50051 --workers 4        run the service
  gallerist new --players 3 --seed 7 -o game.json
  gallerist hint game.json --bot mcts --time-ms 2000
  gallerist hint --demo --local --bot expectimax:depth=3
  gallerist bots mcts                             the options of a bot spec
  gallerist levels                                the opponent levels (level:1 ..) and their Elo
  gallerist hint --demo --local --model model.npz  the default bot with another model
  gallerist play mcts:iterations=300 greedy --seed 4
  gallerist play human level:3 --record game.jsonl   play level 3 at the terminal
  gallerist legal game.json; gallerist apply game.json move:AC -o next.json
  gallerist ladder --games-per-pair 20 --workers 2   rate fixed rungs on one Elo scale
  gallerist analyze arena-games.jsonl --game 3 --bot mcts --time-ms 200
  gallerist review analysis.jsonl --html review.html
  gallerist selfplay mcts:iterations=400 --players 2 --games 100 --workers 2 --out sp/
  gallerist label sp/ --playouts 100 --workers 2  add playout labels to the records
  gallerist train selfplay-dir --out model.npz    train a learned evaluation
  gallerist calibrate bench/data/calibration --install   refit the hint numbers' maps

exit status (every command):
  0    done
  1    the run failed: the service unreachable or refusing, an output not writable,
       a replay that does not match its record, a search that failed
  2    bad arguments or input files: an unknown option or bot, a number out of range,
       a missing or unreadable file, a file that is not what the command reads,
       a move that is not legal
  130  interrupted (Ctrl-C, SIGINT or SIGTERM); what was finished is kept
"""

#: The commands, in the order of ``gallerist --help``: the one list of them (docs/cli.md's
#: table and the README's list are made from it: ``python -m gallerist.cli.docs --write``).
COMMANDS = (serve, hint, play, bots, levels, new, legal, apply, demo, arena, ladder, replay, analyze,
            review, selfplay, netplay, generations, label, train, calibrate, loadtest,
            balancer_config)


def version() -> str:
    """The installed version of the gallerist-ai package ("unknown" if not installed)."""
    try:
        return importlib.metadata.version("gallerist-ai")
    except importlib.metadata.PackageNotFoundError:
        return "unknown (not installed)"


class _Parser(argparse.ArgumentParser):
    """argparse's parser, with its errors as one line (``error: argument --port: ...``)
    and where to read more, instead of the usage block first; its subcommands' parsers
    are of this class too."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"error: {_plainer(message)} (see {self.prog} --help)\n")
        sys.exit(2)


def _plainer(message: str) -> str:
    """argparse's message, said plainly where it misleads: a negative value such as
    ``--duration -5s`` reads as another option, so argparse says "expected one argument"."""
    found = re.fullmatch(r"argument (-[-\w]+)(?:/\S+)?: expected one argument", message)
    if found:
        argv = sys.argv[1:]
        for i, word in enumerate(argv[:-1]):
            if word == found.group(1) and re.match(r"-\.?\d", argv[i + 1]):
                return (f"argument {word}: {argv[i + 1]} is negative: {word} takes no "
                        "negative value")
    return message


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``gallerist`` and its subcommands."""
    parser = _Parser(
        prog="gallerist",
        description="Move hints for the board game The Gallerist: a gRPC service, a client "
                    "and local tools.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", metavar="command", required=True)
    for command in COMMANDS:
        command.add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line.

    Args:
        argv: the arguments (default: sys.argv[1:]).

    Returns:
        The exit status: 0 success, 1 a failed call, 2 a usage or input error.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with stop_on_signals(), model_option(args):   # SIGTERM stops a run as Ctrl-C does
            return int(args.func(args))
    except CliError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.status
    except (CalibrationError, ModelFileError, ServiceError) as exc:   # e.g. a command that made a bot
        print(f"error: {exc}", file=sys.stderr)
        status = status_of(exc)
        return status.exit if status is not None else 1
    except DemoPositionError as exc:   # `demo`, `hint --demo`: a seed without a position
        print(f"error: --demo-seed: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:   # e.g. `gallerist play ... | head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
