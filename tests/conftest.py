"""Fixtures of every test: the data directory (where `gallerist serve` keeps its games
database by default) is a temporary folder, never the user's own."""
from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session", autouse=True)
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """$GALLERIST_DATA for the whole run, inherited by the commands the tests start."""
    path = str(tmp_path_factory.mktemp("gallerist-data"))
    before = os.environ.get("GALLERIST_DATA")
    os.environ["GALLERIST_DATA"] = path
    yield path
    if before is None:
        os.environ.pop("GALLERIST_DATA", None)
    else:
        os.environ["GALLERIST_DATA"] = before
