"""The model file: a trained evaluation network as a NumPy `.npz` (`save_model`,
`load_model`), its checks (`ModelFileError` names the file and the mismatch) and the NumPy
reference forward pass (`Model.forward`, the specification of ai/search/_model.pyx).
The keys and shapes are in docs/records.md ("Model file").
"""
from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gallerist import engine
from gallerist.ai.files import write_atomically
from gallerist.engine.errors import GalleristError

FORMAT = "gallerist-model"
#: The layout version `save_model` writes with skip weights (2) and without (1, as
#: before skip weights existed); `load_model` reads both.
FORMAT_VERSION = 2
FORMAT_VERSIONS = (1, 2)
#: Tensor seats of the value heads (the observation's seat blocks).
NUM_SEATS = 4
NUM_ACTIONS = engine.NUM_DISTINCT_ACTIONS
#: The widest hidden layer and the most layers the C evaluator takes (its scratch
#: buffers are on the stack of the search threads).
MAX_WIDTH = 4096
MAX_LAYERS = 8
PACKAGED = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models",
                        "default.npz")
#: The environment variable naming the model file bots use when they name none (the
#: CLI's --model sets it); unset or empty: the packaged PACKAGED.
ENV_VAR = "GALLERIST_MODEL"
HEADER_KEYS = ("format", "format_version", "observation_version", "observation_size",
               "num_actions", "money_scale", "num_layers", "metadata")
HEADS = ("win", "money", "policy")
#: The skip weights of format 2 (observation -> value heads).
SKIPS = ("win_skip", "money_skip")


class ModelFileError(GalleristError, ValueError):
    """A model file that is missing, unreadable or does not match the engine (names the
    file and the mismatch)."""


