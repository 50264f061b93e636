"""Positions the bot tests analyze (shared by the calibration and playout tests under tests/ai)."""
import random

from gallerist import engine


def decision_point(players: int, seed: int, skip: int) -> engine.GameState:
    """A decision point with a real choice some `skip` decisions into a random game."""
    rng = random.Random(seed)
    state = engine.new_game(players, seed)
    decisions = 0
    while True:
        if state.is_chance():
            state.apply_random_chance(rng.randrange(1 << 30))
            continue
        if decisions >= skip and len(state.legal_actions()) > 1:
            return state
        state.apply(rng.choice(state.legal_actions()))
        decisions += 1
