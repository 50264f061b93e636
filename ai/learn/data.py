"""Self-play records as training data: read the directories `gallerist selfplay` writes
(docs/records.md, "Self-play directory") and the compact ones of `gallerist netplay`
(replayed into the same rows, ai.selfplay.compact), check their manifests and shards' sha256 agree,
and split the positions into training and validation sets **by game**. NumPy only (no
JAX), so the checks run and fail fast without the training library.
"""
from __future__ import annotations

import math
import os
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gallerist.ai.selfplay import compact
from gallerist.ai.selfplay.records import (COLUMNS as LAYOUT, OPTIONAL, SEATS, SelfplayError,
                                          read_manifest, row_shape, sha256_file)

__all__ = ["COLUMNS", "Dataset", "load_records", "split_by_game"]

#: The shard arrays read, with their dtypes and row shapes (ai.selfplay.records: None is
#: the observation size, "A" the number of action ids), and those a shard may lack
#: (records of older runs; read as NaN).
OPTIONAL_COLUMNS = {k: LAYOUT[k] for k in OPTIONAL}
COLUMNS = {k: LAYOUT[k] for k in ("obs", "policy", "legal", "num_players", "game",
                                  "final_money", "win_share")}


@dataclass
class Dataset:
    """The positions of one or more record directories, as arrays of equal length.

    `arrays` holds the `COLUMNS`, the `OPTIONAL_COLUMNS` (NaN where a shard has none) plus ``group``: the game of each row as one integer over
    all directories (directory i's game g and directory j's game g are different games).
    `sources` says per directory how many games and positions were read.
    """

    arrays: dict[str, np.ndarray]
    observation_version: int
    observation_size: int
    num_actions: int
    sources: list[dict[str, object]] = field(default_factory=list)

    def __len__(self) -> int:
        return int(self.arrays["obs"].shape[0])

    def take(self, rows: np.ndarray) -> "Dataset":
        """The rows `rows` (indices or a mask) as a new Dataset (same sources)."""
        return Dataset({k: v[rows] for k, v in self.arrays.items()}, self.observation_version,
                       self.observation_size, self.num_actions, self.sources)

    @property
    def games(self) -> int:
        """How many distinct games the rows come from."""
        return int(np.unique(self.arrays["group"]).size)


