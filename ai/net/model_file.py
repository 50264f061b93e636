"""The model file: a trained network as a NumPy `.npz` (`save_model`, `load_model`), its
checks (`ModelFileError` names the file and the mismatch; `validate`), what its metadata
says of its training (`trained_player_counts`, `value_trained`) and random weights of its
layout for tests and benchmarks (`random_arrays`). The network itself and its NumPy
forward pass are `reference.Model`; the keys and shapes are in docs/records.md ("Model
file").
"""
from __future__ import annotations

import json
import math
import os
import zipfile
from collections.abc import Mapping
from typing import Any

import numpy as np

from gallerist import engine
from gallerist.ai.files import write_atomically
from gallerist.ai.net.reference import HEADS, NUM_SEATS, SKIPS, Model
from gallerist.ai.search._model import MODEL_MAX_LAYERS, MODEL_MAX_WIDTH
from gallerist.engine.errors import GalleristError

FORMAT = "gallerist-model"
#: The layout version `save_model` writes with skip weights (2) and without (1, as
#: before skip weights existed); `load_model` reads both.
FORMAT_VERSION = 2
FORMAT_VERSIONS = (1, 2)
NUM_ACTIONS = engine.NUM_DISTINCT_ACTIONS
#: The widest hidden layer and the most layers the C evaluator takes (its scratch
#: buffers are on the stack of the search threads).
MAX_WIDTH: int = MODEL_MAX_WIDTH      # stated once, in ai/search/_model.pxd
MAX_LAYERS: int = MODEL_MAX_LAYERS
HEADER_KEYS = ("format", "format_version", "observation_version", "observation_size",
               "num_actions", "money_scale", "num_layers", "metadata")


class ModelFileError(GalleristError, ValueError):
    """A model file that is missing, unreadable or does not match the engine (names the
    file and the mismatch)."""


