"""Type stub of engine.state, the compiled GameState wrapper (engine/state.pyx).

Actions are ints in ``[0, NUM_DISTINCT_ACTIONS)``; ``engine.actions`` gives their notation.
The TypedDicts below exist for type checkers only (import them under ``TYPE_CHECKING``).
"""
from typing import Any, TypedDict

import numpy as np

#: ``GameState.current_player`` at a chance point.
CHANCE: int
#: ``GameState.current_player`` once the game is over.
TERMINAL: int
#: Size of the action space: every action id is in ``range(NUM_DISTINCT_ACTIONS)``.
NUM_DISTINCT_ACTIONS: int
#: Bound used to derive MAX_GAME_LENGTH.
MAX_DECISIONS_PER_TURN: int
#: Upper bound on the number of actions (decisions and chance events) of any game.
MAX_GAME_LENGTH: int
#: First action id of each kind of decision, by its short name ("move", "artist", ...).
ACTION_BASES: dict[str, int]
#: Task kinds of the task stack ("T_TURN_START", ...) and their numbers (_core.pxd's TaskKind).
TASK_KINDS: dict[str, int]
#: Owner id of Lacerda's pieces (solo) in the raw state's loc_owner, mk_asst and ko_owner.
LACERDA: int
#: The raw state's PlayerC.gallerist at home and on the kicked-out space.
GAL_HOME: int
GAL_KO: int
# The tables of engine/data.h (read from the C arrays; see data.h for their meaning).
START_MONEY: int
START_INFLUENCE: int
START_DESKS: int
START_QUEUE: int
#: By player count (index 1..4): visitors of each type, tickets per colour, easels.
VISITORS_TOTAL: tuple[tuple[int, int, int], ...]
TICKETS_PER_COLOUR: tuple[int, ...]
EASELS: tuple[int, ...]
#: [form][colour][variant]
ARTIST_FAME0: tuple[tuple[tuple[int, int], tuple[int, int]], ...]
ARTIST_PROMO0: tuple[tuple[tuple[int, int], tuple[int, int]], ...]
FAME_MAX: int
INFLUENCE_MAX: int
#: By work tile kind: printed fame and ticket pattern.
WORK_FAME: tuple[int, ...]
WORK_TICKETS: tuple[int, ...]
MARKET_ROW_FORM: tuple[int, ...]
MARKET_COLUMN_INFLUENCE: tuple[int, ...]
AUCTION_COST: tuple[int, ...]
LACERDA_MARKET_ORDER: tuple[tuple[int, int], ...]
#: Invariant codes of ``check_invariants`` and what each one means.
INVARIANT_NAMES: dict[int, str]
#: Solo: ``returns()`` maps the final money m to m / (m + SOLO_RETURN_SCALE).
SOLO_RETURN_SCALE: int

class PlayoutStats(TypedDict):
    """What ``random_playouts`` returns."""

    games: int
    decisions: int
    seconds: float
    unfinished: int
    mean_money: list[float]

class GameState:
    """One game of The Gallerist at one decision point, chance event or the end.

    Create it with ``new_game``.
    """

    @property
    def num_players(self) -> int: ...
    @property
    def current_player(self) -> int:
        """The player to decide, or CHANCE / TERMINAL."""
    @property
    def turn_player(self) -> int: ...
    @property
    def turn_number(self) -> int:
        """Turns started so far: the game's clock (`turn.number` in the state's JSON)."""
    @property
    def turns_left(self) -> int:
        """-1 until the end is triggered (R-END-1); then the turns still to play."""
    @property
    def history(self) -> list[int]:
        """The actions applied so far, in order (a copy)."""
    def is_chance(self) -> bool: ...
    def is_terminal(self) -> bool: ...
    def legal_actions(self) -> list[int]:
        """The actions of the player to decide, ascending; empty at chance points and the end."""
    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(action, probability) pairs at a chance point, ascending; probabilities sum to 1."""
    def apply(self, action: int) -> None:
        """Apply a legal action or chance outcome; raises IllegalActionError saying why not."""
    def apply_random_chance(self, seed: int) -> int:
        """At a chance point, apply an outcome drawn with its probability; returns it."""
    def undo(self) -> int:
        """Take back the last action and return it."""
    def copy(self) -> GameState:
        """An independent copy, history and undo stack included."""
    def clone_position(self) -> GameState:
        """A copy of the position alone (no history, nothing to undo): the cheap copy."""
    def __copy__(self) -> GameState: ...
    def __deepcopy__(self, memo: dict[int, Any]) -> GameState: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
    def state_bytes(self) -> bytes:
        """The struct's canonical bytes, for exact comparisons."""
    def money(self) -> list[int]: ...
    def influence(self) -> list[int]: ...
    def returns(self) -> list[float]:
        """At the end, 1 shared equally among the winners and 0 to the others; before, zeros.
        Solo: the final money m as m / (m + SOLO_RETURN_SCALE)."""
    def winners(self) -> list[int]:
        """The seats with the most money at the end; [] before. Solo: [0]."""
    def final_scores(self) -> list[dict[str, int]]:
        """Per player: the money of each final scoring step, "total" and "money"."""
    def scoring_now(self) -> list[dict[str, int]]:
        """Per player: what final scoring would pay if the game ended now (hidden cards 0)."""
    def sale_value(self, artist: int) -> int:
        """Sale value of a work by artist slot ``artist`` (0..7) at its current fame."""
    def check_invariants(self) -> None:
        """Raise InvalidStateError naming the first broken invariant."""
    def view(self, player: int) -> GameState:
        """What ``player`` may know: the opponents' Curator and Art Dealer cards hidden."""
    def observation(self, player: int, out: np.ndarray | None = None) -> np.ndarray:
        """What ``player`` sees (exactly ``view(player)``) as float32 of shape
        (OBSERVATION_SIZE,), own seat first (docs/observation.md); fills ``out`` if given."""
    def resample_hidden(self, player: int, seed: int) -> GameState:
        """A copy in which everything ``player`` cannot see is freshly sampled."""
    def hidden_known(self) -> bool: ...
    def _check_player(self, player: object) -> None: ...
    def action_to_string(self, action: int) -> str: ...
    def string_to_action(self, text: str) -> int: ...
    def render(self) -> str:
        """The whole board as readable plain text (engine.render)."""
    def to_dict(self) -> dict[str, Any]: ...
    def to_proto(self) -> Any: ...
    def to_json(self) -> str: ...
    @staticmethod
    def from_json(text: str) -> GameState: ...
    @staticmethod
    def from_proto(msg: Any) -> GameState: ...
    def __reduce__(self) -> tuple[Any, tuple[str]]: ...
    def _raw(self) -> dict[str, Any]:
        """The whole struct as plain dicts and lists (field meanings: engine/_core.pxd)."""
    @staticmethod
    def _from_raw(raw: dict[str, Any], history: list[int] | None = None) -> GameState: ...
    def _invariant_code(self) -> int: ...
    def _consistency_code(self) -> int: ...

def _check_players(num_players: object) -> None: ...
def _check_seed(seed: object) -> int: ...
def new_game(num_players: int = 2, seed: int = 0) -> GameState:
    """A new game after setup; every setup shuffle is resolved from ``seed``.
    ``num_players=1`` is the solo game against Lacerda (the engine moves her)."""
def random_playouts(num_players: int = 2, games: int = 100, seed: int = 0) -> PlayoutStats:
    """Play ``games`` uniformly random games entirely in C, without the GIL."""
