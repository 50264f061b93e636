"""Playing whole games between bots."""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from gallerist import engine


def draw_chance(state: engine.GameState, rng: np.random.Generator) -> int:
    """A chance event's outcome drawn with its probability from `rng` (the game's chance
    stream: `np.random.default_rng(seed)` deals the same luck to every seating)."""
    outcomes = state.chance_outcomes()
    probs = np.array([p for _, p in outcomes])
    return int(outcomes[int(rng.choice(len(outcomes), p=probs / probs.sum()))][0])


def play_game(bots: Sequence[Any], *, seed: int = 0, on_action: Callable[[engine.GameState, int, int], None] | None = None,
              max_actions: int = engine.MAX_GAME_LENGTH) -> engine.GameState:
    """Play one game: seat i is played by bots[i]; chance events come from the game's
    own seed (not the bots'), so the same seed deals the same luck to every seating.

    Args:
        bots: one bot per seat (1-4; one bot: the solo game against Lacerda).
        seed: the setup and chance seed.
        on_action: called as on_action(state_before, player_or_CHANCE, action).
        max_actions: a safety bound.

    Returns:
        The final state (terminal).
    """
    state = engine.new_game(num_players=len(bots), seed=seed)
    chance_rng = np.random.default_rng(seed)
    for _ in range(max_actions):
        if state.is_terminal():
            return state
        if state.is_chance():
            action = draw_chance(state, chance_rng)
            player = engine.CHANCE
        else:
            player = state.current_player
            view = state.view(player)
            action = bots[player].choose(view)
        if on_action is not None:
            on_action(state, player, action)
        state.apply(action)
    raise RuntimeError(f"game with seed {seed} did not end within {max_actions} actions")
