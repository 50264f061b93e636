"""The model file (ai/net/model_file.py): save_model writes what load_model reads back, and
every way a file can be wrong is a ModelFileError naming the file and the mismatch."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from gallerist import engine
from gallerist.ai.net.model_file import (
    FORMAT, FORMAT_VERSION, MAX_WIDTH, NUM_ACTIONS, ModelFileError, load_model, random_arrays,
    save_model,
)
from gallerist.ai.net.packaged import load_evaluator


@pytest.fixture()
def good(tmp_path):
    """A valid 2-layer model file and its arrays as np.load reads them."""
    path = str(tmp_path / "good.npz")
    save_model(path, random_arrays((16, 8), seed=3), {"seed": 3})
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    return path, arrays


def write(tmp_path, arrays, name="bad.npz"):
    path = str(tmp_path / name)
    with open(path, "wb") as fh:
        np.savez(fh, **arrays)
    return path


def refused(path, *words):
    """load_model refuses the file with a message naming it and every word."""
    with pytest.raises(ModelFileError) as info:
        load_model(path)
    message = str(info.value)
    assert path in message
    for word in words:
        assert word in message, message
    return message


def test_save_then_load_round_trips_weights_header_and_metadata(good):
    path, arrays = good
    model = load_model(path)
    assert model.hidden == (16, 8)
    assert model.metadata == {"seed": 3}
    assert str(arrays["format"]) == FORMAT and int(arrays["format_version"]) == 1   # no skips
    assert model.win_skip is None and model.money_skip is None
    assert int(arrays["observation_size"]) == engine.OBSERVATION_SIZE
    assert int(arrays["num_actions"]) == NUM_ACTIONS == 183
    assert int(arrays["num_layers"]) == 2
    for key, value in model.arrays().items():
        assert value.dtype == np.float32
        np.testing.assert_array_equal(value, arrays[key])


def test_model_files_hold_no_pickles(good):
    path, _ = good
    with np.load(path, allow_pickle=False) as data:
        assert all(data[k].dtype != object for k in data.files)


@pytest.mark.parametrize("key", ["format", "format_version", "observation_version",
                                 "observation_size", "num_actions", "money_scale", "num_layers",
                                 "metadata", "trunk_w0", "trunk_b1", "win_w", "money_b",
                                 "policy_w", "policy_b"])
def test_a_missing_key_is_named(tmp_path, good, key):
    _, arrays = good
    del arrays[key]
    refused(write(tmp_path, arrays), key, "missing")


@pytest.mark.parametrize("key,value,words", [
    ("format", np.array("something-else"), ["format", "gallerist-model"]),
    ("format_version", np.array(3), ["format_version", "layout version", "reads 1 and 2",
                                     "has 3"]),
    ("format_version", np.array(2), ["win_skip", "missing"]),    # format 2 needs skip weights
    ("observation_version", np.array(engine.OBSERVATION_VERSION + 1),
     ["observation_version", "mismatch"]),
    ("observation_size", np.array(engine.OBSERVATION_SIZE - 1), ["observation_size", "mismatch"]),
    ("num_actions", np.array(182), ["num_actions", "expects 183", "has 182"]),
    ("money_scale", np.array(0.0), ["money_scale", "> 0"]),
    ("money_scale", np.array(np.inf), ["money_scale", "finite"]),
    ("num_layers", np.array(0), ["num_layers", "1..8"]),
    ("metadata", np.array("{not json"), ["metadata", "JSON"]),
    ("metadata", np.array("[1, 2]"), ["metadata", "object"]),
    ("format_version", np.array(1.0), ["format_version", "integer"]),
    ("format", np.array([1, 2]), ["format", "0-d string"]),
])
def test_a_wrong_header_value_is_named(tmp_path, good, key, value, words):
    _, arrays = good
    arrays[key] = value
    refused(write(tmp_path, arrays), key, *words)


def test_a_wrong_shape_names_expected_and_got(tmp_path, good):
    arrays = dict(good[1])
    arrays["trunk_w1"] = np.zeros((15, 8), np.float32)      # in_1 must be out_0 = 16
    refused(write(tmp_path, arrays), "trunk_w1", "expected (16, any)", "got (15, 8)")
    arrays = dict(good[1])
    arrays["win_w"] = np.zeros((8, 3), np.float32)
    refused(write(tmp_path, arrays), "win_w", "expected (8, 4)", "got (8, 3)")
    arrays["win_w"] = np.zeros((8, 4), np.float32)
    arrays["policy_b"] = np.zeros((182,), np.float32)
    refused(write(tmp_path, arrays), "policy_b", "expected (183)", "got (182,)")


def test_the_first_layer_must_take_the_observation(tmp_path, good):
    _, arrays = good
    arrays["trunk_w0"] = np.zeros((engine.OBSERVATION_SIZE + 1, 16), np.float32)
    refused(write(tmp_path, arrays), "trunk_w0", f"expected ({engine.OBSERVATION_SIZE}, any)")


def test_a_layer_wider_than_the_evaluator_takes_is_refused(tmp_path):
    path = str(tmp_path / "wide.npz")
    with pytest.raises(ModelFileError, match=f"trunk_w0: layer width must be 1..{MAX_WIDTH}"):
        save_model(path, random_arrays((MAX_WIDTH + 1,)), {})
    assert not os.path.exists(path)   # nothing written


def test_weights_must_be_float32(tmp_path, good):
    _, arrays = good
    arrays["money_w"] = arrays["money_w"].astype(np.float64)
    refused(write(tmp_path, arrays), "money_w", "float32", "float64")


def test_nan_or_infinite_weights_are_refused(tmp_path, good):
    for bad in (np.nan, np.inf):
        arrays = dict(good[1])
        arrays["trunk_b0"] = arrays["trunk_b0"].copy()
        arrays["trunk_b0"][3] = bad
        refused(write(tmp_path, arrays), "trunk_b0", "NaN or infinite")


def test_layers_beyond_num_layers_are_unexpected_keys(tmp_path, good):
    _, arrays = good
    arrays["num_layers"] = np.array(1)       # the second layer's arrays are left over
    refused(write(tmp_path, arrays), "trunk_b1, trunk_w1", "unexpected")


def test_too_few_layers_for_num_layers_is_a_missing_key(tmp_path, good):
    _, arrays = good
    arrays["num_layers"] = np.array(3)
    refused(write(tmp_path, arrays), "trunk_w2", "missing")


def test_a_file_that_is_not_an_npz_is_refused(tmp_path):
    text = tmp_path / "model.npz"
    text.write_text("hello")
    refused(str(text), "not an .npz archive")
    single = str(tmp_path / "single.npy")
    np.save(single, np.zeros(3, np.float32))
    refused(single, "not an .npz archive", "one array")
    pickled = str(tmp_path / "pickled.npz")
    np.savez(pickled, trunk_w0=np.array([{"a": 1}], dtype=object))
    message = refused(pickled)
    assert "pickle" in message or "not" in message


def test_a_truncated_archive_is_refused(tmp_path, good):
    path, _ = good
    data = open(path, "rb").read()
    cut = str(tmp_path / "cut.npz")
    open(cut, "wb").write(data[: len(data) // 2])
    refused(cut, "not")


def test_a_missing_file_is_named(tmp_path):
    missing = str(tmp_path / "nope.npz")
    refused(missing, "missing")
    with pytest.raises(ModelFileError, match="nope.npz is missing"):
        load_evaluator(missing)


def test_save_model_checks_before_writing_and_converts_float64(tmp_path):
    arrays = {k: v.astype(np.float64) if v.dtype == np.float32 else v
              for k, v in random_arrays((8,), seed=1).items()}
    path = str(tmp_path / "ok.npz")
    model = save_model(path, arrays, {"note": "float64 in"})
    assert load_model(path).trunk[0][0].dtype == np.float32
    assert model.hidden == (8,)
    bad = dict(arrays)
    bad["trunk_b0"] = np.zeros(7)
    target = str(tmp_path / "never.npz")
    with pytest.raises(ModelFileError, match="trunk_b0"):
        save_model(target, bad, {})
    assert not os.path.exists(target)
    with pytest.raises(ModelFileError, match="metadata"):
        save_model(target, arrays, {"x": object()})
    with pytest.raises(ModelFileError, match="observation_size"):
        save_model(target, {**arrays, "observation_size": np.array(3)}, {})


def test_metadata_is_json_in_the_file(good):
    path, arrays = good
    assert json.loads(str(arrays["metadata"])) == {"seed": 3}


def test_forward_softmaxes_win_over_present_seats_and_scales_money(good):
    path, _ = good
    model = load_model(path)
    obs = np.random.default_rng(1).random((5, engine.OBSERVATION_SIZE)).astype(np.float32)
    logits, money_raw, policy = model.raw(obs)
    for n in (1, 2, 3, 4):
        win, money, pol = model.forward(obs, n)
        np.testing.assert_allclose(win[:, :n].sum(axis=1), 1.0, rtol=1e-6)
        assert (win[:, n:] == 0).all()
        e = np.exp(logits[:, :n] - logits[:, :n].max(axis=1, keepdims=True))
        np.testing.assert_allclose(win[:, :n], e / e.sum(axis=1, keepdims=True), rtol=1e-6)
        np.testing.assert_allclose(money, model.money_scale * money_raw, rtol=1e-6)
        np.testing.assert_array_equal(pol, policy)
    win, _, _ = model.forward(obs, 1)
    assert (win[:, 0] == 1.0).all()
    with pytest.raises(ValueError, match="shape"):
        model.raw(np.zeros((2, 5), np.float32))


def test_format_2_skip_weights_round_trip_and_add_the_linear_value(tmp_path):
    """Format 2 (a linear value): the skip weights are saved, read back, and add
    x @ win_skip / x @ money_skip to the heads; the policy is the network's alone."""
    path = str(tmp_path / "skip.npz")
    arrays = random_arrays((16, 8), seed=4, skip=True)
    save_model(path, arrays, {})
    with np.load(path, allow_pickle=False) as data:
        assert int(data["format_version"]) == FORMAT_VERSION == 2
    model = load_model(path)
    np.testing.assert_array_equal(model.win_skip, arrays["win_skip"])
    np.testing.assert_array_equal(model.money_skip, arrays["money_skip"])
    assert set(model.arrays()) >= {"win_skip", "money_skip"}
    obs = np.random.default_rng(2).random((3, engine.OBSERVATION_SIZE)).astype(np.float32)
    no_skip = {k: v for k, v in arrays.items() if not k.endswith("_skip")}
    save_model(str(tmp_path / "plain.npz"), no_skip, {})
    plain = load_model(str(tmp_path / "plain.npz"))
    w0, m0, p0 = plain.raw(obs)
    w1, m1, p1 = model.raw(obs)
    np.testing.assert_allclose(w1, w0 + obs @ arrays["win_skip"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(m1, m0 + obs @ arrays["money_skip"], rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(p1, p0)


def test_skip_weights_are_checked_by_name(tmp_path):
    arrays = random_arrays((16,), seed=5, skip=True)
    save_model(str(tmp_path / "ok.npz"), arrays, {})
    with np.load(str(tmp_path / "ok.npz"), allow_pickle=False) as data:
        good = {k: data[k] for k in data.files}
    bad = dict(good, win_skip=np.zeros((engine.OBSERVATION_SIZE, 3), np.float32))
    refused(write(tmp_path, bad), "win_skip", "expected", "got")
    bad = dict(good)
    del bad["money_skip"]
    refused(write(tmp_path, bad), "money_skip", "missing")
    bad = dict(good, format_version=np.array(1))     # skip weights in a format 1 file
    refused(write(tmp_path, bad), "money_skip, win_skip", "unexpected", "format_version 2")
    bad = dict(good, win_skip=np.full((engine.OBSERVATION_SIZE, 4), np.nan, np.float32))
    refused(write(tmp_path, bad), "win_skip", "NaN")


@pytest.mark.parametrize("umask, expected", [(0o022, 0o644), (0o027, 0o640)])
def test_a_saved_model_has_the_mode_of_any_new_file(tmp_path, umask, expected):
    """save_model's file is readable as the umask allows (0o644 under 0o022), like every
    other output, not private (0o600) as its temporary file was; no temporary is left."""
    old = os.umask(umask)
    try:
        save_model(tmp_path / "model.npz", random_arrays((8,), seed=1), {})
    finally:
        os.umask(old)
    assert (tmp_path / "model.npz").stat().st_mode & 0o777 == expected
    assert [p.name for p in tmp_path.iterdir()] == ["model.npz"]
