"""The ASGI application of the HTTP port: connectrpc's applications of GalleristAI,
GalleristPlay and gRPC server reflection, the /play page, and in front of them the checks
that come before any body is read: the Host header (when the port is bound to localhost,
against DNS rebinding), CORS for the origins the operator names, the body's declared size
and the token.
"""
from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from connectrpc.code import Code
from connectrpc.compat import google_protobuf_binary_codec, google_protobuf_json_codec
from connectrpc.errors import ConnectError
from connectrpc_grpcreflect import (ServerReflectionAlphaASGIApplication,
                                    ServerReflectionASGIApplication, ServerReflectionService)
from google.protobuf import descriptor_pb2
from protobuf.wkt import FileDescriptorSet
from starlette.middleware.cors import CORSMiddleware
from starlette.middleware.trustedhost import TrustedHostMiddleware

import protobuf
from gallerist.server.auth import token_matches
from gallerist.server.connect_service import ConnectService
from gallerist.server.play.page import LICENSES_PATH, PAGE_PATH, STATIC, page_html
from gallerist.server.play.servicer import PLAY_SERVICE_NAME
from gallerist.server.servicer import SERVICE_NAME
from gallerist.v1 import hints_pb2, play_pb2
from gallerist.v1.hints_connect import GalleristAIASGIApplication
from gallerist.v1.play_connect import GalleristPlayASGIApplication

__all__ = ["CONNECT_HEADERS", "HttpAppOptions", "LOOPBACK_HOSTS", "asgi_app"]

log = logging.getLogger("gallerist.server")

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
AsgiApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: the request headers a browser's Connect or gRPC-Web client sends (CORS preflights)
CONNECT_HEADERS = ("Authorization", "Content-Type", "Connect-Protocol-Version",
                   "Connect-Timeout-Ms", "Connect-Accept-Encoding", "Connect-Content-Encoding",
                   "Grpc-Timeout", "X-Grpc-Web", "X-User-Agent")
#: the response headers a browser's client must read (gRPC-Web's status is in headers)
EXPOSED_HEADERS = ("Grpc-Status", "Grpc-Message", "Grpc-Status-Details-Bin",
                   "Connect-Content-Encoding")
#: the names of this machine that a page on it may use to reach a port bound to localhost
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1", "[::1]")


@dataclass(frozen=True)
class HttpAppOptions:
    """What the HTTP application checks before a call reaches a servicer.

    Attributes:
        token: calls need ``Authorization: Bearer <token>`` (None: open).
        max_body_bytes: the largest request body; a larger declared Content-Length is
            refused before a byte of it is read, a larger streamed body when it passes.
        cors_origins: the origins whose pages may call the service (none: same origin).
        loopback_only: the port is bound to localhost: Host headers naming another host
            are refused (a page on another site reaching it through DNS rebinding).
    """

    token: str | None = None
    max_body_bytes: int = 4 << 20
    cors_origins: Sequence[str] = ()
    loopback_only: bool = False


class _TokenCheck:
    """A connectrpc metadata interceptor: the token (`token_matches`), checked before the
    body is read."""

    def __init__(self, token: str) -> None:
        self._token = token.encode()

    async def on_start(self, ctx: Any) -> None:
        if not token_matches(ctx.request_headers.get("authorization", ""), self._token):
            log.info("%s budget=- elapsed=0.0ms status=UNAUTHENTICATED", ctx.method.name)
            raise ConnectError(Code.UNAUTHENTICATED,
                               "authorization: missing or wrong token (send the header "
                               "'Authorization: Bearer <token>')")

    async def on_end(self, token: Any, ctx: Any, error: Exception | None, /) -> None:
        return None


def _reflection() -> ServerReflectionService:
    """gRPC server reflection of GalleristAI and GalleristPlay (their .proto files and
    the files they import), for tools such as ``buf curl``."""
    files = descriptor_pb2.FileDescriptorSet()
    seen: set[str] = set()

    def add(fd: Any) -> None:
        if fd.name not in seen:
            seen.add(fd.name)
            for dep in fd.dependencies:
                add(dep)
            fd.CopyToProto(files.file.add())
    add(hints_pb2.DESCRIPTOR)
    add(play_pb2.DESCRIPTOR)
    wire = FileDescriptorSet()
    protobuf.merge_from_binary(wire, files.SerializeToString())
    registry = wire.to_registry()
    return ServerReflectionService(registry.file(hints_pb2.DESCRIPTOR.name),
                                   registry.file(play_pb2.DESCRIPTOR.name))


async def _send_json(send: Send, status: int, body: dict[str, Any],
                     headers: Sequence[tuple[bytes, bytes]] = ()) -> None:
    data = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(data)).encode()), *headers]})
    await send({"type": "http.response.body", "body": data})


#: connectrpc's bare HTTP errors that get a Connect error body: status -> (code, message)
_BARE_ERRORS: dict[int, tuple[str, Callable[[Scope], str]]] = {
    415: ("invalid_argument", lambda scope: (
        f"content-type {_header(scope, b'content-type')!r} is not served: send "
        "application/json or application/proto (Connect unary calls), "
        "application/connect+json or application/connect+proto (Connect streams), or "
        "application/grpc-web+proto")),
    404: ("unimplemented", lambda scope: (
        f"no method at {scope.get('path', '')!r}: the methods are "
        f"/{SERVICE_NAME}/<Method> (see hints.proto) and /{PLAY_SERVICE_NAME}/<Method> "
        "(play.proto); the page is /play")),
    405: ("unimplemented", lambda scope: (
        f"{scope.get('method', '')} is not served: send the call as a POST")),
}


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return str(value.decode("latin-1"))
    return ""