def load_model(path: str) -> Model:
    """Read and check a model file; ModelFileError naming the file and the mismatch."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise ModelFileError(f"model file {path} is missing")
    try:
        data = np.load(path, allow_pickle=False)
    except ValueError:   # numpy found neither an archive nor an array: pickled or other data
        raise ModelFileError(f"model file {path} is not an .npz archive (model files are "
                             f"np.savez archives without pickles)") from None
    except (OSError, EOFError, zipfile.BadZipFile) as exc:
        raise ModelFileError(f"model file {path} is not a readable .npz archive: {exc}") from None
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise ModelFileError(f"model file {path} is not an .npz archive (it holds one array)")
    try:
        with data:
            arrays = {key: data[key] for key in data.files}
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise ModelFileError(f"model file {path} is not a readable .npz archive: {exc}") from None
    return validate(arrays, source=path)


class _Arrays:
    """The arrays of one model file, read with checks whose errors name the file and key."""

    def __init__(self, arrays: Mapping[str, Any], source: str) -> None:
        self.arrays, self.source = arrays, source

    def fail(self, key: str, problem: str) -> ModelFileError:
        return ModelFileError(f"model file {self.source}: {key}: {problem}")

    def get(self, key: str) -> np.ndarray:
        if key not in self.arrays:
            raise self.fail(key, "missing")
        return np.asarray(self.arrays[key])

    def scalar_int(self, key: str) -> int:
        a = self.get(key)
        if a.shape != () or a.dtype.kind not in "iu":
            raise self.fail(key, f"must be a 0-d integer, got dtype {a.dtype} shape {a.shape}")
        return int(a)

    def scalar_str(self, key: str) -> str:
        a = self.get(key)
        if a.shape != () or a.dtype.kind != "U":
            raise self.fail(key, f"must be a 0-d string, got dtype {a.dtype} shape {a.shape}")
        return str(a)

    def weights(self, key: str, shape: tuple[int | None, ...]) -> np.ndarray:
        a = self.get(key)
        if a.dtype != np.float32:
            raise self.fail(key, f"must be float32, got {a.dtype}")
        if a.ndim != len(shape) or any(w is not None and w != g for w, g in zip(shape, a.shape)):
            want = "(" + ", ".join("any" if w is None else str(w) for w in shape) + ")"
            raise self.fail(key, f"wrong shape: expected {want}, got {a.shape}")
        if not np.isfinite(a).all():
            raise self.fail(key, "holds NaN or infinite weights")
        return np.ascontiguousarray(a)


_VERSION_NAMES = {"format_version": "model layout version",
                  "observation_version": "observation layout version (engine.OBSERVATION_VERSION)",
                  "observation_size": "observation size (engine.OBSERVATION_SIZE)",
                  "num_actions": "number of action ids"}


def _header(f: _Arrays) -> tuple[int, float, int, dict[str, Any]]:
    """The checked header of a model file: (format_version, money_scale, num_layers,
    metadata)."""
    fmt = f.scalar_str("format")
    if fmt != FORMAT:
        raise f.fail("format", f"must be {FORMAT!r}, got {fmt!r}")
    version = f.scalar_int("format_version")
    if version not in FORMAT_VERSIONS:
        raise f.fail("format_version", f"{_VERSION_NAMES['format_version']} mismatch: the "
                                       f"engine reads {' and '.join(map(str, FORMAT_VERSIONS))}, "
                                       f"the file has {version}")
    for key, want in (("observation_version", engine.OBSERVATION_VERSION),
                      ("observation_size", engine.OBSERVATION_SIZE),
                      ("num_actions", NUM_ACTIONS)):
        got = f.scalar_int(key)
        if got != want:
            raise f.fail(key, f"{_VERSION_NAMES[key]} mismatch: the engine expects {want}, "
                              f"the file has {got}")
    scale = f.get("money_scale")
    if scale.shape != () or scale.dtype.kind not in "fiu":
        raise f.fail("money_scale", f"must be a 0-d number, got dtype {scale.dtype} shape {scale.shape}")
    money_scale = float(scale)
    if not math.isfinite(money_scale) or money_scale <= 0:
        raise f.fail("money_scale", f"must be a finite number > 0, got {money_scale}")
    layers = f.scalar_int("num_layers")
    if not 1 <= layers <= MAX_LAYERS:
        raise f.fail("num_layers", f"must be 1..{MAX_LAYERS}, got {layers}")
    try:
        metadata = json.loads(f.scalar_str("metadata"))
    except ValueError as exc:
        raise f.fail("metadata", f"is not valid JSON: {exc}") from None
    if not isinstance(metadata, dict):
        raise f.fail("metadata", f"must be a JSON object, got {type(metadata).__name__}")
    return version, money_scale, layers, metadata


def validate(arrays: Mapping[str, Any], source: str = "<memory>") -> Model:
    """A Model from the file's arrays, every key, dtype, shape and version checked."""
    f = _Arrays(arrays, source)
    version, money_scale, layers, metadata = _header(f)
    expected = (set(HEADER_KEYS) | {f"trunk_{k}{i}" for i in range(layers) for k in "wb"}
                | {f"{head}_{k}" for head in HEADS for k in "wb"})
    if version >= 2:
        expected |= set(SKIPS)
    extra = sorted(set(arrays) - expected)
    if extra:
        raise f.fail(", ".join(extra), f"unexpected key(s) for a {layers}-layer model of "
                                       f"format {version} (num_layers = {layers}; skip "
                                       f"weights need format_version 2)")
    trunk = []
    width = engine.OBSERVATION_SIZE
    for i in range(layers):
        w = f.weights(f"trunk_w{i}", (width, None))
        out = int(w.shape[1])
        if not 1 <= out <= MAX_WIDTH:
            raise f.fail(f"trunk_w{i}", f"layer width must be 1..{MAX_WIDTH}, got {out}")
        trunk.append((w, f.weights(f"trunk_b{i}", (out,))))
        width = out
    heads = {}
    for head, size in (("win", NUM_SEATS), ("money", NUM_SEATS), ("policy", NUM_ACTIONS)):
        heads[f"{head}_w"] = f.weights(f"{head}_w", (width, size))
        heads[f"{head}_b"] = f.weights(f"{head}_b", (size,))
    if version >= 2:
        for key in SKIPS:
            if key not in arrays:
                raise f.fail(key, f"missing (a file of format_version {version} holds the "
                                  f"skip weights {' and '.join(SKIPS)})")
            heads[key] = f.weights(key, (engine.OBSERVATION_SIZE, NUM_SEATS))
    return Model(trunk=tuple(trunk), money_scale=money_scale, metadata=metadata, source=source,
                 **heads)


