"""Profile-likelihood intervals of Bradley-Terry ratings (`ai.arena.ratings`).

The model: bot a finishes ahead of bot b with probability sigmoid(theta_a - theta_b);
the strengths theta (natural-log units) sum to zero. `W[a, b]` holds how often a beat
b, the prior's virtual games included, so the log-likelihood is
    l(theta) = sum over a != b of W[a, b] * log sigmoid(theta_a - theta_b).
The interval of bot i is every value t whose profile likelihood (l maximised over the
other strengths with theta_i = t) is within chi-squared(1) / 2 of the maximum. Unlike
a bootstrap, it does not collapse to a point for a perfect or one-sided record: the
prior keeps the likelihood finite, and the interval widens as the games get fewer.
"""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy import optimize, special, stats

__all__ = ["anchored_intervals", "log_likelihood", "profile_intervals"]

#: Widest bound searched, in natural units (~17,000 Elo): far beyond any real rating.
_LIMIT = 100.0


def log_likelihood(theta: np.ndarray, wins: np.ndarray) -> float:
    """The Bradley-Terry log-likelihood of strengths `theta` given `wins`."""
    d = theta[:, None] - theta[None, :]
    return float(np.sum(wins * special.log_expit(d)))


def _gradient(theta: np.ndarray, wins: np.ndarray) -> np.ndarray:
    m = wins * special.expit(-(theta[:, None] - theta[None, :]))
    return np.asarray(m.sum(axis=1) - m.sum(axis=0))


def _profile(wins: np.ndarray, theta_hat: np.ndarray, i: int, t: float) -> float:
    """The log-likelihood maximised over the other strengths, with theta_i = t and the
    strengths summing to zero."""
    n = len(theta_hat)
    others = [j for j in range(n) if j != i]
    free, last = others[:-1], others[-1]

    def full(v: np.ndarray) -> np.ndarray:
        theta = np.empty(n)
        theta[i], theta[free] = t, v
        theta[last] = -t - v.sum()
        return theta

    if not free:                       # two bots: the other strength is -t
        return log_likelihood(full(np.empty(0)), wins)

    def cost(v: np.ndarray) -> tuple[float, np.ndarray]:
        theta = full(v)
        g = _gradient(theta, wins)
        return -log_likelihood(theta, wins), -(g[free] - g[last])

    start = theta_hat[free] - (t - theta_hat[i]) / (n - 1)
    best = optimize.minimize(cost, start, jac=True, method="BFGS")
    return -float(best.fun)


def _bound(profile: Callable[[float], float], t0: float, top: float, crit: float,
           direction: int) -> float:
    """Where the profile deviance reaches `crit`, above (+1) or below (-1) `t0`."""

    def excess(t: float) -> float:
        return 2.0 * (top - profile(t)) - crit

    step = 0.5
    while excess(t0 + direction * step) < 0:
        step *= 2
        if step > _LIMIT:
            return direction * math.inf
    a, b = sorted((t0, t0 + direction * step))
    return float(optimize.brentq(excess, a, b, xtol=1e-6))


def _profile_difference(wins: np.ndarray, theta_hat: np.ndarray, i: int, anchor: int,
                        d: float) -> float:
    """The log-likelihood maximised over the other strengths, with the anchor's strength
    at 0 and bot i's at `d` (the likelihood depends only on differences)."""
    n = len(theta_hat)
    free = [j for j in range(n) if j not in (i, anchor)]

    def full(v: np.ndarray) -> np.ndarray:
        theta = np.empty(n)
        theta[anchor], theta[i], theta[free] = 0.0, d, v
        return theta

    if not free:
        return log_likelihood(full(np.empty(0)), wins)

    def cost(v: np.ndarray) -> tuple[float, np.ndarray]:
        theta = full(v)
        return -log_likelihood(theta, wins), -_gradient(theta, wins)[free]

    best = optimize.minimize(cost, theta_hat[free] - theta_hat[anchor], jac=True, method="BFGS")
    return -float(best.fun)


def profile_intervals(wins: np.ndarray, theta_hat: np.ndarray, level: float) -> list[tuple[float, float]]:
    """The `level` profile-likelihood interval of every strength, in natural units.

    Args:
        wins: W[a, b], how often a beat b, the prior included (every off-diagonal
            entry > 0 keeps every bound finite).
        theta_hat: the maximum-likelihood strengths (summing to zero).
        level: the confidence level, e.g. 0.95.
    """
    n = len(theta_hat)
    if n < 2:                          # one bot: its rating is the mean, 0 by definition
        return [(0.0, 0.0)] * n
    crit = float(stats.chi2.ppf(level, 1))
    top = log_likelihood(theta_hat, wins)
    out = []
    for i in range(n):
        def profile(t: float, i: int = i) -> float:
            return _profile(wins, theta_hat, i, t)
        out.append((_bound(profile, float(theta_hat[i]), top, crit, -1),
                    _bound(profile, float(theta_hat[i]), top, crit, +1)))
    return out


def anchored_intervals(wins: np.ndarray, theta_hat: np.ndarray, anchor: int,
                       level: float) -> list[tuple[float, float]]:
    """The `level` profile-likelihood interval of every strength less the anchor's (the
    scale on which the anchor is fixed at 0), in natural units; the anchor's is (0, 0)."""
    crit = float(stats.chi2.ppf(level, 1))
    top = log_likelihood(theta_hat, wins)
    out = []
    for i in range(len(theta_hat)):
        if i == anchor:
            out.append((0.0, 0.0))
            continue

        def profile(d: float, i: int = i) -> float:
            return _profile_difference(wins, theta_hat, i, anchor, d)
        t0 = float(theta_hat[i] - theta_hat[anchor])
        out.append((_bound(profile, t0, top, crit, -1), _bound(profile, t0, top, crit, +1)))
    return out
