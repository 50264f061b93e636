"""Training the learned evaluation with JAX and optax: a small network (a ReLU trunk and
three heads: win shares, final money, policy) fitted to self-play records
(`ai.learn.data`), with a held-out split by game and early stopping, exported as the model
file (`ai.net.model_file`). The network and its loss are in docs/training.md.

JAX and optax are an optional extra (``pip install -e ".[train]"``); nothing else in the
package imports this module.
"""
from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax

from gallerist import engine
from gallerist.ai.learn import report as train_report
from gallerist.ai.net.model_file import save_model
from gallerist.ai.net.reference import SKIPS
from gallerist.ai.learn.data import SEATS, Dataset, load_records, split_by_game
from gallerist.ai.selfplay.records import SelfplayError
from gallerist.ai.learn.options import (DEFAULTS, HEADS, TrainingError, check_options,
                                        parse_hidden, side_paths)

__all__ = ["DEFAULTS", "HEADS", "SelfplayError", "TrainingError", "check_layout", "export",
           "init_params", "jax_forward", "masked_log_softmax", "parse_hidden", "predict",
           "policy_targets", "row_losses", "side_paths", "train", "value_targets", "fit"]

#: A logit that a masked softmax gives the absent seats and the illegal ids.
_MASKED = -1e9


def init_params(key: jax.Array, observation_size: int, num_actions: int,
                hidden: Sequence[int]) -> dict[str, jax.Array]:
    """Initial weights under the model file's names: He-normal trunk, Glorot-normal heads,
    zero biases (one compiled function per shape, not one per array)."""
    return _init_params(key, observation_size, num_actions, tuple(hidden))


@partial(jax.jit, static_argnums=(1, 2, 3))
def _init_params(key: jax.Array, observation_size: int, num_actions: int,
                 hidden: tuple[int, ...]) -> dict[str, jax.Array]:
    he, glorot = jax.nn.initializers.he_normal(), jax.nn.initializers.glorot_normal()
    sizes = [observation_size, *hidden]
    keys = jax.random.split(key, len(hidden) + len(HEADS))
    params: dict[str, jax.Array] = {}
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        params[f"trunk_w{i}"] = he(keys[i], (n_in, n_out), jnp.float32)
        params[f"trunk_b{i}"] = jnp.zeros((n_out,), jnp.float32)
    for k, (head, width) in enumerate(zip(HEADS, (SEATS, SEATS, num_actions))):
        params[f"{head}_w"] = glorot(keys[len(hidden) + k], (sizes[-1], width), jnp.float32)
        params[f"{head}_b"] = jnp.zeros((width,), jnp.float32)
    return params


def _num_layers(params: Mapping[str, Any]) -> int:
    layers = 0
    while f"trunk_w{layers}" in params:
        layers += 1
    return layers


def jax_forward(params: Any, obs: Any) -> tuple[jax.Array, jax.Array, jax.Array]:
    """The network's raw outputs for a batch of observations, in JAX (float32).

    Args:
        params: the weights under the model file's names (``trunk_w{i}``, ``trunk_b{i}``,
            ``win_w``, ``win_b``, ``money_w``, ``money_b``, ``policy_w``, ``policy_b``):
            what `train` exports, the arrays of a model file, or a loaded model (an object
            with ``arrays()`` returning them, as `ai.net.reference.Model`).
        obs: observations, shape (batch, observation_size) (or (observation_size,)).

    Returns:
        (win logits (batch, 4), money / money_scale (batch, 4), policy logits
        (batch, num_actions)), before any masking: the seats and ids not present or not
        legal are masked by the caller (`masked_log_softmax`).
    """
    if not isinstance(params, Mapping) and hasattr(params, "arrays"):
        params = params.arrays()
    x = h = jnp.asarray(obs, jnp.float32)
    for i in range(_num_layers(params)):
        h = jax.nn.relu(h @ jnp.asarray(params[f"trunk_w{i}"]) + jnp.asarray(params[f"trunk_b{i}"]))
    out = [h @ jnp.asarray(params[f"{k}_w"]) + jnp.asarray(params[f"{k}_b"]) for k in HEADS]
    for i, key in enumerate(SKIPS):       # format 2: a linear part of the value
        if key in params:
            out[i] = out[i] + x @ jnp.asarray(params[key])
    return tuple(out)  # type: ignore[return-value]


