"""GalleristAI and GalleristPlay over Connect: connectrpc's generated WSGI applications
(Connect and gRPC-Web, JSON or binary protobuf) whose methods call the gRPC servicers' own
rpc methods, and the /play page beside them.

`ConnectService` implements the generated `GalleristAISync` and `GalleristPlaySync`
protocols: each call gets a
`CallContext` (a `grpc.ServicerContext` look-alike), so the limits, search slots, state
cache, deadlines, error messages and log lines are those of the gRPC port. It checks the
token (server/auth.py) and caps the calls in flight like the gRPC port's ``max_rpcs``.
"""
from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from connectrpc.code import Code
from connectrpc.compat import google_protobuf_binary_codec, google_protobuf_json_codec
from connectrpc.errors import ConnectError

from gallerist.server.auth import TokenInterceptor, deny
from gallerist.server.connect_context import CallContext
from gallerist.server.servicer import SERVICE_NAME, GalleristServicer
from gallerist.server.play.page import page_app
from gallerist.server.play.servicer import PLAY_SERVICE_NAME, PlayServicer
from gallerist.v1.hints_connect import GalleristAIWSGIApplication
from gallerist.v1.play_connect import GalleristPlayWSGIApplication

__all__ = ["ConnectService", "wsgi_app"]

log = logging.getLogger("gallerist.server")

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class ConnectService:
    """The servicers behind connectrpc's `GalleristAISync` and `GalleristPlaySync` methods.

    Args:
        servicer: the gRPC port's servicer.
        play: the gRPC port's GalleristPlay servicer (None: the service is not offered).
        token: when given, calls need ``Authorization: Bearer <token>``.
        max_calls: calls at once, beyond which RESOURCE_EXHAUSTED (None: no cap).
    """

    def __init__(self, servicer: GalleristServicer, play: PlayServicer | None = None, *,
                 token: str | None = None, max_calls: int | None = None) -> None:
        self._servicer = servicer
        self.play = play
        self._auth = TokenInterceptor(token) if token else None
        self._max_calls = max_calls
        self._live: set[CallContext] = set()
        self._lock = threading.Lock()
        self._closed = False

    def suggest_moves(self, request: Any, ctx: Any) -> Any:
        return self._unary("SuggestMoves", request, ctx)

    def analyze_stream(self, request: Any, ctx: Any) -> Iterator[Any]:
        return self._stream("AnalyzeStream", request, ctx)

    def new_game(self, request: Any, ctx: Any) -> Any:
        return self._unary("NewGame", request, ctx)

    def legal_actions(self, request: Any, ctx: Any) -> Any:
        return self._unary("LegalActions", request, ctx)

    def apply_action(self, request: Any, ctx: Any) -> Any:
        return self._unary("ApplyAction", request, ctx)

    def analyze_game(self, request: Any, ctx: Any) -> Iterator[Any]:
        return self._stream("AnalyzeGame", request, ctx)

    def start_game(self, request: Any, ctx: Any) -> Any:
        return self._unary("StartGame", request, ctx, self.play)

    def play_move(self, request: Any, ctx: Any) -> Any:
        return self._unary("PlayMove", request, ctx, self.play)

    def undo_move(self, request: Any, ctx: Any) -> Any:
        return self._unary("UndoMove", request, ctx, self.play)

    def get_game(self, request: Any, ctx: Any) -> Any:
        return self._unary("GetGame", request, ctx, self.play)

    def review_game(self, request: Any, ctx: Any) -> Any:
        return self._unary("ReviewGame", request, ctx, self.play)

    def close(self) -> None:
        """Refuse new calls (UNAVAILABLE); calls in flight go on."""
        with self._lock:
            self._closed = True

    def cancel_all(self) -> None:
        """Cancel the calls in flight: their searches stop, streams end UNAVAILABLE."""
        with self._lock:
            live = list(self._live)
        for call in live:
            call.cancel()

    # ------------------------------------------------------------------ one call

    def _unary(self, method: str, request: Any, ctx: Any, servicer: Any = None) -> Any:
        call = self._open(method, ctx)
        try:
            target = servicer or self._servicer
            response = _run(call, lambda: getattr(target, method)(request, call))
            _check_over(call)
            return response
        finally:
            self._finish(call)

    def _stream(self, method: str, request: Any, ctx: Any) -> Iterator[Any]:
        call = self._open(method, ctx)
        responses = getattr(self._servicer, method)(request, call)   # a generator
        try:
            while (response := _run(call, lambda: next(responses, _END))) is not _END:
                yield response
            _check_over(call)
        finally:   # also when the client went away: the search stops, the call is logged
            self._finish(call)
            responses.close()

    def _open(self, method: str, ctx: Any) -> CallContext:
        """The call's context, once the token is checked and there is room for it."""
        call = CallContext(ctx)
        if self._auth is not None and not self._auth.allows(call.invocation_metadata()):
            deny(f"/{SERVICE_NAME}/{method}")(None, call)  # type: ignore[arg-type]  # raises
        with self._lock:
            if self._closed:
                raise ConnectError(Code.UNAVAILABLE, "the server is shutting down")
            if self._max_calls is not None and len(self._live) >= self._max_calls:
                raise ConnectError(Code.RESOURCE_EXHAUSTED,
                                   f"server busy: {len(self._live)} HTTP calls in flight; "
                                   "retry later")
            self._live.add(call)
        return call

    def _finish(self, call: CallContext) -> None:
        call.end()
        with self._lock:
            self._live.discard(call)


