"""``gallerist replay``: one recorded arena game, move by move, checked against its
record (`ai.arena.replay`)."""
from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["add", "run"]


def add(sub: Any) -> None:
    """Add ``replay`` to the subcommands."""
    ap = sub.add_parser("replay", help="replay a recorded arena game move by move",
                        description="Replay one game of a JSON Lines file written by "
                                    "`gallerist arena`, move by move, with the board.")
    ap.set_defaults(func=run)
    ap.add_argument("file", help="a JSON Lines file written by `gallerist arena`")
    ap.add_argument("--game", type=int, default=0, help="game number (the record's `game`)")
    ap.add_argument("--boards", action="store_true", help="print the board at every turn start")


def run(args: argparse.Namespace) -> int:
    """``gallerist replay``."""
    from gallerist.ai.arena import read_records, replay
    from gallerist.engine.actions import action_to_string

    try:
        records = read_records(args.file)
    except (OSError, ValueError) as exc:
        print(f"gallerist replay: {exc}", file=sys.stderr)
        return 2
    rec = next((r for r in records if r.game == args.game), None)
    if rec is None:
        print(f"gallerist replay: no game {args.game} in {args.file} "
              f"(games: {', '.join(str(r.game) for r in records[:20])}...)", file=sys.stderr)
        return 2
    print(f"game {rec.game}, seed {rec.seed}: " + ", ".join(f"P{i} {b}" for i, b in enumerate(rec.bots)))
    last_turn = [-1]

    def show(state, action):  # type: ignore[no-untyped-def]
        turn = state.turn_player
        if args.boards and state.current_player == turn and state._raw()["turn_count"] != last_turn[0]:
            last_turn[0] = state._raw()["turn_count"]
            print(state.render())
        who = "chance" if state.is_chance() else f"P{state.current_player}"
        print(f"  {who:>6}: {action_to_string(action)}")

    try:
        final = replay(rec, on_action=show)
    except ValueError as exc:
        print(f"gallerist replay: {exc}", file=sys.stderr)
        return 1
    print(final.render())
    print(f"final money {final.money()} (recorded {rec.money}): replay matches")
    return 0
