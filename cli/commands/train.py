"""``gallerist train``: train the learned evaluation on self-play records (the library is
`ai.learn.train`; JAX and optax come with ``pip install -e ".[train]"``)."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from gallerist.ai.learn.options import TRAIN_SETTINGS, TrainingError, check_options, side_paths
from gallerist.cli.commands import CliError
from gallerist.ai.words import counted
from gallerist.cli.commands.options import add_command, add_settings, check_output_path

__all__ = ["add", "run"]

#: The modules of the optional ``train`` extra.
TRAINING_LIBRARIES = ("jax", "jaxlib", "optax")


def add(sub: Any) -> None:
    """Add ``train`` to the subcommands: its options are `ai.learn.options.TRAIN_SETTINGS`,
    one flag each, checked by `check_options` (as `train` checks them from Python)."""
    p = add_command(
        sub, "train", run, help="train a learned evaluation on self-play records",
        description="Train a small network (win shares, final money and policy heads) on the "
                    "records of one or more 'gallerist selfplay' directories with JAX and "
                    "optax: split by game, Adam, early stopping on the validation loss. "
                    "Writes MODEL.npz (the model file the search loads), MODEL.card.json "
                    "(data, split, metrics, hyper-parameters) and MODEL.curves.png. Needs "
                    "pip install -e \".[train]\".")
    p.add_argument("data", nargs="+", metavar="DATA", help="self-play directories")
    p.add_argument("--out", required=True, metavar="MODEL.npz", help="model file to write")
    add_settings(p, TRAIN_SETTINGS, checked=False)


def _summary(card: dict[str, Any], out: str) -> str:
    v = card["validation"]
    win = (f"win Brier {v['win']['brier']:.3f} (constant {v['win']['brier_constant']:.3f}), "
           if v["win"] else "")
    card_path, curves_path = side_paths(out)
    return (f"wrote {out}, {card_path} and {curves_path}: best epoch {card['best_epoch']} of "
            f"{card['epochs_run']}; validation "
            f"({counted(card['split']['validation']['games'], 'game')}, "
            f"{counted(v['positions'], 'position')}): {win}money MAE "
            f"${v['money']['mae_dollars']:.1f}, "
            f"policy top-1 {v['policy']['top1_agreement']:.3f}{_playouts(v)}")


def _playouts(v: dict[str, Any]) -> str:
    labels = (v.get("win") or {}).get("playouts")
    if not labels:
        return ""
    return (f"; against the playout labels: Brier {labels['brier_against_labels']:.3f} (the "
            f"labels' own against the outcomes {labels['labels_brier']:.3f})")


def _flag(option: str) -> str:
    """The flag of a training option ("--val-fraction")."""
    return TRAIN_SETTINGS[option].flag if option in TRAIN_SETTINGS else f"--{option}"


def run(args: argparse.Namespace) -> int:
    """``gallerist train``."""
    check_output_path(args.out, "--out")
    options = TRAIN_SETTINGS.from_args(args)
    try:
        check_options(options)
    except TrainingError as exc:
        raise CliError(f"{_flag(exc.option)} {exc.problem}") from None
    try:
        from gallerist.ai.learn.train import SelfplayError, train
    except ImportError as exc:
        if (exc.name or "").partition(".")[0] not in TRAINING_LIBRARIES:
            raise
        raise CliError(f"gallerist train needs JAX and optax ({exc.name} is not installed): "
                       f"pip install -e \".[train]\"", status=1) from None
    try:
        card = train(args.data, args.out, **options)
    except SelfplayError as exc:
        raise CliError(str(exc)) from None
    except TrainingError as exc:   # --init's file, checked when it is read
        raise CliError(f"{_flag(exc.option)} {exc.problem}") from None
    except OSError as exc:
        raise CliError(f"cannot write {exc.filename or args.out}: {exc.strerror or exc}",
                       status=1) from None
    print(_summary(card, args.out))
    if card["interrupted"]:
        print(f"interrupted after epoch {card['epochs_run']}: the files hold the best epoch "
              f"so far", file=sys.stderr)
        return 130
    return 0
