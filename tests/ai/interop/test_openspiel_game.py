"""The Gallerist registered as an OpenSpiel game: loading, OpenSpiel's random-simulation
checks, and a loop through the OpenSpiel API that clones, undoes and compares."""
from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.observation import make_observation

from gallerist import engine
from gallerist.ai.interop.openspiel_game import FIRST_ENGINE_CHANCE_ACTION, GalleristGame, load_game, sample_chance

PLAYERS = (2, 3, 4)


def test_registered_and_loadable() -> None:
    assert "gallerist" in pyspiel.registered_names()
    for n in PLAYERS:
        game = pyspiel.load_game("gallerist", {"players": n})
        assert isinstance(game, GalleristGame)
        assert game.num_players() == n
        assert game.num_distinct_actions() == engine.NUM_DISTINCT_ACTIONS
        assert game.max_chance_outcomes() == engine.NUM_DISTINCT_ACTIONS
        assert game.max_game_length() == engine.MAX_GAME_LENGTH
        assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (0.0, 1.0, 1.0)
        t = game.get_type()
        assert t.short_name == "gallerist"
        assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
        assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
        assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
        assert t.utility == pyspiel.GameType.Utility.CONSTANT_SUM
        assert t.provides_information_state_string and t.provides_observation_string
    game = pyspiel.load_game("gallerist(players=3,seed=7)")
    assert str(game) == "gallerist(players=3,seed=7,setups=0)"
    state = game.new_initial_state()
    assert state.engine_state.state_bytes() == engine.new_game(num_players=3, seed=7).state_bytes()


def test_bad_parameters_are_rejected() -> None:
    with pytest.raises(ValueError, match="players must be 2..4"):
        pyspiel.load_game("gallerist", {"players": 5})
    with pytest.raises(ValueError, match="setups must be"):
        load_game(2, setups=FIRST_ENGINE_CHANCE_ACTION + 1)
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter"):
        pyspiel.load_game("gallerist", {"colour": 1})


@pytest.mark.parametrize("players", PLAYERS)
def test_openspiel_random_sim_test(players: int) -> None:
    """OpenSpiel's own C++ checks (clone, history, legal-action masks, chance outcomes,
    observations, returns within bounds and summing to 1) on whole random games."""
    pyspiel.random_sim_test(load_game(players, seed=players), num_sims=1, serialize=players == 2,
                            verbose=False)


