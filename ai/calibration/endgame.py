"""How settled a game's result is, near its end: a few uniform playouts to the end.

The calibration maps (ai.calibration.maps) were fitted on positions of every stage; near the
end of a game they must give way to what is known (`Calibration.settle`).
`outcome_spread` plays COUNT games on from a position (MCTS's uniform rollout policy,
chance sampled, the cards `viewer` cannot see dealt anew for each game) and returns
every seat's lowest, highest and mean final money, its spread, and the mean win shares.
When the rest of the game is forced, or nothing left changes the result, every playout
ends alike: lowest = highest = the exact result. A position from which a playout runs
past HORIZON decisions is not near its end: None (in the middle game the first playout
tells, cut off there, in about 15 us).
"""
from __future__ import annotations

import math
import zlib
from dataclasses import dataclass

from gallerist import engine
from gallerist.ai.search._evaluation import PythonEvaluator
from gallerist.ai.search._rollout import RolloutEvaluator

#: Playouts per position, and the decisions within which each must end.
COUNT = 32
HORIZON = 60


@dataclass(frozen=True)
class Spread:
    """The playouts' view of the rest of a game, per seat: the lowest, highest and mean
    final money and its standard deviation, and the mean final win share (a first place
    shared by k counts 1/k; solo, 1)."""

    low: tuple[float, ...]
    high: tuple[float, ...]
    mean: tuple[float, ...]
    sd: tuple[float, ...]
    win: tuple[float, ...]


class _Unfinished(PythonEvaluator):
    """Marks a playout cut off at the horizon: NaN money (no finished game has it)."""

    def estimate(self, state: engine.GameState) -> tuple[list[float], None]:
        return [math.nan] * state.num_players, None


_PLAYOUT = RolloutEvaluator(_Unfinished(), policy="random", cutoff=HORIZON)


def outcome_spread(state: engine.GameState, viewer: int, seed: int = 0,
                   count: int = COUNT) -> Spread | None:
    """The spread of `count` uniform playouts from `state` as `viewer` knows it (the same
    for the same state and seed), or None before the end is triggered or when one of
    them runs past HORIZON decisions. A finished game is its own exact result."""
    n = state.num_players
    if state.turns_left < 0:
        return None
    if state.is_terminal():
        money = tuple(map(float, state.money()))
        return Spread(money, money, money, (0.0,) * n,
                      tuple(state.returns()) if n > 1 else (1.0,))
    base = (seed * 0x9E3779B1 + zlib.crc32(state.state_bytes())) & 0xFFFFFFFF
    money: list[list[float]] = []
    wins: list[list[float]] = []
    for k in range(count):
        deal = state.resample_hidden(viewer, seed=(base + 7919 * k) & 0xFFFFFFFF)
        m, w = _PLAYOUT.values(deal, (base * 31 + k) & 0xFFFFFFFFFFFFFFFF)
        if math.isnan(m[0]):   # this playout ran past the horizon
            return None
        money.append(m)
        wins.append(w if n > 1 else [1.0])
    cols = list(zip(*money))
    mean = tuple(sum(c) / count for c in cols)
    sd = tuple(math.sqrt(max(0.0, sum((x - mu) ** 2 for x in c) / count))
               for c, mu in zip(cols, mean))
    return Spread(tuple(map(min, cols)), tuple(map(max, cols)), mean, sd,
                  tuple(sum(c) / count for c in zip(*wins)))
