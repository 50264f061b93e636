"""TEMPORARY stand-in for `GameState.observation(player)` (h-obs, issue 14 part 1), used by
ai/selfplay.py only until the real observation lands on main; deleted at that merge.

It is NOT the observation layout: a few public numbers (every seat's money and influence,
own seat first, the turn, a one-hot of the player count) so that the self-play records
can be written and tested. Its version is 0, which no real layout has, so records
written with it are refused by a run with the real observation.
"""
from __future__ import annotations

import numpy as np

OBSERVATION_VERSION = 0
OBSERVATION_SIZE = 13


def observation(state, player: int) -> np.ndarray:
    """money/100 and influence/10 of the 4 tensor seats (seat k = player (player+k) % n),
    turn/60, a one-hot of the player count."""
    n = state.num_players
    out = np.zeros(OBSERVATION_SIZE, np.float32)
    money, influence = state.money(), state.influence()
    for k in range(n):
        p = (player + k) % n
        out[k] = money[p] / 100.0
        out[4 + k] = influence[p] / 10.0
    out[8] = state.turn_number / 60.0
    out[9 + n - 1] = 1.0
    return out
