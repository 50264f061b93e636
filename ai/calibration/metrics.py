"""Scores of probability forecasts and money estimates against what happened, with
bootstrap intervals that resample whole games (positions of one game are not
independent). Used by bench/calibration.py; numpy only.

A label y is the real win share of the forecast seat: 1 for a win, 0 for a loss, 1/k for
a first place shared by k players.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

#: Forecasts are clipped to [EPS, 1 - EPS] for the log loss.
EPS = 1e-4


def brier(p: Sequence[float], y: Sequence[float]) -> float:
    """Mean squared difference between forecast and outcome (0 is perfect; always
    answering 0.5 scores 0.25 on win/loss labels)."""
    p, y = np.asarray(p, float), np.asarray(y, float)
    return float(np.mean((p - y) ** 2))


def log_loss(p: Sequence[float], y: Sequence[float]) -> float:
    """Mean negative log-likelihood, natural log (0.5 everywhere scores ln 2 = 0.693)."""
    p = np.clip(np.asarray(p, float), EPS, 1 - EPS)
    y = np.asarray(y, float)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def reliability(p: Sequence[float], y: Sequence[float], bins: int = 10
                ) -> list[tuple[int, float, float]]:
    """Per equal-width bin of the forecast (the last bin includes 1): (count, mean
    forecast, mean outcome); empty bins are (0, nan, nan)."""
    p, y = np.asarray(p, float), np.asarray(y, float)
    idx = np.minimum((p * bins).astype(int), bins - 1)
    out = []
    for b in range(bins):
        sel = idx == b
        n = int(sel.sum())
        out.append((n, float(p[sel].mean()) if n else float("nan"),
                    float(y[sel].mean()) if n else float("nan")))
    return out


def ece(p: Sequence[float], y: Sequence[float], bins: int = 10) -> float:
    """Expected calibration error: the count-weighted mean |mean forecast - mean
    outcome| over `bins` equal-width bins."""
    rows = reliability(p, y, bins)
    total = sum(n for n, _, _ in rows)
    return float(sum(n * abs(mp - my) for n, mp, my in rows if n) / total)


def ece_floor(p: Sequence[float], bins: int = 10, rounds: int = 200, seed: int = 0) -> float:
    """The ECE a perfectly calibrated forecaster would still score with these forecasts
    and this many positions: the mean ECE against outcomes drawn from the forecasts
    themselves. A lower bound for real labels, which are correlated within a game."""
    p = np.asarray(p, float)
    rng = np.random.default_rng(seed)
    return float(np.mean([ece(p, (rng.random(len(p)) < p).astype(float), bins)
                          for _ in range(rounds)]))


def mae(pred: Sequence[Sequence[float]], actual: Sequence[Sequence[float]]) -> float:
    """Mean absolute error over every seat of every position."""
    return float(np.mean(np.abs(np.asarray(pred, float) - np.asarray(actual, float))))


def agreement(p: Sequence[float], q: Sequence[float], tol: float = 0.1) -> float:
    """The share of positions where two forecasts differ by at most `tol`."""
    return float(np.mean(np.abs(np.asarray(p, float) - np.asarray(q, float)) <= tol + 1e-12))


def bootstrap_by_group(metric: Callable[..., float], groups: Sequence[object],
                       *columns: Sequence, rounds: int = 1000, seed: int = 0,
                       level: float = 0.95) -> tuple[float, float]:
    """A percentile bootstrap interval of `metric(*columns)`, resampling whole groups
    (games) with replacement: rows of one group always go together."""
    keys = list(dict.fromkeys(groups))
    rows_of = {k: [] for k in keys}
    for i, g in enumerate(groups):
        rows_of[g].append(i)
    index = [np.asarray(rows_of[k]) for k in keys]
    cols = [np.asarray(c) for c in columns]
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(rounds):
        pick = np.concatenate([index[j] for j in rng.integers(len(keys), size=len(keys))])
        values.append(metric(*(c[pick] for c in cols)))
    lo, hi = np.quantile(values, [(1 - level) / 2, 1 - (1 - level) / 2])
    return float(lo), float(hi)