def masked_log_softmax(logits: jax.Array, mask: jax.Array) -> jax.Array:
    """log softmax of `logits` over the entries where `mask` is true (elsewhere a large
    negative number, never NaN)."""
    return jax.nn.log_softmax(jnp.where(mask, logits, _MASKED), axis=-1)


def row_losses(params: Mapping[str, jax.Array], batch: Mapping[str, jax.Array]
               ) -> dict[str, jax.Array]:
    """Per position: the win-share and policy soft cross-entropies and the money MSE (of
    money / money_scale), each over the present seats or legal ids."""
    win, money, policy = jax_forward(params, batch["obs"])
    present = batch["present"]
    win_ce = -jnp.sum(jnp.where(present, batch["win_share"] * masked_log_softmax(win, present),
                                0.0), axis=-1)
    err = jnp.where(present, (money - batch["money"]) ** 2, 0.0)
    money_mse = jnp.sum(err, axis=-1) / jnp.sum(present, axis=-1)
    legal = batch["legal"]
    policy_ce = -jnp.sum(jnp.where(legal, batch["policy"] * masked_log_softmax(policy, legal),
                                   0.0), axis=-1)
    return {"win": win_ce, "money": money_mse, "policy": policy_ce}


def _batch_sums(params: Mapping[str, jax.Array], batch: Mapping[str, jax.Array],
                head_weights: jax.Array) -> tuple[jax.Array, dict[str, jax.Array]]:
    """The batch's weighted mean total loss (head_weights: the win and money losses'
    weights), and the weighted sums of each head's loss and of the weights (for epoch
    means)."""
    rows = row_losses(params, batch)
    w = batch["weight"]
    sums = {k: jnp.sum(w * v) for k, v in rows.items()}
    sums["weight"] = jnp.sum(w)
    total = (head_weights[0] * sums["win"] + head_weights[1] * sums["money"]
             + sums["policy"]) / jnp.maximum(sums["weight"], 1.0)
    return total, sums


def _device_batch(data: Dataset, rows: np.ndarray, size: int, money_scale: float
                  ) -> dict[str, jax.Array]:
    """The rows `rows` as training arrays, padded to `size` rows of weight 0."""
    a = data.arrays
    pad = size - len(rows)
    idx = np.concatenate([rows, np.zeros(pad, rows.dtype)]) if pad else rows
    weight = np.concatenate([np.ones(len(rows), np.float32), np.zeros(pad, np.float32)])
    present = np.arange(SEATS)[None, :] < a["num_players"][idx].astype(np.int64)[:, None]
    win, money = a.get("target_win", a["win_share"]), a.get("target_money", a["final_money"])
    return {"obs": jnp.asarray(a["obs"][idx]), "win_share": jnp.asarray(win[idx]),
            "money": jnp.asarray(money[idx] / np.float32(money_scale)),
            "policy": jnp.asarray(a["policy"][idx]), "legal": jnp.asarray(a["legal"][idx]),
            "present": jnp.asarray(present), "weight": jnp.asarray(weight)}


def value_targets(data: Dataset, search_weight: float, source: str = "search") -> None:
    """Add the value heads' targets to `data`: ``target_win`` / ``target_money`` =
    (1 - w) * the game's outcome (win share, final money) + w * an estimate of the same,
    the outcome alone where a row has no estimate. `source` names the estimate
    (`VALUE_TARGETS`): "search", the searching bot's root estimate (the records'
    ``root_win`` / ``root_money``; AlphaZero's z mixed with the search's q, as KataGo does);
    "playouts", the win share over random playouts from the position (``playout_win``;
    the money target stays the search's mix); "outcome", none (w is ignored). A game's
    outcome is one label for its ~200 positions; an estimate moves with the position, so
    the mix learns from far fewer games. Metrics stay against the outcome.
    """
    a = data.arrays
    if source == "outcome":
        return
    win_estimate = "playout_win" if source == "playouts" else "root_win"
    for target, outcome, estimate in (("target_win", "win_share", win_estimate),
                                      ("target_money", "final_money", "root_money")):
        if estimate not in a:
            continue
        q = a[estimate]
        has = np.isfinite(q).all(axis=1, keepdims=True)
        mixed = (1 - search_weight) * a[outcome] + search_weight * np.where(has, q, 0)
        a[target] = np.where(has, mixed, a[outcome]).astype(np.float32)


