"""The ``gallerist`` command line: serve hints, ask for hints, play and create games.

Run ``gallerist --help`` or ``gallerist <command> --help``. ``gallerist demo`` starts the
service on localhost, asks it for a hint for a mid-game position and prints it.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import grpc

import engine
from ai.spec import BOTS
from engine.actions import action_to_string, decision_kind, describe_decision
from server import convert
from server.app import DEFAULT_PORT, GalleristServer, create_server, serve
from server.client import HintClient, hint_request
from server.demo_state import demo_state
from server.hint_requests import hint_search
from server.limits import (
    Limits,
    RequestError,
    build_bot,
    check_interval,
    check_seed,
    check_spec,
)
from server.text import Progress, format_hint

__all__ = ["build_parser", "main"]

log = logging.getLogger("gallerist.cli")

#: Limits of `hint --local`: the user's own machine, so only sanity bounds.
LOCAL_LIMITS = Limits(max_iterations=100_000_000, max_time_ms=3_600_000, max_depth=64,
                      max_threads=64, max_nodes=50_000_000, max_tt_bits=26,
                      bots=tuple(sorted(BOTS)))

EPILOG = """\
examples:
  gallerist demo                                  service + hint for a demo position
  gallerist serve --port 50051 --workers 4        run the service
  gallerist new --players 3 --seed 7 -o game.json
  gallerist hint game.json --bot mcts --time-ms 2000
  gallerist hint --demo --local --bot expectimax:depth=3
  gallerist play mcts:iterations=300 greedy --seed 4
"""


class CliError(Exception):
    """A user error: printed as "error: ..." with exit status 2."""


# ---------------------------------------------------------------------------- parser


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``gallerist`` and its subcommands."""
    parser = argparse.ArgumentParser(
        prog="gallerist",
        description="Move hints for the board game The Gallerist: a gRPC service, a client "
                    "and local tools.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", metavar="command", required=True)
    _add_serve(sub)
    _add_hint(sub)
    _add_play(sub)
    _add_new(sub)
    _add_demo(sub)
    _add_arena(sub)
    _add_loadtest(sub)
    return parser


def _add_loadtest(sub: Any) -> None:
    """``gallerist loadtest``: bench/loadtest.py of a source checkout (absent otherwise)."""
    script = Path(__file__).resolve().parent.parent / "bench" / "loadtest.py"
    if not script.is_file():
        return
    import importlib.util

    try:
        spec = importlib.util.spec_from_file_location("gallerist_loadtest", script)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    except Exception:  # noqa: BLE001 - a broken benchmark must not break the CLI
        log.debug("no loadtest subcommand", exc_info=True)
        return
    p = sub.add_parser("loadtest", help="load-test local servers with locust (bench/)",
                       description=module.DESCRIPTION)
    module.add_arguments(p)
    p.set_defaults(func=module.run_from_args)


def _add_arena(sub: Any) -> None:
    from ai.arena_cli import add_arena_arguments, add_replay_arguments

    p = sub.add_parser(
        "arena", help="a tournament between bots, with ratings",
        description="Play a tournament between bot specs (every seating on the same setup "
                    "seed), print win rates with 95%% intervals, a pairwise table and "
                    "Bradley-Terry ratings with bootstrap intervals; write results JSON, "
                    "the games as JSON Lines and a PNG of the ratings. A bot may be remote: "
                    "remote:HOST:PORT,bot=mcts,iterations=500.")
    add_arena_arguments(p)
    p.set_defaults(func=_cmd_arena)
    p = sub.add_parser("replay", help="replay a recorded arena game move by move",
                       description="Replay one game of a JSON Lines file written by "
                                   "`gallerist arena`, move by move, with the board.")
    add_replay_arguments(p)
    p.set_defaults(func=_cmd_replay)


def _cmd_arena(args: argparse.Namespace) -> int:
    from ai.arena_cli import arena_main

    return arena_main(args)


def _cmd_replay(args: argparse.Namespace) -> int:
    from ai.arena_cli import replay_main

    return replay_main(args)


def _add_command(sub: Any, name: str, func: Callable[[argparse.Namespace], int], *,
                 help: str, description: str) -> argparse.ArgumentParser:
    """Add the subcommand `name`, which `main` runs as `func(args)`; return its parser."""
    p = sub.add_parser(name, help=help, description=description)
    p.set_defaults(func=func)
    return p


def _add_limits(p: argparse.ArgumentParser) -> None:
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


