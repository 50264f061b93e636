"""``gallerist demo``: the service started in this process, one hint for a demo position."""
from __future__ import annotations

import argparse
import logging
import time
from typing import Any

import grpc

from gallerist.client import HintClient
from gallerist.ai.bots.spec import DEFAULT_BOT
from gallerist.server.app import create_server
from gallerist.cli.commands.hint import default_timeout, request, rpc_failed, title
from gallerist.cli.commands.model_option import add_model_option
from gallerist.cli.commands.options import (add_command, add_demo_game, add_notation_option,
                                               add_search_options)
from gallerist.server.demo_state import demo_state
from gallerist.cli.text import format_hint

__all__ = ["add", "run"]


def add(sub: Any) -> None:
    """Add ``demo`` to the subcommands."""
    p = add_command(
        sub, "demo", run,
        help="start the service on localhost and show a hint for a demo position",
        description="Start the service in this process on a free localhost port, ask it for a "
                    "hint for a generated mid-game position, print the board and the hint, and "
                    "stop the service. Takes a second or two.")
    add_demo_game(p, players_help="players")
    p.add_argument("--no-board", action="store_true", help="do not print the board")
    add_notation_option(p, "the table gives each move's plan in notation")
    add_search_options(p, bot=f"{DEFAULT_BOT},iterations=3000")
    add_model_option(p)


def run(args: argparse.Namespace) -> int:
    """``gallerist demo``."""
    logging.basicConfig(level=logging.WARNING)
    t0 = time.perf_counter()
    state = demo_state(seed=args.demo_seed, players=args.players)
    server, port = create_server("localhost:0", workers=1)
    server.start()
    address = f"localhost:{port}"
    try:
        print(f"GalleristAI service started on {address} (in this process)")
        if not args.no_board:
            print()
            print(state.render())
            print()
        hint = request(args, state)
        with HintClient(address) as client:
            t1 = time.perf_counter()
            try:
                response = client.suggest(hint, timeout=default_timeout(args))
            except grpc.RpcError as exc:
                return rpc_failed(exc, address)
            rtt = (time.perf_counter() - t1) * 1000.0
        print(format_hint(response, title=title(state), limit=args.moves,
                          notation=args.notation, state=state))
        print(f"\nSuggestMoves round trip {rtt:.0f} ms; whole demo "
              f"{time.perf_counter() - t0:.1f} s. Try: gallerist serve, then "
              "gallerist hint --demo")
    finally:
        server.stop(grace=1.0).wait()
    return 0
