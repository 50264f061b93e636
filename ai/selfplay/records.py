"""The layout of self-play records, in one place: what `gallerist selfplay` writes
(ai/selfplay/run.py) and `gallerist train` reads (ai/learn/data.py). NumPy only.
The layout in words is docs/records.md ("Self-play directory").
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from gallerist.engine.errors import GalleristError

__all__ = ["COLUMNS", "FORMAT", "FORMAT_VERSION", "MANIFEST", "OPTIONAL", "PLAYOUTS_KEY", "SEATS",
           "SelfplayError", "read_manifest", "row_shape", "sha256_file"]

#: The manifest's file name in a records directory, and its "format" and "format_version".
MANIFEST = "manifest.json"
FORMAT, FORMAT_VERSION = "gallerist-selfplay", 1
#: Seats of the seat columns (absent seats are zero).
SEATS = 4
#: Every array of a shard: its dtype and the shape of one row.
COLUMNS: dict[str, tuple[type, tuple[object, ...]]] = {
    "obs": (np.float32, (None,)),
    "policy": (np.float32, ("A",)),
    "legal": (np.bool_, ("A",)),
    "action": (np.int16, ()),
    "player": (np.int8, ()),
    "num_players": (np.int8, ()),
    "turn": (np.int16, ()),
    "game": (np.int32, ()),
    "final_money": (np.float32, (SEATS,)),
    "win_share": (np.float32, (SEATS,)),
    "root_win": (np.float32, (SEATS,)),
    "root_money": (np.float32, (SEATS,)),
    "playout_win": (np.float32, (SEATS,)),
}
#: The columns records of earlier runs lack (a reader takes them as NaN): the searching
#: bot's own estimate of every seat's win share and final money before the move, and
#: every seat's mean win share over uniform random playouts from the position, played
#: from the deciding player's view (ai/selfplay/labels.py; written only when asked for:
#: `gallerist selfplay --playouts N`, `gallerist label`).
OPTIONAL = ("root_win", "root_money", "playout_win")
#: The manifest key of the playouts per position of the ``playout_win`` column: at the
#: top level the count the run's new shards get (0 or absent: no column), in a shard's
#: entry the count its column was computed with.
PLAYOUTS_KEY = "playouts"


def row_shape(tail: tuple[object, ...], observation_size: int, num_actions: int) -> tuple[int, ...]:
    """A column's row shape with the observation size and the number of action ids."""
    return tuple(observation_size if d is None else num_actions if d == "A" else int(d)  # type: ignore[call-overload]
                 for d in tail)


def sha256_file(path: str | os.PathLike[str]) -> str:
    """The hex SHA-256 of a file (the manifests' check of each shard)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class SelfplayError(GalleristError, ValueError):
    """Bad input to a self-play run, or self-play records that cannot be read; the
    one-line message names the directory, file, argument or field."""


def read_manifest(folder: str | os.PathLike[str]) -> dict[str, Any]:
    """The checked manifest of a self-play records directory.

    Raises:
        SelfplayError: no such directory, no manifest, or one that is unreadable, of
            another format or version, or lacks its sizes or its list of shards.
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise SelfplayError(f"{folder}: a file, not a self-play directory: give the directory "
                            f"that 'gallerist selfplay' or 'gallerist netplay' wrote (its "
                            f"{MANIFEST} and shards)")
    if not folder.is_dir():
        raise SelfplayError(f"{folder}: no such directory, so no {MANIFEST} (not a self-play "
                            f"directory): give a directory written by 'gallerist selfplay'")
    path = folder / MANIFEST
    if not path.is_file():
        raise SelfplayError(f"{folder}: no {MANIFEST} (not a self-play directory)")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SelfplayError(f"{path}: cannot read it: {exc}") from None
    if not isinstance(manifest, dict):
        raise SelfplayError(f"{path}: the manifest is not a JSON object")
    if manifest.get("format") != FORMAT or manifest.get("format_version") != FORMAT_VERSION:
        raise SelfplayError(f"{path}: format {manifest.get('format')!r} version "
                            f"{manifest.get('format_version')!r}, expected {FORMAT!r} version "
                            f"{FORMAT_VERSION}")
    for key in ("observation_version", "observation_size", "num_actions"):
        value = manifest.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise SelfplayError(f"{path}: {key} is {value!r}, expected a non-negative integer")
    shards = manifest.get("shards")
    if not isinstance(shards, list) or not all(
            isinstance(s, dict) and isinstance(s.get("file"), str) for s in shards):
        raise SelfplayError(f"{path}: shards is not a list of {{'file': ...}} objects")
    return manifest
