"""The C forward pass of a model file (ai.search._model.ModelEvaluator) equals the training
library's (gallerist.ai.learn.train.jax_forward, JAX) to 1e-5, on random weights and random
inputs (sparse, dense and real observations)."""
from __future__ import annotations

import numpy as np
import pytest

from gallerist import engine
from gallerist.ai.search._model import ModelEvaluator
from gallerist.ai.net.model_file import load_model, random_arrays, save_model
from gallerist.ai.learn.train import jax_forward


def observations(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    size = engine.OBSERVATION_SIZE
    sparse = (rng.random((30, size)) < 0.1) * rng.standard_normal((30, size))
    dense = rng.standard_normal((10, size))
    real = []
    s = engine.new_game(num_players=3, seed=seed)
    while not s.is_terminal() and len(real) < 30:
        if s.is_chance():
            s.apply(s.chance_outcomes()[0][0])
            continue
        real.append(s.observation(s.current_player))
        legal = s.legal_actions()
        s.apply(legal[int(rng.integers(len(legal)))])
    return np.concatenate([sparse, dense, np.array(real)]).astype(np.float32)


@pytest.mark.parametrize("hidden,seed", [((64, 64), 0), ((32,), 1), ((16, 8, 4), 2)])
def test_the_c_forward_pass_equals_jax_forward(tmp_path, hidden, seed):
    path = str(tmp_path / "m.npz")
    save_model(path, random_arrays(hidden, seed=seed), {})
    model = load_model(path)
    obs = observations(seed)
    want = jax_forward(model, obs)
    got = ModelEvaluator(model).raw(obs)
    for w, g in zip(want, got):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-5, atol=1e-5)


def test_a_file_the_trainer_exports_is_read_by_the_loader_and_evaluated_alike(tmp_path):
    """gallerist train's export (ai.learn.train.export) writes what load_model accepts, and the
    C evaluator of that file equals jax_forward on the exported arrays."""
    from gallerist.ai.learn.train import export

    arrays = random_arrays((16, 8), seed=4)
    header = {"observation_version": np.array(engine.OBSERVATION_VERSION),
              "observation_size": np.array(engine.OBSERVATION_SIZE),
              "num_actions": np.array(engine.NUM_DISTINCT_ACTIONS)}
    path = str(tmp_path / "exported.npz")
    export(path, {**header, **arrays}, {"seed": 4})
    model = load_model(path)
    assert model.hidden == (16, 8) and model.metadata == {"seed": 4}
    obs = observations(4)
    for w, g in zip(jax_forward(arrays, obs), ModelEvaluator(model).raw(obs)):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-5, atol=1e-5)