def save_model(path: str, arrays: Mapping[str, Any], metadata: Mapping[str, Any]) -> Model:
    """Check and write a model file (atomically: a file that fails the checks is never
    written). `arrays` holds the weights (trunk_w{i}, trunk_b{i}, the heads; floating
    arrays are stored as float32; format 2's skip weights when the value has a linear
    part) and `money_scale`; the header keys (format,
    format_version, observation_version, observation_size, num_actions, num_layers) are
    filled in when absent and checked when given. `metadata`: a JSON-serialisable dict.
    Returns the Model as `load_model` will read it."""
    path = os.fspath(path)
    try:
        meta_text = json.dumps(dict(metadata), sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise ModelFileError(f"model file {path}: metadata: not JSON-serialisable: {exc}") from None
    out: dict[str, np.ndarray] = {}
    for key, value in arrays.items():
        a = np.asarray(value)
        out[key] = a.astype(np.float32) if a.dtype.kind == "f" and key != "money_scale" else a
    layers = sum(1 for key in out if key.startswith("trunk_w"))
    version = FORMAT_VERSION if any(key in out for key in SKIPS) else 1
    defaults = {"format": np.array(FORMAT), "format_version": np.array(version),
                "observation_version": np.array(engine.OBSERVATION_VERSION),
                "observation_size": np.array(engine.OBSERVATION_SIZE),
                "num_actions": np.array(NUM_ACTIONS), "num_layers": np.array(layers)}
    for key, value in defaults.items():
        out.setdefault(key, value)
    if "money_scale" in out:
        out["money_scale"] = np.asarray(out["money_scale"], dtype=np.float64)
    out["metadata"] = np.array(meta_text)
    model = validate(out, source=path)
    write_atomically(path, lambda fh: np.savez(fh, **out))
    return model


def random_arrays(hidden: tuple[int, ...] = (64, 64), seed: int = 0, money_scale: float = 100.0,
                  scale: float = 1.0, skip: bool = False) -> dict[str, np.ndarray]:
    """Random weights of the file's layout (He-style scale times `scale`) and money_scale,
    for tests and benchmarks: `save_model(path, random_arrays(), {})`; with `skip`, also
    format 2's skip weights (a linear part of the value)."""
    rng = np.random.default_rng(seed)
    out: dict[str, np.ndarray] = {"money_scale": np.array(float(money_scale))}
    width = engine.OBSERVATION_SIZE
    for i, h in enumerate(hidden):
        out[f"trunk_w{i}"] = (rng.standard_normal((width, h)) * scale * math.sqrt(2.0 / width)
                              ).astype(np.float32)
        out[f"trunk_b{i}"] = (rng.standard_normal(h) * 0.1 * scale).astype(np.float32)
        width = h
    for head, size in (("win", NUM_SEATS), ("money", NUM_SEATS), ("policy", NUM_ACTIONS)):
        out[f"{head}_w"] = (rng.standard_normal((width, size)) * scale / math.sqrt(width)
                            ).astype(np.float32)
        out[f"{head}_b"] = (rng.standard_normal(size) * 0.1 * scale).astype(np.float32)
    if skip:
        for key in SKIPS:
            out[key] = (rng.standard_normal((engine.OBSERVATION_SIZE, NUM_SEATS)) * scale
                        / math.sqrt(engine.OBSERVATION_SIZE)).astype(np.float32)
    return out


def trained_player_counts(model: "Model") -> frozenset[int] | None:
    """The player counts of the games a model was trained on, from its metadata (the
    trainer's --players filter, else the player counts of its data sets); None when the
    metadata does not say (a model made outside `gallerist train`)."""
    meta = model.metadata
    players = meta.get("players")
    if isinstance(players, int) and not isinstance(players, bool):
        return frozenset((players,))
    data = meta.get("data")
    if not isinstance(data, list) or not data:
        return None
    counts = set()
    for entry in data:
        n = entry.get("players") if isinstance(entry, dict) else None
        if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= NUM_SEATS:
            return None
        counts.add(n)
    return frozenset(counts)


def value_trained(model: "Model") -> bool:
    """Whether a model's win head was trained (False: a policy-only PUCT prior, trained
    with ``--win-weight 0``)."""
    hyper = model.metadata.get("hyperparameters")
    return not (isinstance(hyper, dict) and hyper.get("win_weight") == 0
                and not hyper.get("linear_value"))
