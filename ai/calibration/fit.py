"""Fitting the calibration maps of ai/calibration/maps.py on labelled positions (what
`fit_files` runs on a data folder for ``gallerist calibrate``): the win map by maximum
likelihood of who really won (scipy's L-BFGS on the conditional logit), the money map by
least squares on every seat's real final money (numpy).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gallerist.ai.calibration.maps import (
    MONEY_PARAMS, MOVE_KINDS, WIN_PARAMS, Calibration, SeatMap, win_features,
)

#: Ridge penalty on the win map's parameters (keeps a fit on few positions sane).
RIDGE = 1e-3
#: MCTS visits a move needs for its numbers to teach the move scale.
MIN_VISITS = 30


@dataclass(frozen=True)
class Sample:
    """One analyzed, labelled position: the stage t, the mover, the raw statistics of
    the reported move, and the game's end (final money and win share per seat)."""

    t: float
    mover: int
    money: tuple[float, ...]
    win: tuple[float, ...] | None
    final_money: tuple[float, ...]
    final_win: tuple[float, ...]
    game: int = 0   # the game it comes from (cross-validation keeps games whole)


#: The win maps tried for each kind (the parameters left free; the others are 0), chosen
#: by cross-validation on the training games: the win shares (MCTS's own, or the root
#: playouts' for the other kinds) and the money, the win shares alone, or the money alone;
#: the first two also bent (q, the square of the share's log).
_INPUTS = {"win and money": (0, 1, 2, 3, 4), "win": (0, 1, 4), "money": (2, 3, 4),
           "win and money, bent": (0, 1, 2, 3, 4, 5), "win, bent": (0, 1, 4, 5)}
CANDIDATES = dict.fromkeys(("mcts", "expectimax", "static", "model", "mix"), _INPUTS)


def _design(kind: str, samples: Sequence[Sample]) -> tuple[np.ndarray, np.ndarray]:
    """X[s, i, k]: seat i's input to parameter k; Y[s, i]: its real win share."""
    n = len(samples[0].money)
    x = np.zeros((len(samples), n, len(WIN_PARAMS)))
    y = np.zeros((len(samples), n))
    for s, smp in enumerate(samples):
        for i, (x1, x2) in enumerate(win_features(smp.money, smp.win)):
            x[s, i] = (x1, smp.t * x1, x2, smp.t * x2, 1.0 if i == smp.mover else 0.0,
                       -x1 * x1)
        y[s] = smp.final_win
    return x, y


def _win_loss(designs: list, total: int, theta: np.ndarray, ridge: float = RIDGE
              ) -> tuple[float, np.ndarray]:
    """Mean negative log-likelihood of the real win shares (plus the ridge) and its
    gradient."""
    nll, grad = ridge * theta @ theta, 2 * ridge * theta
    for x, y in designs:
        u = x @ theta
        u -= u.max(axis=1, keepdims=True)
        logp = u - np.log(np.exp(u).sum(axis=1, keepdims=True))
        p = np.exp(logp)
        nll -= (y * logp).sum() / total
        grad = grad - np.einsum("si,sik->k", y - p * y.sum(axis=1, keepdims=True), x) / total
    return float(nll), grad


def _designs(kind: str, samples: Sequence[Sample]) -> list:
    by_seats: dict[int, list[Sample]] = {}
    for smp in samples:   # one design per seat count (a pooled fit mixes them)
        by_seats.setdefault(len(smp.money), []).append(smp)
    return [_design(kind, group) for group in by_seats.values()]


def fit_win(kind: str, samples: Sequence[Sample], free: Sequence[int] | None = None
            ) -> tuple[float, ...]:
    """The win map's parameters: maximum likelihood of the real win shares (only the
    parameters in `free` may leave 0; default all), the map monotone in the inputs."""
    from scipy.optimize import minimize

    designs, total = _designs(kind, samples), len(samples)
    open_ = set(range(len(WIN_PARAMS)) if free is None else free)
    start = np.array([1.0, 0.0, 0.1, 0.1, 0.0, 0.0])
    start = np.where([i in open_ for i in range(len(start))], start, 0.0)
    # The weights of the win shares and of the money are >= 0 at every stage (a1, b1, a2,
    # b2 >= 0) and so is the bend q (the log share l <= 0, so d(a l - q l^2)/dl >= 0):
    # more money or a larger share never lowers a seat's win probability. Only the
    # mover's term c is free in sign.
    mover_term = WIN_PARAMS.index("c")
    bounds = [((None, None) if k == mover_term else (0.0, None)) if k in open_ else (0.0, 0.0)
              for k in range(len(start))]
    res = minimize(lambda th: _win_loss(designs, total, th), start, jac=True,
                   method="L-BFGS-B", bounds=bounds)
    if not res.success and not np.all(np.isfinite(res.x)):
        raise ValueError(f"the win map of {kind!r} did not converge: {res.message}")
    return tuple(float(v) for v in res.x)


