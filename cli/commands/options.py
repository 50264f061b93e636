"""Option groups shared by several ``gallerist`` commands, and the limits of searches run
in this process."""
from __future__ import annotations

import argparse
import ast
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gallerist.ai.bots.spec import BOTS, DEFAULT_BOT
from gallerist.ai.settings.setting import Setting, Settings
from gallerist.server.app import DEFAULT_PORT
from gallerist.cli.commands import CliError
from gallerist.server.limits import LIMIT_SETTINGS, MAX_SEED, MAX_UINT32, Limits

__all__ = ["DEFAULT_SEARCH_MS", "LOCAL_LIMITS", "MAX_GAMES", "MAX_LISTED_MOVES", "MAX_SEED",
           "MAX_UINT32", "MAX_WORKERS", "UNTIMED_BOTS", "add_client_options", "add_command",
           "add_demo_game", "add_limits", "add_notation_option", "add_players",
           "add_search_options", "add_settings", "check_output_path", "game_count",
           "game_index", "int_range", "port", "seconds", "seed_value", "setting_type",
           "timed_spec", "worker_count"]


def int_range(lo: int, hi: int, why: str = "") -> Callable[[str], int]:
    """An argparse ``type``: an integer in lo..hi. Anything else is a usage error naming the
    option (argparse's "argument --time-ms: ...", exit status 2); `why`, when given, is
    added to the message of a value outside the range (e.g. what the bound is for)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{value} is outside {lo}..{hi}"
                                             + (f" ({why})" if why else ""))
        return value

    parse.__name__ = "int"   # argparse names the type in some messages
    return parse


# The numbers of the commands' options, checked by argparse before any work (a bad one is a
# usage error naming the option, exit status 2): one validator per kind of number.

#: Most worker processes (or threads) one command runs at once.
MAX_WORKERS = 256
#: Most games one `arena` or `selfplay` run may ask for (their schedule is made up front).
MAX_GAMES = 1_000_000
#: Most ranked moves a hint lists.
MAX_LISTED_MOVES = 1000

#: A seed: 0..2^63-1, the seeds the service takes.
seed_value = int_range(0, MAX_SEED)
#: A number of worker processes or threads: 1..MAX_WORKERS.
worker_count = int_range(1, MAX_WORKERS)
#: A number of games of a run: 1..MAX_GAMES.
game_count = int_range(1, MAX_GAMES, f"a run plays at most {MAX_GAMES:,} games; play more "
                                     "in several runs with other seeds")
#: A game's number in a records file: 0 or more.
game_index = int_range(0, MAX_SEED)


def float_range(low: float, high: float, unit: str = "", *,
                above: bool = False) -> Callable[[str], float]:
    """An argparse ``type``: a number in low..high (above: low itself excluded); `unit`
    names it in messages ("hours")."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number"
                                             + (f" of {unit}" if unit else "")) from None
        if not (low < value <= high if above else low <= value <= high):   # refuses nan
            span = f"({low:g}, {high:g}]" if above else f"{low:g}..{high:g}"
            raise argparse.ArgumentTypeError(f"{text}{' ' + unit if unit else ''} is outside {span}")
        return value
    return parse


def key_value(text: str) -> tuple[str, Any]:
    """An argparse ``type``: KEY=VALUE, the value a Python literal when it reads as one
    (``epochs=20``, ``hidden=64,64``), else the text."""
    key, eq, value = text.partition("=")
    if not eq or not key.strip():
        raise argparse.ArgumentTypeError(f"{text!r}: expected KEY=VALUE, e.g. epochs=20")
    try:
        parsed: Any = ast.literal_eval(value)
    except (ValueError, SyntaxError):
        parsed = value
    return key.strip(), parsed


def seconds(text: str) -> float:
    """An argparse ``type``: a duration in seconds, 0 or more (``--grace``, ``--timeout``)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 <= value <= 86_400 * 365:   # also refuses nan and inf
        raise argparse.ArgumentTypeError(f"{text} is outside 0..31536000 seconds")
    return value


def port(text: str) -> int:
    """An argparse ``type``: a TCP port, 0..65535 (0: any free port)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(
            f"port {value} is outside 0..65535 (0 picks a free port)")
    return value


