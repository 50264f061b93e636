"""A player's strength from one game's analysis: the average loss per decision and the
share of mistakes and blunders, mapped to the ladder's Elo scale by a fit on the ladder's
own games (bench/strength_fit.py writes strength.json), with a 95% prediction interval.
Two-player games only: the ladder is rated at two players."""
from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["MODEL_FILE", "Strength", "StrengthModel", "combine", "describe", "fit",
           "strength_of"]

#: The fitted map (absent until bench/strength_fit.py has written it).
MODEL_FILE = os.path.join(os.path.dirname(__file__), "strength.json")
#: Added to the average loss before its logarithm (a flawless game has loss 0).
EPSILON = 0.002
#: z of a two-sided 95% interval.
Z95 = 1.959964


def features(decisions: int, average_loss: float, counts: dict[str, int]) -> list[float]:
    """What the map reads from a seat's game: 1, log(average loss + EPSILON), and the
    share of its decisions that were mistakes or blunders."""
    bad = (counts.get("mistake", 0) + counts.get("blunder", 0)) / max(1, decisions)
    return [1.0, math.log(max(0.0, average_loss) + EPSILON), bad]


@dataclass(frozen=True)
class StrengthModel:
    """The map from a game's figures to Elo: least squares on `features`, with the
    residual standard deviation and the fit's inverse Gram matrix for the interval.

    Attributes:
        coef: the coefficients of `features`.
        sigma: residual standard deviation, Elo.
        inverse: (X'X)^-1 of the training features (for the interval's leverage).
        analyzer: the bot and budget the training games were analyzed with.
        games: seat-games it was fitted on.
        levels: (level, Elo) of the levels, for "played like level N".
        between_sd: the part of one game's error that stays with the player over games
            (Elo; bench/rating_combine.py fits it), for `combine`.
    """

    coef: tuple[float, ...]
    sigma: float
    inverse: tuple[tuple[float, ...], ...]
    analyzer: str
    games: int
    levels: tuple[tuple[int, float], ...] = ()
    between_sd: float = 0.0

    @staticmethod
    def load(path: str = MODEL_FILE) -> "StrengthModel | None":
        """The packaged map, or None when it has not been fitted."""
        if not os.path.exists(path):
            return None
        with open(path, encoding="utf-8") as fh:
            d = json.load(fh)
        return StrengthModel(tuple(d["coef"]), float(d["sigma"]),
                             tuple(tuple(r) for r in d["inverse"]), str(d["analyzer"]),
                             int(d["games"]), tuple((int(n), float(e)) for n, e in d["levels"]),
                             float(d.get("between_sd", 0.0)))

    def to_json(self) -> dict[str, Any]:
        return {"coef": list(self.coef), "sigma": self.sigma,
                "inverse": [list(r) for r in self.inverse], "analyzer": self.analyzer,
                "games": self.games, "levels": [list(x) for x in self.levels],
                "between_sd": self.between_sd}

    def estimate(self, decisions: int, average_loss: float, counts: dict[str, int]) -> "Strength":
        """The Elo of a seat that played `decisions` with this average loss and these
        label counts, with its 95% prediction interval."""
        x = features(decisions, average_loss, counts)
        elo = sum(c * v for c, v in zip(self.coef, x))
        leverage = sum(x[i] * self.inverse[i][j] * x[j]
                       for i in range(len(x)) for j in range(len(x)))
        half = Z95 * self.sigma * math.sqrt(1.0 + leverage)
        level = min(self.levels, key=lambda lv: abs(lv[1] - elo))[0] if self.levels else 0
        return Strength(elo, (elo - half, elo + half), level)


@dataclass(frozen=True)
class Strength:
    """An estimate: Elo on the ladder's scale, its 95% interval, the nearest level."""

    elo: float
    ci: tuple[float, float]
    level: int

    def to_json(self) -> dict[str, Any]:
        return {"elo": round(self.elo, 1), "ci": [round(self.ci[0], 1), round(self.ci[1], 1)],
                "level": self.level}


def combine(estimates: Sequence[Strength], between_sd: float,
            levels: Sequence[tuple[int, float]] = ()) -> Strength:
    """A player's rating from several games' estimates. Each game's error has a part that
    averages out (its variance: the game's own, less `between_sd` squared) and a part that
    stays with the player (`between_sd`): the estimate is the precision-weighted mean, its
    95% interval +- 1.96 * sqrt(between_sd^2 + 1 / sum of the games' precisions), so it
    narrows with games but never below +- 1.96 * between_sd. One game: its own estimate.
    """
    if not estimates:
        raise ValueError("no estimates to combine")
    weights, total = [], 0.0
    for e in estimates:
        var = ((e.ci[1] - e.ci[0]) / (2 * Z95)) ** 2
        within = max(var - between_sd ** 2, 1e-6)
        weights.append(1.0 / within)
    total = sum(weights)
    elo = sum(w * e.elo for w, e in zip(weights, estimates)) / total
    half = Z95 * math.sqrt(between_sd ** 2 + 1.0 / total)
    level = min(levels, key=lambda lv: abs(lv[1] - elo))[0] if levels else 0
    return Strength(elo, (elo - half, elo + half), level)


def describe(s: Strength) -> str:
    """'played like level 4 (about 1,350, 95% CI 1,150-1,550)'."""
    like = f"played like level {s.level} " if s.level else "played "
    return f"{like}(about {s.elo:,.0f} Elo, 95% CI {s.ci[0]:,.0f} to {s.ci[1]:,.0f})"


def strength_of(players: int, decisions: int, average_loss: float, counts: dict[str, int],
                model: StrengthModel | None = None) -> Strength | None:
    """A seat's estimate from its analysis summary; None solo or at 3-4 players (the
    ladder is rated at two), without decisions, or when no map has been fitted."""
    model = model or StrengthModel.load()
    if model is None or players != 2 or decisions <= 0:
        return None
    return model.estimate(decisions, average_loss, counts)


def fit(rows: Sequence[tuple[int, float, dict[str, int], float]], analyzer: str,
        levels: Sequence[tuple[int, float]] = ()) -> StrengthModel:
    """Least squares of Elo on `features` over (decisions, average loss, counts, Elo)."""
    import numpy as np

    X = np.array([features(d, loss, c) for d, loss, c, _ in rows])
    y = np.array([elo for *_, elo in rows])
    coef, *_ = np.linalg.lstsq(X, y, rcond=None)
    resid = y - X @ coef
    dof = max(1, len(rows) - X.shape[1])
    sigma = float(math.sqrt(float(resid @ resid) / dof))
    inverse = np.linalg.inv(X.T @ X)
    return StrengthModel(tuple(float(c) for c in coef), sigma,
                         tuple(tuple(float(v) for v in r) for r in inverse), analyzer,
                         len(rows), tuple(levels))