def choose_win(kind: str, samples: Sequence[Sample]) -> tuple[tuple[float, ...], str]:
    """The win map of the candidate (CANDIDATES) with the lowest 2-fold cross-validated
    log loss over the samples' games, refitted on all of them; and its name."""
    options = CANDIDATES.get(kind)
    if not options or len(options) == 1:
        return fit_win(kind, samples), "money"
    folds = [[smp for smp in samples if smp.game // 2 % 2 == f] for f in (0, 1)]
    if not folds[0] or not folds[1]:
        name = next(iter(options))
        return fit_win(kind, samples, options[name]), name
    scores = {}
    for name, free in options.items():
        scores[name] = sum(
            _win_loss(_designs(kind, folds[1 - f]), len(folds[1 - f]),
                      np.array(fit_win(kind, folds[f], free)), ridge=0.0)[0] for f in (0, 1))
    name = min(scores, key=scores.__getitem__)
    return fit_win(kind, samples, options[name]), name


def fit_money(samples: Sequence[Sample]) -> tuple[float, ...]:
    """The money map's parameters: least squares over every seat of every sample."""
    rows, target = [], []
    for smp in samples:
        for m, final in zip(smp.money, smp.final_money):
            rows.append((1.0, m, smp.t, smp.t * m))
            target.append(final)
    coef, *_ = np.linalg.lstsq(np.array(rows), np.array(target), rcond=None)
    assert len(coef) == len(MONEY_PARAMS)
    return tuple(float(v) for v in coef)


def fit(samples: dict[tuple[str, int], Sequence[Sample]], turns: dict[int, float],
        info: dict | None = None, pooled: Sequence[int] = ()) -> Calibration:
    """A Calibration from samples of every (kind, players) pair.

    Args:
        samples: the labelled samples of each (kind, players).
        turns: the typical game length in turns of each player count.
        info: what the file records about the fit.
        pooled: player counts with too few games of their own: their win map is the one
            fitted on the samples of every player count of 2 or more (the conditional
            logit is the same model for any number of seats), which held-out games
            score better than a map fitted on a few dozen games.
    """
    maps = {}
    shared: dict[str, tuple[float, ...]] = {}
    chosen: dict[str, str] = {}
    for (kind, players), rows in sorted(samples.items()):
        if not rows:
            raise ValueError(f"no samples to fit the {kind} map of {players} players")
        if players == 1:
            win = None
        elif players in pooled:
            if kind not in shared:
                shared[kind], chosen[f"{kind} pooled"] = choose_win(
                    kind, [r for (k, n), rs in samples.items() if k == kind and n > 1 for r in rs])
            win = shared[kind]
        else:
            win, chosen[f"{kind} {players}"] = choose_win(kind, rows)
        maps[(kind, players)] = SeatMap(win=win, money=fit_money(rows))
    info = dict(info or {})
    info["win_inputs"] = chosen   # what cross-validation chose for each win map
    return Calibration(maps, turns, source="<fit>", info=info)


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def fit_move_scales(rows: list[dict[str, Any]], cal: Calibration) -> tuple[dict[str, float], dict]:
    """The move scale of every MOVE_KIND ($ per logit) from bench/calibration_moves.py's
    rows (every move of a 2-player position by MCTS and by the heuristic bots): the
    difference of MCTS's calibrated logits (maps of `cal`) between a well-visited move
    and the heuristic bot's first move, regressed through the origin on the difference
    of the mover's money margin. Returns the scales and what the fit saw."""
    scales, info = {}, {}
    for kind in MOVE_KINDS:
        xs, ys = [], []
        for r in rows:
            bots = r["bots"]
            mine = next((b for b in bots.values() if b["kind"] == kind), None)
            if mine is None or "mcts" not in bots:
                continue
            mover = r["mover"]
            t = cal.stage(2, r["turn"])
            mcts = {a: cal.calibrate("mcts", 2, t, mover, money, win)[1][mover]
                    for a, visits, money, win in bots["mcts"]["moves"] if visits >= MIN_VISITS}
            first = mine["moves"][0]
            if first[0] not in mcts:
                continue

            def margin(money: list[float]) -> float:
                return money[mover] - max(m for i, m in enumerate(money) if i != mover)

            for a, _, money, _ in mine["moves"][1:]:
                if a in mcts:
                    xs.append(margin(money) - margin(first[2]))
                    ys.append(_logit(mcts[a]) - _logit(mcts[first[0]]))
        x, y = np.array(xs), np.array(ys)
        slope = float(x @ y / (x @ x)) if len(x) and x @ x > 0 else 0.0
        scales[kind] = 1.0 / slope if slope > 1e-3 else 1e3   # no signal: hardly any shift
        info[kind] = {"pairs": int(len(x)), "logit_per_dollar": slope, "scale": scales[kind]}
    return scales, info