def check_output_path(path: str, option: str) -> None:
    """Check that `path` can be written, before any work is done.

    Args:
        path: the file to write ("-" is stdout and always fine).
        option: the option that named it, for the message (e.g. "--out").

    Raises:
        CliError: the path is a folder, its folder does not exist or is not writable.
    """
    if path == "-":
        return
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise CliError(f"{option} {path}: is a folder; give a file name")
    if not folder.is_dir():
        raise CliError(f"{option} {path}: folder {str(folder)!r} does not exist; create it "
                       f"or give another path")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise CliError(f"{option} {path}: folder {str(folder)!r} is not writable; give "
                       f"another path")
    if target.exists() and not os.access(target, os.W_OK):
        raise CliError(f"{option} {path}: file is not writable; give another path")

#: Limits of searches in this process (`hint --local`, `play`): the user's own machine,
#: so only sanity bounds.
LOCAL_LIMITS = Limits(max_iterations=100_000_000, max_time_ms=3_600_000, max_depth=64,
                      max_threads=64, max_nodes=50_000_000, max_tt_bits=26,
                      max_playouts=100_000,
                      bots=tuple(sorted(BOTS)), local=True)


#: The time budget, ms, of a search in this process that names none and whose work has
#: no other bound that ends it soon (`UNTIMED_BOTS`): the server's default limit.
DEFAULT_SEARCH_MS = Limits().max_time_ms

#: Bots whose search without a time budget can run for hours: expectimax's work grows
#: exponentially with its depth (MCTS stops at its iteration budget or stopping rule).
UNTIMED_BOTS = ("expectimax",)


def timed_spec(spec: str, who: str, change: str = "time_ms= in the spec") -> tuple[str, str | None]:
    """`spec` with ``time_ms=DEFAULT_SEARCH_MS`` added when it names a bot of
    `UNTIMED_BOTS` without ``time_ms``, and the note that says so (else None).

    Args:
        spec: a bot spec already checked by `check_spec`.
        who: who searches, for the note ("seat 0 (expectimax:depth=50)").
        change: how the user gives a time budget, for the note.
    """
    name, _, rest = spec.strip().partition(":")
    keys = {item.partition("=")[0].strip() for item in rest.split(",") if item.strip()}
    if name.strip().lower() not in UNTIMED_BOTS or "time_ms" in keys:
        return spec, None
    timed = f"{spec.strip()}{',' if rest.strip() else ':'}time_ms={DEFAULT_SEARCH_MS}"
    return timed, (f"note: {who} has no time budget: each search stops after "
                   f"{DEFAULT_SEARCH_MS / 1000:g} s at the deepest depth completed (give "
                   f"{change} to change it; Ctrl-C stops with the best move so far)")


def add_command(sub: Any, name: str, func: Callable[[argparse.Namespace], int], *,
                help: str, description: str) -> argparse.ArgumentParser:
    """Add the subcommand `name`, which `main` runs as `func(args)`; return its parser."""
    p = sub.add_parser(name, help=help, description=description)
    p.set_defaults(func=func)
    return p  # type: ignore[no-any-return]


