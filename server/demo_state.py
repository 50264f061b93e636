"""Demo positions: a seeded game played by the greedy bot into the middle game.

>>> state = demo_state(seed=1)
>>> state.is_chance() or state.is_terminal()
False
"""
from __future__ import annotations

from gallerist import engine
from gallerist.ai.bots.baselines import GreedyBot
from gallerist.engine.actions import decision_kind
from gallerist.engine.errors import GalleristError

__all__ = ["DemoPositionError", "demo_state"]

_SEEDS_TRIED = 50   # seeds after the given one that an error looks through for one to name


class DemoPositionError(GalleristError, ValueError):
    """A seed's game offers no demo position; the message names a seed that does."""


def demo_state(seed: int = 1, players: int = 2, turns: int = 12,
               min_moves: int = 3) -> engine.GameState:
    """A mid-game position at the start of a player's turn, the same for the same
    arguments.

    The greedy bot plays every seat (chance events drawn from the seed) until `turns`
    turns have started, then on to the next turn start with at least `min_moves` legal
    moves. A game that ends before (a short solo game, say) gives instead the turn start
    with at least `min_moves` moves nearest its middle turn.

    Args:
        seed: the game's seed (setup, chance and the bots' tie-breaks).
        players: 1 (solo against Lacerda) to 4.
        turns: how many turns to play first.
        min_moves: the fewest legal moves the position should offer.

    Returns:
        A decision point (the full state: every player's cards are known).

    Raises:
        DemoPositionError: no turn start of the game offers `min_moves` moves; the
            message names the next seed whose game does.
    """
    position = _demo_position(seed, players, turns, min_moves)
    if position is not None:
        return position
    for other in range(seed + 1, seed + 1 + _SEEDS_TRIED):
        if _demo_position(other, players, turns, min_moves) is not None:
            raise DemoPositionError(
                f"the {players}-player game of seed {seed} has no turn start with "
                f"{min_moves} or more moves to show; try seed {other}")
    raise DemoPositionError(
        f"the {players}-player game of seed {seed} has no turn start with {min_moves} or "
        f"more moves to show, nor have seeds {seed + 1} to {seed + _SEEDS_TRIED}")


def _demo_position(seed: int, players: int, turns: int,
                   min_moves: int) -> engine.GameState | None:
    """`demo_state`'s position of one seed, or None when no turn start qualifies."""
    state = engine.new_game(num_players=players, seed=seed)
    bots = [GreedyBot(seed=seed * 31 + p) for p in range(players)]
    started = 0
    chance = 0
    early: list[tuple[int, engine.GameState]] = []   # (turn, state) of the first turns
    for _ in range(engine.MAX_GAME_LENGTH):
        if state.is_terminal():
            break
        if state.is_chance():
            chance += 1
            state.apply_random_chance(seed * 1_000_003 + chance)
            continue
        if decision_kind(state) == "turn-start":
            started += 1
            if len(state.legal_actions()) >= min_moves:
                if started > turns:
                    return state
                early.append((started, state.copy()))
        player = state.current_player
        state.apply(bots[player].choose(state.view(player)))
    if not early:
        return None
    middle = (started + 1) / 2
    return min(early, key=lambda item: (abs(item[0] - middle), item[0]))[1]
