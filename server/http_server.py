"""The HTTP port of ``gallerist serve --http``: the ASGI application of server/http_app.py
under granian (a Rust HTTP server on hyper and tokio), embedded in this process on an
event loop of its own, one listener per address of the host as gRPC binds. It speaks
HTTP/1.1 with keep-alive and HTTP/2 (h2c without TLS; by ALPN with ``--tls-cert``).
Its limits (`HttpLimits`) are granian's own settings; docs/operations.md says why granian.
"""
from __future__ import annotations

import asyncio
import errno
import logging
import socket
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from granian.constants import HTTPModes, Interfaces, SSLProtocols
from granian.http import HTTP1Settings, HTTP2Settings
from granian.server.embed import Server

from gallerist.ai.settings.setting import Setting, Settings
from gallerist.server.connect_service import ConnectService
from gallerist.server.http_app import LOOPBACK_HOSTS, HttpAppOptions, asgi_app
from gallerist.server.servicer import SERVICE_NAME

__all__ = ["HTTP_SETTINGS", "HttpLimits", "HttpServer"]

log = logging.getLogger("gallerist.server")

#: errors of an address this host cannot use at all (no IPv6): skipped, as gRPC does
_UNUSABLE = (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT)
#: seconds that cancelled calls get to end at shutdown (a search stops within milliseconds)
_CANCEL_WAIT_S = 5.0


#: What the HTTP port lets one client take, each limit declared once: `HttpLimits`'
#: defaults and checks, the ``serve --http-*`` flags, the replicas' arguments and the
#: table of docs/operations.md come from here.
HTTP_SETTINGS = Settings(
    "the HTTP port (with --http)",
    Setting("max_connections", 512, "connections served at once; more wait in the listen "
            "backlog", low=1, high=1_000_000, flag="--http-max-connections", metavar="N"),
    Setting("max_header_bytes", 64 << 10, "largest request head (HTTP/1.1) or header list "
            "(HTTP/2); larger gets 431", low=8192, high=16 << 20,
            flag="--http-max-header-bytes", metavar="BYTES"),
    Setting("header_timeout_s", 30.0, "time a client has to send a request's whole head "
            "(also how long an idle HTTP/1.1 connection is kept)", low=0.1, high=3600,
            flag="--http-header-timeout", metavar="S", unit="seconds"),
    Setting("keepalive_timeout_s", 20.0, "time between HTTP/2 pings, and how long one may "
            "go unanswered before the connection is closed", low=1, high=3600,
            flag="--http-keepalive-timeout", metavar="S", unit="seconds"),
    Setting("max_body_bytes", 4 << 20, "largest request body; a larger Content-Length is "
            "refused (413) before the body is read", low=1024, high=1 << 30,
            flag="--http-max-body-bytes", metavar="BYTES"),
    Setting("backlog", 1024, "listen backlog of the HTTP port: connections the kernel "
            "holds before they are served", low=1, high=65535, flag="--http-backlog",
            metavar="N"),
    Setting("max_streams", 100, "HTTP/2 streams at once on one connection", low=1,
            high=10_000, flag="--http-max-streams", metavar="N"),
)
_HTTP = HTTP_SETTINGS.defaults


@dataclass(frozen=True)
class HttpLimits:
    """What the HTTP port lets one client take (``serve --http-*`` options; each declared
    in `HTTP_SETTINGS`, which gives the defaults and the ranges).

    Attributes:
        max_connections: connections served at once; more wait in the listen backlog
            (the open-file limit must stay above it, with room for the gRPC port).
        max_header_bytes: the largest request head (HTTP/1.1) or header list (HTTP/2).
        header_timeout_s: time a client has to send a request's whole head, counted from
            its first byte or, on a kept-alive HTTP/1.1 connection, from the previous
            answer: it also closes idle HTTP/1.1 connections.
        keepalive_timeout_s: time an HTTP/2 connection's ping may go unanswered.
        max_body_bytes: the largest request body (refused before it is read when its
            Content-Length says so).
        backlog: the listen backlog (connections the kernel holds before they are served).
        max_streams: HTTP/2 streams at once on one connection.
    """

    max_connections: int = _HTTP["max_connections"]
    max_header_bytes: int = _HTTP["max_header_bytes"]
    header_timeout_s: float = _HTTP["header_timeout_s"]
    keepalive_timeout_s: float = _HTTP["keepalive_timeout_s"]
    max_body_bytes: int = _HTTP["max_body_bytes"]
    backlog: int = _HTTP["backlog"]
    max_streams: int = _HTTP["max_streams"]

    def __post_init__(self) -> None:
        bad = HTTP_SETTINGS.problem(asdict(self))
        if bad is not None:
            setting, value = bad
            raise ValueError(f"{setting.name}: {value!r} is not {setting.says}")


def _free_port(host: str) -> int:
    """A port free on the first address of `host` (for ``--http 0``)."""
    family, kind, proto, _, where = socket.getaddrinfo(host or None, 0, type=socket.SOCK_STREAM,
                                                       flags=socket.AI_PASSIVE)[0]
    with socket.socket(family, kind, proto) as probe:
        probe.bind(where)
        return int(probe.getsockname()[1])


