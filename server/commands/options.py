"""Option groups shared by several ``gallerist`` commands, and the limits of searches run
in this process."""
from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import Any

from gallerist.ai.spec import BOTS
from gallerist.server.app import DEFAULT_PORT
from gallerist.server.limits import Limits

__all__ = ["LOCAL_LIMITS", "add_client_options", "add_command", "add_demo_game",
           "add_limits", "add_players", "add_search_options"]

#: Limits of searches in this process (`hint --local`, `play`): the user's own machine,
#: so only sanity bounds.
LOCAL_LIMITS = Limits(max_iterations=100_000_000, max_time_ms=3_600_000, max_depth=64,
                      max_threads=64, max_nodes=50_000_000, max_tt_bits=26,
                      bots=tuple(sorted(BOTS)))


def add_command(sub: Any, name: str, func: Callable[[argparse.Namespace], int], *,
                help: str, description: str) -> argparse.ArgumentParser:
    """Add the subcommand `name`, which `main` runs as `func(args)`; return its parser."""
    p = sub.add_parser(name, help=help, description=description)
    p.set_defaults(func=func)
    return p  # type: ignore[no-any-return]


def add_limits(p: argparse.ArgumentParser) -> None:
    """The limits of one request (``serve``)."""
    d = Limits()
    g = p.add_argument_group("limits of one request (above them: INVALID_ARGUMENT)")
    g.add_argument("--max-iterations", type=int, default=d.max_iterations, metavar="N",
                   help=f"most MCTS iterations (default {d.max_iterations})")
    g.add_argument("--max-time-ms", type=int, default=d.max_time_ms, metavar="MS",
                   help=f"longest search time in ms; every search stops by then "
                        f"(default {d.max_time_ms})")
    g.add_argument("--max-depth", type=int, default=d.max_depth, metavar="N",
                   help=f"deepest expectimax search in decisions (default {d.max_depth})")
    g.add_argument("--max-threads", type=int, default=d.max_threads, metavar="N",
                   help=f"most threads one search may use; each takes a search slot "
                        f"(default {d.max_threads}, at most --workers)")
    g.add_argument("--max-nodes", type=int, default=d.max_nodes, metavar="N",
                   help=f"largest MCTS tree in nodes, ~64 bytes each (default {d.max_nodes})")
    g.add_argument("--default-bot", default=d.default_bot, metavar="SPEC",
                   help=f"bot of requests that name none (default {d.default_bot!r})")


def add_client_options(p: argparse.ArgumentParser) -> None:
    """How to reach a server (``hint``)."""
    g = p.add_argument_group("connection (not with --local)")
    g.add_argument("--address", default=f"localhost:{DEFAULT_PORT}",
                   help=f"server host:port (default localhost:{DEFAULT_PORT})")
    g.add_argument("--token", default=os.environ.get("GALLERIST_TOKEN"),
                   help="the server's shared token (default: $GALLERIST_TOKEN)")
    g.add_argument("--tls", action="store_true", help="connect with TLS")
    g.add_argument("--tls-ca", metavar="PEM", help="certificate to trust (implies --tls)")
    g.add_argument("--timeout", type=float, default=0.0, metavar="S",
                   help="deadline of the call in seconds; the server returns the best it "
                        "found by then (default: the budget + 10 s)")


def add_search_options(p: argparse.ArgumentParser, bot: str = "mcts") -> None:
    """The bot, the budget and the seed of a hint (``hint``, ``demo``)."""
    g = p.add_argument_group("search")
    g.add_argument("--bot", default=bot, metavar="SPEC",
                   help=f"bot spec: mcts, expectimax, greedy or random, with options as in "
                        f"'mcts:iterations=2000,c=0.7' (default {bot!r})")
    g.add_argument("--iterations", type=int, default=0, help="MCTS iterations (0: bot default)")
    g.add_argument("--time-ms", type=int, default=0, help="search time in ms (0: no limit)")
    g.add_argument("--depth", type=int, default=0, help="expectimax depth (0: bot default)")
    g.add_argument("--seed", type=int, default=0, help="search seed (default 0)")
    g.add_argument("--moves", type=int, default=10, metavar="N",
                   help="how many ranked moves to show (default 10)")


def add_players(p: argparse.ArgumentParser, what: str) -> None:
    """Add ``--players`` (1 to 4, default 2); `what` starts its help text."""
    p.add_argument("--players", type=int, default=2, choices=(1, 2, 3, 4),
                   help=f"{what}, 1 = solo against Lacerda (default 2)")


def add_demo_game(p: argparse.ArgumentParser, players_help: str) -> None:
    """Add ``--demo-seed`` and ``--players``: the game of `server.demo_state.demo_state`."""
    p.add_argument("--demo-seed", type=int, default=1, help="seed of the demo game (default 1)")
    add_players(p, players_help)
