"""The options of `ai.learn.train.train` (and ``gallerist train``), each declared once in
`TRAIN_SETTINGS`: their defaults, their checks (`check_options`), the command's flags and
the table of docs/training.md; and the files a training run writes. No JAX here, so the
command line checks its input before it imports the training library. The widest layer
is the model file's (`ai.net.model_file.MAX_WIDTH`, the C evaluator's).
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gallerist.ai.net.model_file import MAX_WIDTH
from gallerist.ai.settings.setting import Setting, Settings
from gallerist.engine.errors import GalleristError

__all__ = ["DEFAULTS", "HEADS", "MAX_SEED", "TRAIN_SETTINGS", "TrainingError", "VALUE_TARGETS",
           "VAL_GAMES", "check_options", "parse_hidden", "side_paths"]

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


class TrainingError(GalleristError, ValueError):
    """A bad training option: ``str(exc)`` is "OPTION PROBLEM"; `option` is the option's
    name (as `train` takes it) and `problem` the rest."""

    def __init__(self, option: str, problem: str) -> None:
        super().__init__(f"{option} {problem}")
        self.option, self.problem = option, problem


def parse_hidden(text: str | Sequence[int]) -> tuple[int, ...]:
    """The trunk widths from "64,64" (or a sequence of ints): 1 or more, each 1..MAX_WIDTH.

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


#: The options of `train`, in the order of ``gallerist train --help``: each one's
#: default, range and help (the command's flags are made from these).
TRAIN_SETTINGS = Settings(
    "training options",
    Setting("hidden", (64, 64), "trunk layer widths", kind=tuple, convert=parse_hidden,
            metavar="W,W", says=f"comma-separated layer widths, each 1..{MAX_WIDTH}"),
    Setting("epochs", 50, "most passes over the training positions", low=1, high=10**6,
            metavar="N"),
    Setting("batch", 256, "positions per Adam step", low=1, high=10**7, metavar="N"),
    Setting("lr", 1e-3, "Adam's learning rate", above=0, metavar="LR"),
    Setting("seed", 0, "seed of the initial weights, the split and the batch order", low=0,
            high=MAX_SEED, metavar="S"),
    Setting("val_fraction", 0.1, "share of the games held out for validation", above=0,
            below=1, says="a share in (0, 1)", metavar="F"),
    Setting("val_games", "all", "where the held-out games are drawn from: every directory "
            "(all) or the last one only (last: games new to an --init model)",
            choices=VAL_GAMES, metavar="|".join(VAL_GAMES)),
    Setting("patience", 5, "stop after K epochs without a better validation loss", low=1,
            high=10**6, metavar="K"),
    Setting("players", None, "train only on games with this many players", kind=int,
            choices=(1, 2, 3, 4), none="all", metavar="N"),
    Setting("money_scale", 100.0, "$ per unit of the money head (money = money_scale x its "
            "output)", above=0, metavar="S"),
    Setting("win_weight", 1.0, "weight of the win-share cross-entropy in the loss (0: a "
            "network for its policy alone)", low=0, metavar="W"),
    Setting("money_weight", 1.0, "weight of the money error in the loss", above=0,
            metavar="W"),
    Setting("weight_decay", 0.0, "AdamW's decoupled weight decay per step, x lr (0: Adam)",
            low=0, metavar="D"),
    Setting("search_weight", 0.5, "share of the estimate --value-target names in the value "
            "targets (the rest: the game's outcome; records without estimates use the "
            "outcome alone)", low=0, high=1, says="a share in 0..1", metavar="W"),
    Setting("value_target", "search", "the estimate mixed with the outcome: outcome (none), "
            "search (the searching bot's root estimate of win share and money) or playouts "
            "(the win share over random playouts, 'gallerist label'; money as search)",
            choices=VALUE_TARGETS, metavar="|".join(VALUE_TARGETS)),
    Setting("policy_temperature", 1.0, "sharpen the policy targets: visit shares ** (1 / T), "
            "renormalised (0: the most visited move alone; 1: the visit shares)", low=0,
            says="a number >= 0 (0: the most visited move alone)", metavar="T"),
    Setting("linear_value", 0.0, "make the value heads a linear function of the "
            "observation, fitted after the network by L2-penalised regressions with this "
            "penalty (format 2 skip weights; the network serves for its policy; e.g. 1000; "
            "0: the network's value heads)", low=0,
            says="a penalty >= 0 (0: the network's value heads)", metavar="PENALTY"),
    Setting("init", "", "a model file whose weights start the training instead of random "
            "ones (the same --hidden widths and --money-scale)", says="a model file's path",
            shown="random weights", metavar="MODEL.npz"),
    Setting("progress", True, "a progress bar on stderr", flag="--no-progress"),
)

#: The options of `train` and their defaults (the CLI's defaults too).
DEFAULTS: dict[str, Any] = TRAIN_SETTINGS.defaults


def check_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """`DEFAULTS` updated with `options`, checked against their declarations; ``hidden``
    as a tuple of ints, ``init`` as text.

    Raises:
        TrainingError: an unknown option or a value out of range, naming it.
    """
    unknown = sorted(set(options) - set(DEFAULTS))
    if unknown:
        raise TrainingError(unknown[0], f"is not an option (unknown: {', '.join(unknown)}; "
                                        f"known: {', '.join(DEFAULTS)})")
    o = {**DEFAULTS, **options}
    o["hidden"] = parse_hidden(o["hidden"])   # its own messages
    if isinstance(o["init"], os.PathLike):
        o["init"] = os.fspath(o["init"])
    bad = TRAIN_SETTINGS.problem(o)
    if bad is not None:
        setting, value = bad
        raise TrainingError(setting.name, f"{value!r}: expected {setting.says}")
    return o


def side_paths(out: str | Path) -> tuple[Path, Path]:
    """The model card and the curves picture next to the model file: MODEL.npz ->
    (MODEL.card.json, MODEL.curves.png)."""
    out = Path(out)
    stem = out.with_suffix("") if out.suffix == ".npz" else out
    return Path(f"{stem}.card.json"), Path(f"{stem}.curves.png")