def setting_type(setting: Setting, *, checked: bool = True) -> Callable[[str], Any]:
    """An argparse ``type`` from a declaration: its value read and, when `checked`, its
    range checked (a usage error naming the flag: "argument --max-depth: 65 is outside
    1..64", exit status 2); unchecked, only its type, for settings the library checks
    with messages of its own (``train``'s)."""
    def parse(text: str) -> Any:
        try:
            return setting.parse(text) if checked else setting.read(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = getattr(setting.kind, "__name__", "value")   # argparse names it
    return parse


def add_settings(group: Any, settings: Settings, *, checked: bool = True) -> None:
    """One flag per declared setting, in order: its type and range (`setting_type`), its
    default and its help (what it is, its range, its default); a switch for a bool
    (``--no-NAME`` when it is on by default)."""
    for s in settings:
        text = s.help_text().replace("%", "%%")   # argparse %-formats help
        if s.kind is bool:
            group.add_argument(s.flag, dest=s.dest, default=s.default, help=text,
                               action="store_false" if s.default else "store_true")
            continue
        group.add_argument(s.flag, dest=s.dest, type=setting_type(s, checked=checked),
                           default=s.default, metavar=s.metavar or None, help=text)


def add_limits(p: argparse.ArgumentParser) -> None:
    """The limits of one request (``serve``): one flag per setting of
    `server.limits.LIMIT_SETTINGS`, where each is declared."""
    g = p.add_argument_group("limits of one request (above them: INVALID_ARGUMENT)")
    add_settings(g, LIMIT_SETTINGS)


def add_client_options(p: argparse.ArgumentParser) -> None:
    """How to reach a server (``hint``)."""
    g = p.add_argument_group("connection (not with --local)")
    g.add_argument("--address", default=f"localhost:{DEFAULT_PORT}",
                   help=f"server host:port (default localhost:{DEFAULT_PORT})")
    g.add_argument("--token", default=os.environ.get("GALLERIST_TOKEN"),
                   help="the server's shared token (default: $GALLERIST_TOKEN)")
    g.add_argument("--tls", action="store_true", help="connect with TLS")
    g.add_argument("--tls-ca", metavar="PEM", help="certificate to trust (implies --tls)")
    g.add_argument("--timeout", type=seconds, default=0.0, metavar="S",
                   help="deadline of the call in seconds; the server returns the best it "
                        "found by then (default: the budget + 10 s)")


def add_search_options(p: argparse.ArgumentParser, bot: str | None = DEFAULT_BOT) -> None:
    """The bot, the budget and the seed of a hint (``hint``, ``demo``). `bot` None: no
    default spec (``hint`` asks a server for its own default bot, and searches with
    ai.bots.spec.DEFAULT_BOT under --local)."""
    g = p.add_argument_group("search")
    default = (f"the server's default bot; with --local {DEFAULT_BOT!r}" if bot is None
               else repr(bot))
    g.add_argument("--bot", default=bot, metavar="SPEC",
                   help=f"bot spec: mcts, expectimax, greedy or random, with options as in "
                        f"'mcts:iterations=2000,c=0.7' (`gallerist bots` lists them; "
                        f"default {default})")
    budget = int_range(0, MAX_UINT32)
    g.add_argument("--iterations", type=budget, default=0, metavar="N",
                   help="MCTS iterations (0: bot default)")
    g.add_argument("--time-ms", type=budget, default=0, metavar="MS",
                   help="search time in ms (0: no limit)")
    g.add_argument("--depth", type=budget, default=0, metavar="N",
                   help="expectimax depth (0: bot default)")
    g.add_argument("--seed", type=seed_value, default=0,
                   help="search seed, 0..2^63-1 (default 0)")
    g.add_argument("--moves", type=int_range(1, MAX_LISTED_MOVES), default=10, metavar="N",
                   help="how many ranked moves to show (default 10)")


def add_notation_option(p: argparse.ArgumentParser, what: str) -> None:
    """Add ``--notation``: moves shown by the engine's notation ("move:AC") instead of
    in words (`engine.describe_move`); `what` says what it changes."""
    p.add_argument("--notation", action="store_true",
                   help=f"show moves by the engine's notation (e.g. move:AC) instead of in "
                        f"words: {what}")


def add_players(p: argparse.ArgumentParser, what: str) -> None:
    """Add ``--players`` (1 to 4, default 2); `what` starts its help text."""
    p.add_argument("--players", type=int, default=2, choices=(1, 2, 3, 4),
                   help=f"{what}, 1 = solo against Lacerda (default 2)")


def add_demo_game(p: argparse.ArgumentParser, players_help: str) -> None:
    """Add ``--demo-seed`` and ``--players``: the game of `server.demo_state.demo_state`."""
    p.add_argument("--demo-seed", type=seed_value, default=1,
                   help="seed of the demo game, 0..2^63-1 (default 1)")
    add_players(p, players_help)
