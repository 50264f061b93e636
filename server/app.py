"""Building, running and stopping the gRPC server.

`create_server(address)` returns `(server, port)`, not started, so tests can bind
``localhost:0``; `serve()` runs one until SIGTERM or SIGINT, then shuts it down
gracefully: health turns NOT_SERVING, new calls are refused, calls in flight finish.
With `http_port`, the same servicer also answers over HTTP (server/http_server.py:
Connect and gRPC-Web), started and stopped with the gRPC port; with `metrics_port`,
Prometheus metrics on /metrics of that port (server/metrics.py), likewise.
"""
from __future__ import annotations

import dataclasses
import errno
import logging
import signal
import socket
import threading
import time
from collections.abc import Callable
from concurrent import futures
from pathlib import Path
from types import FrameType
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from gallerist.engine.errors import GalleristError
from gallerist.server.auth import TokenInterceptor
from gallerist.server.connect_service import ConnectService
from gallerist.server.http_server import HttpLimits, HttpServer
from gallerist.server.limits import Limits
from gallerist.server.metrics import ServerMetrics
from gallerist.server.play.servicer import PLAY_SERVICE_NAME, PlayServicer, add_play_servicer
from gallerist.server.play.store import GameStore, StoreError
from gallerist.server.reflection import enable_reflection
from gallerist.server.servicer import SERVICE_NAME, GalleristServicer, add_servicer
from gallerist.server.slots import SearchSlots
from gallerist.server.state_cache import StateCache

__all__ = ["DEFAULT_PORT", "GalleristServer", "PortInUseError", "check_port_free",
           "create_server", "serve"]

log = logging.getLogger("gallerist.server")

DEFAULT_PORT = 50051
#: Threads beyond the search workers, for the cheap calls (health, NewGame, ...).
EXTRA_THREADS = 4
HEALTH_SERVICE_NAME: str = health_pb2.DESCRIPTOR.services_by_name["Health"].full_name


