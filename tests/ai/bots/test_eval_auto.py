"""mcts eval=auto: at the player counts a value network serves (the packaged ones in
ai/models/value/, or the named model where its win head was trained) the leaf is the mixed
value (eval=mix) with that network, whose policy prior=auto then takes as the prior and
whose maps of kind "mix" calibrate the numbers; elsewhere the leaf is a rollout."""
from __future__ import annotations

import pytest

from gallerist import ai, engine
from gallerist.ai.bots.spec import resolved_spec
from gallerist.ai.calibration.maps import CalibrationError, SeatMap
from gallerist.ai.calibration.model_maps import write_model_maps
from gallerist.ai.learn.model_file import (
    ENV_VAR, auto_value_files, random_arrays, save_model, value_folder,
)
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
def value2(tmp_path):
    return _model(tmp_path / "v2.npz", 2)


def decision(players, seed=4):
    s = engine.new_game(num_players=players, seed=seed)
    while s.is_chance():
        s.apply(s.chance_outcomes()[0][0])
    return s


def ranking(bot, state):
    a = bot.analyze(state)
    return [(m.action, m.visits, m.expected_money, m.win_probabilities) for m in a.moves]


def test_where_the_value_network_was_trained_eval_auto_is_the_mixed_leaf(value2):
    """At 2 players (the model's): the very search of eval=mix,prior=model, numbers
    through the mix maps; at 3: the search of prior=auto with a rollout leaf (UCT there)."""
    auto = f"mcts:eval=auto,prior=auto,model={value2},iterations=200"
    s2, s3 = decision(2), decision(3)
    assert ranking(ai.make_bot(auto, seed=1), s2) == ranking(
        ai.make_bot(f"mcts:eval=mix,prior=model,model={value2},iterations=200", seed=1), s2)
    assert ranking(ai.make_bot(auto, seed=1), s3) == ranking(
        ai.make_bot(f"mcts:prior=auto,model={value2},iterations=200", seed=1), s3)
    bot = ai.make_bot(auto)
    assert bot.move_kind(bot.analyze(s2).moves[0], 2) == "mix"
    assert bot.move_kind(bot.analyze(s3).moves[0], 3) == "mcts"


def test_the_mixed_leaf_changes_the_search(value2):
    """The check above could not fail if eval=auto did nothing at 2 players."""
    s = decision(2)
    auto = ai.make_bot(f"mcts:eval=auto,prior=auto,model={value2},iterations=200", seed=1)
    rollout = ai.make_bot(f"mcts:prior=auto,model={value2},iterations=200", seed=1)
    assert ranking(auto, s) != ranking(rollout, s)


def test_the_resolved_spec_says_what_searched(value2):
    spec = f"mcts:eval=auto,prior=auto,model={value2}"
    bot = ai.make_bot(spec)
    assert "eval=mix" in resolved_spec(spec, bot, 2) and "prior=model" in resolved_spec(spec, bot, 2)
    assert "eval=rollout" in resolved_spec(spec, bot, 3) and "prior=none" in resolved_spec(spec, bot, 3)
    assert bot.model_files(2) == [value2] and bot.model_files(3) == []


def test_a_policy_only_model_gives_no_value(tmp_path):
    """A model trained with --win-weight 0 is a prior only: eval=auto is a rollout."""
    prior = _model(tmp_path / "p.npz", 2, win_weight=0, maps=False)
    assert auto_value_files(prior) == {}
    s = decision(2)
    assert ranking(ai.make_bot(f"mcts:eval=auto,prior=auto,model={prior},iterations=150",
                               seed=2), s) == \
        ranking(ai.make_bot(f"mcts:prior=auto,model={prior},iterations=150", seed=2), s)


def test_a_value_network_without_mix_maps_is_refused_by_name(tmp_path):
    bare = _model(tmp_path / "bare.npz", 2, maps=False)
    with pytest.raises(CalibrationError, match=r"fit them with 'python bench/calibration.py "
                                               r"model --model .*bare.npz --eval mix'"):
        ai.make_bot(f"mcts:eval=auto,model={bare}")
    ai.make_bot(f"mcts:eval=auto,calibrated=false,model={bare}")


def test_the_packaged_value_networks_come_from_the_value_folder(monkeypatch, tmp_path):
    """Naming no model, eval=auto takes value/ beside the packaged models, each file at
    the counts it was trained on (the first in name order wins a count)."""
    folder = tmp_path / "models"
    (folder / "value").mkdir(parents=True)
    monkeypatch.setattr("gallerist.ai.learn.model_file.PACKAGED", str(folder / "default.npz"))
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert value_folder() == str(folder / "value") and auto_value_files() == {}
    two = _model(folder / "value" / "a-2p.npz", 2)
    _model(folder / "value" / "b-2p.npz", 2)
    three = _model(folder / "value" / "c-3p.npz", 3)
    assert auto_value_files() == {2: two, 3: three}
    bot = ai.make_bot("mcts:eval=auto,prior=auto")
    assert bot.model_files(2) == [two] and bot.model_files(3) == [three]
    assert bot.model_files(4) == [] and not bot.uses_prior(4)
    assert bot.engine(2) is not bot.engine(3)


def test_model_weight_needs_a_mixed_leaf():
    with pytest.raises(ValueError, match="model_weight"):
        ai.make_bot("mcts:model_weight=0.3")
