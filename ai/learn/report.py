"""What `ai.learn.train` reports about a trained model: the validation metrics of each head, the
model card (JSON) and the learning curves (PNG). NumPy and matplotlib only; the scores are
`ai.calibration.metrics`' (the calibration benchmark's).
"""
from __future__ import annotations

import datetime
import importlib.metadata
import platform
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from gallerist.ai.calibration import metrics as fm

__all__ = ["CARD_FORMAT", "metadata", "model_card", "plot_curves", "validation_metrics"]

#: The model card's format name (``MODEL.card.json``).
CARD_FORMAT = "gallerist-model-card"
#: The libraries whose versions the card records.
LIBRARIES = ("gallerist-ai", "jax", "jaxlib", "optax", "numpy")


def _masked_softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    z = np.where(mask, logits.astype(np.float64), -np.inf)
    z -= z.max(axis=-1, keepdims=True)
    e = np.where(mask, np.exp(z), 0.0)
    return e / e.sum(axis=-1, keepdims=True)  # type: ignore[no-any-return]


def validation_metrics(outputs: Sequence[np.ndarray], arrays: Mapping[str, np.ndarray],
                       money_scale: float) -> dict[str, Any]:
    """Per-head scores of the network's outputs on held-out positions.

    Args:
        outputs: (win logits, money / money_scale, policy logits), as `ai.learn.train.predict`.
        arrays: the positions' records (`ai.learn.data.COLUMNS`).
        money_scale: $ per unit of the money head.

    Returns:
        ``win``: Brier score and log loss of every present seat's win probability (softmax
        over the present seats) against its win share, the Brier of the own seat alone and
        of the constant 1/n forecast, over the positions with 2+ players (None if none: solo
        has no one to beat), and where positions have playout labels (``playout_win``)
        ``win.playouts``: the network's Brier against the labels (how well it reproduces
        them), the labels' own Brier against the outcomes and the network's on those
        positions; ``money``: mean absolute error in $ over every present seat and
        for the own seat; ``policy``: the cross-entropy against the search's visit shares
        and the share of positions where the network's most likely legal move is a most
        visited move (top-1 agreement).
    """
    win_logits, money, policy_logits = outputs
    n = arrays["num_players"].astype(np.int64)
    present = np.arange(win_logits.shape[1])[None, :] < n[:, None]
    share, final = arrays["win_share"], arrays["final_money"]
    multi = n > 1
    win: dict[str, Any] | None = None
    if multi.any():
        p = _masked_softmax(win_logits[multi], present[multi])
        mask, y = present[multi], share[multi]
        win = {"positions": int(multi.sum()),
               "brier": fm.brier(p[mask], y[mask]), "log_loss": fm.log_loss(p[mask], y[mask]),
               "brier_own_seat": fm.brier(p[:, 0], y[:, 0]),
               "brier_constant": fm.brier((1.0 / n[multi, None] * np.ones_like(p))[mask],
                                          y[mask])}
        labels = arrays.get("playout_win")
        has = np.isfinite(labels[multi]).all(axis=1) if labels is not None else None
        if has is not None and has.any():
            q, m = labels[multi][has], mask[has]
            win["playouts"] = {
                "positions": int(has.sum()),
                "brier_against_labels": fm.brier(p[has][m], q[m]),
                "labels_brier": fm.brier(q[m], y[has][m]),
                "brier_on_labelled": fm.brier(p[has][m], y[has][m])}
    dollars = money * np.float32(money_scale)
    legal, target = arrays["legal"], arrays["policy"].astype(np.float64)
    probs = _masked_softmax(policy_logits, legal)
    with np.errstate(divide="ignore"):
        logp = np.where(legal, np.log(np.maximum(probs, 1e-300)), 0.0)
    top = np.argmax(np.where(legal, policy_logits, -np.inf), axis=1)
    rows = np.arange(len(top))
    return {
        "positions": int(len(n)),
        "win": win,
        "money": {"mae_dollars": fm.mae(dollars[present], final[present]),
                  "mae_dollars_own_seat": fm.mae(dollars[:, 0], final[:, 0])},
        "policy": {"cross_entropy": float(np.mean(-np.sum(target * logp, axis=1))),
                   "top1_agreement": float(np.mean(target[rows, top] >= target.max(axis=1)))},
    }


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in LIBRARIES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def model_card(*, out: str | Path, data: Any, train_set: Any, val_set: Any,
               options: Mapping[str, Any], history: Sequence[Mapping[str, Any]],
               best_epoch: int, metrics: Mapping[str, Any], wall_time_s: float,
               interrupted: bool = False) -> dict[str, Any]:
    """The model card: where the data came from, the split, the training run (epochs, the
    best one, whether early stopping or Ctrl-C ended it, every epoch's losses), the best epoch's validation losses and `metrics`, the
    hyper-parameters, the seed, the library versions and the wall time."""
    hyper = {k: v for k, v in options.items() if k not in ("seed", "progress", "players")}
    hyper["hidden"] = list(options["hidden"])
    hyper.update(optimiser="adamw" if options.get("weight_decay") else "adam",
                 loss="win_weight * win-share soft cross-entropy (present seats) + money_weight * "
                      "MSE(money / money_scale) + policy soft cross-entropy (legal ids)")
    epochs_run = len(history) - 1
    return {
        "format": CARD_FORMAT, "format_version": 1, "model": str(out),
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "observation_version": data.observation_version,
        "observation_size": data.observation_size, "num_actions": data.num_actions,
        "data": data.sources, "players": options["players"],
        "split": {"by": "game", "seed": options["seed"], "val_fraction": options["val_fraction"],
                  "val_games": options.get("val_games", "all"),
                  "train": {"games": train_set.games, "positions": len(train_set)},
                  "validation": {"games": val_set.games, "positions": len(val_set)}},
        "epochs_run": epochs_run, "best_epoch": best_epoch,
        "stopped_early": epochs_run < options["epochs"] and not interrupted,
        "interrupted": interrupted,
        "validation": {"loss": dict(history[best_epoch]["validation"]), **metrics},
        "hyperparameters": hyper, "seed": options["seed"], "versions": _versions(),
        "wall_time_s": round(wall_time_s, 3),
        "history": [dict(h) for h in history],
    }


def metadata(card: Mapping[str, Any]) -> dict[str, Any]:
    """What the model file's ``metadata`` keeps of the card: all but the per-epoch history."""
    return {k: v for k, v in card.items() if k != "history"}


def plot_curves(history: Sequence[Mapping[str, Any]], best_epoch: int, path: str | Path) -> None:
    """Training and validation loss per epoch, one panel per head and the total, with the
    best epoch marked, as a PNG (matplotlib, Agg). Epoch 0 is the untrained network."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    epochs = [h["epoch"] for h in history]
    panels = (("total", "total loss"), ("win", "win shares: cross-entropy"),
              ("money", "money / scale: MSE"), ("policy", "policy: cross-entropy"))
    fig, axes = plt.subplots(2, 2, figsize=(9, 6.5))
    fig.subplots_adjust(left=0.07, right=0.98, bottom=0.08, top=0.95, hspace=0.35, wspace=0.2)
    for ax, (key, title) in zip(axes.flat, panels):
        for split, style in (("train", "-"), ("validation", "--")):
            ax.plot(epochs, [h[split][key] for h in history], style, marker=".", label=split)
        ax.axvline(best_epoch, color="grey", lw=0.8, ls=":", label=f"best (epoch {best_epoch})")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("epoch")
    axes.flat[0].legend(fontsize=8)
    fig.savefig(path, dpi=100)
    plt.close(fig)
