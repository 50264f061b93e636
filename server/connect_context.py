"""A Connect call as the service core sees it (`server.status.RpcContext`): the client's
deadline, liveness, callbacks at the end of the call and the peer, for calls on the HTTP
port.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from connectrpc.request import RequestContext

__all__ = ["ConnectCall"]

log = logging.getLogger("gallerist.server")


class ConnectCall:
    """One Connect call. `end()` (or `cancel()`, `client_gone()`) closes it: the
    callbacks run once.

    Args:
        request: connectrpc's context of the call (headers, deadline, client address).
    """

    def __init__(self, request: RequestContext) -> None:
        self._request = request
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

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        """The request headers as (lower-case name, value) pairs, as gRPC gives metadata."""
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
                log.exception("a callback of %s failed", self.method())

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
        return str(self._request.method.name)

    def __repr__(self) -> str:
        return f"ConnectCall({self.method()}, peer={self.peer()})"
