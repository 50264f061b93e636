"""The HTTP port of ``gallerist serve --http``: the Connect application
(server/connect_service.py) in threaded wsgiref servers, one per address of the host, as
gRPC binds; HTTPS with the gRPC port's certificate when it has one. Each response chunk
(a stream's message) is written and flushed as it comes; responses are HTTP/1.0, a
stream's end is the connection's close.
"""
from __future__ import annotations

import errno
import io
import logging
import socket
import ssl
import threading
from pathlib import Path
from socketserver import TCPServer, ThreadingMixIn
from typing import Any
from wsgiref.simple_server import ServerHandler, WSGIRequestHandler, WSGIServer

from gallerist.server.connect_service import ConnectService, WsgiApp, wsgi_app
from gallerist.server.servicer import SERVICE_NAME

__all__ = ["HttpServer"]

log = logging.getLogger("gallerist.server")

#: errors of an address this host cannot use at all (no IPv6): skipped, as gRPC does
_UNUSABLE = (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT)
#: seconds that cancelled calls get to end at shutdown (a search stops within milliseconds)
_CANCEL_WAIT_S = 5.0
#: the largest chunked request body read (connectrpc's own limit on a message is 4 MiB)
_MAX_CHUNKED_BYTES = 8 << 20


class _BadBody(ValueError):
    """A chunked request body that is malformed or too large."""


def _read_chunked(stream: Any) -> bytes:
    """The bytes of a ``Transfer-Encoding: chunked`` request body."""
    out = bytearray()
    while True:
        try:
            size = int(stream.readline(1024).split(b";")[0].strip(), 16)
        except ValueError:
            raise _BadBody("malformed chunked request body") from None
        if size == 0:
            while stream.readline(1024).strip():   # trailers, up to the blank line
                pass
            return bytes(out)
        if len(out) + size > _MAX_CHUNKED_BYTES:
            raise _BadBody(f"request body over {_MAX_CHUNKED_BYTES} bytes")
        data = stream.read(size)
        if len(data) < size:
            raise _BadBody("chunked request body cut short")
        out += data
        stream.readline(3)   # the chunk's CRLF


class _Handler(WSGIRequestHandler):
    """wsgiref's handler, logging to ``gallerist.server`` and giving the client's port."""

    timeout = 120.0   # seconds a client may stall a read or a write

    def setup(self) -> None:
        super().setup()
        if isinstance(self.connection, ssl.SSLSocket):   # in this thread, not the accept loop
            self.connection.do_handshake()

    def handle(self) -> None:
        """wsgiref's, but the application always knows where the request body ends:
        Content-Length, else a chunked body read whole, else none (connectrpc would
        otherwise read up to the connection's end)."""
        self.raw_requestline = self.rfile.readline(65537)
        if len(self.raw_requestline) > 65536:
            self.requestline = self.request_version = self.command = ""
            self.send_error(414)
            return
        if not self.parse_request():
            return
        env, body = self.get_environ(), self.rfile
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            try:
                data = _read_chunked(self.rfile)
            except _BadBody as exc:
                self.send_error(400, str(exc))
                return
            body, env["CONTENT_LENGTH"] = io.BytesIO(data), str(len(data))
        env["CONTENT_LENGTH"] = env.get("CONTENT_LENGTH") or "0"
        env["REMOTE_PORT"] = str(self.client_address[1])
        handler = ServerHandler(body, self.wfile, self.get_stderr(), env, multithread=True)
        handler.request_handler = self   # type: ignore[attr-defined]  # for its log line
        with self.server.in_flight:   # type: ignore[attr-defined]
            handler.run(self.server.get_app())  # type: ignore[attr-defined]

    def get_stderr(self) -> Any:
        return _LogStream()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - wsgiref's name
        log.debug("http %s: " + format, self.address_string(), *args)


class _LogStream:
    """``wsgi.errors``: what the application writes there goes to the log."""

    def write(self, text: str) -> None:
        if text.strip():
            log.error("http: %s", text.rstrip())

    def flush(self) -> None:
        pass


class _InFlight:
    """The requests being served, up to their response's last byte; `idle` is set while
    there are none."""

    def __init__(self) -> None:
        self._count = 0
        self._lock = threading.Lock()
        self.idle = threading.Event()
        self.idle.set()

    def __enter__(self) -> None:
        with self._lock:
            self._count += 1
            self.idle.clear()

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._count -= 1
            if not self._count:
                self.idle.set()


