"""Search slots: how many searches (threads of search) may run at once.

A search takes one slot per thread it uses, or is refused at once: the server never
queues searches, so overload is an immediate RESOURCE_EXHAUSTED, not a growing backlog.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

__all__ = ["SearchSlots"]


class Stoppable(Protocol):
    """Anything with a thread-safe `stop()`, such as `server.search.Search`."""

    def stop(self) -> None: ...


class SearchSlots:
    """A counting limit on concurrent searches that never blocks.

    Args:
        capacity: slots in all (the server's `workers`).

    >>> slots = SearchSlots(2)
    >>> with slots.hold(2) as ok:
    ...     ok, slots.in_use, slots.try_acquire(1)
    (True, 2, False)
    >>> slots.in_use
    0
    """

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be >= 1, got {capacity}")
        self.capacity = capacity
        self._used = 0
        self._lock = threading.Lock()
        self._running: set[Stoppable] = set()
        self._closed = False

    @property
    def in_use(self) -> int:
        """Slots taken now."""
        return self._used

    def try_acquire(self, n: int = 1) -> bool:
        """Take `n` slots if they are free (and the server is not closing)."""
        with self._lock:
            if self._closed or self._used + n > self.capacity:
                return False
            self._used += n
            return True

    def release(self, n: int = 1) -> None:
        """Give back `n` slots."""
        with self._lock:
            self._used = max(0, self._used - n)

    @contextmanager
    def hold(self, n: int = 1) -> Iterator[bool]:
        """`with slots.hold(n) as ok:` takes the slots if free (ok) and always gives
        them back."""
        ok = self.try_acquire(n)
        try:
            yield ok
        finally:
            if ok:
                self.release(n)

    @contextmanager
    def running(self, search: Stoppable) -> Iterator[None]:
        """Register a running search so that `stop_all` can reach it."""
        with self._lock:
            self._running.add(search)
        try:
            yield
        finally:
            with self._lock:
                self._running.discard(search)

    def stop_all(self) -> int:
        """Stop every running search (they answer with what they have) and refuse new
        ones. Returns how many were stopped."""
        with self._lock:
            self._closed = True
            running = list(self._running)
        for search in running:
            search.stop()
        return len(running)