def policy_targets(data: Dataset, temperature: float) -> None:
    """Sharpen the policy targets in place: each row's visit shares raised to 1 /
    `temperature` and renormalised (1: unchanged; 0: the most visited moves alone, ties
    shared). A search of a few hundred iterations spreads its visits (UCT explores): its
    choice, not its spread, is what a prior should learn from it."""
    if temperature == 1:
        return
    p = data.arrays["policy"].astype(np.float64)
    top = p.max(axis=1, keepdims=True)
    if temperature == 0:
        sharp = (p == top) & (top > 0)
    else:
        sharp = np.where(top > 0, (p / np.where(top > 0, top, 1)) ** (1.0 / temperature), 0.0)
    total = sharp.sum(axis=1, keepdims=True)
    data.arrays["policy"] = np.where(total > 0, sharp / np.where(total > 0, total, 1), p
                                     ).astype(np.float32)


def check_value_source(data: Dataset, source: str) -> None:
    """Refuse ``value_target`` "playouts" on records without a playout label.

    Raises:
        SelfplayError: naming the option, the directories and the command that adds them.
    """
    if source == "playouts" and not np.isfinite(data.arrays["playout_win"]).all(axis=1).any():
        dirs = " ".join(str(s["dir"]) for s in data.sources)
        raise SelfplayError(f"--value-target playouts (value_target): no position of {dirs} has "
                           f"playout labels; add them with 'gallerist label {dirs} --playouts "
                           f"100' (or record them with 'gallerist selfplay --playouts N')")


def _chunks(rows: np.ndarray, size: int) -> list[np.ndarray]:
    return [rows[i:i + size] for i in range(0, len(rows), size)]


def _means(sums: Mapping[str, Any], head_weights: tuple[float, float]) -> dict[str, float]:
    n = max(float(sums["weight"]), 1.0)
    out = {k: float(sums[k]) / n for k in HEADS}
    out["total"] = head_weights[0] * out["win"] + head_weights[1] * out["money"] + out["policy"]
    return out


#: Adam's moment estimates (optax.adam is this chained with the learning rate); the step
#: applies the learning rate as an argument, so that one compiled step serves every run of
#: a process (compiling takes seconds; a step of a small net, microseconds).
_ADAM = optax.scale_by_adam()


@jax.jit
def _sums(params: Any, batch: Any, head_weights: jax.Array) -> dict[str, jax.Array]:
    return _batch_sums(params, batch, head_weights)[1]


@jax.jit
def _step(params: Any, opt_state: Any, batch: Any, head_weights: jax.Array, lr: jax.Array,
          weight_decay: jax.Array) -> Any:
    """One Adam step on a batch (AdamW's decoupled weight decay when `weight_decay` > 0):
    (new params, new optimiser state, the batch's loss sums)."""
    (_, sums), grads = jax.value_and_grad(_batch_sums, has_aux=True)(params, batch, head_weights)
    updates, opt_state = _ADAM.update(grads, opt_state, params)
    updates = jax.tree.map(lambda u, p: -lr * (u + weight_decay * p), updates, params)
    return optax.apply_updates(params, updates), opt_state, sums


def _evaluate(params: Any, data: Dataset, size: int, money_scale: float,
              head_weights: tuple[float, float]) -> dict[str, float]:
    """Mean losses of `params` over every row of `data` (fixed-size padded chunks)."""
    totals: dict[str, Any] = {}
    hw = jnp.asarray(head_weights, jnp.float32)
    for rows in _chunks(np.arange(len(data)), size):
        sums = _sums(params, _device_batch(data, rows, size, money_scale), hw)
        totals = {k: totals.get(k, 0.0) + v for k, v in sums.items()}
    return _means(totals, head_weights)


_jit_forward = jax.jit(jax_forward)