class _Server(ThreadingMixIn, WSGIServer):
    """A threaded WSGI server on one address (a thread per connection)."""

    daemon_threads = True
    block_on_close = False   # `in_flight` counts the requests; stopping waits for those

    def __init__(self, family: int, address: tuple[Any, ...], app: WsgiApp,
                 tls: ssl.SSLContext | None, in_flight: _InFlight) -> None:
        self.address_family = family
        self.in_flight = in_flight
        super().__init__(address, _Handler)
        self.set_app(app)
        if tls is not None:
            self.socket = tls.wrap_socket(self.socket, server_side=True,
                                          do_handshake_on_connect=False)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A connection that failed (TLS handshake, reset): one debug line, no traceback."""
        log.debug("http %s: connection failed", client_address, exc_info=True)

    def server_bind(self) -> None:
        """Bind, without HTTPServer's reverse look-up of the host name."""
        TCPServer.server_bind(self)
        self.server_name, self.server_port = str(self.server_address[0]), self.server_address[1]
        self.setup_environ()


def _bind(host: str, port: int, app: WsgiApp, tls: ssl.SSLContext | None,
          in_flight: _InFlight) -> list[_Server]:
    """Servers on every address `host` resolves to, all on one port (`port`, or the one
    the first picked when 0)."""
    name = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    found = socket.getaddrinfo(name or None, port, type=socket.SOCK_STREAM,
                               flags=socket.AI_PASSIVE)
    servers: list[_Server] = []
    failure: OSError | None = None
    for family, where in dict.fromkeys((f[0], f[4]) for f in found):
        where = (where[0], servers[0].server_address[1] if servers else port, *where[2:])
        try:
            servers.append(_Server(family, where, app, tls, in_flight))
        except OSError as exc:
            if exc.errno not in _UNUSABLE:
                for server in servers:
                    server.server_close()
                raise RuntimeError(f"cannot bind the HTTP port {host}:{port}: "
                                   f"{exc.strerror}") from None
            failure = exc
    if not servers:
        raise RuntimeError(f"cannot bind the HTTP port {host}:{port}: "
                           f"{failure.strerror if failure else 'no address'}")
    return servers


class HttpServer:
    """The Connect service on an HTTP port, started and stopped with the gRPC server.

    Args:
        host: the host of the gRPC port.
        port: the HTTP port (0 picks a free one).
        service: the Connect side of the servicer.
        tls: PEM files of the certificate chain and its key (then the port is HTTPS).
    """

    def __init__(self, host: str, port: int, service: ConnectService, *,
                 tls: tuple[str | Path, str | Path] | None = None) -> None:
        self.service = service
        self.tls = tls is not None
        context = None
        if tls is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(tls[0], tls[1])
        self._in_flight = _InFlight()
        self._servers = _bind(host, port, wsgi_app(service), context, self._in_flight)
        self.port: int = self._servers[0].server_address[1]
        self.address = f"{host}:{self.port}"
        self._started = False
        self.stopped = threading.Event()
        """Set once stopped, with no call in flight."""

    def start(self) -> None:
        """Serve, each address on a thread of its own."""
        self._started = True
        for server in self._servers:
            threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1},
                             name="gallerist-http", daemon=True).start()
        log.info("serving %s over HTTP (Connect, gRPC-Web) on %s", SERVICE_NAME, self.address)

    def stop(self, grace: float | None = None) -> threading.Event:
        """Refuse new calls and close the port; calls in flight have `grace` seconds to
        finish (None or 0: none), then are cancelled.

        Returns:
            An event set once no call is in flight.
        """
        self.service.close()

        def stopping() -> None:
            for server in self._servers:
                if self._started:
                    server.shutdown()
                server.server_close()
            if not self._in_flight.idle.wait(grace or 0):
                self.service.cancel_all()
                if not self._in_flight.idle.wait(_CANCEL_WAIT_S):
                    log.warning("HTTP calls still running %.0f s after their cancellation",
                                _CANCEL_WAIT_S)
            self.stopped.set()
        threading.Thread(target=stopping, name="gallerist-http-stop", daemon=True).start()
        return self.stopped