_END = object()


def _run(call: CallContext, step: Callable[[], Any]) -> Any:
    """`step()`, with an exception that is not the servicer's abort turned INTERNAL."""
    try:
        return step()
    except ConnectError:
        raise
    except Exception as exc:
        log.exception("%s failed", call.method())
        raise ConnectError(Code.INTERNAL, f"internal error: {type(exc).__name__}") from None


def _check_over(call: CallContext) -> None:
    """A call cut short by the server's shutdown or by its deadline fails as on gRPC."""
    if call.cancelled:
        raise ConnectError(Code.UNAVAILABLE, "the server shut down before the call finished")
    if call.expired():
        raise ConnectError(Code.DEADLINE_EXCEEDED, "deadline exceeded")


#: bare HTTP errors of connectrpc that get a Connect error body: status -> (code, message)
_BARE_ERRORS: dict[str, tuple[str, Callable[[dict[str, Any]], str]]] = {
    "415": ("invalid_argument", lambda env: (
        f"content-type {env.get('CONTENT_TYPE', '')!r} is not served: send application/json "
        "or application/proto (Connect unary calls), application/connect+json or "
        "application/connect+proto (Connect streams), or application/grpc-web+proto")),
    "404": ("unimplemented", lambda env: (
        f"no method at {env.get('PATH_INFO', '')!r}: the methods are "
        f"/{SERVICE_NAME}/<Method> (see hints.proto) and /{PLAY_SERVICE_NAME}/<Method> "
        "(play.proto); the page is /play")),
    "405": ("unimplemented", lambda env: (
        f"{env.get('REQUEST_METHOD', '')} is not served: send the call as a POST")),
}


#: gRPC itself (HTTP/2, trailers) is not served by this HTTP/1 port: a trailers-only answer
_NOT_GRPC = [("Content-Type", "application/grpc"), ("grpc-status", "12"),  # UNIMPLEMENTED
             ("grpc-message", "gRPC is served on the gRPC port (serve --port); this HTTP "
                              "port serves Connect and gRPC-Web")]


def _with_error_bodies(app: WsgiApp) -> WsgiApp:
    """`app`, with a Connect JSON error body on connectrpc's bare 404, 405 and 415 answers
    (an unknown method, not a POST, a wrong content type), saying what to send instead,
    and gRPC calls sent to the gRPC port."""
    def wrapped(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        content_type = environ.get("CONTENT_TYPE", "")
        if content_type.startswith("application/grpc") and "grpc-web" not in content_type:
            start_response("200 OK", _NOT_GRPC)
            return []
        held: list[Any] = []

        def hold(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            held[:] = [status, headers, exc_info]
            return _no_write

        body = app(environ, hold)
        status, headers, exc_info = held
        bare = _BARE_ERRORS.get(status[:3])
        if bare is None or any(k.lower() == "content-type" for k, _ in headers):
            start_response(status, headers, exc_info)
            return body
        getattr(body, "close", lambda: None)()
        code, message = bare
        data = json.dumps({"code": code, "message": message(environ)}).encode()
        start_response(status, [*headers, ("Content-Type", "application/json"),
                                ("Content-Length", str(len(data)))])
        return [data]
    return wrapped


def _no_write(data: bytes) -> None:
    raise RuntimeError("connectrpc returns its body; it does not call write()")


def wsgi_app(service: ConnectService) -> WsgiApp:
    """The WSGI application of `service`: connectrpc's, on our google.protobuf messages
    (the JSON codec refuses unknown fields: INVALID_ARGUMENT naming the field), GalleristPlay
    under its own path, and the /play page's GET requests."""
    codecs = [google_protobuf_binary_codec(),
              google_protobuf_json_codec(ignore_unknown_fields=False)]
    hints = _with_error_bodies(GalleristAIWSGIApplication(service, codecs=codecs))
    if service.play is None:
        return hints
    play = _with_error_bodies(GalleristPlayWSGIApplication(service, codecs=codecs))
    page = page_app(service.play)
    prefix = f"/{PLAY_SERVICE_NAME}/"

    def route(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path.startswith(prefix):
            return play(environ, start_response)
        if environ.get("REQUEST_METHOD") in ("GET", "HEAD") and (
                path == "/" or path == "/play" or path.startswith("/play/")):
            return page(environ, start_response)
        return hints(environ, start_response)
    return route
