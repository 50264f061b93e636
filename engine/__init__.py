"""The Gallerist rules engine: the public API (re-exports only)."""
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
from gallerist.engine.svg import svg  # the board as SVG (a function; the module is engine.svg's)

__all__ = [
    "ACTION_BASES",
    "CHANCE",
    "MAX_GAME_LENGTH",
    "NUM_DISTINCT_ACTIONS",
    "TERMINAL",
    "GalleristError",
    "GameState",
    "IllegalActionError",
    "InvalidStateError",
    "new_game",
    "random_playouts",
    "svg",
]
