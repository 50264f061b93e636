"""``gallerist hint``: the best moves for a position, from a server or searched in this
process (``--local``), with progress while it searches. Also the helpers ``demo`` shares:
the request of a hint, its title, the default deadline, a failed call's message."""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import grpc

from gallerist import engine
from gallerist.client import HintClient, hint_request
from gallerist.ai.bots.spec import DEFAULT_BOT
from gallerist.ai.words import counted
from gallerist.engine.actions import describe_decision
from gallerist.server import convert
from gallerist.cli.commands import CliError
from gallerist.cli.commands.model_option import add_model_option
from gallerist.cli.commands.options import (
    LOCAL_LIMITS,
    add_client_options,
    add_command,
    add_demo_game,
    add_notation_option,
    add_search_options,
    timed_spec,
)
from gallerist.cli.commands.interrupt import StopOnCtrlC
from gallerist.server.demo_state import demo_state
from gallerist.server.hint_requests import hint_search
from gallerist.server.search import Search
from gallerist.server.limits import Limits, RequestError, check_interval, check_seed, check_spec
from gallerist.cli.text import Progress, format_hint, move_name

__all__ = ["add", "default_timeout", "message_dict", "request", "rpc_failed", "run", "title"]


def add(sub: Any) -> None:
    """Add ``hint`` to the subcommands."""
    p = add_command(
        sub, "hint", run, help="ask for move hints for a position",
        description="Print the best moves of the player to move, with their evaluations and the "
                    "turn plan, for a state file (JSON, as written by 'gallerist new') or a "
                    "demo position. Asks a server, or searches locally with --local. Partial "
                    "results are shown as progress while it searches.")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("state", nargs="?", help="state file (JSON; '-' for stdin)")
    src.add_argument("--demo", action="store_true",
                     help="a generated mid-game position (see --demo-seed, --players)")
    src.add_argument("--moves-file", metavar="FILE",
                     help="the position after a game's moves: a move list (JSON: seed, "
                          "players, moves) or a game record (JSON Lines, its first game); "
                          "sent to a server as the setup and moves")
    p.add_argument("--allow", default=None, metavar="M1,M2",
                   help="analyze only these moves (notation or ids, comma-separated)")
    p.add_argument("--avoid", default=None, metavar="M1,M2",
                   help="analyze every legal move but these")
    add_demo_game(p, players_help="players of the demo game")
    p.add_argument("--local", action="store_true", help="search in this process, no server")
    p.add_argument("--perspective", type=int, default=None, metavar="SEAT",
                   help="ask as this seat: the other players' cards are treated as unknown")
    p.add_argument("--interval-ms", type=int, default=250, metavar="MS",
                   help="time between progress reports (default 250)")
    p.add_argument("--board", action="store_true", help="print the board first")
    p.add_argument("--why", action="store_true",
                   help="explain every listed move (the best 5 at most): what its turn changes, "
                        "the final scoring as it would stand, the line the search expects and "
                        "how it compares; without it, the best move in one line")
    p.add_argument("--json", action="store_true",
                   help="print the final response as JSON instead of a table")
    add_notation_option(p, "the table gives each move's plan in notation, the turn plan "
                           "is one line")
    add_search_options(p, bot=None)
    add_model_option(p)
    add_client_options(p)


def _move_list(text: str | None) -> list[str]:
    return [m.strip() for m in text.split(",") if m.strip()] if text else []


def _game(args: argparse.Namespace) -> Any:
    """The GameMoves of --moves-file (None without it)."""
    from gallerist.ai.review.games import GameInputError, read_game
    from gallerist.v1 import hints_pb2

    if not getattr(args, "moves_file", None):
        return None
    try:
        game = read_game(args.moves_file)
    except OSError as exc:
        raise CliError(f"cannot read {args.moves_file}: {exc.strerror or exc}") from None
    except GameInputError as exc:
        raise CliError(str(exc)) from None
    return hints_pb2.GameMoves(num_players=game.players, seed=game.seed, actions=game.actions)


def _load_state(args: argparse.Namespace) -> engine.GameState:
    if args.demo:
        return demo_state(seed=args.demo_seed, players=args.players)
    game = _game(args)
    if game is not None:
        return convert.state_from_game(game)
    try:
        text = sys.stdin.read() if args.state == "-" else Path(args.state).read_text()
    except OSError as exc:
        raise CliError(f"cannot read {args.state}: {exc}") from None
    try:
        return engine.GameState.from_json(text)
    except engine.InvalidStateError as exc:
        raise CliError(f"{args.state}: not a valid state: {exc}") from None


def request(args: argparse.Namespace, state: engine.GameState) -> Any:
    """The HintRequest of the search options in `args`; no --bot names no bot (the
    server's default one)."""
    game = _game(args)
    return hint_request(state if game is None else game, bot=args.bot or "",
                        iterations=args.iterations, time_ms=args.time_ms,
                        depth=args.depth, max_moves=0, seed=args.seed,
                        perspective=getattr(args, "perspective", None),
                        report_interval_ms=getattr(args, "interval_ms", 0),
                        allow=_move_list(getattr(args, "allow", None)),
                        avoid=_move_list(getattr(args, "avoid", None)))