def test_openspiel_random_sim_test_with_setup_draw() -> None:
    pyspiel.random_sim_test(load_game(3, seed=100, setups=6), num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize("players", PLAYERS)
def test_random_games_clone_undo_compare(players: int) -> None:
    """A random game through the OpenSpiel API, step by step against an engine game that
    applies and undoes the same actions: clones are equal and independent, the positions
    match byte for byte, undo restores them, and the result matches the engine's."""
    seed = 20 + players
    game = load_game(players, seed=seed)
    state = game.new_initial_state()
    ref = engine.new_game(num_players=players, seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    while not state.is_terminal():
        assert state.engine_state.state_bytes() == ref.state_bytes()
        assert state.history() == ref.history
        clone = state.clone()
        assert str(clone) == str(state) and clone.history() == state.history()
        assert clone.engine_state.state_bytes() == ref.state_bytes()
        if state.is_chance_node():
            assert state.current_player() == pyspiel.PlayerId.CHANCE == ref.current_player
            outcomes = state.chance_outcomes()
            assert outcomes == ref.chance_outcomes()
            assert [a for a, _ in outcomes] == sorted(a for a, _ in outcomes)
            assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
            assert all(a >= FIRST_ENGINE_CHANCE_ACTION for a, _ in outcomes)
            action = sample_chance(state, rng)
        else:
            player = state.current_player()
            assert player == ref.current_player
            legal = state.legal_actions()
            assert legal == ref.legal_actions() == sorted(legal)
            for other in range(players):
                if other != player:
                    assert state.legal_actions(other) == []
            assert sum(state.legal_actions_mask()) == len(legal)
            assert len({state.action_to_string(player, a) for a in legal}) == len(legal)
            action = int(legal[int(rng.integers(len(legal)))])
        before = ref.state_bytes()
        ref.apply(action)
        assert ref.undo() == action and ref.state_bytes() == before
        ref.apply(action)
        state.apply_action(action)
        assert clone.engine_state.state_bytes() == before          # the clone is independent
        assert state.engine_state.state_bytes() == ref.state_bytes()
        assert state.returns() == [0.0] * players or state.is_terminal()
        steps += 1
    assert ref.is_terminal() and state.current_player() == pyspiel.PlayerId.TERMINAL
    assert state.returns() == ref.returns()
    assert abs(sum(state.returns()) - 1.0) < 1e-9
    assert all(0.0 <= r <= 1.0 for r in state.returns())
    assert state.history() == ref.history and steps == len(ref.history)
    for p in range(players):     # observations exist at the end too
        assert state.information_state_string(p) and state.observation_string(p)


def test_undo_is_not_offered_through_openspiel() -> None:
    """OpenSpiel's bridge for Python games has no UndoAction hook: the call fails cleanly
    (our engine's own undo is checked in the loop above)."""
    state = load_game(2).new_initial_state()
    action = state.legal_actions()[0]
    state.apply_action(action)
    with pytest.raises(pyspiel.SpielError, match="UndoAction"):
        state.undo_action(0, action)


def _mid_game(players: int, seed: int, steps: int) -> engine.GameState:
    state = engine.new_game(num_players=players, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if state.is_chance():
            state.apply(state.chance_outcomes()[0][0])
        else:
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
    return state


@pytest.mark.parametrize("players", PLAYERS)
def test_observations_hide_the_opponents_cards(players: int) -> None:
    """What a player observes does not change when the opponents' cards change, and does
    when its own do (so the check is sensitive)."""
    game = load_game(players)
    full = _mid_game(players, seed=5, steps=40)
    state = game.state_from_engine(full)
    all_cards = make_observation(game, pyspiel.IIGObservationType(
        perfect_recall=False, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS))
    public = make_observation(game, pyspiel.IIGObservationType(
        perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE))
    for p in range(players):
        info, obs = state.information_state_string(p), state.observation_string(p)
        assert "history: " in info and obs in info
        assert obs.count("Curator hidden") == players - 1
        assert public.string_from(state, p).count("Curator hidden") == players
        changed_everything = 0
        for k in range(6):
            other = game.state_from_engine(full.resample_hidden(p, seed=k))
            assert other.information_state_string(p) == info
            assert other.observation_string(p) == obs
            assert public.string_from(other, p) == public.string_from(state, p)
            changed_everything += all_cards.string_from(other, p) != all_cards.string_from(state, p)
        assert changed_everything > 0


def test_setup_draw_is_a_chance_node() -> None:
    game = load_game(2, seed=40, setups=5)
    state = game.new_initial_state()
    assert state.is_chance_node()
    assert state.chance_outcomes() == [(k, 0.2) for k in range(5)]
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 3) == "setup:seed=43"
    before = [state.information_state_string(p) for p in range(2)]
    state.apply_action(3)
    assert state.engine_state.state_bytes() == engine.new_game(num_players=2, seed=43).state_bytes()
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 3) == "setup:seed=43"
    assert state.public_history() == []
    # No player observes the drawn seed: two deals with the same public board but
    # different cards would give the same strings to a player holding the same cards.
    assert all("seed" not in state.information_state_string(p) for p in range(2))
    assert all("seed" not in s for s in before)


def test_state_from_engine_keeps_the_position_and_history() -> None:
    game = load_game(3)
    full = _mid_game(3, seed=9, steps=30)
    state = game.state_from_engine(full)
    assert state.engine_state.state_bytes() == full.state_bytes()
    assert state.engine_state is not full
    assert state.public_history() == full.history
    assert state.legal_actions() == full.legal_actions()
    with pytest.raises(ValueError, match="players"):
        load_game(2).state_from_engine(full)
