"""The OpenSpiel game's observation tensor is the engine's GameState.observation of the
observing player (own seat first), for every observation type OpenSpiel asks for."""
from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.observation import make_observation

from gallerist import engine
from gallerist.ai.interop.openspiel_game import load_game, sample_chance

PLAYERS = (2, 3, 4)
FIELDS = {name: (off, ln) for name, off, ln, _ in engine.observation_fields()}


def test_game_provides_the_observation_tensor() -> None:
    """provides_observation_tensor, and the shape OpenSpiel reports is (OBSERVATION_SIZE,)."""
    for n in PLAYERS:
        game = load_game(n)
        assert game.get_type().provides_observation_tensor
        assert not game.get_type().provides_information_state_tensor
        assert game.observation_tensor_shape() == [engine.OBSERVATION_SIZE]
        assert game.observation_tensor_size() == engine.OBSERVATION_SIZE


@pytest.mark.parametrize("players", PLAYERS)
def test_observation_tensor_is_the_engine_observation_through_a_game(players: int) -> None:
    """Along a random game played through pyspiel, every player's observation_tensor is
    GameState.observation(player) of the engine state, and the named fields of the
    observer's dict are the slices of observation_fields()."""
    game = pyspiel.load_game("gallerist", {"players": players, "seed": 11})
    obs = make_observation(game)
    state = game.new_initial_state()
    rng = np.random.default_rng(players)
    steps = 0
    while not state.is_terminal() and steps < 400:
        if steps % 5 == 0:
            for p in range(players):
                want = state.engine_state.observation(p)
                assert np.array_equal(np.asarray(state.observation_tensor(p), np.float32), want)
                obs.set_from(state, p)
                assert np.array_equal(obs.tensor, want)
                off, ln = FIELDS["seat1.money"]
                assert np.array_equal(obs.dict["seat1.money"], want[off:off + ln])
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
        steps += 1
    assert steps == 400 or state.is_terminal()


def test_observation_types_public_and_all_cards() -> None:
    """private_info=NONE leaves the observer's own cards out too; ALL_PLAYERS appends
    every seat's cards (relative seats), which change when the hidden cards are resampled
    while the rest stays the same."""
    game = load_game(3, seed=2)
    full = engine.new_game(3, seed=2)
    state = game.state_from_engine(full)
    none = make_observation(game, pyspiel.IIGObservationType(
        perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE))
    every = make_observation(game, pyspiel.IIGObservationType(
        perfect_recall=False, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS))
    recall = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    assert recall.tensor.size == 0
    raw = full._raw()["players"]
    cur, _ = FIELDS["own_curator"]
    for p in range(3):
        own = full.observation(p)
        none.set_from(state, p)
        assert not none.tensor[cur:cur + 8].any()
        mask = np.ones(engine.OBSERVATION_SIZE, bool)
        mask[cur:cur + 8] = False
        assert np.array_equal(none.tensor[mask], own[mask])
        every.set_from(state, p)
        assert np.array_equal(every.tensor[:engine.OBSERVATION_SIZE], own)
        cards = every.dict["all_cards"]
        for k in range(3):
            q = (p + k) % 3
            assert cards[k, raw[q]["curator"]] == 1.0 and cards[k, 4 + raw[q]["dealer"]] == 1.0
            assert cards[k].sum() == 2.0
        assert not cards[3].any()
        changed = 0
        for seed in range(6):
            other = game.state_from_engine(full.resample_hidden(p, seed))
            assert np.array_equal(np.asarray(other.observation_tensor(p), np.float32), own)
            before = every.tensor.copy()
            every.set_from(other, p)
            assert np.array_equal(every.tensor[:engine.OBSERVATION_SIZE], own)
            changed += not np.array_equal(before, every.tensor)
        assert changed > 0


def test_before_the_setup_draw_the_tensor_is_zero() -> None:
    """With setups > 0 nothing is on the table before the setup draw: the tensor is zeros;
    after it, the engine observation."""
    game = load_game(2, seed=40, setups=5)
    state = game.new_initial_state()
    assert not np.asarray(state.observation_tensor(0)).any()
    state.apply_action(2)
    assert np.array_equal(np.asarray(state.observation_tensor(1), np.float32),
                          state.engine_state.observation(1))


def test_bad_player_is_rejected() -> None:
    """An observer asked for a seat the game does not have raises ValueError."""
    game = load_game(2)
    obs = make_observation(game)
    with pytest.raises(ValueError, match=r"player must be in 0\.\.1"):
        obs.set_from(game.new_initial_state(), 2)
