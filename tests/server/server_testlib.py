"""Helpers of the service tests (positions, servers, waiting, status checks)."""
from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import grpc
import pytest

from gallerist import engine
from gallerist.server import GalleristServer, create_server

__all__ = ["chance_state", "decision_states", "expect_status", "running_server",
           "terminal_state", "wait_until"]


@contextmanager
def running_server(**kwargs: Any) -> Iterator[GalleristServer]:
    """A started server on localhost:0, stopped at the end."""
    server, _ = create_server("localhost:0", **kwargs)
    server.start()
    try:
        yield server
    finally:
        server.stop(grace=0).wait(5)


def expect_status(code: grpc.StatusCode, call: Callable[[], Any], *fragments: str) -> str:
    """Run `call`, which must fail with `code` and a message containing every fragment.

    Returns:
        The message (details).
    """
    with pytest.raises(grpc.RpcError) as info:
        result = call()
        if hasattr(result, "__iter__") and not hasattr(result, "ListFields"):
            list(result)   # a streaming call fails while it is read
    err = info.value
    assert err.code() == code, f"expected {code.name}, got {err.code().name}: {err.details()}"
    details = err.details() or ""
    for fragment in fragments:
        assert fragment in details, f"{fragment!r} not in {details!r}"
    return details


def wait_until(predicate: Callable[[], bool], timeout: float = 5.0, every: float = 0.005) -> None:
    """Poll `predicate` until it holds (AssertionError after `timeout` seconds)."""
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError("condition not reached in time")
        time.sleep(every)


def play_random(state: engine.GameState, steps: int, rng: random.Random) -> None:
    """Apply up to `steps` random legal actions or chance outcomes (stops at the end)."""
    for _ in range(steps):
        if state.is_terminal():
            return
        if state.is_chance():
            state.apply_random_chance(rng.randrange(1 << 30))
        else:
            state.apply(rng.choice(state.legal_actions()))


def decision_states(count: int, seed: int = 0, players: tuple[int, ...] = (2, 3, 4)) -> list[engine.GameState]:
    """Decision points taken along seeded random games (varied player counts)."""
    rng = random.Random(seed)
    out: list[engine.GameState] = []
    while len(out) < count:
        s = engine.new_game(rng.choice(players), seed=rng.randrange(1 << 30))
        play_random(s, rng.randrange(0, 400), rng)
        while s.is_chance():
            s.apply_random_chance(rng.randrange(1 << 30))
        if not s.is_terminal():
            out.append(s)
    return out


def chance_state(seed: int = 0) -> engine.GameState:
    """A position at a chance event."""
    rng = random.Random(seed)
    s = engine.new_game(2, seed=seed)
    while not s.is_chance():
        play_random(s, 1, rng)
    return s


def terminal_state(seed: int = 0) -> engine.GameState:
    """A finished game (random play)."""
    rng = random.Random(seed)
    s = engine.new_game(2, seed=seed)
    while not s.is_terminal():
        play_random(s, 100, rng)
    return s
