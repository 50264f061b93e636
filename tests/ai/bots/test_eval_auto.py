"""mcts eval=auto: at the player counts a packaged value network serves (ai/models/value/,
each file at the counts it was trained on) the leaf is the mixed value (eval=mix) with
that network, whose policy prior=auto then takes as the prior and whose maps of kind
"mix" calibrate the numbers; elsewhere, and whenever a model is named, a rollout."""
from __future__ import annotations

import os
import shutil

import pytest

from gallerist import ai, engine
from gallerist.ai.bots.spec import resolved_spec
from gallerist.ai.calibration.maps import CalibrationError, SeatMap
from gallerist.ai.calibration.model_maps import side_path, write_model_maps
from gallerist.ai.net.model_file import ModelFileError, random_arrays, save_model
from gallerist.ai.net.packaged import ENV_VAR, auto_value_files, value_folder
from gallerist.ai.selfplay.records import sha256_file

MIX_MAP = SeatMap(win=(0.8, 0.1, 0.05, 0.02, -0.1, 0.0), money=(20.0, 0.8, -10.0, 0.1))


def _model(path, players, win_weight=1.0, maps=True):
    """A tiny random model trained (says its metadata) on `players` games, with maps of
    kind "mix" at those counts."""
    save_model(str(path), random_arrays((16, 8), seed=3),
               {"players": players, "hyperparameters": {"win_weight": win_weight}})
    if maps:
        write_model_maps(path, sha256_file(path), {players: MIX_MAP}, {}, "mix")
    return str(path)


@pytest.fixture()
def package(monkeypatch, tmp_path):
    """A package folder: a 2-player prior default.npz (policy only) and value/v2.npz, a
    2-player value network with its mix maps."""
    folder = tmp_path / "models"
    (folder / "value").mkdir(parents=True)
    prior = _model(folder / "default.npz", 2, win_weight=0, maps=False)
    monkeypatch.setattr("gallerist.ai.net.packaged.PACKAGED", prior)
    monkeypatch.delenv(ENV_VAR, raising=False)
    return prior, _model(folder / "value" / "v2.npz", 2)


def decision(players, seed=4):
    s = engine.new_game(num_players=players, seed=seed)
    while s.is_chance():
        s.apply(s.chance_outcomes()[0][0])
    return s


def ranking(bot, state):
    a = bot.analyze(state)
    return [(m.action, m.visits, m.expected_money, m.win_probabilities) for m in a.moves]


def test_where_the_value_network_was_trained_eval_auto_is_the_mixed_leaf(package):
    """At 2 players (the network's): the very search of eval=mix,prior=model with it,
    numbers through its mix maps; at 3: the search of prior=auto (UCT there)."""
    prior, value = package
    auto = "mcts:eval=auto,prior=auto,iterations=200"
    s2, s3 = decision(2), decision(3)
    assert ranking(ai.make_bot(auto, seed=1), s2) == ranking(
        ai.make_bot(f"mcts:eval=mix,prior=model,model={value},iterations=200", seed=1), s2)
    assert ranking(ai.make_bot(auto, seed=1), s3) == ranking(
        ai.make_bot("mcts:prior=auto,iterations=200", seed=1), s3)
    bot = ai.make_bot(auto)
    assert bot.move_kind(bot.analyze(s2).moves[0], 2) == "mix"
    assert bot.move_kind(bot.analyze(s3).moves[0], 3) == "mcts"
    assert bot.prior_network(2).model.source == value and bot.network.model.source == prior


def test_the_mixed_leaf_changes_the_search(package):
    """The check above could not fail if eval=auto did nothing at 2 players."""
    s = decision(2)
    assert ranking(ai.make_bot("mcts:eval=auto,prior=auto,iterations=200", seed=1), s) != \
        ranking(ai.make_bot("mcts:prior=auto,iterations=200", seed=1), s)


def test_the_resolved_spec_says_what_searched(package):
    prior, value = package
    spec = "mcts:eval=auto,prior=auto"
    bot = ai.make_bot(spec)
    two, three = resolved_spec(spec, bot, 2), resolved_spec(spec, bot, 3)
    assert "eval=mix" in two and "prior=model" in two and "model=v2.npz" in two
    assert "eval=rollout" in three and "prior=none" in three
    assert bot.model_files(2) == [value] and bot.model_files(3) == []


def test_a_named_model_replaces_the_packaged_values(package, monkeypatch):
    """model=PATH or $GALLERIST_MODEL: no packaged value (eval=mix mixes a named one in)."""
    prior, value = package
    assert auto_value_files() == {2: value}
    assert auto_value_files(value) == {}
    s = decision(2)
    assert ranking(ai.make_bot(f"mcts:eval=auto,prior=auto,model={value},iterations=150",
                               seed=2), s) == \
        ranking(ai.make_bot(f"mcts:prior=auto,model={value},iterations=150", seed=2), s)
    monkeypatch.setenv(ENV_VAR, value)
    assert auto_value_files() == {}


def test_a_value_network_without_mix_maps_is_refused_by_name(package):
    prior, value = package
    os.remove(side_path(value))
    with pytest.raises(CalibrationError, match=r"fit them with 'python bench/calibration.py "
                                               r"model --model .*v2.npz --eval mix'"):
        ai.make_bot("mcts:eval=auto")
    ai.make_bot("mcts:eval=auto,calibrated=false")


def test_a_policy_only_file_among_the_values_is_refused_by_name(package):
    prior, value = package
    shutil.copyfile(prior, os.path.join(os.path.dirname(value), "a.npz"))
    with pytest.raises(ModelFileError, match="a.npz: its win head was not trained"):
        ai.make_bot("mcts:eval=auto")


def test_the_packaged_value_networks_come_from_the_value_folder(package):
    """Each file at the counts it was trained on, the first in name order winning a count."""
    prior, value = package
    assert value_folder() == os.path.dirname(value)
    _model(os.path.join(value_folder(), "w2.npz"), 2)
    three = _model(os.path.join(value_folder(), "x3.npz"), 3)
    assert auto_value_files() == {2: value, 3: three}
    bot = ai.make_bot("mcts:eval=auto,prior=auto")
    assert bot.model_files(2) == [value] and bot.model_files(3) == [three]
    assert bot.model_files(4) == [] and not bot.uses_prior(4)
    assert bot.engine(2) is not bot.engine(3)


def test_without_a_value_folder_eval_auto_is_a_rollout(monkeypatch, tmp_path):
    monkeypatch.setattr("gallerist.ai.net.packaged.PACKAGED", str(tmp_path / "none.npz"))
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert auto_value_files() == {}
    s = decision(2)
    assert ranking(ai.make_bot("mcts:eval=auto,iterations=150", seed=2), s) == \
        ranking(ai.make_bot("mcts:iterations=150", seed=2), s)


def test_model_weight_needs_a_mixed_leaf():
    with pytest.raises(ValueError, match="model_weight"):
        ai.make_bot("mcts:model_weight=0.3")
