"""GalleristAI and GalleristPlay over Connect: connectrpc's generated ASGI applications
(Connect, gRPC-Web; JSON or binary protobuf) whose methods run the gRPC servicers' own
rpc methods on a thread pool.

`ConnectService` implements the generated `GalleristAI` and `GalleristPlay` protocols:
each call gets a `ConnectCall` (the core's `RpcContext`), so the limits, search slots,
state cache, deadlines, error messages and log lines are those of the gRPC port; a
`ServiceError` becomes the Connect code its status names. It caps the calls in flight like the gRPC port's ``max_rpcs``. A call whose client
goes away is cancelled: its search stops and its slot is freed.
"""
from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from connectrpc.code import Code
from connectrpc.errors import ConnectError

from gallerist.server.connect_context import ConnectCall
from gallerist.server.servicer import GalleristServicer
from gallerist.server.status import ServiceError
from gallerist.server.play.servicer import PlayServicer

__all__ = ["ConnectService"]

log = logging.getLogger("gallerist.server")

_END = object()


class _Failed:
    """An exception raised by a stream's generator, carried to the event loop."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


class ConnectService:
    """The servicers behind connectrpc's `GalleristAI` and `GalleristPlay` methods.

    Args:
        servicer: the gRPC port's servicer.
        play: the gRPC port's GalleristPlay servicer (None: the service is not offered).
        max_calls: calls at once, beyond which RESOURCE_EXHAUSTED (None: 64).
    """

    def __init__(self, servicer: GalleristServicer, play: PlayServicer | None = None, *,
                 max_calls: int | None = None) -> None:
        self._servicer = servicer
        self.play = play
        self._max_calls = max_calls or 64
        self._pool = ThreadPoolExecutor(max_workers=self._max_calls,
                                        thread_name_prefix="gallerist-http")
        self._live: set[ConnectCall] = set()
        self._lock = threading.Lock()
        self._closed = False
        self.idle = threading.Event()
        """Set while no call is in flight."""
        self.idle.set()

    async def suggest_moves(self, request: Any, ctx: Any) -> Any:
        return await self._unary("SuggestMoves", request, ctx, self._servicer)

    def analyze_stream(self, request: Any, ctx: Any) -> AsyncIterator[Any]:
        return self._stream("AnalyzeStream", request, ctx)

    async def new_game(self, request: Any, ctx: Any) -> Any:
        return await self._unary("NewGame", request, ctx, self._servicer)

    async def legal_actions(self, request: Any, ctx: Any) -> Any:
        return await self._unary("LegalActions", request, ctx, self._servicer)

    async def apply_action(self, request: Any, ctx: Any) -> Any:
        return await self._unary("ApplyAction", request, ctx, self._servicer)

    def analyze_game(self, request: Any, ctx: Any) -> AsyncIterator[Any]:
        return self._stream("AnalyzeGame", request, ctx)

    async def start_game(self, request: Any, ctx: Any) -> Any:
        return await self._unary("StartGame", request, ctx, self.play)

    async def play_move(self, request: Any, ctx: Any) -> Any:
        return await self._unary("PlayMove", request, ctx, self.play)

    async def undo_move(self, request: Any, ctx: Any) -> Any:
        return await self._unary("UndoMove", request, ctx, self.play)

    async def get_game(self, request: Any, ctx: Any) -> Any:
        return await self._unary("GetGame", request, ctx, self.play)

    async def review_game(self, request: Any, ctx: Any) -> Any:
        return await self._unary("ReviewGame", request, ctx, self.play)

    async def list_games(self, request: Any, ctx: Any) -> Any:
        return await self._unary("ListGames", request, ctx, self.play)

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

    def in_flight(self) -> int:
        """The calls being served."""
        with self._lock:
            return len(self._live)

    # ------------------------------------------------------------------ one call

    async def _unary(self, method: str, request: Any, ctx: Any, servicer: Any) -> Any:
        call = self._open(method, ctx)
        loop = asyncio.get_running_loop()
        done = loop.run_in_executor(self._pool, self._run_unary, call, method, request,
                                    servicer)
        try:
            return await asyncio.shield(done)
        except asyncio.CancelledError:   # the client went away: stop the search now
            call.client_gone()
            done.add_done_callback(lambda f: f.cancelled() or f.exception())
            raise

    def _run_unary(self, call: ConnectCall, method: str, request: Any, servicer: Any) -> Any:
        try:
            response = _run(call, lambda: getattr(servicer, method)(request, call))
            _check_over(call)
            return response
        finally:
            self._finish(call)

    async def _stream(self, method: str, request: Any, ctx: Any) -> AsyncIterator[Any]:
        """The servicer's generator, run whole on one pool thread, its responses handed to
        the event loop through a queue; a client that goes away cancels the call."""
        call = self._open(method, ctx)
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Any] = asyncio.Queue()
        def put(item: Any) -> None:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, item)
            except RuntimeError:   # the event loop is gone (the port stopped): no one reads
                pass
        loop.run_in_executor(self._pool, self._pump, call, method, request, put)
        try:
            while (item := await queue.get()) is not _END:
                if isinstance(item, _Failed):
                    raise item.error
                yield item
        finally:   # also when the client went away: the search stops, the call is logged
            if not call.over:
                call.client_gone()

    def _pump(self, call: ConnectCall, method: str, request: Any,
              put: Callable[[Any], None]) -> None:
        responses: Iterator[Any] = getattr(self._servicer, method)(request, call)
        try:
            while (response := _run(call, lambda: next(responses, _END))) is not _END:
                put(response)
            _check_over(call)
        except BaseException as exc:  # noqa: BLE001 - handed to the event loop
            put(_Failed(exc))
        finally:
            self._finish(call)
            responses.close()
            put(_END)

    def _open(self, method: str, ctx: Any) -> ConnectCall:
        """The call's context, once there is room for it."""
        call = ConnectCall(ctx)
        with self._lock:
            if self._closed:
                raise ConnectError(Code.UNAVAILABLE, "the server is shutting down")
            if len(self._live) >= self._max_calls:
                raise ConnectError(Code.RESOURCE_EXHAUSTED,
                                   f"server busy: {len(self._live)} HTTP calls in flight; "
                                   "retry later")
            self._live.add(call)
            self.idle.clear()
        return call

    def _finish(self, call: ConnectCall) -> None:
        call.end()
        with self._lock:
            self._live.discard(call)
            if not self._live:
                self.idle.set()


def _run(call: ConnectCall, step: Callable[[], Any]) -> Any:
    """`step()`, with a `ServiceError` turned into its Connect code and any other
    exception into INTERNAL."""
    try:
        return step()
    except ConnectError:
        raise
    except ServiceError as exc:
        raise ConnectError(exc.status.connect, str(exc)) from None
    except Exception as exc:
        log.exception("%s failed", call.method())
        raise ConnectError(Code.INTERNAL, f"internal error: {type(exc).__name__}") from None


def _check_over(call: ConnectCall) -> None:
    """A call cut short by the server's shutdown or by its deadline fails as on gRPC."""
    if call.disconnected:
        raise ConnectError(Code.CANCELED, "the client went away before the call finished")
    if call.cancelled:
        raise ConnectError(Code.UNAVAILABLE, "the server shut down before the call finished")
    if call.expired():
        raise ConnectError(Code.DEADLINE_EXCEEDED, "deadline exceeded")
