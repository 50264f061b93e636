"""``gallerist serve``: run the gRPC hint service (and with ``--http`` the same service
over HTTP: Connect and gRPC-Web) until SIGTERM or Ctrl-C."""
from __future__ import annotations

import argparse
import logging
import os
from typing import Any

from gallerist.ai.calibration.maps import Calibration, CalibrationError
from gallerist.ai.net.model_file import ModelFileError
from gallerist.server.app import DEFAULT_PORT, GalleristServer, serve
from gallerist.cli.commands import CliError
from gallerist.cli.commands.games_options import (add_games_options, games_option_args,
                                                      open_games)
from gallerist.cli.commands.http_options import (add_http_options, http_limits,
                                                    http_option_args)
from gallerist.cli.commands.model_option import add_model_option
from gallerist.server.logs import configure_logging
from gallerist.cli.commands.options import (add_command, add_limits, int_range, port,
                                               seconds, worker_count)
from gallerist.server.limits import LIMIT_SETTINGS, Limits, RequestError

__all__ = ["NOT_FOR_REPLICAS", "add", "replica_args", "run"]

log = logging.getLogger("gallerist.cli")


def add(sub: Any) -> None:
    """Add ``serve`` to the subcommands."""
    p = add_command(
        sub, "serve", run, help="run the gRPC hint service",
        description="Run the GalleristAI gRPC service, with gRPC health checking and server "
                    "reflection; with --http also over HTTP for browsers and curl (the "
                    "Connect protocol, JSON or binary, and gRPC-Web). Stops gracefully on "
                    "SIGTERM or Ctrl-C: health turns NOT_SERVING and calls in flight "
                    "finish. Logs one line per call.")
    p.add_argument("--host", default="localhost",
                   help="interface to listen on (default localhost; 0.0.0.0 or [::] for "
                        "every interface: then use --token and TLS)")
    p.add_argument("--port", type=port, default=DEFAULT_PORT,
                   help=f"port (default {DEFAULT_PORT}; 0 picks a free one)")
    p.add_argument("--http", type=port, metavar="PORT",
                   help="also serve the service over HTTP on PORT of the same host (0 picks "
                        "a free one): the Connect protocol (POST JSON or binary protobuf to "
                        "/gallerist.v1.GalleristAI/<Method>, e.g. with curl) and gRPC-Web, "
                        "for browsers; the same limits, slots and --token; HTTPS with "
                        "--tls-cert")
    p.add_argument("--metrics-port", type=port, metavar="PORT",
                   help="serve Prometheus metrics on http://HOST:PORT/metrics of the same "
                        "host (0 picks a free one): calls by method and status, durations, "
                        "searches by bot kind, search slots, refusals, the state cache, "
                        "process memory and CPU, build info (default: no metrics port)")
    p.add_argument("--workers", type=worker_count, default=max(1, min(8, os.cpu_count() or 2)),
                   help="searches that may run at once; more get RESOURCE_EXHAUSTED "
                        "(default: the number of cores, at most 8)")
    p.add_argument("--max-rpcs", type=int_range(0, 1_000_000), default=0, metavar="N",
                   help="calls accepted at once, queued ones included (default: twice the "
                        "thread pool of workers + 4)")
    p.add_argument("--state-cache", type=int_range(0, 1_000_000), default=256, metavar="N",
                   help="validated states kept to skip validating a state sent again "
                        "(default 256; 0 disables)")
    add_limits(p)
    add_http_options(p)
    add_games_options(p)
    add_model_option(p)
    g = p.add_argument_group("security")
    g.add_argument("--tls-cert", metavar="PEM", help="server certificate chain (with --tls-key)")
    g.add_argument("--tls-key", metavar="PEM", help="private key of the certificate")
    g.add_argument("--token", default=os.environ.get("GALLERIST_TOKEN"),
                   help="require 'authorization: Bearer TOKEN' on every call but health "
                        "checks (default: $GALLERIST_TOKEN, if set)")
    p.add_argument("--grace", type=seconds, default=10.0, metavar="S",
                   help="seconds calls in flight may take to finish at shutdown (default 10)")
    p.add_argument("--drain", type=seconds, default=0.0, metavar="S",
                   help="seconds to keep serving after health turns NOT_SERVING (default 0)")
    g = p.add_argument_group("replicas behind a load balancer (docs/operations.md)")
    g.add_argument("--replicas", type=int_range(1, 64), default=None, metavar="N",
                   help="with --balancer: run N replicas of the service (each with these "
                        "options, on free ports of 127.0.0.1) behind the balancer, which "
                        "listens on --host:--port (default 2)")
    g.add_argument("--balancer", choices=("nginx",),
                   help="run the replicas behind nginx (Debian's nginx package), which "
                        "sends each call to the replica with the fewest calls in flight "
                        "and none to a replica whose health is not SERVING")
    p.add_argument("--log-level", default="INFO",
                   choices=("DEBUG", "INFO", "WARNING", "ERROR"), help="default INFO")
    p.add_argument("--log-format", default="text", choices=("text", "json"),
                   help="text lines (default), or one JSON object a line for log collectors: "
                        "a call's time, method, status, elapsed_ms, bot, budget, query_id "
                        "and peer")