@dataclass(frozen=True)
class Model:
    """A validated network (float32 C-contiguous arrays), from `load_model`.

    Attributes:
        trunk: ((W_i, b_i), ...): W_i of shape (in_i, out_i), ReLU after each layer.
        win_w, win_b, money_w, money_b, policy_w, policy_b: the heads (module docstring).
        win_skip, money_skip: format 2's weights from the observation to the value heads
            ((observation_size, 4)), or None (format 1: no linear part).
        money_scale: money in $ = money_scale * the money head's output.
        metadata: the training details (a JSON object).
        source: where it came from (a path), for messages.
    """

    trunk: tuple[tuple[np.ndarray, np.ndarray], ...]
    win_w: np.ndarray
    win_b: np.ndarray
    money_w: np.ndarray
    money_b: np.ndarray
    policy_w: np.ndarray
    policy_b: np.ndarray
    money_scale: float
    metadata: dict[str, Any] = field(default_factory=dict)
    source: str = "<memory>"
    win_skip: np.ndarray | None = None
    money_skip: np.ndarray | None = None

    @property
    def hidden(self) -> tuple[int, ...]:
        """The widths of the trunk's layers."""
        return tuple(int(w.shape[1]) for w, _ in self.trunk)

    def raw(self, obs: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The network's outputs on a batch (B, observation_size) or one observation:
        (win logits (B, 4), money / money_scale (B, 4), policy logits (B, 183)) by tensor
        seat, in float32 arithmetic."""
        x = np.asarray(obs, dtype=np.float32)
        single = x.ndim == 1
        x = np.atleast_2d(x)
        size = self.trunk[0][0].shape[0]
        if x.ndim != 2 or x.shape[1] != size:
            raise ValueError(f"observations must have shape (batch, {size}), got {np.shape(obs)}")
        h = x
        for w, b in self.trunk:
            h = np.maximum(h @ w + b, np.float32(0))
        win, money = h @ self.win_w + self.win_b, h @ self.money_w + self.money_b
        if self.win_skip is not None and self.money_skip is not None:
            win, money = win + x @ self.win_skip, money + x @ self.money_skip
        out = (win, money, h @ self.policy_w + self.policy_b)
        return tuple(o[0] for o in out) if single else out   # type: ignore[return-value]

    def forward(self, obs: Any, num_players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(win shares (B, 4), money in $ (B, 4), policy logits (B, 183)) by tensor seat
        for observations of an n-player game: the win softmax over the n present seats
        (seats >= n get 0; solo 1.0 for seat 0), money = money_scale * raw output."""
        if not 1 <= num_players <= NUM_SEATS:
            raise ValueError(f"num_players must be 1..{NUM_SEATS}, got {num_players}")
        logits, money, policy = self.raw(obs)
        z = logits[..., :num_players]
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        win = np.zeros_like(logits)
        win[..., :num_players] = e / e.sum(axis=-1, keepdims=True)
        return win, np.float32(self.money_scale) * money, policy

    def arrays(self) -> dict[str, np.ndarray]:
        """The weights by their file keys (trunk_w0, ..., policy_b)."""
        out: dict[str, np.ndarray] = {}
        for i, (w, b) in enumerate(self.trunk):
            out[f"trunk_w{i}"], out[f"trunk_b{i}"] = w, b
        for head in HEADS:
            out[f"{head}_w"], out[f"{head}_b"] = getattr(self, f"{head}_w"), getattr(self, f"{head}_b")
        for key in SKIPS:
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out


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


def model_path(path: str = "") -> str:
    """The model file a bot option names: `path`, or with "" the default one: the file
    $GALLERIST_MODEL names if set (`ENV_VAR`, the CLI's --model), else the packaged
    default (ModelFileError "no model: pass model=PATH" when the package has none)."""
    if path:
        return os.path.abspath(os.fspath(path))
    chosen = os.environ.get(ENV_VAR)
    if chosen:
        return os.path.abspath(chosen)
    if not os.path.exists(PACKAGED):
        raise ModelFileError(f"no model: pass model=PATH (the package has no default model, "
                             f"{PACKAGED})")
    return PACKAGED


def default_model_present() -> bool:
    """Whether a bot naming no model file has one: $GALLERIST_MODEL set (it must then
    load: a wrong file is an error, not a silent fallback) or the packaged file there."""
    try:
        model_path("")
    except ModelFileError:
        return False
    return True


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


def auto_prior_files(path: str = "") -> dict[int, str]:
    """The model file of each player count's PUCT prior under prior=auto: {n: file} at
    the counts a model was trained on (`trained_player_counts`; every count when its
    metadata does not say). With `path` or $GALLERIST_MODEL: that one model. Otherwise
    the packaged models: PACKAGED first, then the other `.npz` files beside it in name
    order, each at the counts of its training games that an earlier one does not
    already cover (ai/models/default-1p.npz, trained on solo games, serves solo
    games, default-3p.npz 3 players). Empty when there is no model at all (prior=auto
    is then UCT). Every file is read and checked (a bad one is a ModelFileError naming it)."""
    if path or os.environ.get(ENV_VAR):
        files = [model_path(path)]
    elif not os.path.exists(PACKAGED):
        return {}
    else:
        folder = os.path.dirname(PACKAGED)
        files = [PACKAGED] + [os.path.join(folder, name) for name in sorted(os.listdir(folder))
                              if name.endswith(".npz") and os.path.join(folder, name) != PACKAGED]
    return _by_player_count(files)


def _by_player_count(files: list[str], value: bool = False) -> dict[int, str]:
    """{n: the first of `files` trained on n-player games} (a file whose metadata does
    not say: every count); each read and checked (`load_evaluator`)."""
    out: dict[int, str] = {}
    for file in files:
        counts = trained_player_counts(load_evaluator(file, value=value).model)
        for n in sorted(counts or range(1, NUM_SEATS + 1)):
            out.setdefault(n, file)
    return out


def value_trained(model: "Model") -> bool:
    """Whether a model's win head was trained (False: a policy-only PUCT prior, trained
    with ``--win-weight 0``)."""
    hyper = model.metadata.get("hyperparameters")
    return not (isinstance(hyper, dict) and hyper.get("win_weight") == 0
                and not hyper.get("linear_value"))


def value_folder() -> str:
    """The packaged value networks (eval=auto), `value/` beside PACKAGED: each values the
    positions of the player counts it was trained on, with calibration maps beside it."""
    return os.path.join(os.path.dirname(PACKAGED), "value")


def auto_value_files(path: str = "") -> dict[int, str]:
    """The value network of each player count under eval=auto: {n: file}, the packaged
    ones (the `.npz` files of `value_folder()` in name order, each at the counts of its
    training games that an earlier one does not cover). None when a model is named
    (`path`, or $GALLERIST_MODEL): it replaces the packaged set, and eval=mix mixes it in."""
    folder = value_folder()
    if path or os.environ.get(ENV_VAR) or not os.path.isdir(folder):
        return {}
    return _by_player_count([os.path.join(folder, name) for name in sorted(os.listdir(folder))
                             if name.endswith(".npz")], value=True)


def auto_priors(path: str = "") -> dict[int, Any]:
    """`auto_prior_files` as {n: ai.search._model.ModelEvaluator} (one evaluator per file)."""
    return {n: load_evaluator(file) for n, file in auto_prior_files(path).items()}


def load_evaluator(path: str = "", *, value: bool = False) -> Any:
    """The ai.search._model.ModelEvaluator of a model file (`model_path(path)`), read and checked
    once per file version (a file rewritten since is read again): the evaluator is
    read-only, so bots and search threads share it. With `value` (the bot takes the
    network's value, not only its policy), a model trained without a win-share loss
    (``gallerist train --win-weight 0``: a PUCT prior) is refused by name."""
    full = model_path(path)
    try:
        st = os.stat(full)
    except OSError:
        raise ModelFileError(f"model file {full} is missing") from None
    evaluator = _evaluator(full, st.st_mtime_ns, st.st_size)
    if value and not value_trained(evaluator.model):
        raise ModelFileError(f"model file {full}: its win head was not trained (win_weight 0: "
                             f"a policy for prior=model), so it cannot value positions")
    return evaluator


@functools.lru_cache(maxsize=8)
def _evaluator(path: str, mtime_ns: int, size: int) -> Any:
    from gallerist.ai.search._model import ModelEvaluator

    return ModelEvaluator(load_model(path))


def model_label(path: str) -> str:
    """A model file as reports name it: its file name and the first 8 hex digits of its
    sha256, e.g. "default.npz@1a2b3c4d" (hashed once per file version); the name alone
    when the file cannot be read (a model made in memory)."""
    try:
        st = os.stat(path)
    except OSError:
        return os.path.basename(path)
    return _label(os.path.abspath(path), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=16)
def _label(path: str, mtime_ns: int, size: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return f"{os.path.basename(path)}@{digest.hexdigest()[:8]}"


def check_model_eval(bot: str, calibrated: bool, evaluator: Any, *,
                     option: str = "eval=model") -> None:
    """The checks of a bot's eval=model (or eval=mix, `option`): no calibration map exists
    for a network's estimates yet (so calibrated=false is required rather than raw numbers
    reported as calibrated), and an explicit evaluator would contradict it (ValueError)."""
    if calibrated:
        raise ValueError(f"{bot} option {option} has no calibration map yet: add "
                         f"calibrated=false (the network's own estimates, reported raw)")
    if evaluator is not None:
        raise ValueError(f"{bot}: pass either an evaluator or {option}, not both")