def _with_error_bodies(app: AsgiApp) -> AsgiApp:
    """`app`, with a Connect JSON error body on connectrpc's bare 404, 405 and 415 answers
    (an unknown method, not a POST, a wrong content type) saying what to send instead,
    and plain gRPC (which needs HTTP trailers) sent to the gRPC port."""
    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        kind = _header(scope, b"content-type")
        if kind.startswith("application/grpc") and "grpc-web" not in kind:
            await send({"type": "http.response.start", "status": 200, "headers": [
                (b"content-type", b"application/grpc"), (b"grpc-status", b"12"),
                (b"grpc-message", b"gRPC is served on the gRPC port (serve --port); this "
                                  b"HTTP port serves Connect and gRPC-Web")]})
            await send({"type": "http.response.body", "body": b""})
            return
        replaced = False

        async def checked(message: dict[str, Any]) -> None:
            nonlocal replaced
            if message["type"] == "http.response.start":
                bare = _BARE_ERRORS.get(message["status"])
                if bare is not None and not any(k.lower() == b"content-type"
                                                for k, _ in message.get("headers", ())):
                    replaced = True
                    code, text = bare
                    kept = [(k, v) for k, v in message.get("headers", ())
                            if k.lower() != b"content-length"]
                    await _send_json(send, message["status"],
                                     {"code": code, "message": text(scope)}, kept)
                    return
            elif replaced:
                return
            await send(message)
        await app(scope, receive, checked)
    return wrapped


def _page_app(service: ConnectService) -> AsgiApp:
    """The page's GET requests: ``/play``, ``/play/licenses`` (the bundled client's
    licences) and ``/`` (a redirect to ``/play``)."""
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if path == "/":
            await send({"type": "http.response.start", "status": 302,
                        "headers": [(b"location", PAGE_PATH.encode()),
                                    (b"content-length", b"0")]})
            await send({"type": "http.response.body", "body": b""})
            return
        status = 200
        if path in (PAGE_PATH, PAGE_PATH + "/"):
            body = page_html(service.play.limits.default_bot).encode()  # type: ignore[union-attr]
            kind = b"text/html; charset=utf-8"
        elif path == LICENSES_PATH:
            body = (STATIC / "THIRD_PARTY_LICENSES.txt").read_bytes()
            kind = b"text/plain; charset=utf-8"
        else:
            status, kind = 404, b"text/plain; charset=utf-8"
            body = f"no page at {path!r}: the game is at {PAGE_PATH}\n".encode()
        await send({"type": "http.response.start", "status": status, "headers": [
            (b"content-type", kind), (b"content-length", str(len(body)).encode()),
            (b"cache-control", b"no-cache"), (b"x-content-type-options", b"nosniff")]})
        await send({"type": "http.response.body",
                    "body": b"" if scope.get("method") == "HEAD" else body})
    return app


def _body_limit(app: AsgiApp, limit: int) -> AsgiApp:
    """Refuse a request whose Content-Length is over `limit` before reading its body
    (connectrpc counts the bytes of a body sent without one)."""
    async def checked(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            declared = _header(scope, b"content-length")
            if declared.isdigit() and int(declared) > limit:
                await _send_json(send, 413, {
                    "code": "resource_exhausted",
                    "message": f"request body: {int(declared):,} bytes, over this server's "
                               f"limit of {limit:,} bytes"}, [(b"connection", b"close")])
                return
        await app(scope, receive, send)
    return checked


def asgi_app(service: ConnectService, options: HttpAppOptions) -> AsgiApp:
    """The HTTP port's ASGI application over `service`."""
    codecs = [google_protobuf_binary_codec(),
              google_protobuf_json_codec(ignore_unknown_fields=False)]
    common: dict[str, Any] = {
        "interceptors": [_TokenCheck(options.token)] if options.token else [],
        "read_max_bytes": options.max_body_bytes}
    hints = _with_error_bodies(GalleristAIASGIApplication(service, codecs=codecs, **common))
    routes: list[tuple[str, AsgiApp]] = []
    reflection = _reflection()
    for app in (ServerReflectionASGIApplication(reflection, **common),
                ServerReflectionAlphaASGIApplication(reflection, **common)):
        routes.append((app.path + "/", _with_error_bodies(app)))
    page = None
    if service.play is not None:
        play = GalleristPlayASGIApplication(service, codecs=codecs, **common)
        routes.append((f"/{PLAY_SERVICE_NAME}/", _with_error_bodies(play)))
        page = _page_app(service)

    async def route(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":   # lifespan (granian asks) and websockets: nothing to do
            return
        path = scope.get("path", "")
        for prefix, app in routes:
            if path.startswith(prefix):
                return await app(scope, receive, send)
        if page is not None and scope.get("method") in ("GET", "HEAD") and (
                path == "/" or path == PAGE_PATH or path.startswith(PAGE_PATH + "/")):
            return await page(scope, receive, send)
        return await hints(scope, receive, send)

    app: AsgiApp = _body_limit(route, options.max_body_bytes)
    if options.cors_origins:
        app = CORSMiddleware(app, allow_origins=list(options.cors_origins),  # type: ignore[arg-type]
                             allow_methods=["GET", "POST"], allow_headers=CONNECT_HEADERS,
                             expose_headers=EXPOSED_HEADERS, max_age=7200)
    if options.loopback_only:
        app = TrustedHostMiddleware(app, allowed_hosts=list(LOOPBACK_HOSTS))  # type: ignore[arg-type]
    return app
