"""A small cache of validated states, keyed by their message bytes.

Validating a state (`GameState.from_proto`) is most of the service's own cost per call,
and clients often send the same state twice in a row (SuggestMoves, then ApplyAction
with the chosen move). Validation is a pure function of the message, so a state whose
bytes were validated before is served from here as a copy. The states the server makes
itself (NewGame, ApplyAction) go in too (`put`): a client playing a game through the
service sends each of them back next, and they need no validation.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from gallerist import engine

__all__ = ["StateCache"]


class StateCache:
    """A thread-safe LRU of validated states.

    Args:
        size: states kept (0 disables the cache).

    >>> cache = StateCache(2)
    >>> msg = engine.new_game(2, seed=1).to_proto()
    >>> a, b = cache.get(msg), cache.get(msg)
    >>> a == b and a is not b, cache.hits, cache.misses
    (True, 1, 1)
    """

    def __init__(self, size: int = 256) -> None:
        if size < 0:
            raise ValueError(f"size must be >= 0, got {size}")
        self.size = size
        self.hits = 0
        self.misses = 0
        self._states: OrderedDict[bytes, engine.GameState] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, msg: Any) -> engine.GameState:
        """The validated state of a `gallerist.v1.GameState` message (a fresh copy).

        Raises:
            engine.InvalidStateError: the message is not a valid state.
        """
        if self.size == 0:
            return engine.GameState.from_proto(msg)
        key = msg.SerializeToString(deterministic=True)
        with self._lock:
            state = self._states.get(key)
            if state is not None:
                self._states.move_to_end(key)
                self.hits += 1
        if state is not None:
            return state.copy()
        state = engine.GameState.from_proto(msg)
        with self._lock:
            self.misses += 1
        self._store(key, state)
        return state

    def put(self, msg: Any, state: engine.GameState) -> None:
        """Remember a state the server made itself (the engine's own, so valid) under the
        bytes of its message `msg` (`state.to_proto()`): the same message sent back is
        then served without validation."""
        if self.size:
            self._store(msg.SerializeToString(deterministic=True), state)

    def _store(self, key: bytes, state: engine.GameState) -> None:
        with self._lock:
            self._states[key] = state.copy()
            self._states.move_to_end(key)
            while len(self._states) > self.size:
                self._states.popitem(last=False)
