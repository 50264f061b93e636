"""The C evaluator of a model (ai/search/_model.pyx): its forward pass equals the NumPy
reference (Model.raw / Model.forward) to 1e-5, it rotates the observer's tensor seats
back to real seats, and its priors are the softmax of the policy over the legal moves."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from gallerist import engine
from gallerist.ai.search._model import ModelEvaluator
from gallerist.ai.net.model_file import load_model, random_arrays, save_model, validate
from gallerist.ai.net.reference import NUM_SEATS
from gallerist.engine.state import SOLO_RETURN_SCALE

TOL = dict(rtol=1e-5, atol=1e-5)


def header(layers, version=1):
    """The header keys of a model file of `layers` layers."""
    return {"format": np.array("gallerist-model"), "format_version": np.array(version),
            "observation_version": np.array(engine.OBSERVATION_VERSION),
            "observation_size": np.array(engine.OBSERVATION_SIZE),
            "num_actions": np.array(183), "num_layers": np.array(layers),
            "metadata": np.array("{}")}


def model_of(hidden, seed, scale=1.0, money_scale=100.0, skip=False):
    """A validated Model with random weights (with `skip`, format 2: a linear part of the
    value too)."""
    arrays = random_arrays(hidden, seed=seed, scale=scale, money_scale=money_scale, skip=skip)
    return validate({**arrays, **header(len(hidden), 2 if skip else 1)})


def positions(players, count, seed):
    """Decision points and chance points of a random game."""
    rng = np.random.default_rng(seed)
    s = engine.new_game(num_players=players, seed=seed)
    out = []
    while not s.is_terminal() and len(out) < count:
        if s.is_chance():
            out.append(s.copy())
            outcomes = s.chance_outcomes()
            s.apply(outcomes[int(rng.integers(len(outcomes)))][0])
        else:
            out.append(s.copy())
            legal = s.legal_actions()
            s.apply(legal[int(rng.integers(len(legal)))])
    return out


@pytest.mark.parametrize("hidden,seed,skip", [((64, 64), 0, False), ((32,), 1, False),
                                              ((16, 8, 4), 2, False), ((100, 3), 3, False),
                                              ((64, 64), 4, True), ((8,), 5, True)])
def test_c_forward_pass_equals_the_numpy_reference_on_random_inputs(hidden, seed, skip):
    """The C forward pass is Model.raw's to 1e-5, format 2's skip weights included."""
    model = model_of(hidden, seed, skip=skip)
    ev = ModelEvaluator(model)
    rng = np.random.default_rng(seed)
    sparse = (rng.random((40, engine.OBSERVATION_SIZE)) < 0.1) * rng.standard_normal(
        (40, engine.OBSERVATION_SIZE))
    dense = rng.standard_normal((10, engine.OBSERVATION_SIZE))
    obs = np.concatenate([sparse, dense, np.zeros((1, engine.OBSERVATION_SIZE))]).astype(np.float32)
    for ref, got in zip(model.raw(obs), ev.raw(obs)):
        assert ref.shape == got.shape
        np.testing.assert_allclose(got, ref, **TOL)


@pytest.mark.parametrize("players,skip", [(1, False), (2, False), (3, False), (4, False),
                                          (2, True), (3, True)])
def test_evaluation_is_the_reference_on_the_movers_observation_rotated_to_real_seats(players,
                                                                                   skip):
    model = model_of((32, 16), seed=players, skip=skip)
    ev = ModelEvaluator(model)
    for s in positions(players, 60, seed=10 + players):
        viewer = s.current_player if not s.is_chance() else s.turn_player
        win_t, money_t, _ = model.forward(s.observation(viewer)[None], players)
        money, win = ev.values(s)
        for k in range(players):
            real = (viewer + k) % players
            assert money[real] == pytest.approx(float(money_t[0, k]), rel=1e-5, abs=1e-3)
            if players > 1:
                assert win[real] == pytest.approx(float(win_t[0, k]), rel=1e-5, abs=1e-6)
        if players == 1:   # solo: the Evaluator contract's win is the return of the money
            m = max(money[0], 0.0)
            assert win[0] == pytest.approx(m / (m + SOLO_RETURN_SCALE), rel=1e-9)
        else:
            assert sum(win) == pytest.approx(1.0)


def test_priors_are_the_softmax_of_the_policy_over_the_legal_actions():
    model = model_of((64, 64), seed=5, scale=3.0)
    ev = ModelEvaluator(model)
    for s in positions(3, 80, seed=4):
        if s.is_chance():
            with pytest.raises(ValueError, match="decision point"):
                ev.priors(s)
            continue
        legal = s.legal_actions()
        _, _, logits = model.raw(s.observation(s.current_player))
        z = logits[legal] - logits[legal].max()
        want = np.exp(z) / np.exp(z).sum()
        got = ev.priors(s)
        assert list(got) == legal
        np.testing.assert_allclose([got[a] for a in legal], want, **TOL)


def test_legal_logits_are_the_policy_heads_columns_of_the_legal_actions():
    """What rollout=model draws from: the logits of the legal actions only, computed
    over the nonzero hidden units, are the full policy head's (Model.raw) to 1e-5."""
    model = model_of((64, 64), seed=6, scale=3.0)
    ev = ModelEvaluator(model)
    for s in positions(2, 60, seed=8):
        if s.is_chance():
            with pytest.raises(ValueError, match="decision point"):
                ev.legal_logits(s)
            continue
        legal = s.legal_actions()
        _, _, logits = model.raw(s.observation(s.current_player))
        got = ev.legal_logits(s)
        assert list(got) == legal
        np.testing.assert_allclose([got[a] for a in legal], np.ravel(logits)[legal], **TOL)


