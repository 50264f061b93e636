"""The hosted games' options of ``serve``: where they are kept and the caps on them (one
flag per setting of `server.play.store.GAME_SETTINGS`, where each is declared)."""
from __future__ import annotations

import argparse
import ipaddress

from gallerist.cli.commands import CliError
from gallerist.cli.commands.options import add_settings
from gallerist.server.play.store import GAME_SETTINGS, GameStore, StoreError, default_database

__all__ = ["add_games_options", "games_option_args", "open_games"]


def _ip(text: str) -> str:
    try:
        return str(ipaddress.ip_address(text.strip("[]")))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an IP address (e.g. 10.0.0.5)")


def add_games_options(p: argparse.ArgumentParser) -> None:
    """``--games-db`` and the caps on hosted games."""
    g = p.add_argument_group("hosted games (the /play page, GalleristPlay)")
    g.add_argument("--games-db", metavar="PATH|URL", default=None,
                   help="where games are kept: a SQLite file, or a PostgreSQL URL "
                        "(postgresql://user:password@host/db) shared by replicas (default "
                        f"{default_database()}; $GALLERIST_DATA moves the folder)")
    add_settings(g, GAME_SETTINGS)
    g.add_argument("--trusted-proxy", type=_ip, action="append", default=[], metavar="IP",
                   help="a balancer on another machine whose X-Real-IP header names the "
                        "client, for --games-per-client (repeatable; a proxy on this "
                        "machine is trusted already)")


def open_games(args: argparse.Namespace) -> GameStore:
    """The store the options name.

    Raises:
        CliError: the database cannot be opened (exit status 1).
    """
    where = args.games_db or default_database()
    try:
        return GameStore(where, **GAME_SETTINGS.from_args(args))
    except (StoreError, OSError) as exc:
        raise CliError(f"--games-db: {exc}", status=1) from None


def games_option_args(args: argparse.Namespace) -> list[str]:
    """The same options as command-line arguments (for replicas)."""
    out = GAME_SETTINGS.argv(GAME_SETTINGS.from_args(args))
    if args.games_db:
        out += ["--games-db", args.games_db]
    for proxy in args.trusted_proxy:
        out += ["--trusted-proxy", proxy]
    return out