def _add_serve(sub: Any) -> None:
    p = _add_command(
        sub, "serve", cmd_serve, help="run the gRPC hint service",
        description="Run the GalleristAI gRPC service, with gRPC health checking and server "
                    "reflection. Stops gracefully on SIGTERM or Ctrl-C: health turns "
                    "NOT_SERVING and calls in flight finish. Logs one line per call.")
    p.add_argument("--host", default="localhost",
                   help="interface to listen on (default localhost; 0.0.0.0 or [::] for "
                        "every interface: then use --token and TLS)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT,
                   help=f"port (default {DEFAULT_PORT}; 0 picks a free one)")
    p.add_argument("--workers", type=int, default=max(1, min(8, os.cpu_count() or 2)),
                   help="searches that may run at once; more get RESOURCE_EXHAUSTED "
                        "(default: the number of cores, at most 8)")
    p.add_argument("--max-rpcs", type=int, default=0, metavar="N",
                   help="calls accepted at once, queued ones included (default: twice the "
                        "thread pool of workers + 4)")
    p.add_argument("--state-cache", type=int, default=256, metavar="N",
                   help="validated states kept to skip validating a state sent again "
                        "(default 256; 0 disables)")
    _add_limits(p)
    g = p.add_argument_group("security")
    g.add_argument("--tls-cert", metavar="PEM", help="server certificate chain (with --tls-key)")
    g.add_argument("--tls-key", metavar="PEM", help="private key of the certificate")
    g.add_argument("--token", default=os.environ.get("GALLERIST_TOKEN"),
                   help="require 'authorization: Bearer TOKEN' on every call but health "
                        "checks (default: $GALLERIST_TOKEN, if set)")
    p.add_argument("--grace", type=float, default=10.0, metavar="S",
                   help="seconds calls in flight may take to finish at shutdown (default 10)")
    p.add_argument("--drain", type=float, default=0.0, metavar="S",
                   help="seconds to keep serving after health turns NOT_SERVING (default 0)")
    p.add_argument("--log-level", default="INFO",
                   choices=("DEBUG", "INFO", "WARNING", "ERROR"), help="default INFO")


def _add_client_options(p: argparse.ArgumentParser) -> None:
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


def _add_search_options(p: argparse.ArgumentParser, bot: str = "mcts") -> None:
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


def _add_players(p: argparse.ArgumentParser, what: str) -> None:
    """Add ``--players`` (1 to 4, default 2); `what` starts its help text."""
    p.add_argument("--players", type=int, default=2, choices=(1, 2, 3, 4),
                   help=f"{what}, 1 = solo against Lacerda (default 2)")


def _add_demo_game(p: argparse.ArgumentParser, players_help: str) -> None:
    """Add ``--demo-seed`` and ``--players``: the game of `demo_state`, as `_load_state`
    and `cmd_demo` read them."""
    p.add_argument("--demo-seed", type=int, default=1, help="seed of the demo game (default 1)")
    _add_players(p, players_help)


def _add_hint(sub: Any) -> None:
    p = _add_command(
        sub, "hint", cmd_hint, help="ask for move hints for a position",
        description="Print the best moves of the player to move, with their evaluations and the "
                    "turn plan, for a state file (JSON, as written by 'gallerist new') or a "
                    "demo position. Asks a server, or searches locally with --local. Partial "
                    "results are shown as progress while it searches.")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("state", nargs="?", help="state file (JSON; '-' for stdin)")
    src.add_argument("--demo", action="store_true",
                     help="a generated mid-game position (see --demo-seed, --players)")
    _add_demo_game(p, players_help="players of the demo game")
    p.add_argument("--local", action="store_true", help="search in this process, no server")
    p.add_argument("--perspective", type=int, default=None, metavar="SEAT",
                   help="ask as this seat: the other players' cards are treated as unknown")
    p.add_argument("--interval-ms", type=int, default=250, metavar="MS",
                   help="time between progress reports (default 250)")
    p.add_argument("--board", action="store_true", help="print the board first")
    p.add_argument("--json", action="store_true",
                   help="print the final response as JSON instead of a table")
    _add_search_options(p)
    _add_client_options(p)


def _add_play(sub: Any) -> None:
    p = _add_command(
        sub, "play", cmd_play, help="play a game between bots, move by move",
        description="Play one game between bots (one spec per seat, 1 to 4; one bot plays solo "
                    "against Lacerda) and print every decision and chance event, the board at "
                    "each turn start, and the final scores.")
    p.add_argument("bots", nargs="+", metavar="SPEC",
                   help="bot spec per seat, e.g. mcts:iterations=300 greedy")
    p.add_argument("--seed", type=int, default=0, help="game and bot seed (default 0)")
    p.add_argument("--board", choices=("turn", "end", "none"), default="turn",
                   help="print the board at every turn start (default), only at the end, "
                        "or never")


def _add_new(sub: Any) -> None:
    p = _add_command(
        sub, "new", cmd_new, help="write a new game's state as JSON",
        description="Write the state of a new game (after setup) as JSON, the format 'gallerist "
                    "hint' reads and the service's GameState in protobuf's JSON mapping.")
    _add_players(p, "number of players")
    p.add_argument("--seed", type=int, default=0, help="setup seed (default 0)")
    p.add_argument("-o", "--output", default="-", help="file to write (default: stdout)")
    p.add_argument("--indent", type=int, default=None, metavar="N",
                   help="indent the JSON by N spaces (default: one line)")


