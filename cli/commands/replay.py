"""``gallerist replay``: one recorded arena game, move by move, checked against its
record (`ai.arena.tournament.replay`)."""
from __future__ import annotations

import argparse
from typing import Any

from gallerist.cli.commands import CliError
from gallerist.cli.commands.options import game_index

__all__ = ["add", "run"]


def add(sub: Any) -> None:
    """Add ``replay`` to the subcommands."""
    ap = sub.add_parser("replay", help="replay a recorded arena game move by move",
                        description="Replay one game of a JSON Lines file written by "
                                    "`gallerist arena`, move by move, with the board.")
    ap.set_defaults(func=run)
    ap.add_argument("file", help="a JSON Lines file written by `gallerist arena`")
    ap.add_argument("--game", type=game_index, default=0, help="game number (the record's `game`)")
    ap.add_argument("--run", default=None,
                    help="run id (the record's `run`), needed when several runs of the file "
                         "have the game")
    ap.add_argument("--boards", action="store_true", help="print the board at every turn start")


def run(args: argparse.Namespace) -> int:
    """``gallerist replay``."""
    from gallerist.ai.arena.records import RecordsError, find_game, read_records, replay
    from gallerist.engine.actions import action_to_string

    try:
        records = read_records(args.file)
    except OSError as exc:
        raise CliError(f"cannot read {args.file}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise CliError(str(exc)) from None
    try:
        rec = find_game(records, args.game, args.run, args.file)
    except RecordsError as exc:
        raise CliError(str(exc)) from None
    run = f"run {rec.run}" if rec.run else "no run id"
    print(f"game {rec.game} ({run}), seed {rec.seed}: "
          + ", ".join(f"P{i} {b}" for i, b in enumerate(rec.bots)))
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
    except ValueError as exc:   # the record does not replay: a failed check
        raise CliError(str(exc), status=1) from None
    print(final.render())
    print(f"final money {final.money()} (recorded {rec.money}): replay matches")
    return 0
