"""Demo positions: a seeded game played by the greedy bot into the middle game.

>>> state = demo_state(seed=1)
>>> state.is_chance() or state.is_terminal()
False
"""
from __future__ import annotations

from gallerist import engine
from gallerist.ai.baselines import GreedyBot
from gallerist.engine.actions import decision_kind

__all__ = ["demo_state"]


def demo_state(seed: int = 1, players: int = 2, turns: int = 12,
               min_moves: int = 3) -> engine.GameState:
    """A mid-game position at the start of a player's turn, the same for the same
    arguments.

    The greedy bot plays every seat (chance events drawn from the seed) until `turns`
    turns have started, then on to the next turn start with at least `min_moves` legal
    moves.

    Args:
        seed: the game's seed (setup, chance and the bots' tie-breaks).
        players: 1 (solo against Lacerda) to 4.
        turns: how many turns to play first.
        min_moves: the fewest legal moves the position should offer.

    Returns:
        A decision point (the full state: every player's cards are known).

    Raises:
        RuntimeError: the game ended first (not seen with the defaults).
    """
    state = engine.new_game(num_players=players, seed=seed)
    bots = [GreedyBot(seed=seed * 31 + p) for p in range(players)]
    started = 0
    chance = 0
    for _ in range(engine.MAX_GAME_LENGTH):
        if state.is_terminal():
            break
        if state.is_chance():
            chance += 1
            state.apply_random_chance(seed * 1_000_003 + chance)
            continue
        if decision_kind(state) == "turn-start":
            started += 1
            if started > turns and len(state.legal_actions()) >= min_moves:
                return state
        player = state.current_player
        state.apply(bots[player].choose(state.view(player)))
    raise RuntimeError(f"the game of seed {seed} ended before a demo position was found")
