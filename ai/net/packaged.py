"""The packaged networks and the choice of a network by player count: the default model
file (`PACKAGED`, or the one $GALLERIST_MODEL names: `model_path`), the PUCT priors of
prior=auto (`auto_prior_files`, `auto_priors`) and the value networks of eval=auto
(`value_folder`, `auto_value_files`), each file at the player counts it was trained on;
the shared evaluator of a file (`load_evaluator`) and its name in reports
(`model_label`). The files are ai/models/ (package data).
"""
from __future__ import annotations

import functools
import hashlib
import os
from typing import Any

from gallerist.ai.net.model_file import (
    ModelFileError, load_model, trained_player_counts, value_trained,
)
from gallerist.ai.net.reference import NUM_SEATS

PACKAGED = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models",
                        "default.npz")
#: The environment variable naming the model file bots use when they name none (the
#: CLI's --model sets it); unset or empty: the packaged PACKAGED.
ENV_VAR = "GALLERIST_MODEL"


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