def _read_shard(path: Path, size: int, actions: int, positions: object) -> dict[str, np.ndarray]:
    try:
        with np.load(path, allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in (*COLUMNS, *OPTIONAL_COLUMNS) if k in npz.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise SelfplayError(f"{path}: unreadable shard ({exc})") from None
    rows = None
    for key, (dtype, tail) in COLUMNS.items():
        if key not in arrays:
            raise SelfplayError(f"{path}: no array {key!r}")
        a = arrays[key]
        want = row_shape(tail, size, actions)
        if a.dtype != dtype or a.shape[1:] != want or (rows is not None and len(a) != rows):
            raise SelfplayError(f"{path}: {key} is {a.dtype} of shape {a.shape}, expected "
                               f"{np.dtype(dtype)} of shape "
                               f"{(rows if rows is not None else 'P', *want)}")
        rows = len(a)
    for key, (dtype, tail) in OPTIONAL_COLUMNS.items():
        a = arrays.setdefault(key, np.full((rows or 0, *tail), np.nan, dtype))  # type: ignore[arg-type]
        if a.dtype != dtype or a.shape != (rows or 0, *tail):
            raise SelfplayError(f"{path}: {key} is {a.dtype} of shape {a.shape}, expected "
                               f"{np.dtype(dtype)} of shape {(rows, *tail)}")
    if isinstance(positions, int) and positions != rows:
        raise SelfplayError(f"{path}: {rows} rows, the manifest says {positions}")
    return arrays


def _check_rows(path: Path, a: dict[str, np.ndarray]) -> None:
    """Values the training relies on: finite numbers, 1-4 players, a legal move, targets
    on the present seats and legal ids only."""
    n = a["num_players"].astype(np.int64)
    if n.size and (n.min() < 1 or n.max() > SEATS):
        raise SelfplayError(f"{path}: num_players outside 1..{SEATS}")
    for key in ("obs", "policy", "final_money", "win_share"):
        if not np.isfinite(a[key]).all():
            raise SelfplayError(f"{path}: {key} has NaN or infinite values")
    if n.size and not a["legal"].any(axis=1).all():
        raise SelfplayError(f"{path}: a row has no legal action")
    absent = np.arange(SEATS)[None, :] >= n[:, None]
    if (a["win_share"][absent] != 0).any() or (a["final_money"][absent] != 0).any():
        raise SelfplayError(f"{path}: win_share/final_money nonzero for an absent seat")
    if (a["policy"][~a["legal"]] != 0).any():
        raise SelfplayError(f"{path}: policy puts weight on an illegal action id")


def _concatenate(chunks: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The chunks' arrays joined key by key, each chunk's array released as soon as it is
    copied: at most one chunk more than the result is held (np.concatenate would hold
    every chunk and the result at once: twice the records, for millions of rows)."""
    out: dict[str, np.ndarray] = {}
    for key in list(chunks[0]):
        first = chunks[0][key]
        total = sum(len(c[key]) for c in chunks)
        joined = np.empty((total, *first.shape[1:]), first.dtype)
        at = 0
        for c in chunks:
            part = c.pop(key)
            joined[at:at + len(part)] = part
            at += len(part)
            del part
        out[key] = joined
    return out


def load_records(dirs: Sequence[str | os.PathLike[str]], players: int | None = None) -> Dataset:
    """Read the self-play directories `dirs` into one Dataset.

    Args:
        dirs: one or more directories written by ``gallerist selfplay`` or ``gallerist
            netplay``.
        players: keep only the positions of games with this many players (None: all).

    Raises:
        SelfplayError: a directory is missing or not a self-play directory, its manifest or a
            shard is unreadable or malformed, the directories disagree on the observation
            version or size or the number of actions, or no position is left.
    """
    if not dirs:
        raise SelfplayError("no data directory given")
    parts: list[dict[str, np.ndarray]] = []
    sources: list[dict[str, object]] = []
    first: tuple[Path, dict[str, object]] | None = None
    offset = 0
    for d in dirs:
        folder = Path(d)
        compact_rows = None
        if compact.is_compact(folder):   # `gallerist netplay`: replayed into rows
            manifest, compact_rows = compact.read_directory(folder)
        else:
            manifest = read_manifest(folder)
        if first is None:
            first = (folder, manifest)
        for key in ("observation_version", "observation_size", "num_actions"):
            if manifest[key] != first[1][key]:
                raise SelfplayError(f"{folder}: {key} {manifest[key]} differs from "
                                   f"{first[0]}'s {first[1][key]} (train on records of one "
                                   f"observation layout)")
        size, actions = int(manifest["observation_size"]), int(manifest["num_actions"])  # type: ignore[call-overload]
        read: list[dict[str, np.ndarray]] = []
        for arrays in compact_rows or []:
            _check_rows(folder, arrays)
            if players is not None:
                arrays = {k: v[arrays["num_players"] == players] for k, v in arrays.items()}
            read.append(arrays)
        for shard in manifest["shards"] if compact_rows is None else []:  # type: ignore[union-attr]
            path = folder / shard["file"]
            if not path.is_file():
                raise SelfplayError(f"{path}: listed in the manifest but missing")
            if "sha256" in shard and sha256_file(path) != shard["sha256"]:
                raise SelfplayError(f"{path}: sha256 differs from the manifest's (the file is "
                                   f"corrupt or was changed after the run wrote it)")
            arrays = _read_shard(path, size, actions, shard.get("positions"))
            _check_rows(path, arrays)
            if players is not None:
                arrays = {k: v[arrays["num_players"] == players] for k, v in arrays.items()}
            read.append(arrays)
        columns = {**COLUMNS, **OPTIONAL_COLUMNS}
        joined = _concatenate(read) if read else {
            k: np.zeros((0, *row_shape(columns[k][1], size, actions)), columns[k][0])
            for k in columns}
        games, group = np.unique(joined["game"], return_inverse=True)
        joined["group"] = group.astype(np.int64).reshape(-1) + offset
        offset += len(games)
        parts.append(joined)
        sources.append({"dir": str(folder), "games": int(len(games)),
                        "positions": int(len(joined["game"])),
                        "players": manifest.get("players"),
                        "spec": manifest.get("spec") or _netplay_spec(manifest)})
    assert first is not None
    arrays = _concatenate(parts)
    if not len(arrays["obs"]):
        which = f" of {players}-player games" if players is not None else ""
        raise SelfplayError(f"no positions{which} in {', '.join(map(str, dirs))}")
    return Dataset(arrays, int(first[1]["observation_version"]),  # type: ignore[call-overload]
                   int(first[1]["observation_size"]), int(first[1]["num_actions"]),  # type: ignore[call-overload]
                   sources)


def _netplay_spec(manifest: dict[str, object]) -> str | None:
    """A compact directory's search in words, as a model card lists its data's specs."""
    o = manifest.get("options")
    if not isinstance(o, dict):
        return None
    return (f"netplay:fast_iterations={o.get('fast_iterations')},full_iterations="
            f"{o.get('full_iterations')},full_fraction={o.get('full_fraction')},"
            f"model_sha256={str(manifest.get('model_sha256'))[:8]}")


def split_by_game(data: Dataset, val_fraction: float, seed: int, last_only: bool = False
                  ) -> tuple[Dataset, Dataset]:
    """Split `data` into (train, validation) so that no game has rows in both.

    The games are shuffled with `seed` and ``ceil(val_fraction * games)`` of them (at least
    one) go to validation; with `last_only`, drawn from the last directory's games alone
    (as many as it has at most): a model trained on the earlier directories has not seen
    them, so training on from it is judged on games new to it.

    Raises:
        SelfplayError: fewer than 2 games, or `val_fraction` outside (0, 1).
    """
    if not 0.0 < val_fraction < 1.0:
        raise SelfplayError(f"val_fraction {val_fraction} is outside (0, 1)")
    groups = np.unique(data.arrays["group"])
    if len(groups) < 2:
        raise SelfplayError(f"{len(groups)} game in the data: a split by game needs at least 2")
    n_val = min(len(groups) - 1, max(1, math.ceil(val_fraction * len(groups))))
    if last_only:   # the groups are numbered directory after directory
        last = int(data.sources[-1]["games"])   # type: ignore[call-overload]
        groups = groups[groups >= len(groups) - last]
        n_val = min(n_val, len(groups))
        if n_val < 1:
            raise SelfplayError(f"{data.sources[-1]['dir']}: no games to hold out for "
                                f"validation (val_games last)")
    order = np.random.default_rng(seed).permutation(groups)
    in_val = np.isin(data.arrays["group"], order[:n_val])
    return data.take(~in_val), data.take(in_val)