def _add_demo(sub: Any) -> None:
    p = _add_command(
        sub, "demo", cmd_demo,
        help="start the service on localhost and show a hint for a demo position",
        description="Start the service in this process on a free localhost port, ask it for a "
                    "hint for a generated mid-game position, print the board and the hint, and "
                    "stop the service. Takes a second or two.")
    _add_demo_game(p, players_help="players")
    p.add_argument("--no-board", action="store_true", help="do not print the board")
    _add_search_options(p, bot="mcts:iterations=3000")


# ---------------------------------------------------------------------------- commands


def cmd_serve(args: argparse.Namespace) -> int:
    """``gallerist serve``."""
    logging.basicConfig(level=getattr(logging, args.log_level),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        limits = Limits(max_iterations=args.max_iterations, max_time_ms=args.max_time_ms,
                        max_depth=args.max_depth, max_threads=args.max_threads,
                        max_nodes=args.max_nodes, default_bot=args.default_bot)
    except (ValueError, RequestError) as exc:
        raise CliError(f"bad limit: {exc}") from None

    if args.host not in ("localhost", "127.0.0.1", "::1", "[::1]") and not args.token:
        log.warning("listening on %s without --token: anyone who can reach the port can use "
                    "the service", args.host)

    def ready(server: GalleristServer) -> None:
        print(f"listening on {server.address} (workers {args.workers}"
              f"{', TLS' if args.tls_cert else ''}{', token required' if args.token else ''})",
              flush=True)

    try:
        serve(f"{args.host}:{args.port}", grace=args.grace, drain=args.drain, ready=ready,
              workers=args.workers, limits=limits, tls_cert=args.tls_cert,
              tls_key=args.tls_key, token=args.token or None, max_rpcs=args.max_rpcs or None,
              state_cache=args.state_cache)
    except (OSError, RuntimeError, ValueError) as exc:
        raise CliError(str(exc)) from None
    return 0


def _load_state(args: argparse.Namespace) -> engine.GameState:
    if args.demo:
        return demo_state(seed=args.demo_seed, players=args.players)
    try:
        text = sys.stdin.read() if args.state == "-" else Path(args.state).read_text()
    except OSError as exc:
        raise CliError(f"cannot read {args.state}: {exc}") from None
    try:
        return engine.GameState.from_json(text)
    except engine.InvalidStateError as exc:
        raise CliError(f"{args.state}: not a valid state: {exc}") from None


def _request(args: argparse.Namespace, state: engine.GameState) -> Any:
    return hint_request(state, bot=args.bot, iterations=args.iterations, time_ms=args.time_ms,
                        depth=args.depth, max_moves=0, seed=args.seed,
                        perspective=getattr(args, "perspective", None),
                        report_interval_ms=getattr(args, "interval_ms", 0))


def _local_reports(args: argparse.Namespace, state: engine.GameState) -> Iterator[Any]:
    """The reports of a search in this process, as HintResponse messages."""
    try:
        interval_ms = check_interval(args.interval_ms, LOCAL_LIMITS)
        check_spec(args.bot, LOCAL_LIMITS)
        check_seed(args.seed)
        search = hint_search(state, spec=args.bot, seed=args.seed,
                             budget=(args.iterations, args.time_ms, args.depth),
                             limits=LOCAL_LIMITS, perspective=args.perspective)
    except RequestError as exc:
        raise CliError(str(exc)) from None
    for report in search.reports(interval_ms):
        yield convert.hint_response(report, 0)


def _show_progress(reports: Iterator[Any], progress: Progress) -> Any:
    """Consume reports, showing each partial one; return the final one."""
    final = None
    for response in reports:
        final = response
        if not response.final and response.moves:
            best = response.moves[0]
            progress.update(0, f"{response.stats.elapsed_ms / 1000:.1f} s, "
                               f"{response.stats.iterations:,} iterations, depth "
                               f"{response.stats.depth}: best so far {best.notation} "
                               f"({100 * best.win_probability:.0f}% win)")
    progress.close()
    if final is None:
        raise CliError("the search sent no report")
    return final


def _title(state: engine.GameState) -> str:
    money = ", ".join(f"P{p} ${m}" for p, m in enumerate(state.money()))
    return f"Position: {describe_decision(state)} (money: {money})"


def cmd_hint(args: argparse.Namespace) -> int:
    """``gallerist hint``."""
    state = _load_state(args)
    progress = Progress("searching", stream=sys.stderr, every=1.0)
    if args.local:
        final = _show_progress(_local_reports(args, state), progress)
    else:
        request = _request(args, state)
        timeout = args.timeout or _default_timeout(args)
        with HintClient(args.address, token=args.token, tls=args.tls,
                        ca_file=args.tls_ca) as client:
            try:
                final = _show_progress(client.analyze_stream(request, timeout=timeout),
                                       progress)
            except grpc.RpcError as exc:
                return _rpc_failed(exc, args.address)
    if args.json:
        from google.protobuf import json_format
        print(json.dumps(json_format.MessageToDict(final), indent=2))
        return 0
    if args.board:
        print(state.render())
        print()
    print(format_hint(final, title=_title(state), limit=args.moves))
    return 0


def _default_timeout(args: argparse.Namespace) -> float:
    return (args.time_ms or Limits().max_time_ms) / 1000.0 + 10.0


def _rpc_failed(exc: grpc.RpcError, address: str) -> int:
    code = exc.code() if hasattr(exc, "code") else None
    details = exc.details() if hasattr(exc, "details") else str(exc)
    name = code.name if code is not None else "ERROR"
    print(f"error: {address}: {name}: {details}", file=sys.stderr)
    if code == grpc.StatusCode.UNAVAILABLE:
        print("(is 'gallerist serve' running there? or use --local)", file=sys.stderr)
    return 1


def _short(action: int) -> str:
    text = action_to_string(action)
    return f"[{text.removeprefix('chance:')}]" if text.startswith("chance:") else text


def cmd_play(args: argparse.Namespace) -> int:
    """``gallerist play``."""
    from ai.play import play_game
    if not 1 <= len(args.bots) <= 4:
        raise CliError(f"give 1 to 4 bot specs (one per seat; 1 = solo against Lacerda), "
                       f"got {len(args.bots)}")
    bots = []
    for seat, spec in enumerate(args.bots):
        try:
            check_spec(spec, LOCAL_LIMITS, field=f"bot of seat {seat}")
            bots.append(build_bot(spec, args.seed * 100 + seat,
                                          field=f"bot of seat {seat}"))
        except RequestError as exc:
            raise CliError(str(exc)) from None
    out = sys.stdout
    t0 = time.perf_counter()
    line: list[str] = []

    def flush() -> None:
        if line:
            out.write("    " + " ".join(line) + "\n")
            line.clear()

    def on_action(state: engine.GameState, player: int, action: int) -> None:
        if player != engine.CHANCE and decision_kind(state) == "turn-start":
            flush()
            if args.board == "turn":
                out.write("\n" + state.render() + "\n")
            out.write(f"P{player} ({args.bots[player]}), move {len(state.history)}, "
                      f"{time.perf_counter() - t0:.1f} s:\n")
        line.append(_short(action))
        if len(" ".join(line)) > 90:
            flush()
        out.flush()

    final = play_game(bots, seed=args.seed, on_action=on_action)
    flush()
    if args.board in ("turn", "end"):
        out.write("\n" + final.render() + "\n")
    out.write(f"\nFinal scores after {len(final.history)} actions "
              f"({time.perf_counter() - t0:.1f} s):\n")
    for p, score in enumerate(final.final_scores()):
        steps = ", ".join(f"{k} {v}" for k, v in score.items() if k not in ("total", "money"))
        out.write(f"  P{p} {args.bots[p]:<24} ${score['money']:>4}  ({steps})\n")
    out.write("Winner(s): " + ", ".join(f"P{w}" for w in final.winners()) + "\n")
    return 0


def cmd_new(args: argparse.Namespace) -> int:
    """``gallerist new``."""
    try:
        state = engine.new_game(num_players=args.players, seed=args.seed)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    text = state.to_json()
    if args.indent is not None:
        text = json.dumps(json.loads(text), indent=args.indent, sort_keys=True)
    if args.output == "-":
        sys.stdout.write(text + "\n")
    else:
        Path(args.output).write_text(text + "\n")
        print(f"wrote a {args.players}-player game (seed {args.seed}) to {args.output}",
              file=sys.stderr)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """``gallerist demo``: the service in-process, one hint for a demo position."""
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
        request = _request(args, state)
        with HintClient(address) as client:
            t1 = time.perf_counter()
            try:
                response = client.suggest(request, timeout=_default_timeout(args))
            except grpc.RpcError as exc:
                return _rpc_failed(exc, address)
            rtt = (time.perf_counter() - t1) * 1000.0
        print(format_hint(response, title=_title(state), limit=args.moves))
        print(f"\nSuggestMoves round trip {rtt:.0f} ms; whole demo "
              f"{time.perf_counter() - t0:.1f} s. Try: gallerist serve, then "
              "gallerist hint --demo")
    finally:
        server.stop(grace=1.0).wait()
    return 0


# ---------------------------------------------------------------------------- main


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
        return int(args.func(args))
    except CliError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:   # e.g. `gallerist play ... | head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
