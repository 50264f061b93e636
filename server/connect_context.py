"""A Connect call seen as a `grpc.ServicerContext`, so the HTTP port runs the servicer's
own rpc methods: the deadline, abort with a status code, callbacks at the end of the
call, liveness, the request headers as metadata, the peer.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import NoReturn

import grpc
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.request import RequestContext

__all__ = ["CallContext", "connect_code"]

log = logging.getLogger("gallerist.server")

#: gRPC status -> Connect code (the same names, but CANCELLED is spelt CANCELED).
_CODES: dict[grpc.StatusCode, Code] = {
    status: Code.CANCELED if status is grpc.StatusCode.CANCELLED else Code[status.name]
    for status in grpc.StatusCode if status is not grpc.StatusCode.OK}


def connect_code(status: grpc.StatusCode) -> Code:
    """The Connect code of a gRPC status code (not OK)."""
    return _CODES[status]


class CallContext:
    """What the servicer and the token check use of `grpc.ServicerContext`, for one
    Connect call. `end()` (or `cancel()`) closes the call: it runs the callbacks once.

    Args:
        request: connectrpc's context of the call (headers, deadline, client address).
    """

    def __init__(self, request: RequestContext) -> None:
        self._request = request
        self._code: grpc.StatusCode | None = None
        self._callbacks: list[Callable[[], None]] = []
        self._lock = threading.Lock()
        self._over = False
        self.cancelled = False
        """Whether the server cancelled the call (at shutdown)."""
        self.disconnected = False
        """Whether the client went away before the call ended."""

    def time_remaining(self) -> float | None:
        """Seconds to the client's deadline (Connect-Timeout-Ms, grpc-timeout), or None."""
        ms = self._request.timeout_ms
        return None if ms is None else max(0.0, ms / 1000.0)

    def expired(self) -> bool:
        """Whether the client's deadline has passed."""
        left = self.time_remaining()
        return left is not None and left <= 0.0

    @property
    def over(self) -> bool:
        """Whether the call has ended (its callbacks have run)."""
        return self._over

    def is_active(self) -> bool:
        """False once the call is over, cancelled or past its deadline."""
        return not self._over and not self.expired()

    def add_callback(self, callback: Callable[[], None]) -> bool:
        """Run `callback` when the call ends; False (not added) if it already has."""
        with self._lock:
            if self._over:
                return False
            self._callbacks.append(callback)
            return True

    def abort(self, code: grpc.StatusCode, details: str) -> NoReturn:
        """End the call with `code` and the message `details` (raises ConnectError)."""
        self._code = code
        raise ConnectError(connect_code(code), details)

    def code(self) -> grpc.StatusCode | None:
        """The status that `abort` set, or None."""
        return self._code

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        """The request headers as gRPC metadata (lower-case keys)."""
        return tuple((key.lower(), value)
                     for key, value in self._request.request_headers.allitems())

    def peer(self) -> str:
        """The client's address as gRPC writes it (``ipv4:127.0.0.1:PORT``)."""
        host, _, port = (self._request.client_address or "unknown:0").rpartition(":")
        return f"ipv6:[{host}]:{port}" if ":" in host else f"ipv4:{host}:{port}"

    def end(self) -> None:
        """The call is over: run its callbacks (once)."""
        with self._lock:
            if self._over:
                return
            self._over = True
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            try:
                callback()
            except Exception:  # noqa: BLE001 - as gRPC, a failing callback only logs
                log.exception("a callback of %s failed", self._request.method.name)

    def cancel(self) -> None:
        """Cancel the call (at shutdown): it turns inactive and its callbacks run."""
        self.cancelled = not self._over
        self.end()

    def client_gone(self) -> None:
        """The client went away: the call turns inactive and its callbacks run (its
        search stops), as a gRPC call that its client cancels."""
        self.disconnected = not self._over
        self.end()

    def method(self) -> str:
        """The rpc's name, e.g. ``SuggestMoves``."""
        return self._request.method.name

    def __repr__(self) -> str:
        return f"CallContext({self.method()}, peer={self.peer()})"