@dataclasses.dataclass(eq=False)
class GalleristServer:
    """A started-or-not gRPC server with its health status and search slots.

    It offers the `grpc.Server` calls that matter (`start`, `stop`,
    `wait_for_termination`); `stop` is graceful: health first turns NOT_SERVING.

    Attributes:
        server: the gRPC server.
        port: the bound port.
        health: its health servicer.
        servicer: the GalleristAI servicer.
        slots: the search slots.
        address: "host:port" it serves on.
        http: the HTTP port serving the same servicer (Connect, gRPC-Web), or None.
        metrics: the Prometheus metrics, served on `metrics_port` once started, or None.
        metrics_port: the port asked for /metrics (0: a free one; the bound one is
            `metrics.port` once started), or None: no metrics port.
        play: the GalleristPlay servicer (its `games` the store health follows).
    """

    server: grpc.Server
    port: int
    health: health.HealthServicer
    servicer: GalleristServicer
    slots: SearchSlots
    address: str
    http: HttpServer | None = None
    metrics: ServerMetrics | None = None
    metrics_port: int | None = None
    play: PlayServicer | None = None
    _watching: threading.Event | None = None
    _stopping: bool = False

    def start(self) -> None:
        """Start serving; health turns SERVING."""
        if self.metrics is not None and self.metrics_port is not None:
            try:
                self.metrics.start(self.address.rpartition(":")[0], self.metrics_port)
            except OSError as exc:
                self.server.stop(None)
                raise PortInUseError(f"metrics port {self.metrics_port}: {exc.strerror}") from None
        self.server.start()
        if self.http is not None:
            self.http.start()
        for name in ("", SERVICE_NAME):
            self.health.set(name, health_pb2.HealthCheckResponse.SERVING)
        self._watching = threading.Event()
        threading.Thread(target=self._watch_games, name="gallerist-games-health",
                         daemon=True).start()
        log.info("serving %s on %s", SERVICE_NAME, self.address)

    def _watch_games(self, every_s: float = 2.0) -> None:
        """Health follows the games database: NOT_SERVING while it does not answer (a
        balancer then sends calls elsewhere), SERVING again once it does."""
        store = self.play.games if self.play is not None else None
        up = True
        while store is not None and not self._watching.wait(every_s):
            try:
                store.check()
                ok = True
            except StoreError as exc:
                ok = False
                if up:
                    log.warning("health NOT_SERVING: %s", exc)
            if ok != up and not self._stopping:
                status = (health_pb2.HealthCheckResponse.SERVING if ok
                          else health_pb2.HealthCheckResponse.NOT_SERVING)
                for name in ("", SERVICE_NAME):
                    self.health.set(name, status)
                if ok:
                    log.info("health SERVING: the games database answers again")
            up = ok

    def stop(self, grace: float | None = None) -> threading.Event:
        """Stop: health NOT_SERVING, refuse new calls, let calls in flight finish for up to
        `grace` seconds (searches are asked to stop at 80% of it, so they answer with
        what they found), then cancel what is left.

        Returns:
            An event set when the server has stopped.
        """
        self._stopping = True
        if self._watching is not None:
            self._watching.set()
        self.health.enter_graceful_shutdown()
        done = self.server.stop(grace)
        if self.http is not None:
            done = _all_set(done, self.http.stop(grace))
        if self.metrics is not None:   # metrics until the last call is over
            done = _then(done, self.metrics.stop)
        if grace is not None and grace > 0:
            timer = threading.Timer(0.8 * grace, self.slots.stop_all)
            timer.daemon = True
            timer.start()
            def cancel_when_done() -> None:
                done.wait()
                timer.cancel()
            threading.Thread(target=cancel_when_done, daemon=True).start()
        else:
            self.slots.stop_all()
        return done

    def shutdown(self, grace: float = 10.0, drain: float = 0.0) -> None:
        """The whole graceful shutdown, blocking until it is over.

        Args:
            grace: seconds that calls in flight may take to finish.
            drain: seconds to keep serving after health turned NOT_SERVING, so that load
                balancers stop sending calls first.
        """
        log.info("shutting down: health NOT_SERVING, %.1f s drain, %.1f s grace", drain, grace)
        self.health.enter_graceful_shutdown()
        if drain > 0:
            threading.Event().wait(drain)
        self.stop(grace).wait()
        log.info("stopped")

    def wait_for_termination(self, timeout: float | None = None) -> bool:
        """Block until the server stops, its HTTP calls included (or `timeout` seconds
        pass; then returns True)."""
        end = None if timeout is None else time.monotonic() + timeout
        if self.server.wait_for_termination(timeout):
            return True
        if self.http is None:
            return False
        left = None if end is None else max(0.0, end - time.monotonic())
        return not self.http.stopped.wait(left)


def _all_set(*events: threading.Event) -> threading.Event:
    """An event set once every one of `events` is."""
    done = threading.Event()

    def wait() -> None:
        for event in events:
            event.wait()
        done.set()
    threading.Thread(target=wait, daemon=True).start()
    return done


def _then(event: threading.Event, action: Callable[[], None]) -> threading.Event:
    """An event set once `event` is and `action` has run."""
    done = threading.Event()

    def wait() -> None:
        event.wait()
        action()
        done.set()
    threading.Thread(target=wait, daemon=True).start()
    return done


class PortInUseError(GalleristError, RuntimeError):
    """Another program holds the port on one of the addresses the host name stands for."""