def run(args: argparse.Namespace) -> int:
    """``gallerist serve``."""
    configure_logging(args.log_level, args.log_format)
    try:   # the maps behind every hint number: a bad file fails here, not at the first hint
        Calibration.default()
    except CalibrationError as exc:
        raise CliError(str(exc), status=1) from None

    try:
        limits = Limits(**LIMIT_SETTINGS.from_args(args))
    except ModelFileError as exc:   # the default bot's model file: refused at start-up
        raise CliError(str(exc), status=1) from None
    except (ValueError, RequestError) as exc:
        raise CliError(f"bad limit: {exc}") from None
    try:
        web_limits = http_limits(args)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if args.cors_origin and args.http is None:
        raise CliError("--cors-origin is for the HTTP port: give --http PORT too")
    if args.balancer is None and args.replicas is None:
        games = open_games(args)   # a bad database fails here, before the ports open

    if args.host not in ("localhost", "127.0.0.1", "::1", "[::1]") and not args.token:
        log.warning("listening on %s without --token: anyone who can reach the port can use "
                    "the service", args.host)
    if args.balancer is not None or args.replicas is not None:
        return run_balanced(args)   # the options were checked here: each replica's are good

    def ready(server: GalleristServer) -> None:
        http = "" if server.http is None else (
            f", HTTP{'S' if server.http.tls else ''} on {server.http.address}")
        if server.metrics is not None and server.metrics.port is not None:
            http += f", metrics on {args.host}:{server.metrics.port}"
        if server.play is not None:
            http += f", games in {server.play.games.where}"
        print(f"listening on {server.address} (workers {args.workers}{http}"
              f"{', TLS' if args.tls_cert else ''}{', token required' if args.token else ''})",
              flush=True)

    try:
        serve(f"{args.host}:{args.port}", grace=args.grace, drain=args.drain, ready=ready,
              workers=args.workers, limits=limits, tls_cert=args.tls_cert,
              tls_key=args.tls_key, token=args.token or None, max_rpcs=args.max_rpcs or None,
              state_cache=args.state_cache, games=games, proxies=tuple(args.trusted_proxy),
              http_port=args.http,
              http_limits=web_limits,
              cors_origins=tuple(args.cors_origin), metrics_port=args.metrics_port)
    except (OSError, ValueError) as exc:   # unreadable TLS files, a bad address
        raise CliError(str(exc)) from None
    except RuntimeError as exc:   # the port in use or not bindable: the run failed
        raise CliError(str(exc), status=1) from None
    return 0


#: The options of ``serve`` a replica is not given, and why; it is given every other one
#: (tests/server/test_replica_args.py builds a replica's arguments and parses them back).
NOT_FOR_REPLICAS = {
    "host": "a replica listens on 127.0.0.1",
    "port": "a replica listens on a free port, kept for its restarts",
    "http": "a replica's HTTP port is a free one (Replica(http=True)), behind nginx's",
    "replicas": "the balancer's", "balancer": "the balancer's",
    "tls_cert": "nginx holds the certificate", "tls_key": "nginx holds the certificate",
    "token": "given by $GALLERIST_TOKEN, not on a command line others can read",
    "model": "given by $GALLERIST_MODEL (--model sets it for every child)",
    "help": "",
}


def replica_args(args: argparse.Namespace, number: int) -> list[str]:
    """The ``serve`` options of replica `number` (1, 2, ...): every option given to this
    ``serve`` but those of `NOT_FOR_REPLICAS`; the declared settings (limits, the HTTP
    port's, the hosted games') from their declarations."""
    out = ["--workers", str(args.workers), "--max-rpcs", str(args.max_rpcs),
           "--state-cache", str(args.state_cache), "--grace", repr(args.grace),
           "--drain", repr(args.drain), "--log-level", args.log_level,
           "--log-format", args.log_format]
    out += LIMIT_SETTINGS.argv(LIMIT_SETTINGS.from_args(args))
    if args.metrics_port is not None:   # PORT, PORT+1, ... (0: free ones)
        out += ["--metrics-port", str(args.metrics_port and args.metrics_port + number - 1)]
    out += games_option_args(args) + http_option_args(args)   # one store for every replica
    return out


def run_balanced(args: argparse.Namespace) -> int:
    """``gallerist serve --replicas N --balancer nginx``."""
    from gallerist.server.app import PortInUseError
    from gallerist.server.balancer.group import BalancedGroup, run_group
    from gallerist.server.balancer.nginx import NginxError

    if args.balancer is None:
        raise CliError("--replicas needs --balancer nginx (the replicas listen on free "
                       "ports; the balancer on --port)")
    if (args.tls_cert is None) != (args.tls_key is None):
        raise CliError("--tls-cert and --tls-key go together")
    if args.metrics_port and args.metrics_port + (args.replicas or 2) - 1 > 65535:
        raise CliError(f"--metrics-port {args.metrics_port}: the replicas take it and the "
                       f"ports after it, beyond 65535; give a lower one")
    if args.token:
        os.environ["GALLERIST_TOKEN"] = args.token   # for the replicas, not on their command line
    tls = (args.tls_cert, args.tls_key) if args.tls_cert else None
    group = BalancedGroup(args.replicas or 2, lambda n: replica_args(args, n), host=args.host,
                          port=args.port, tls=tls, grace=args.drain + args.grace + 5,
                          http_port=args.http)

    def ready(group: BalancedGroup) -> None:
        n, w = len(group.replicas), args.workers
        web = "" if group.http_port is None else f", HTTP on {args.host}:{group.http_port}"
        print(f"listening on {args.host}:{group.port}{web} (nginx in front of {n} "
              f"replica{'s' * (n != 1)} with {w} worker{'s' * (w != 1)} each"
              f"{', TLS' if tls else ''}{', token required' if args.token else ''})",
              flush=True)

    try:
        run_group(group, ready)
    except PortInUseError as exc:
        raise CliError(f"--port {args.port}: {exc}", status=1) from None
    except NginxError as exc:
        raise CliError(str(exc), status=1) from None
    except (OSError, RuntimeError, ValueError) as exc:
        raise CliError(f"--balancer nginx: {exc}", status=1) from None
    return 0
