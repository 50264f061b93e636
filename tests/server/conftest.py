"""Fixtures of the service tests: an in-process server on an ephemeral localhost port."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
from server_testlib import running_server

from gallerist import engine
from gallerist.client import HintClient
from gallerist.server import GalleristServer
from gallerist.server.demo_state import demo_state


@pytest.fixture(scope="module")
def service() -> Iterator[GalleristServer]:
    """A started server with 2 search slots, shared by a test module."""
    with running_server(workers=2) as server:
        yield server


@pytest.fixture()
def client(service: GalleristServer) -> Iterator[HintClient]:
    """A client of `service`."""
    with HintClient(f"localhost:{service.port}") as c:
        yield c


@pytest.fixture(scope="session")
def demo() -> engine.GameState:
    """A 2-player mid-game position at a turn start (seat 0 to move)."""
    return demo_state(seed=1)