def check_port_free(host: str, port: int) -> None:
    """Refuse a port another program listens on at any address `host` resolves to.

    gRPC binds what it can: with 127.0.0.1:PORT taken, ``localhost:PORT`` would serve on
    [::1] alone, and clients reaching 127.0.0.1 would talk to the other program. An
    address this host cannot use at all (no IPv6) is left to gRPC, as it skips it too.

    Raises:
        PortInUseError: the port is taken on one of the addresses.
        ValueError: `host` does not resolve.
    """
    name = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        found = socket.getaddrinfo(name or None, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise ValueError(f"cannot resolve the host {host!r}: {exc.strerror}") from None
    if port == 0:   # gRPC picks the port
        return
    for family, kind, proto, _, where in found:
        try:
            with socket.socket(family, kind, proto) as probe:
                # as gRPC binds: a port left in TIME_WAIT by an earlier server is free
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind(where)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                of = f", an address of {host}" if where[0] != name else ""
                raise PortInUseError(f"port {port} is in use on {where[0]}{of}: another "
                                     f"program listens there; stop it or give another "
                                     f"port") from None


def create_server(address: str = f"localhost:{DEFAULT_PORT}", *, workers: int = 2,
                  limits: Limits | None = None, tls_cert: str | Path | None = None,
                  tls_key: str | Path | None = None, token: str | None = None,
                  max_rpcs: int | None = None, state_cache: int = 256,
                  games: GameStore | None = None, proxies: tuple[str, ...] = (),
                  make_bot: Callable[[str, int], Any] | None = None,
                  http_port: int | None = None, http_limits: HttpLimits | None = None,
                  cors_origins: tuple[str, ...] = (),
                  metrics_port: int | None = None) -> tuple[GalleristServer, int]:
    """Build the server (not started).

    Args:
        address: "host:port" to bind; port 0 picks a free one.
        workers: searches that may run at once (each takes a thread and a core; a
            search with threads=k takes k).
        limits: request limits (default `Limits()`); `max_threads` is capped at `workers`.
        tls_cert, tls_key: PEM files of the server certificate chain and its private key;
            both or neither (then the port is plain text).
        token: when given, every call but health checks needs
            ``authorization: Bearer <token>``.
        max_rpcs: calls accepted at once, beyond which gRPC answers RESOURCE_EXHAUSTED
            (default: twice the thread pool).
        state_cache: validated states kept for reuse (0: validate every state).
        games: where hosted games are kept (default: a database in memory, gone with the
            process; `gallerist serve` opens a file).
        proxies: addresses of balancers whose X-Real-IP header names a call's client.
        make_bot: bot factory for the servicer (tests).
        http_port: also serve the servicer over HTTP (Connect, gRPC-Web) on this port of
            the same host (0 picks a free one), with the same token and TLS certificate.
        http_limits: what one client may take of the HTTP port (default `HttpLimits()`).
        cors_origins: origins whose web pages may call the HTTP port (CORS).
        metrics_port: serve Prometheus metrics on /metrics of this port of the same host
            (plain HTTP; 0 picks a free one); None: no metrics.

    Returns:
        (the server, the bound port).

    Raises:
        ValueError: bad arguments; RuntimeError: the address cannot be bound
            (`PortInUseError`: another program holds the port on one of its addresses).
    """
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    if (tls_cert is None) != (tls_key is None):
        raise ValueError("TLS needs both a certificate and a key file")
    limits = limits or Limits()
    limits = dataclasses.replace(limits, max_threads=min(limits.max_threads, workers))
    threads = workers + EXTRA_THREADS
    slots = SearchSlots(workers)
    interceptors: list[grpc.ServerInterceptor] = [TokenInterceptor(token)] if token else []
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=threads, thread_name_prefix="gallerist"),
        interceptors=interceptors,
        maximum_concurrent_rpcs=max_rpcs or 2 * threads,
        options=[("grpc.so_reuseport", 0)],
    )
    cache = StateCache(state_cache) if state_cache else None
    metrics = None if metrics_port is None else ServerMetrics(slots, cache)
    servicer, play = _add_services(server, limits, slots, make_bot, cache, metrics, games,
                                   frozenset(proxies))
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in ("", SERVICE_NAME):
        health_servicer.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
    enable_reflection((SERVICE_NAME, PLAY_SERVICE_NAME, HEALTH_SERVICE_NAME),
                      server)   # v1 and v1alpha
    host, _, port_text = address.rpartition(":") if ":" in address else (address, "", "")
    _check_ports(host, port_text, http_port, metrics_port)
    port = _bind_grpc(server, address, tls_cert, tls_key)
    try:
        http = None if http_port is None else HttpServer(
            host, http_port, ConnectService(servicer, play, max_calls=max_rpcs or 2 * threads),
            token=token, limits=http_limits, cors_origins=cors_origins,
            tls=(tls_cert, tls_key) if tls_cert is not None and tls_key is not None else None)
    except BaseException:
        server.stop(None)   # free the gRPC port
        raise
    return GalleristServer(server, port, health_servicer, servicer, slots,
                           f"{host}:{port}", http, metrics, metrics_port, play), port


