"""The options of `ai.learn.train.train` (and ``gallerist train``): their defaults, their checks
and the files a training run writes. No JAX here, so the command line checks its input
before it imports the training library.
"""
from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gallerist.engine.errors import GalleristError

__all__ = ["DEFAULTS", "HEADS", "VALUE_TARGETS", "VAL_GAMES", "MAX_SEED", "TrainingError", "check_options",
           "parse_hidden",
           "side_paths"]

#: The options of `train` and their defaults (the CLI's defaults too).
DEFAULTS: dict[str, Any] = {
    "hidden": (64, 64),      # trunk widths
    "epochs": 50,            # most passes over the training positions
    "batch": 256,            # positions per Adam step
    "lr": 1e-3,              # Adam's learning rate
    "seed": 0,               # initial weights, the split and the batch order
    "val_fraction": 0.1,     # share of the games held out for validation
    "val_games": "all",      # where they are drawn from: VAL_GAMES
    "patience": 5,           # epochs without a better validation loss before stopping
    "players": None,         # keep only games with this many players (None: all)
    "money_scale": 100.0,    # money = money_scale * the money head's output
    "win_weight": 1.0,       # weight of the win-share cross-entropy in the loss
    "money_weight": 1.0,     # weight of the money MSE in the loss
    "weight_decay": 0.0,     # decoupled weight decay per step, x lr (AdamW; 0: Adam)
    "search_weight": 0.5,    # share of the estimate (value_target's) in the value targets
    "value_target": "search",  # the estimate mixed with the outcome: VALUE_TARGETS
    "policy_temperature": 1.0,  # policy targets: visit shares ** (1 / T), renormalised
    "linear_value": 0.0,     # > 0: the value heads a linear model of the observation, this L2
                             # penalty (ai.learn.linear_value); 0: the network's value heads
    "init": "",              # a model file whose weights start the training ("": random)
    "progress": True,        # a tqdm bar on stderr
}

#: The sources of the value targets (`ai.learn.train.value_targets`): the game's outcome
#: alone, mixed with the searching bot's root estimate (``root_win``/``root_money``), or
#: its win share mixed with the playout labels (``playout_win``, `gallerist label`).
VALUE_TARGETS = ("outcome", "search", "playouts")

#: Where the validation games come from: every directory, or the last one only (games an
#: ``init`` model trained on the earlier directories has not seen: the generation loop).
VAL_GAMES = ("all", "last")

#: The heads, in the order of `ai.learn.train.jax_forward`'s outputs and of the losses.
HEADS = ("win", "money", "policy")
#: Largest seed (JAX's PRNG keys take 32-bit seeds without loss).
MAX_SEED = 2**32 - 1
#: Widest trunk layer.
MAX_WIDTH = 4096


class TrainingError(GalleristError, ValueError):
    """A bad training option: ``str(exc)`` is "OPTION PROBLEM"; `option` is the option's
    name (as `train` takes it) and `problem` the rest."""

    def __init__(self, option: str, problem: str) -> None:
        super().__init__(f"{option} {problem}")
        self.option, self.problem = option, problem


def parse_hidden(text: str | Sequence[int]) -> tuple[int, ...]:
    """The trunk widths from "64,64" (or a sequence of ints): 1 or more, each 1..4096.

    Raises:
        TrainingError: empty, not integers, or out of range.
    """
    items = text.split(",") if isinstance(text, str) else list(text)
    try:
        widths = tuple(int(str(w).strip()) for w in items)
    except ValueError:
        raise TrainingError("hidden", f"{text!r}: expected comma-separated layer widths such "
                                      f"as 64,64") from None
    if not widths or not all(1 <= w <= MAX_WIDTH for w in widths):
        raise TrainingError("hidden", f"{text!r}: give 1 or more layer widths, each "
                                      f"1..{MAX_WIDTH}")
    return widths


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """`DEFAULTS` updated with `options`, checked; ``hidden`` as a tuple of ints.

    Raises:
        TrainingError: an unknown option or a value out of range, naming it.
    """
    unknown = sorted(set(options) - set(DEFAULTS))
    if unknown:
        raise TrainingError(unknown[0], f"is not an option (unknown: {', '.join(unknown)}; "
                                        f"known: {', '.join(DEFAULTS)})")
    o = {**DEFAULTS, **options}
    o["hidden"] = parse_hidden(o["hidden"])
    for key, lo, hi in (("epochs", 1, 10**6), ("batch", 1, 10**7), ("patience", 1, 10**6),
                        ("seed", 0, MAX_SEED)):
        if not _is_int(o[key]) or not lo <= o[key] <= hi:
            raise TrainingError(key, f"{o[key]!r}: expected an integer in {lo}..{hi}")
    for key in ("lr", "money_scale", "money_weight", "val_fraction"):
        value = o[key]
        if not isinstance(value, (int, float)) or isinstance(value, bool) \
                or not math.isfinite(value) or value <= 0:
            raise TrainingError(key, f"{value!r}: expected a positive number")
    ww = o["win_weight"]
    if not isinstance(ww, (int, float)) or isinstance(ww, bool) or not math.isfinite(ww) \
            or ww < 0:
        raise TrainingError("win_weight", f"{ww!r}: expected a number >= 0")
    wd = o["weight_decay"]
    if not isinstance(wd, (int, float)) or isinstance(wd, bool) or not math.isfinite(wd) \
            or wd < 0:
        raise TrainingError("weight_decay", f"{wd!r}: expected a number >= 0")
    if not isinstance(o["init"], (str, os.PathLike)):
        raise TrainingError("init", f"{o['init']!r}: expected a model file's path")
    o["init"] = os.fspath(o["init"])
    lv = o["linear_value"]
    if not isinstance(lv, (int, float)) or isinstance(lv, bool) or not math.isfinite(lv) \
            or lv < 0:
        raise TrainingError("linear_value", f"{lv!r}: expected a penalty >= 0 (0: the "
                                            f"network's value heads)")
    sw = o["search_weight"]
    if not isinstance(sw, (int, float)) or isinstance(sw, bool) or not 0 <= sw <= 1:
        raise TrainingError("search_weight", f"{sw!r}: expected a share in 0..1")
    pt = o["policy_temperature"]
    if not isinstance(pt, (int, float)) or isinstance(pt, bool) or not math.isfinite(pt) \
            or pt < 0:
        raise TrainingError("policy_temperature", f"{pt!r}: expected a number >= 0 (0: the "
                                                  f"most visited move alone)")
    if o["value_target"] not in VALUE_TARGETS:
        raise TrainingError("value_target", f"{o['value_target']!r}: expected one of "
                                            f"{', '.join(VALUE_TARGETS)}")
    if o["val_games"] not in VAL_GAMES:
        raise TrainingError("val_games", f"{o['val_games']!r}: expected one of "
                                         f"{', '.join(VAL_GAMES)}")
    if o["val_fraction"] >= 1:
        raise TrainingError("val_fraction", f"{o['val_fraction']!r}: expected a share in (0, 1)")
    if o["players"] is not None and o["players"] not in (1, 2, 3, 4):
        raise TrainingError("players", f"{o['players']!r}: expected 1, 2, 3 or 4")
    return o


def side_paths(out: str | Path) -> tuple[Path, Path]:
    """The model card and the curves picture next to the model file: MODEL.npz ->
    (MODEL.card.json, MODEL.curves.png)."""
    out = Path(out)
    stem = out.with_suffix("") if out.suffix == ".npz" else out
    return Path(f"{stem}.card.json"), Path(f"{stem}.curves.png")