def _addresses(host: str, port: int) -> list[str]:
    """The addresses `host` resolves to that this machine can bind, on `port`."""
    name = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    found = socket.getaddrinfo(name or None, port, type=socket.SOCK_STREAM,
                               flags=socket.AI_PASSIVE)
    usable: list[str] = []
    failure: OSError | None = None
    for family, kind, proto, _, where in found:
        if where[0] in usable:
            continue
        try:
            with socket.socket(family, kind, proto) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind(where)
        except OSError as exc:
            if exc.errno not in _UNUSABLE:
                raise RuntimeError(f"cannot bind the HTTP port {host}:{port}: "
                                   f"{exc.strerror}") from None
            failure = exc
            continue
        usable.append(where[0])
    if not usable:
        raise RuntimeError(f"cannot bind the HTTP port {host}:{port}: "
                           f"{failure.strerror if failure else 'no address'}")
    return usable


class HttpServer:
    """The Connect service on an HTTP port, started and stopped with the gRPC server.

    Args:
        host: the host of the gRPC port.
        port: the HTTP port (0 picks a free one).
        service: the Connect side of the servicers.
        token: calls need ``Authorization: Bearer <token>``.
        tls: PEM files of the certificate chain and its key (then the port is HTTPS).
        limits: what one client may take.
        cors_origins: origins whose pages may call the service.
    """

    def __init__(self, host: str, port: int, service: ConnectService, *,
                 token: str | None = None, tls: tuple[str | Path, str | Path] | None = None,
                 limits: HttpLimits | None = None, cors_origins: tuple[str, ...] = ()) -> None:
        self.service = service
        self.tls = tls is not None
        self.limits = limits = limits or HttpLimits()
        name = host[1:-1] if host.startswith("[") and host.endswith("]") else host
        self.port: int = port or _free_port(name)
        self._hosts = _addresses(host, self.port)
        self.address = f"{host}:{self.port}"
        options = HttpAppOptions(token=token, max_body_bytes=limits.max_body_bytes,
                                 cors_origins=cors_origins,
                                 loopback_only=host in LOOPBACK_HOSTS)
        app = asgi_app(service, options)
        h1 = HTTP1Settings(header_read_timeout=int(limits.header_timeout_s * 1000),
                           keep_alive=True, max_buffer_size=limits.max_header_bytes)
        h2 = HTTP2Settings(keep_alive_interval=int(limits.keepalive_timeout_s * 1000),
                           keep_alive_timeout=max(1, int(limits.keepalive_timeout_s)),
                           max_concurrent_streams=limits.max_streams,
                           max_headers_size=limits.max_header_bytes)
        tls_args: dict[str, Any] = {} if tls is None else {
            "ssl_cert": Path(tls[0]), "ssl_key": Path(tls[1]),
            "ssl_protocol_min": SSLProtocols.tls12}
        self._servers = [Server(app, address=where, port=self.port, interface=Interfaces.ASGINL,
                                http=HTTPModes.auto, websockets=False,
                                backlog=limits.backlog, backpressure=limits.max_connections,
                                http1_settings=h1, http2_settings=h2, log_enabled=False,
                                **tls_args)
                         for where in self._hosts]
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._up = threading.Event()
        self.stopped = threading.Event()
        """Set once stopped, with no call in flight."""

    def start(self) -> None:
        """Serve on a thread of its own (its event loop runs every listener)."""
        self._thread = threading.Thread(target=self._run, name="gallerist-http", daemon=True)
        self._thread.start()
        self._up.wait(10)
        self._wait_listening(10.0)
        log.info("serving %s over HTTP (Connect, gRPC-Web; HTTP/1.1 and HTTP/2) on %s",
                 SERVICE_NAME, self.address)

    def _wait_listening(self, seconds: float) -> None:
        """Return once every listener accepts connections (granian binds on its loop)."""
        end = time.monotonic() + seconds
        for where in self._hosts:
            while True:
                try:
                    socket.create_connection((where, self.port), timeout=1).close()
                    break
                except OSError:
                    if time.monotonic() > end or self.stopped.is_set():
                        raise RuntimeError(f"the HTTP port {self.address} did not start "
                                           f"listening within {seconds:g} s") from None
                    time.sleep(0.01)

    def _run(self) -> None:
        loop = self._loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)

        async def serve_all() -> None:
            tasks = [asyncio.ensure_future(server.serve()) for server in self._servers]
            loop.call_soon(self._up.set)
            await asyncio.gather(*tasks)
        try:
            loop.run_until_complete(serve_all())
        except Exception:  # noqa: BLE001 - logged; the gRPC port goes on
            log.exception("the HTTP port failed")
        finally:
            self._up.set()
            loop.close()

    def stop(self, grace: float | None = None) -> threading.Event:
        """Refuse new calls and close the port; calls in flight have `grace` seconds to
        finish (None or 0: none), then are cancelled.

        Returns:
            An event set once no call is in flight.
        """
        self.service.close()

        def stopping() -> None:
            if not self.service.idle.wait(grace or 0):
                self.service.cancel_all()
                if not self.service.idle.wait(_CANCEL_WAIT_S):
                    log.warning("HTTP calls still running %.0f s after their cancellation",
                                _CANCEL_WAIT_S)
            loop, thread = self._loop, self._thread
            if loop is not None and thread is not None and not loop.is_closed():
                for server in self._servers:
                    try:
                        loop.call_soon_threadsafe(server.stop)
                    except RuntimeError:   # stopped meanwhile (a second stop)
                        break
                thread.join(10)
            self.stopped.set()
        threading.Thread(target=stopping, name="gallerist-http-stop", daemon=True).start()
        return self.stopped
