"""A linear value: the value heads as L2-penalised regressions on the observation
(``gallerist train --linear-value PENALTY``), a multinomial logistic regression of the win
shares and a ridge regression of each seat's money, stored as the model file's format 2
skip weights. NumPy and SciPy only. The fits, and why a linear value: docs/training.md.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

__all__ = ["fit_linear_value", "fit_win", "fit_ridge"]

#: Rows per block of the ridge's Gram matrix (float64 blocks of ~0.7 GB at most).
_BLOCK = 50_000


def _present(num_players: np.ndarray, seats: int) -> np.ndarray:
    return np.arange(seats)[None, :] < np.asarray(num_players, np.int64)[:, None]


def fit_win(obs: np.ndarray, win_share: np.ndarray, num_players: np.ndarray, penalty: float,
            max_iter: int = 500) -> tuple[np.ndarray, np.ndarray, dict[str, float]]:
    """The win-share logits as a linear function of the observation (module docstring).

    Args:
        obs: (rows, d) float32 observations.
        win_share: (rows, seats) targets by tensor seat (0 where absent).
        num_players: (rows,) seats present per row.
        penalty: the L2 penalty (> 0).

    Returns:
        (W (d, seats) float32, b (seats,) float32, {"loss", "iterations"}).
    """
    from scipy.optimize import minimize

    x = np.ascontiguousarray(obs, np.float32)
    rows, d = x.shape
    seats = win_share.shape[1]
    present = _present(num_players, seats)
    y = np.where(present, win_share, 0).astype(np.float64)

    def loss_grad(theta: np.ndarray) -> tuple[float, np.ndarray]:
        w = theta[: d * seats].reshape(d, seats)
        b = theta[d * seats:]
        z = (x @ w.astype(np.float32)).astype(np.float64) + b
        z = np.where(present, z, -np.inf)
        z -= z.max(axis=1, keepdims=True)
        log_p = np.where(present, z - np.log(np.exp(z).sum(axis=1, keepdims=True)), 0.0)
        p = np.where(present, np.exp(log_p), 0.0)
        ce = -(y * log_p).sum() / rows
        loss = ce + 0.5 * penalty * float((w * w).sum()) / rows
        g = np.where(present, p - y, 0.0) / rows
        gw = (x.T @ g.astype(np.float32)).astype(np.float64) + penalty * w / rows
        return loss, np.concatenate([gw.ravel(), g.sum(axis=0)])

    result = minimize(loss_grad, np.zeros(d * seats + seats), jac=True, method="L-BFGS-B",
                      options={"maxiter": max_iter})
    theta = result.x
    w = theta[: d * seats].reshape(d, seats).astype(np.float32)
    b = theta[d * seats:].astype(np.float32)
    return w, b, {"loss": float(result.fun), "iterations": int(result.nit)}


def fit_ridge(obs: np.ndarray, target: np.ndarray, num_players: np.ndarray, penalty: float
              ) -> tuple[np.ndarray, np.ndarray]:
    """Each tensor seat's target (the money heads': money / money_scale) as a centred
    ridge regression on the observation, over the rows where the seat is present; a seat
    present in no row gets zero weights. Returns (W (d, seats) float32, b (seats,) float32)."""
    x = np.asarray(obs, np.float32)
    rows, d = x.shape
    seats = target.shape[1]
    present = _present(num_players, seats)
    w_out = np.zeros((d, seats), np.float32)
    b_out = np.zeros(seats, np.float32)
    for k in range(seats):
        idx = np.flatnonzero(present[:, k])
        if len(idx) == 0:
            continue
        gram = np.zeros((d, d))
        sx = np.zeros(d)
        xy = np.zeros(d)
        yk = np.asarray(target[idx, k], np.float64)
        for start in range(0, len(idx), _BLOCK):
            part = idx[start:start + _BLOCK]
            xb = x[part].astype(np.float64)
            gram += xb.T @ xb
            sx += xb.sum(axis=0)
            xy += xb.T @ yk[start:start + _BLOCK]
        n = len(idx)
        mean_x, mean_y = sx / n, float(yk.mean())
        gram -= n * np.outer(mean_x, mean_x)
        gram[np.diag_indices(d)] += penalty
        w = np.linalg.solve(gram, xy - n * mean_x * mean_y)
        w_out[:, k] = w
        b_out[k] = mean_y - mean_x @ w
    return w_out, b_out


def fit_linear_value(arrays: Mapping[str, np.ndarray], penalty: float, money_scale: float
                     ) -> tuple[dict[str, np.ndarray], dict[str, float]]:
    """The skip weights of a linear value for the rows of a training set.

    Args:
        arrays: a Dataset's arrays with its value targets (``obs``, ``num_players``,
            ``target_win`` / ``target_money``, else ``win_share`` / ``final_money``).
        penalty: the L2 penalty of both regressions.
        money_scale: money targets are divided by it (the model's money_scale).

    Returns:
        ({"win_skip", "win_b", "money_skip", "money_b"}, fit details).
    """
    if not penalty > 0:
        raise ValueError(f"linear value penalty must be > 0, got {penalty}")
    win = arrays.get("target_win", arrays["win_share"])
    money = arrays.get("target_money", arrays["final_money"])
    w, b, info = fit_win(arrays["obs"], win, arrays["num_players"], penalty)
    mw, mb = fit_ridge(arrays["obs"], np.asarray(money, np.float64) / money_scale,
                       arrays["num_players"], penalty)
    return {"win_skip": w, "win_b": b, "money_skip": mw, "money_b": mb}, info
