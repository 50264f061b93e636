"""``gallerist train``: train the learned evaluation on self-play records (the library is
`ai.learn.train`; JAX and optax come with ``pip install -e ".[train]"``)."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from gallerist.ai.learn.options import (DEFAULTS, VAL_GAMES, VALUE_TARGETS, TrainingError,
                                        check_options, side_paths)
from gallerist.cli.commands import CliError
from gallerist.ai.words import counted
from gallerist.cli.commands.options import add_command, check_output_path

__all__ = ["add", "run"]

#: The modules of the optional ``train`` extra.
TRAINING_LIBRARIES = ("jax", "jaxlib", "optax")


def add(sub: Any) -> None:
    """Add ``train`` to the subcommands."""
    d = DEFAULTS
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
    p.add_argument("--hidden", default=",".join(map(str, d["hidden"])), metavar="W,W",
                   help="trunk layer widths (default %(default)s)")
    p.add_argument("--epochs", type=int, default=d["epochs"],
                   help=f"most passes over the training positions (default {d['epochs']})")
    p.add_argument("--batch", type=int, default=d["batch"],
                   help=f"positions per step (default {d['batch']})")
    p.add_argument("--lr", type=float, default=d["lr"],
                   help=f"Adam learning rate (default {d['lr']:g})")
    p.add_argument("--seed", type=int, default=d["seed"],
                   help=f"seed of the weights, the split and the batch order (default {d['seed']})")
    p.add_argument("--val-fraction", type=float, default=d["val_fraction"], metavar="F",
                   help=f"share of the games held out for validation (default {d['val_fraction']:g})")
    p.add_argument("--val-games", choices=VAL_GAMES, default=d["val_games"],
                   help="draw the held-out games from every directory (all, the default) or "
                        "from the last one only (last: games new to an --init model)")
    p.add_argument("--patience", type=int, default=d["patience"], metavar="K",
                   help=f"stop after K epochs without a better validation loss "
                        f"(default {d['patience']})")
    p.add_argument("--players", type=int, choices=(1, 2, 3, 4), default=d["players"],
                   help="train only on games with this many players (default: all)")
    p.add_argument("--money-scale", type=float, default=d["money_scale"], metavar="S",
                   help=f"$ per unit of the money head (default {d['money_scale']:g})")
    p.add_argument("--win-weight", type=float, default=d["win_weight"], metavar="W",
                   help="weight of the win-share error in the loss (0: a network for its "
                        f"policy alone; default {d['win_weight']:g})")
    p.add_argument("--money-weight", type=float, default=d["money_weight"], metavar="W",
                   help=f"weight of the money error in the loss (default {d['money_weight']:g})")
    p.add_argument("--weight-decay", type=float, default=d["weight_decay"], metavar="D",
                   help=f"AdamW's decoupled weight decay (default {d['weight_decay']:g}: Adam)")
    p.add_argument("--search-weight", type=float, default=d["search_weight"], metavar="W",
                   help="share of the estimate --value-target names in the value targets "
                        "(the rest: the game's outcome; records without estimates use the "
                        f"outcome alone; default {d['search_weight']:g})")
    p.add_argument("--value-target", default=d["value_target"], metavar="|".join(VALUE_TARGETS),
                   help="the estimate mixed with the outcome: outcome (none), search (the "
                        "searching bot's root estimate of win share and money) or playouts "
                        "(the win share over random playouts, 'gallerist label'; money as "
                        f"search) (default {d['value_target']})")
    p.add_argument("--policy-temperature", type=float, default=d["policy_temperature"],
                   metavar="T", help="sharpen the policy targets: visit shares ** (1 / T), "
                   "renormalised (0: the most visited move alone; default "
                   f"{d['policy_temperature']:g}: the visit shares)")
    p.add_argument("--linear-value", type=float, default=d["linear_value"], metavar="PENALTY",
                   help="make the value heads a linear function of the observation, fitted "
                        "after the network by L2-penalised regressions with this penalty "
                        "(format 2 skip weights; the network serves for its policy; e.g. "
                        f"1000; default {d['linear_value']:g}: the network's value heads)")
    p.add_argument("--init", default=d["init"], metavar="MODEL.npz",
                   help="start from this model's weights instead of random ones (the same "
                        "--hidden widths and --money-scale)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


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


def run(args: argparse.Namespace) -> int:
    """``gallerist train``."""
    check_output_path(args.out, "--out")
    options = {"hidden": args.hidden, "epochs": args.epochs, "batch": args.batch,
               "lr": args.lr, "seed": args.seed, "val_fraction": args.val_fraction,
               "val_games": args.val_games,
               "patience": args.patience, "players": args.players,
               "money_scale": args.money_scale, "win_weight": args.win_weight,
               "money_weight": args.money_weight,
               "weight_decay": args.weight_decay, "search_weight": args.search_weight,
               "value_target": args.value_target,
               "policy_temperature": args.policy_temperature,
               "linear_value": args.linear_value, "init": args.init,
               "progress": not args.no_progress}
    try:
        check_options(options)
    except TrainingError as exc:
        raise CliError(f"--{exc.option.replace('_', '-')} {exc.problem}") from None
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
        raise CliError(f"--{exc.option} {exc.problem}") from None
    except OSError as exc:
        raise CliError(f"cannot write {exc.filename or args.out}: {exc.strerror or exc}",
                       status=1) from None
    print(_summary(card, args.out))
    if card["interrupted"]:
        print(f"interrupted after epoch {card['epochs_run']}: the files hold the best epoch "
              f"so far", file=sys.stderr)
        return 130
    return 0
