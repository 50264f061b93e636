"""Positions for the benchmarks: decision points reached by seeded random play.

`bench/search_bench.py`, `bench/openspiel_bench.py` and `bench/service_bench.py` import
it (a bench run as ``python bench/x.py`` finds it next to itself, and ``engine`` is the
installed package). The same arguments always give the same states, so the published
figures can be reproduced.
"""
from __future__ import annotations

import random

from gallerist import engine

__all__ = ["mid_game_states", "random_step", "sample_states", "settle_chance"]


def random_step(state: engine.GameState, rng: random.Random) -> None:
    """Apply one random action: a chance outcome drawn with `rng` at a chance event,
    otherwise a legal action chosen uniformly."""
    if state.is_chance():
        state.apply_random_chance(rng.randrange(1 << 30))
    else:
        state.apply(rng.choice(state.legal_actions()))


def settle_chance(state: engine.GameState, rng: random.Random) -> None:
    """Resolve the pending chance events, so that a player is to move (or the game is
    over)."""
    while state.is_chance():
        state.apply_random_chance(rng.randrange(1 << 30))


def sample_states(num_players: int, count: int, seed: int, *, plies: tuple[int, int],
                  min_legal: int = 1) -> list[engine.GameState]:
    """Decision points from random play, early to late game.

    Game g is set up with seed ``seed + g`` and played for ``randrange(*plies)`` random
    actions (fewer if it ends); a game that ends there, or whose player to move has
    fewer than `min_legal` legal actions, is skipped.

    Args:
        num_players: players of every game.
        count: how many states to return.
        seed: seeds the setups and the random play.
        plies: the range of random actions to play, as for `random.randrange`.
        min_legal: fewest legal actions a kept state has.
    """
    rng = random.Random(seed)
    out: list[engine.GameState] = []
    g = 0
    while len(out) < count:
        s = engine.new_game(num_players, seed=seed + g)
        g += 1
        for _ in range(rng.randrange(*plies)):
            if s.is_terminal():
                break
            random_step(s, rng)
        settle_chance(s, rng)
        if not s.is_terminal() and len(s.legal_actions()) >= min_legal:
            out.append(s)
    return out


def mid_game_states(count: int, seed: int) -> list[engine.GameState]:
    """Distinct 2-player decision points from seeded random games, 60..160 actions in."""
    rng = random.Random(seed)
    out: list[engine.GameState] = []
    while len(out) < count:
        s = engine.new_game(2, seed=rng.randrange(1 << 30))
        target = rng.randrange(60, 160)
        while len(s.history) < target and not s.is_terminal():
            random_step(s, rng)
        settle_chance(s, rng)
        if not s.is_terminal():
            out.append(s)
    return out
