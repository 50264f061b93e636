"""``gallerist legal STATE.json``: the moves of the player to decide (or the outcomes of a
chance event, with their probabilities), by notation and id, and in words, for scripts."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from gallerist.engine.actions import action_to_string, describe_decision
from gallerist import engine
from gallerist.cli.commands.options import add_command, add_notation_option
from gallerist.cli.commands.state_files import read_state

__all__ = ["add", "run", "legal_moves"]


def add(sub: Any) -> None:
    """Add ``legal`` to the subcommands."""
    p = add_command(
        sub, "legal", run, help="list the legal moves of a state",
        description="Print the legal moves of a game state (the JSON of `gallerist new` or "
                    "`gallerist apply`): one line per move, its notation, id and what it does "
                    "in words (tab-separated); at a chance event, the outcomes with their "
                    "probabilities.")
    p.add_argument("state", help="the state's JSON file (- for standard input)")
    p.add_argument("--json", action="store_true",
                   help='print JSON: {"player", "decision", "chance", "moves": [{"action", '
                        '"move", "description", "probability"?}]}')
    add_notation_option(p, "each line is the notation and id alone (the words left out)")


def legal_moves(state: Any) -> dict[str, Any]:
    """The moves of `state` as the JSON of ``legal --json``."""
    words = engine.describe_moves(state)
    if state.is_chance():
        moves = [{"action": a, "move": action_to_string(a), "description": words[a],
                  "probability": p} for a, p in state.chance_outcomes()]
    else:
        moves = [{"action": a, "move": action_to_string(a), "description": words[a]}
                 for a in state.legal_actions()]
    return {"player": state.current_player, "decision": describe_decision(state),
            "chance": state.is_chance(), "terminal": state.is_terminal(), "moves": moves}


def run(args: argparse.Namespace) -> int:
    """``gallerist legal``."""
    info = legal_moves(read_state(args.state))
    if args.json:
        print(json.dumps(info))
        return 0
    print(f"# {info['decision']}", file=sys.stderr)
    for m in info["moves"]:
        extra = f"\t{m['probability']:.4f}" if "probability" in m else ""
        words = "" if args.notation else f"\t{m['description']}"
        print(f"{m['move']}\t{m['action']}{extra}{words}")
    return 0