def predict(params: Mapping[str, Any], obs: np.ndarray, size: int = 1024
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`jax_forward` over many observations as NumPy float32 arrays (jitted, in chunks)."""
    outs = [_jit_forward(params, obs[i:i + size]) for i in range(0, len(obs), size)]
    return tuple(np.concatenate([np.asarray(o[k]) for o in outs])  # type: ignore[return-value]
                 for k in range(len(HEADS)))


def export(path: str | Path, arrays: Mapping[str, Any], metadata: Mapping[str, Any]) -> None:
    """Write the model file: `arrays` (the header fields and the weights under their
    names) and `metadata` (JSON), through `ai.net.model_file.save_model`, which checks every
    key, shape and version before it writes (atomically)."""
    save_model(os.fspath(path), arrays, metadata)


def check_layout(data: Dataset) -> None:
    """Refuse records whose observation layout or action ids are not this engine's (the
    model would not load in the search).

    Raises:
        SelfplayError: naming the field, the records' value and the engine's.
    """
    for field, got, want in (("observation_version", data.observation_version,
                              engine.OBSERVATION_VERSION),
                             ("observation_size", data.observation_size,
                              engine.OBSERVATION_SIZE),
                             ("num_actions", data.num_actions, engine.NUM_DISTINCT_ACTIONS)):
        if got != want:
            dirs = ", ".join(str(s["dir"]) for s in data.sources)
            raise SelfplayError(f"{dirs}: {field} {got}, this engine's is {want} (records of "
                               f"another engine version: make them again with 'gallerist "
                               f"selfplay')")


def fit(train_set: Dataset, val_set: Dataset, o: Mapping[str, Any]
        ) -> tuple[dict[str, np.ndarray], list[dict[str, Any]], int, bool]:
    """Adam on `train_set` (value targets already set: `value_targets`), early stopping on
    `val_set`'s total loss, with the checked options `o` (`check_options`).

    Returns:
        (the best epoch's weights as NumPy float32 arrays, the loss history (epoch 0: the
        initial weights), the best epoch, whether Ctrl-C stopped it).
    """
    size, scale = min(o["batch"], len(train_set)), float(o["money_scale"])
    mw = (float(o["win_weight"]), float(o["money_weight"]))
    params = init_params(jax.random.key(o["seed"]), train_set.observation_size,
                         train_set.num_actions, o["hidden"])
    if o["init"]:
        params = initial_weights(o["init"], params, scale)
    opt_state = _ADAM.init(params)
    rng = np.random.default_rng(o["seed"])
    history = [{"epoch": 0, "train": _evaluate(params, train_set, size, scale, mw),
                "validation": _evaluate(params, val_set, size, scale, mw)}]
    best = (history[0]["validation"]["total"], 0, params)
    from tqdm import tqdm
    bar = tqdm(total=o["epochs"], unit="epoch", desc="train", file=sys.stderr,
               disable=not o["progress"])
    waited, interrupted = 0, False
    try:
        for epoch in range(1, o["epochs"] + 1):
            totals: dict[str, Any] = {}
            for rows in _chunks(rng.permutation(len(train_set)), size):
                params, opt_state, sums = _step(params, opt_state,
                                                _device_batch(train_set, rows, size, scale),
                                                jnp.asarray(mw, jnp.float32), jnp.float32(o["lr"]),
                                                jnp.float32(o["weight_decay"]))
                totals = {k: totals.get(k, 0.0) + v for k, v in sums.items()}
            val = _evaluate(params, val_set, size, scale, mw)
            history.append({"epoch": epoch, "train": _means(totals, mw), "validation": val})
            if val["total"] < best[0]:
                best, waited = (val["total"], epoch, params), 0
            else:
                waited += 1
            bar.update(1)
            bar.set_postfix(train=f"{history[-1]['train']['total']:.4f}",
                            val=f"{val['total']:.4f}", best_epoch=best[1])
            if waited >= o["patience"]:
                break
    except KeyboardInterrupt:   # Ctrl-C: keep the best epoch so far
        interrupted = True
    finally:
        bar.close()
    _, best_epoch, params = best
    return ({k: np.asarray(v, np.float32) for k, v in params.items()}, history, best_epoch,
            interrupted)


def initial_weights(path: str, params: dict[str, Any], money_scale: float) -> dict[str, Any]:
    """`params` replaced by the weights of the model file `path` (training goes on from
    it: the generation loop starts each candidate from the best model so far).

    Raises:
        TrainingError: the file cannot be read, or its shapes or money scale differ.
    """
    from gallerist.ai.net.model_file import ModelFileError, load_model

    try:
        model = load_model(path)
    except ModelFileError as exc:
        raise TrainingError("init", str(exc)) from None
    if abs(model.money_scale - money_scale) > 1e-6:
        raise TrainingError("init", f"{path}: money scale {model.money_scale:g}, the training's "
                                    f"is {money_scale:g}")
    arrays = {f"trunk_{kind}{i}": layer[j] for i, layer in enumerate(model.trunk)
              for j, kind in enumerate("wb")}
    arrays.update({name: getattr(model, name) for name in
                   ("win_w", "win_b", "money_w", "money_b", "policy_w", "policy_b")})
    if set(arrays) != set(params) or any(arrays[k].shape != params[k].shape for k in params):
        theirs = ",".join(str(w.shape[1]) for w, _ in model.trunk)
        ours = ",".join(str(params[k].shape[0]) for k in sorted(params) if k.startswith("trunk_b"))
        raise TrainingError("init", f"{path}: hidden widths {theirs}, the training's are "
                                    f"{ours} (give --hidden {theirs})")
    return {k: jnp.asarray(v, jnp.float32) for k, v in arrays.items()}


def linear_value_heads(weights: dict[str, np.ndarray], train_set: Dataset, penalty: float,
                       money_scale: float) -> dict[str, Any]:
    """Replace the network's value heads in `weights` by a linear value fitted on
    `train_set` (`ai.learn.linear_value`, L2 penalty `penalty`): the skip weights and the
    heads' biases set, win_w and money_w zeroed. Returns the fit's details (for the card)."""
    from gallerist.ai.learn.linear_value import fit_linear_value

    t0 = time.perf_counter()
    fitted, info = fit_linear_value(train_set.arrays, penalty, money_scale)
    weights["win_w"] = np.zeros_like(weights["win_w"])
    weights["money_w"] = np.zeros_like(weights["money_w"])
    weights.update(fitted)
    return {"penalty": penalty, "win_fit": info, "seconds": round(time.perf_counter() - t0, 3),
            "keys": list(SKIPS)}


def train(data_dirs: Sequence[str | Path], out: str | Path, **options: Any) -> dict[str, Any]:
    """Train a network on self-play records and write the model file `out`, its model card
    (``*.card.json``) and learning curves (``*.curves.png``).

    Args:
        data_dirs: directories written by ``gallerist selfplay``.
        out: the model file to write (``.npz``).
        **options: any of `DEFAULTS` (hidden, epochs, batch, lr, seed, val_fraction, val_games,
            patience, players, money_scale, win_weight, money_weight, weight_decay, search_weight,
            value_target, policy_temperature, linear_value, progress).

    Returns:
        The model card (also written as JSON). Ctrl-C during training stops it: the best
        epoch so far is written and the card says ``"interrupted": true``.

    Raises:
        TrainingError: a bad option.
        SelfplayError: missing, malformed, mismatched or empty records, records of another
            observation layout than the engine's, or too few games to split.
    """
    start = time.perf_counter()
    o = check_options(options)
    data = load_records(data_dirs, o["players"])
    check_layout(data)
    check_value_source(data, o["value_target"])
    train_set, val_set = split_by_game(data, o["val_fraction"], o["seed"],
                                       last_only=o["val_games"] == "last")
    data.arrays = {}   # the two parts hold copies of every row: half the memory from here
    for part in (train_set, val_set):
        value_targets(part, o["search_weight"], o["value_target"])
        policy_targets(part, o["policy_temperature"])
    weights, history, best_epoch, interrupted = fit(train_set, val_set, o)
    scale = float(o["money_scale"])
    linear = None
    if o["linear_value"]:
        linear = linear_value_heads(weights, train_set, o["linear_value"], scale)
    metrics = train_report.validation_metrics(predict(weights, val_set.arrays["obs"]),
                                              val_set.arrays, scale)
    card = train_report.model_card(
        out=out, data=data, train_set=train_set, val_set=val_set, options=o,
        history=history, best_epoch=best_epoch, metrics=metrics,
        wall_time_s=time.perf_counter() - start, interrupted=interrupted)
    if linear is not None:
        card["linear_value"] = linear
    arrays = {"observation_version": np.array(data.observation_version),
              "observation_size": np.array(data.observation_size),
              "num_actions": np.array(data.num_actions),
              "money_scale": np.array(scale, np.float32), **weights}
    export(out, arrays, train_report.metadata(card))
    card_path, curves_path = side_paths(out)
    card_path.write_text(json.dumps(card, indent=2, sort_keys=True) + "\n")
    train_report.plot_curves(history, best_epoch, curves_path)
    return card

