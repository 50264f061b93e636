"""The default bot (ai.bots.spec.DEFAULT_BOT, "mcts:prior=auto,eval=auto"): the model's
policy as PUCT's prior at the player counts the model was trained on, UCT at the others and
everywhere when there is no model; the model comes from model=PATH, else $GALLERIST_MODEL
(the CLI's --model), else the package, whose value network also serves at 2 players
(tests/ai/bots/test_eval_auto.py). The service and the command line use it when a request
or a command names no bot."""
from __future__ import annotations

import json
import os
import re

import pytest

from gallerist import ai, engine
from gallerist.ai.net.model_file import (
    ModelFileError, load_model, random_arrays, save_model, trained_player_counts,
)
from gallerist.ai.net.packaged import ENV_VAR
from gallerist.ai.bots.spec import DEFAULT_BOT
from gallerist.cli.main import main
from gallerist.server.limits import Limits


def _model(path, players):
    """A tiny random model whose metadata says it was trained on games of `players`."""
    meta = {"data": [{"dir": f"sp-{n}p", "games": 10, "players": n} for n in players],
            "players": None}
    save_model(str(path), random_arrays((16, 8), seed=3), meta)
    return str(path)


@pytest.fixture()
def two_player_model(tmp_path):
    return _model(tmp_path / "m2.npz", [2])


def decision(players, seed=4):
    s = engine.new_game(num_players=players, seed=seed)
    while s.is_chance():
        s.apply(s.chance_outcomes()[0][0])
    return s


def ranking(bot, state):
    a = bot.analyze(state)
    return [(m.action, m.visits, m.expected_money) for m in a.moves]


def test_the_default_bot_is_mcts_with_prior_auto_and_eval_auto():
    assert DEFAULT_BOT == "mcts:prior=auto,eval=auto"
    assert Limits().default_bot == DEFAULT_BOT


def test_trained_player_counts_come_from_the_metadata(tmp_path):
    assert trained_player_counts(load_model(_model(tmp_path / "a.npz", [2, 3]))) == {2, 3}
    save_model(str(tmp_path / "b.npz"), random_arrays((16, 8)), {"note": "no data"})
    assert trained_player_counts(load_model(str(tmp_path / "b.npz"))) is None
    save_model(str(tmp_path / "c.npz"), random_arrays((16, 8)), {"players": 4, "data": []})
    assert trained_player_counts(load_model(str(tmp_path / "c.npz"))) == {4}


@pytest.mark.parametrize("players", [2, 3])
def test_prior_auto_is_puct_where_the_model_was_trained_and_uct_elsewhere(two_player_model,
                                                                         players):
    """At 2 players (the model's) the search is prior=model's, visit for visit; at 3 it
    is plain UCT's."""
    s = decision(players)
    auto = ai.make_bot(f"mcts:prior=auto,model={two_player_model},iterations=300", seed=1)
    same = (f"mcts:prior=model,model={two_player_model},iterations=300" if players == 2
            else "mcts:iterations=300")
    assert auto.uses_prior(players) == (players == 2)
    assert ranking(auto, s) == ranking(ai.make_bot(same, seed=1), s)


def test_engine_is_the_search_of_that_player_count(two_player_model):
    """MctsBot.engine(n), what benchmarks drive, is PUCT's engine where the prior is used
    and UCT's elsewhere; a bot without a prior has one engine for every count."""
    auto = ai.make_bot(f"mcts:prior=auto,model={two_player_model}")
    assert auto.engine(2) is not auto.engine(3) and auto.engine(3) is auto.engine(4)
    assert auto.engine(2).prior is auto.network and auto.engine(3).prior is None
    plain = ai.make_bot("mcts")
    assert len({id(plain.engine(n)) for n in (1, 2, 3, 4)}) == 1


def test_prior_auto_differs_from_uct_where_it_uses_the_prior(two_player_model):
    """The check above could not fail if the prior did nothing: at 2 players it must steer
    the visits away from UCT's."""
    s = decision(2)
    auto = ai.make_bot(f"mcts:prior=auto,model={two_player_model},iterations=300", seed=1)
    assert ranking(auto, s) != ranking(ai.make_bot("mcts:iterations=300", seed=1), s)


def test_a_model_without_player_counts_is_used_at_every_count(tmp_path):
    path = str(tmp_path / "any.npz")
    save_model(path, random_arrays((16, 8), seed=3), {"note": "made outside train"})
    bot = ai.make_bot(f"mcts:prior=auto,model={path}")
    assert all(bot.uses_prior(n) for n in (1, 2, 3, 4))


def test_without_any_model_prior_auto_is_uct(monkeypatch, tmp_path):
    monkeypatch.setattr("gallerist.ai.net.packaged.PACKAGED", str(tmp_path / "none.npz"))
    monkeypatch.delenv(ENV_VAR, raising=False)
    bot = ai.make_bot(DEFAULT_BOT, seed=1)
    assert bot.network is None and not any(bot.uses_prior(n) for n in (1, 2, 3, 4))
    s = decision(2)
    assert ranking(ai.make_bot(f"{DEFAULT_BOT},iterations=200", seed=1), s) == \
        ranking(ai.make_bot("mcts:iterations=200", seed=1), s)