def _local_search(args: argparse.Namespace, state: engine.GameState) -> tuple[Search, float]:
    """The search in this process and its report interval, ms. A bot without a time
    budget whose search could run for hours (`options.timed_spec`) gets the default one,
    announced on stderr."""
    bot = args.bot or DEFAULT_BOT
    try:
        interval_ms = check_interval(args.interval_ms, LOCAL_LIMITS)
        check_spec(bot, LOCAL_LIMITS)
        check_seed(args.seed)
        spec, note = (bot, None) if args.time_ms else timed_spec(
            bot, f"--bot {bot}", change="--time-ms")
        search = hint_search(state, spec=spec, seed=args.seed,
                             budget=(args.iterations, args.time_ms, args.depth),
                             limits=LOCAL_LIMITS, perspective=args.perspective,
                             allow=_move_list(args.allow), avoid=_move_list(args.avoid))
    except RequestError as exc:
        option = {"allow_moves": "--allow", "avoid_moves": "--avoid"}.get(exc.field)
        raise CliError(f"{option}: {exc.problem}" if option else str(exc)) from None
    if note:
        print(note, file=sys.stderr)
    return search, interval_ms


def _local_reports(search: Search, interval_ms: float) -> Iterator[Any]:
    """The reports of a search in this process, as HintResponse messages."""
    for report in search.reports(interval_ms):
        yield convert.hint_response(report, 0)


def _show_progress(reports: Iterable[Any], progress: Progress, notation: bool = False) -> Any:
    """Consume reports, showing each partial one; return the last one (the final one,
    unless the search was interrupted), or None if there was none."""
    last = None
    for response in reports:
        last = response
        if not response.final and response.moves:
            best = response.moves[0]
            value = (f"{100 * best.win_probability:.0f}% win" if best.HasField("win_probability")
                     else f"${best.expected_money[0]:.0f} expected")   # solo: no one to beat
            progress.update(0, f"{response.stats.elapsed_ms / 1000:.1f} s, "
                               f"{counted(response.stats.iterations, 'iteration')}, depth "
                               f"{response.stats.depth}: best so far "
                               f"{move_name(best, notation)} ({value})")
    progress.close()
    return last


def _cancelled(exc: BaseException) -> bool:
    """A call that ended because this client cancelled it (after Ctrl-C)."""
    return isinstance(exc, grpc.RpcError) and exc.code() == grpc.StatusCode.CANCELLED


def title(state: engine.GameState) -> str:
    """The title line of a hint: the decision and everyone's money."""
    money = ", ".join(f"P{p} ${m}" for p, m in enumerate(state.money()))
    return f"Position: {describe_decision(state)} (money: {money})"


def run(args: argparse.Namespace) -> int:
    """``gallerist hint``."""
    state = _load_state(args)
    progress = Progress("searching", stream=sys.stderr, every=1.0)
    if args.local:
        search, interval_ms = _local_search(args, state)
        reports = StopOnCtrlC(_local_reports(search, interval_ms), search.stop)
        last = _show_progress(reports, progress, args.notation)
    else:
        timeout = args.timeout or default_timeout(args)
        with HintClient(args.address, token=args.token, tls=args.tls,
                        ca_file=args.tls_ca) as client:
            call = client.analyze_stream(request(args, state), timeout=timeout)
            reports = StopOnCtrlC(call, call.cancel, ended_by_stop=_cancelled)
            try:
                last = _show_progress(reports, progress, args.notation)
            except grpc.RpcError as exc:
                return rpc_failed(exc, args.address)
    return _print_result(args, state, last, interrupted=reports.interrupted)


def _print_result(args: argparse.Namespace, state: engine.GameState, last: Any, *,
                  interrupted: bool) -> int:
    """Print the last report (the best found so far, if `interrupted`); the exit status:
    0, or 130 after Ctrl-C."""
    if last is None or not last.moves:
        if interrupted:
            print("interrupted before the search reported a move", file=sys.stderr)
            return 130
        raise CliError("the search sent no report", status=1)
    if args.json:
        print(json.dumps(message_dict(last), indent=2))
    else:
        if args.board:
            print(state.render())
            print()
        print(format_hint(last, title=title(state), limit=args.moves, notation=args.notation,
                          state=state, why=args.why))
    if interrupted:
        print(f"interrupted: the best move found in {last.stats.elapsed_ms / 1000:.1f} s "
              f"(depth {last.stats.depth}, {counted(last.stats.iterations, 'iteration')}) is "
              f"{move_name(last.moves[0], args.notation)}", file=sys.stderr)
        return 130
    return 0


def message_dict(message: Any) -> dict[str, Any]:
    """A protobuf message as the JSON object the CLI prints: every field, zeros and empty
    lists included (proto3's JSON form drops them, so seat 0 or action 0 would vanish)."""
    from google.protobuf import json_format
    try:
        return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
    except TypeError:   # protobuf < 5.26 names the option differently
        return json_format.MessageToDict(message,  # type: ignore[call-arg]
                                         including_default_value_fields=True)


def default_timeout(args: argparse.Namespace) -> float:
    """The deadline of a hint call without ``--timeout``: the budget + 10 s."""
    return (args.time_ms or Limits().max_time_ms) / 1000.0 + 10.0


def rpc_failed(exc: grpc.RpcError, address: str) -> int:
    """Print a failed call (and a hint when the server is unreachable); exit status 1."""
    code = exc.code() if hasattr(exc, "code") else None
    details = exc.details() if hasattr(exc, "details") else str(exc)
    name = code.name if code is not None else "ERROR"
    print(f"error: {address}: {name}: {details}", file=sys.stderr)
    if code == grpc.StatusCode.UNAVAILABLE:
        print("(is 'gallerist serve' running there? or use --local)", file=sys.stderr)
    return 1
