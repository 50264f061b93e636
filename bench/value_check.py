"""How good are the value estimates of self-play records and of trained models, on held-out
games? (The value trained on playout estimates: bench/RESULTS.md.)

Splits the records of DATA exactly as `gallerist train` does (by game, `--val-fraction`,
`--seed`: a model trained with the same seed never saw the held-out games) and scores, on
the held-out 2-player positions, the own seat's win probability of:

- the constant 0.5;
- the records' search estimate (``root_win``) and playout labels (``playout_win``), raw
  and calibrated (logistic regression on the logit, fitted on the training games);
- each MODEL's win head (``ai.net.reference``'s NumPy forward pass),

as the Brier score against the real outcome (win share), with 95% bootstrap intervals
that resample whole games, and for the models also against the playout labels (how well
the network reproduces them) and their correlation with them.

    python bench/value_check.py /work/data/pv-2p --model pv.npz --model q2p-0.9.npz
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from gallerist.ai.calibration import metrics as fm  # noqa: E402
from gallerist.ai.net.model_file import load_model  # noqa: E402
from gallerist.ai.learn.data import load_records, split_by_game  # noqa: E402


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 0.005, 0.995)
    return np.log(p / (1 - p))


def calibrate(train_p: np.ndarray, train_y: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Platt scaling: sigmoid(a * logit(p) + b), (a, b) by maximum likelihood of the
    training positions' win shares (scipy's L-BFGS), applied to `p`."""
    from scipy.optimize import minimize
    from scipy.special import expit, log_expit

    x = _logit(train_p)

    def loss(ab: np.ndarray) -> float:
        z = ab[0] * x + ab[1]
        return float(-np.mean(train_y * log_expit(z) + (1 - train_y) * log_expit(-z)))

    a, b = minimize(loss, np.array([1.0, 0.0]), method="L-BFGS-B").x
    return expit(a * _logit(p) + b)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", nargs="+", help="gallerist selfplay directories")
    ap.add_argument("--model", action="append", default=[], help="a model file (repeatable)")
    ap.add_argument("--val-fraction", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=0, help="the split's seed (train's --seed)")
    ap.add_argument("--rounds", type=int, default=500, help="bootstrap resamples")
    args = ap.parse_args(argv)

    train, val = split_by_game(load_records(args.data, players=2), args.val_fraction, args.seed)
    t, v = train.arrays, val.arrays
    y, groups = v["win_share"][:, 0].astype(np.float64), v["group"]
    print(f"held out: {val.games} games, {len(val)} positions (training: {train.games} games)")

    def row(name: str, p: np.ndarray, labels: np.ndarray | None = None) -> None:
        ok = np.isfinite(p)
        lo, hi = fm.bootstrap_by_group(fm.brier, groups[ok], p[ok], y[ok], rounds=args.rounds)
        extra = ""
        if labels is not None:
            both = ok & np.isfinite(labels)
            extra = (f"   vs labels: Brier {fm.brier(p[both], labels[both]):.4f}, "
                     f"r {np.corrcoef(p[both], labels[both])[0, 1]:.3f}")
        print(f"{name:<44} Brier {fm.brier(p[ok], y[ok]):.4f} [{lo:.4f}, {hi:.4f}] "
              f"({ok.sum()} positions){extra}")

    row("constant 0.5", np.full(len(y), 0.5))
    labels = v["playout_win"][:, 0].astype(np.float64)
    for key, name in (("root_win", "search root estimate (root_win)"),
                      ("playout_win", "playout labels (playout_win)")):
        p, tp = v[key][:, 0].astype(np.float64), t[key][:, 0].astype(np.float64)
        if not np.isfinite(p).any():
            continue
        row(f"{name}, raw", p)
        fit = np.isfinite(tp)
        cal = np.full_like(p, np.nan)
        ok = np.isfinite(p)
        cal[ok] = calibrate(tp[fit], t["win_share"][fit, 0], p[ok])
        row(f"{name}, calibrated", cal)
    for path in args.model:
        win, _, _ = load_model(path).forward(v["obs"], 2)
        row(f"model {os.path.basename(path)}", win[:, 0].astype(np.float64),
            labels if np.isfinite(labels).any() else None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
