"""The Gallerist rules engine: the public API (re-exports only)."""
from gallerist.engine._observation import OBSERVATION_SIZE, OBSERVATION_VERSION, observation_fields
from gallerist.engine.errors import GalleristError, IllegalActionError, InvalidStateError
from gallerist.engine.state import (
    ACTION_BASES,
    CHANCE,
    MAX_GAME_LENGTH,
    NUM_DISTINCT_ACTIONS,
    TERMINAL,
    GameState,
    new_game,
    random_playouts,
)
from gallerist.engine.moves_text import describe_move, describe_moves  # moves in words
from gallerist.engine.svg import svg  # the board as SVG (a function; the module is engine.svg's)

__all__ = [
    "ACTION_BASES",
    "CHANCE",
    "MAX_GAME_LENGTH",
    "NUM_DISTINCT_ACTIONS",
    "OBSERVATION_SIZE",
    "OBSERVATION_VERSION",
    "TERMINAL",
    "GalleristError",
    "GameState",
    "IllegalActionError",
    "InvalidStateError",
    "describe_move",
    "describe_moves",
    "new_game",
    "observation_fields",
    "random_playouts",
    "svg",
]