def test_a_model_that_favours_one_action_gives_it_the_prior():
    arrays = random_arrays((8,), seed=0)
    arrays["policy_w"][:] = 0
    arrays["policy_b"][:] = 0
    s = positions(2, 1, seed=3)[0]
    while s.is_chance():
        s.apply(s.chance_outcomes()[0][0])
    target = s.legal_actions()[-1]
    arrays["policy_b"][target] = 5.0
    ev = ModelEvaluator(validate({**arrays, **header(1)}))
    priors = ev.priors(s)
    assert max(priors, key=priors.get) == target
    others = len(priors) - 1
    assert priors[target] == pytest.approx(np.exp(5) / (np.exp(5) + others), rel=1e-5)


def test_evaluations_from_several_threads_at_once_equal_the_single_threaded_ones():
    ev = ModelEvaluator(model_of((64, 64), seed=9))
    states = positions(4, 40, seed=9)
    want = [ev.values(s) for s in states]
    errors = []

    def work():
        for _ in range(20):
            for s, w in zip(states, want):
                if ev.values(s) != w:
                    errors.append(s)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_the_evaluator_owns_its_weights(tmp_path):
    """Changing or dropping the Model's arrays after building does not change it."""
    path = str(tmp_path / "m.npz")
    save_model(path, random_arrays((16,), seed=2), {})
    model = load_model(path)
    ev = ModelEvaluator(model)
    s = positions(2, 5, seed=1)[-1]
    before = ev.values(s)
    model.trunk[0][0][:] = 0
    model.money_b[:] = 123
    assert ev.values(s) == before
    assert ev.hidden == (16,)


def test_the_evaluator_takes_only_a_validated_model():
    with pytest.raises(ValueError, match="ai.net.reference.Model"):
        ModelEvaluator({"trunk_w0": np.zeros((3, 3))})


def test_money_heads_are_scaled_by_money_scale():
    a = model_of((8,), seed=4, money_scale=1.0)
    b = model_of((8,), seed=4, money_scale=250.0)
    s = positions(2, 10, seed=2)[-1]
    ma, _ = ModelEvaluator(a).values(s)
    mb, _ = ModelEvaluator(b).values(s)
    np.testing.assert_allclose(np.array(mb), 250.0 * np.array(ma), rtol=1e-5)
    assert NUM_SEATS == 4