def test_the_packaged_models_are_the_default_bots_solo_and_at_two_and_three_players(
        monkeypatch):
    """default-1p.npz solo, value/value-2p.npz at 2 players (the value network's policy;
    default.npz is prior=auto's there without eval=auto), default-3p.npz at 3, UCT at 4."""
    monkeypatch.delenv(ENV_VAR, raising=False)
    bot = ai.make_bot(DEFAULT_BOT)
    assert bot.network is not None and bot.network.model.source.endswith("default.npz")
    assert bot.prior_network(2).model.source.endswith("value-2p.npz")
    assert ai.make_bot("mcts:prior=auto").prior_network(2) is bot.network
    assert bot.prior_network(1).model.source.endswith("default-1p.npz")
    assert bot.prior_network(3).model.source.endswith("default-3p.npz")
    assert [bot.uses_prior(n) for n in (1, 2, 3, 4)] == [True, True, True, False]


def test_the_environment_variable_names_the_default_model(monkeypatch, two_player_model):
    monkeypatch.setenv(ENV_VAR, two_player_model)
    assert ai.make_bot(DEFAULT_BOT).network.model.source == two_player_model


def test_a_bad_model_in_the_environment_is_an_error_not_a_fallback(monkeypatch, tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_text("not a model")
    monkeypatch.setenv(ENV_VAR, str(bad))
    with pytest.raises(ModelFileError, match="bad.npz"):
        ai.make_bot(DEFAULT_BOT)


def _hint_json(capsys, *extra):
    assert main(["hint", "--demo", "--local", "--iterations", "150", "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_model_option_is_the_default_bots_model(capsys, monkeypatch, two_player_model):
    """`hint --local --model PATH` searches as `--bot mcts:prior=auto,model=PATH` does, and
    leaves $GALLERIST_MODEL as it was."""
    monkeypatch.delenv(ENV_VAR, raising=False)
    with_option = _hint_json(capsys, "--model", two_player_model)
    named = _hint_json(capsys, "--bot", f"mcts:prior=auto,model={two_player_model}")
    packaged = _hint_json(capsys)
    moves = lambda out: [(m["action"], m["visits"]) for m in out["moves"]]  # noqa: E731
    assert moves(with_option) == moves(named) != moves(packaged)
    assert ENV_VAR not in os.environ


@pytest.mark.parametrize("argv,message", [
    (["hint", "--demo", "--local", "--model", "{missing}"], "--model: model file .*missing"),
    (["demo", "--model", "{bad}"], "--model: model file .*bad.npz is not an .npz archive"),
    (["serve", "--model", "{bad}"], "--model: model file .*bad.npz"),
    (["hint", "--demo", "--model", "{good}"], "--model needs --local"),
    (["hint", "--demo", "--model", "{missing}"], "--model needs --local"),
    (["play", "mcts", "greedy", "--model", ""], "--model: give a model file"),
])
def test_cli_refuses_a_bad_model_option_by_name(capsys, tmp_path, two_player_model, argv,
                                                message):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"junk")
    argv = [a.format(missing=tmp_path / "none.npz", bad=bad, good=two_player_model)
            for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and len(err.strip().splitlines()) == 1
    assert re.search(message, err), err


@pytest.fixture()
def packaged_pair(monkeypatch, tmp_path):
    """A package folder holding a 2-player default.npz and a 3-player default-3p.npz."""
    folder = tmp_path / "models"
    folder.mkdir()
    two = _model(folder / "default.npz", [2])
    save_model(str(folder / "default-3p.npz"), random_arrays((16, 8), seed=5),
               {"data": [{"dir": "sp-3p", "games": 10, "players": 3}], "players": None})
    monkeypatch.setattr("gallerist.ai.net.packaged.PACKAGED", two)
    monkeypatch.delenv(ENV_VAR, raising=False)
    return two, str(folder / "default-3p.npz")


def test_prior_auto_takes_each_player_counts_prior_from_the_packaged_models(packaged_pair):
    """Naming no model, prior=auto is PUCT with default.npz at 2 players and with
    default-3p.npz at 3 (the same search as prior=model with that file), UCT at 1 and 4."""
    two, three = packaged_pair
    bot = ai.make_bot(f"{DEFAULT_BOT},iterations=300", seed=1)
    assert [bot.uses_prior(n) for n in (1, 2, 3, 4)] == [False, True, True, False]
    assert bot.prior_network(2).model.source == two
    assert bot.prior_network(3).model.source == three
    assert bot.network.model.source == two          # eval=model's file stays the default
    assert len({id(bot.engine(n)) for n in (1, 2, 3, 4)}) == 3
    s = decision(3)
    assert ranking(bot, s) == ranking(
        ai.make_bot(f"mcts:prior=model,model={three},iterations=300", seed=1), s)
    assert ranking(bot, s) != ranking(ai.make_bot("mcts:iterations=300", seed=1), s)


def test_a_named_model_replaces_the_packaged_set(packaged_pair, monkeypatch):
    """model=PATH or $GALLERIST_MODEL: that file alone, at its own player counts."""
    two, three = packaged_pair
    named = ai.make_bot(f"mcts:prior=auto,model={three}")
    assert [named.uses_prior(n) for n in (1, 2, 3, 4)] == [False, False, True, False]
    monkeypatch.setenv(ENV_VAR, two)
    assert [ai.make_bot(DEFAULT_BOT).uses_prior(n) for n in (1, 2, 3, 4)] == \
        [False, True, False, False]


def test_a_corrupt_packaged_model_is_an_error_naming_it(packaged_pair):
    two, three = packaged_pair
    with open(three, "wb") as f:
        f.write(b"not a model")
    with pytest.raises(ModelFileError, match="default-3p.npz"):
        ai.make_bot(DEFAULT_BOT)