def _bind_grpc(server: grpc.Server, address: str, tls_cert: str | Path | None,
               tls_key: str | Path | None) -> int:
    """Add the gRPC port (TLS with both PEM files); the bound port.

    Raises:
        RuntimeError: the address cannot be bound.
    """
    if tls_cert is not None and tls_key is not None:
        credentials = grpc.ssl_server_credentials(
            [(Path(tls_key).read_bytes(), Path(tls_cert).read_bytes())])
        port = server.add_secure_port(address, credentials)
    else:
        port = server.add_insecure_port(address)
    if not port:
        raise RuntimeError(f"cannot bind {address}")
    return int(port)


def _add_services(server: grpc.Server, limits: Limits, slots: SearchSlots, make_bot: Any,
                  cache: StateCache | None, metrics: Any, games: GameStore | None,
                  proxies: frozenset[str]) -> tuple[GalleristServicer, PlayServicer]:
    """The GalleristAI and GalleristPlay servicers, registered on `server`."""
    servicer = GalleristServicer(limits=limits, slots=slots, make_bot=make_bot, cache=cache,
                                 metrics=metrics)
    add_servicer(servicer, server)
    play = PlayServicer(limits=limits, slots=slots, make_bot=make_bot, metrics=metrics,
                        games=games, proxies=proxies)
    add_play_servicer(play, server)
    return servicer, play


def _check_ports(host: str, grpc_port: str, http_port: int | None,
                 metrics_port: int | None) -> None:
    """Refuse ports that are taken or that coincide."""
    check_port_free(host, int(grpc_port) if grpc_port.isdigit() else 0)
    _check_http_port(host, grpc_port, http_port, "HTTP")
    _check_http_port(host, grpc_port, metrics_port, "metrics")
    if metrics_port and metrics_port == http_port:
        raise ValueError(f"the metrics port {metrics_port} is the HTTP port: give another")


def _check_http_port(host: str, grpc_port: str, http_port: int | None, what: str) -> None:
    """Refuse an HTTP port (`what`: HTTP, metrics) that is the gRPC port or that another
    program holds."""
    if http_port is None:
        return
    if http_port and str(http_port) == grpc_port:
        raise ValueError(f"the {what} port {http_port} is the gRPC port: give another")
    try:
        check_port_free(host, http_port)
    except PortInUseError as exc:
        raise PortInUseError(f"{what} {exc}") from None


def serve(address: str = f"localhost:{DEFAULT_PORT}", *, grace: float = 10.0,
          drain: float = 0.0, ready: Callable[[GalleristServer], None] | None = None,
          **kwargs: Any) -> None:
    """Run the server until SIGTERM or SIGINT, then shut it down gracefully.

    Args:
        address: "host:port" to bind.
        grace: seconds that calls in flight may take to finish at shutdown.
        drain: seconds to keep serving after health turned NOT_SERVING.
        ready: called once the server is serving (the command line prints the port).
        **kwargs: passed to `create_server`.
    """
    server, _ = create_server(address, **kwargs)
    stopping = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if stopping.is_set():
            return
        stopping.set()
        log.info("received %s", signal.Signals(signum).name)
        threading.Thread(target=server.shutdown, args=(grace, drain), daemon=True).start()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        server.start()
        if ready is not None:
            ready(server)
        server.wait_for_termination()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
