"""The Gallerist as an OpenSpiel game, backed by our engine: importing this module
registers "gallerist" with pyspiel (``pip install -e ".[openspiel]"``). Actions keep the
engine's ids. Its parameters (``players``, ``seed``, ``setups``), hidden information,
observation tensor, undo and cloning are in docs/openspiel.md.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found]  # no stubs: pybind11 module

from gallerist import engine
from gallerist.engine.actions import action_to_string

ActionId = int
Player = int

SHORT_NAME = "gallerist"
_MAX_SEATS = 4
#: ALL_PLAYERS observation tensors: per relative seat, Curator (4) and Art Dealer (4) one-hots.
_CARDS_SIZE = 8 * _MAX_SEATS
#: Engine chance outcomes start here; setup outcomes (parameter ``setups``) lie below.
FIRST_ENGINE_CHANCE_ACTION: int = engine.ACTION_BASES["chance-visitor"]
MAX_SETUPS: int = FIRST_ENGINE_CHANCE_ACTION

_DEFAULT_PARAMS: dict[str, int] = {"players": 2, "seed": 0, "setups": 0}

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="The Gallerist",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    # Returns are 1/k to each of the k winners and 0 to the others: they sum to 1.
    utility=pyspiel.GameType.Utility.CONSTANT_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=_MAX_SEATS,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=dict(_DEFAULT_PARAMS),
)


def _game_info(num_players: int, setups: int) -> pyspiel.GameInfo:
    return pyspiel.GameInfo(
        num_distinct_actions=engine.NUM_DISTINCT_ACTIONS,
        # Chance outcomes are engine action ids, all below NUM_DISTINCT_ACTIONS (and
        # setup outcomes lie below MAX_SETUPS <= NUM_DISTINCT_ACTIONS).
        max_chance_outcomes=engine.NUM_DISTINCT_ACTIONS,
        num_players=num_players,
        min_utility=0.0,
        max_utility=1.0,
        utility_sum=1.0,
        # The engine's bound on all actions of a game, chance events included, so a
        # bound on the decisions (what OpenSpiel counts) too.
        max_game_length=engine.MAX_GAME_LENGTH,
    )


class _Shared:
    """Facts shared by every state of one game; a deep copy is the object itself."""

    __slots__ = ("num_players", "seed", "setups", "initial")

    def __init__(self, num_players: int, seed: int, setups: int) -> None:
        self.num_players = num_players
        self.seed = seed
        self.setups = setups
        self.initial = engine.new_game(num_players=num_players, seed=seed) if setups == 0 else None

    def __deepcopy__(self, memo: dict[int, Any]) -> "_Shared":
        return self


class _Position:
    """The engine position of an OpenSpiel state (None before the setup draw), and the
    engine actions that preceded its OpenSpiel history (states made by
    ``state_from_engine``). A deep copy copies the position alone (no undo stack)."""

    __slots__ = ("state", "prefix")

    def __init__(self, state: engine.GameState | None, prefix: tuple[int, ...] = ()) -> None:
        self.state = state
        self.prefix = prefix

    def __deepcopy__(self, memo: dict[int, Any]) -> "_Position":
        return _Position(None if self.state is None else self.state.clone_position(), self.prefix)


class GalleristGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel.Game is untyped
    """The Gallerist for 2-4 players, as an OpenSpiel game.

    Args:
        params: game parameters: ``players`` (2..4, default 2), ``seed`` (the setup
            seed, >= 0, default 0) and ``setups`` (0, or 1..152 to draw the setup seed
            at a first chance node; see the module docstring).

    Raises:
        ValueError: a parameter out of range.
    """

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        p = dict(_DEFAULT_PARAMS)
        p.update(params or {})
        unknown = set(p) - set(_DEFAULT_PARAMS)
        if unknown:
            raise ValueError(f"unknown gallerist parameter(s): {', '.join(sorted(unknown))}")
        players, seed, setups = int(p["players"]), int(p["seed"]), int(p["setups"])
        if not 2 <= players <= 4:
            raise ValueError(f"gallerist: players must be 2..4, got {players}")
        if seed < 0:
            raise ValueError(f"gallerist: seed must be >= 0, got {seed}")
        if not 0 <= setups <= MAX_SETUPS:
            raise ValueError(f"gallerist: setups must be 0..{MAX_SETUPS}, got {setups}")
        super().__init__(GAME_TYPE, _game_info(players, setups), p)
        self._shared = _Shared(players, seed, setups)

    def new_initial_state(self) -> "GalleristState":
        """The start of a game: after setup (``setups=0``), or the setup draw."""
        initial = self._shared.initial
        return GalleristState(self, self._shared, None if initial is None else initial.clone_position())

    def state_from_engine(self, state: engine.GameState) -> "GalleristState":
        """An OpenSpiel state at the position of an engine state (which it copies).

        Its OpenSpiel history starts empty; the engine history before it is kept for
        the information-state string.

        Args:
            state: an engine state with this game's number of players.

        Raises:
            ValueError: the number of players differs.
        """
        if state.num_players != self._shared.num_players:
            raise ValueError(f"the state has {state.num_players} players, the game {self._shared.num_players}")
        return GalleristState(self, self._shared, state.clone_position(), tuple(state.history))

    def make_py_observer(self, iig_obs_type: pyspiel.IIGObservationType | None = None,
                         params: dict[str, Any] | None = None) -> "GalleristObserver":
        """An observer (OpenSpiel's PyObserver interface) for the given observation type."""
        return GalleristObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class GalleristState(pyspiel.State):  # type: ignore[misc]  # pyspiel.State is untyped
    """One OpenSpiel state: a thin wrapper around an engine ``GameState``."""

    def __init__(self, game: GalleristGame, shared: _Shared | None = None,
                 position: engine.GameState | None = None, prefix: tuple[int, ...] = ()) -> None:
        super().__init__(game)
        self._shared = shared if shared is not None else game._shared
        self._pos = _Position(position, prefix)

    # ---- engine access
    @property
    def engine_state(self) -> engine.GameState:
        """The engine position (a live reference; copy it before changing it).

        Raises:
            ValueError: before the setup draw (``setups > 0``).
        """
        if self._pos.state is None:
            raise ValueError("the setup has not been drawn yet")
        return self._pos.state

    def public_history(self) -> list[ActionId]:
        """Every engine action since setup: the engine history (the setup draw left out)."""
        hist = list(self.history())
        if self._shared.setups and not self._pos.prefix and hist:
            hist = hist[1:]
        return list(self._pos.prefix) + hist

    # ---- the OpenSpiel API
    def current_player(self) -> Player:
        """The player to decide, or ``pyspiel.PlayerId.CHANCE`` / ``TERMINAL``."""
        s = self._pos.state
        if s is None:
            return int(pyspiel.PlayerId.CHANCE)
        p = s.current_player
        if p >= 0:
            return p
        return int(pyspiel.PlayerId.CHANCE if p == engine.CHANCE else pyspiel.PlayerId.TERMINAL)

    def _legal_actions(self, player: Player) -> list[ActionId]:
        """The legal actions of the player to move, ascending."""
        s = self._pos.state
        if s is None:       # OpenSpiel asks the chance outcomes at the setup draw
            return []
        return s.legal_actions()

    def chance_outcomes(self) -> list[tuple[ActionId, float]]:
        """(outcome, probability) pairs, ascending; the probabilities sum to 1."""
        s = self._pos.state
        if s is None:
            n = self._shared.setups
            return [(k, 1.0 / n) for k in range(n)]
        return s.chance_outcomes()

    def _apply_action(self, action: ActionId) -> None:
        s = self._pos.state
        if s is None:
            self._pos.state = engine.new_game(num_players=self._shared.num_players,
                                              seed=self._shared.seed + int(action))
        else:
            s.apply(int(action))

    def _action_to_string(self, player: Player, action: ActionId) -> str:
        if self._shared.setups and player == pyspiel.PlayerId.CHANCE and 0 <= action < FIRST_ENGINE_CHANCE_ACTION:
            return f"setup:seed={self._shared.seed + action}"
        return action_to_string(int(action))

    def is_terminal(self) -> bool:
        s = self._pos.state
        return s is not None and s.is_terminal()

    def returns(self) -> list[float]:
        """1/k to each of the k winners at the end, 0 to the others; zeros before."""
        s = self._pos.state
        if s is None:
            return [0.0] * self._shared.num_players
        return s.returns()

    def __str__(self) -> str:
        s = self._pos.state
        if s is None:
            first = self._shared.seed
            return f"The Gallerist: setup seed to be drawn from {first}..{first + self._shared.setups - 1}"
        return s.render()


def _hidden_view(state: engine.GameState, player: Player,
                 private_info: pyspiel.PrivateInfoType) -> engine.GameState:
    """The position as `player` sees it under the observation type's private information."""
    if private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
        return state
    view = state.view(player)
    if private_info == pyspiel.PrivateInfoType.NONE:
        # A view for another player hides `player`'s own cards as well.
        view = view.view((player + 1) % state.num_players)
    return view


class GalleristObserver:
    """Observation strings and tensors (OpenSpiel's PyObserver interface).

    - ``public_info``: the board (``GameState.render`` of the view);
    - ``private_info``: SINGLE_PLAYER shows the observer's own cards, ALL_PLAYERS every
      card, NONE none;
    - ``perfect_recall``: adds the whole public action history (notation); no tensor.

    The tensor (without perfect recall) is ``GameState.observation`` of the view, plus
    every seat's cards with ALL_PLAYERS; ``dict`` holds a named view of each field.
    """

    def __init__(self, iig_obs_type: pyspiel.IIGObservationType, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"gallerist observation parameters are not supported; got {params}")
        self.iig_obs_type = iig_obs_type
        self._has_tensor = not iig_obs_type.perfect_recall
        self._all_cards = self._has_tensor and iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS
        size = 0
        if self._has_tensor:
            size = engine.OBSERVATION_SIZE + (_CARDS_SIZE if self._all_cards else 0)
        self.tensor: np.ndarray = np.zeros(size, np.float32)
        self.dict: dict[str, np.ndarray] = {}
        if self._has_tensor:
            for name, offset, length, _ in engine.observation_fields():
                self.dict[name] = self.tensor[offset:offset + length]
            if self._all_cards:
                self.dict["all_cards"] = self.tensor[engine.OBSERVATION_SIZE:].reshape(_MAX_SEATS, 8)
        self._obs = self.tensor[:engine.OBSERVATION_SIZE] if self._has_tensor else None

    def set_from(self, state: GalleristState, player: Player) -> None:
        """Fill ``tensor`` with what `player` observes of `state` (see the class).

        Raises:
            ValueError: `player` out of range.
        """
        n = state._shared.num_players
        if not 0 <= player < n:
            raise ValueError(f"player must be in 0..{n - 1}, got {player}")
        if not self._has_tensor:
            return
        s = state._pos.state
        if s is None:
            self.tensor.fill(0.0)
            return
        view = _hidden_view(s, player, self.iig_obs_type.private_info)
        view.observation(player, out=self._obs)
        if self._all_cards:
            cards = self.dict["all_cards"]
            cards.fill(0.0)
            players = s._raw()["players"]
            for k in range(n):
                q = (player + k) % n
                cards[k, players[q]["curator"]] = 1.0
                cards[k, 4 + players[q]["dealer"]] = 1.0

    def string_from(self, state: GalleristState, player: Player) -> str:
        """What `player` observes of `state`, as text.

        Raises:
            ValueError: `player` out of range.
        """
        n = state._shared.num_players
        if not 0 <= player < n:
            raise ValueError(f"player must be in 0..{n - 1}, got {player}")
        obs = self.iig_obs_type
        s = state._pos.state
        parts = [f"observer: P{player}"]
        if s is None:
            parts.append("setup: not drawn yet")
        elif obs.public_info or obs.private_info != pyspiel.PrivateInfoType.NONE:
            view = _hidden_view(s, player, obs.private_info)
            if obs.public_info:
                parts.append(view.render())
            else:
                def card(k: int) -> str:
                    return "hidden" if k < 0 else f"#{k + 1}"
                cards = view._raw()["players"]
                parts.append(" | ".join(f"P{p}: Curator {card(c['curator'])}, Dealer {card(c['dealer'])}"
                                        for p, c in enumerate(cards)))
        if obs.perfect_recall and obs.public_info:
            parts.append("history: " + " ".join(action_to_string(a) for a in state.public_history()))
        return "\n".join(parts)


pyspiel.register_game(GAME_TYPE, GalleristGame)


def load_game(num_players: int = 2, seed: int = 0, setups: int = 0) -> pyspiel.Game:
    """``pyspiel.load_game("gallerist", ...)`` with typed arguments.

    >>> load_game(3).num_players()
    3
    """
    return pyspiel.load_game(SHORT_NAME, {"players": num_players, "seed": seed, "setups": setups})


def sample_chance(state: pyspiel.State, rng: np.random.Generator) -> ActionId:
    """An outcome of a chance node drawn with its probability (a helper for loops)."""
    outcomes = state.chance_outcomes()
    probs = np.array([p for _, p in outcomes])
    return int(outcomes[int(rng.choice(len(outcomes), p=probs / probs.sum()))][0])


__all__ = ["FIRST_ENGINE_CHANCE_ACTION", "GAME_TYPE", "GalleristGame", "GalleristObserver",
           "GalleristState", "MAX_SETUPS", "SHORT_NAME", "load_game", "sample_chance"]
