"""``gallerist apply STATE.json MOVE -o NEXT.json``: one move (by notation or id; a chance
outcome at a chance event) applied to a state, for scripts. An illegal move is a one-line
error naming it and why (exit status 1)."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from gallerist import engine
from gallerist.engine.actions import action_to_string, describe_decision, string_to_action
from gallerist.cli.commands import CliError
from gallerist.cli.commands.options import add_command, check_output_path
from gallerist.cli.commands.state_files import read_state, write_state

__all__ = ["add", "run", "parse_move"]


def add(sub: Any) -> None:
    """Add ``apply`` to the subcommands."""
    p = add_command(
        sub, "apply", run, help="apply a move to a state",
        description="Apply one move (its notation, e.g. move:AC, or its action id) to a game "
                    "state and write the next state as JSON.")
    p.add_argument("state", help="the state's JSON file (- for standard input)")
    p.add_argument("move", help="the move: its notation (see `gallerist legal`) or action id")
    p.add_argument("-o", "--output", default="-", help="file to write (default: stdout)")


def parse_move(state: engine.GameState, text: str) -> int:
    """The action id of `text` (notation or id) if it is legal in `state`.

    Raises:
        CliError: unknown or illegal here (status 2), the message naming the move.
    """
    text = text.strip()
    try:
        action = int(text) if text.lstrip("-").isdigit() else string_to_action(text)
        name = action_to_string(action)
    except engine.IllegalActionError as exc:
        raise CliError(f"move {text!r}: {exc}") from None
    legal = ([a for a, _ in state.chance_outcomes()] if state.is_chance()
             else state.legal_actions())
    if action not in legal:
        raise CliError(f"move {name} (id {action}) is illegal here: {describe_decision(state)}"
                       f" (legal: {', '.join(action_to_string(a) for a in legal) or 'none'})")
    return action


def run(args: argparse.Namespace) -> int:
    """``gallerist apply``."""
    check_output_path(args.output, "--output")
    state = read_state(args.state)
    action = parse_move(state, args.move)
    try:
        state.apply(action)
    except engine.IllegalActionError as exc:   # the legal list said yes: should not happen
        raise CliError(f"move {action_to_string(action)}: {exc}", status=1) from None
    write_state(state, args.output)
    if args.output != "-":
        print(f"applied {action_to_string(action)}; now: {describe_decision(state)}",
              file=sys.stderr)
    return 0
