"""The value network the package ships (ai/models/value/value-2p.npz): generation 30 of
the 2-player generation loop, the default bot's leaf value (half of it, eval=auto) and
prior at 2 players. It is small, was trained with a value on net-guided self-play of
2-player games, is the very file of the loop's record, and carries calibration maps of
both its searches fitted for its own bytes."""
from __future__ import annotations

import filecmp
import json
import os

from gallerist import ai, engine
from gallerist.ai.values import MoveInfo
from gallerist.ai.bots.spec import DEFAULT_BOT
from gallerist.ai.calibration.model_maps import load_model_maps, side_path
from gallerist.ai.net.model_file import load_model, trained_player_counts, value_trained
from gallerist.ai.net.packaged import auto_value_files, value_folder
from gallerist.ai.selfplay.records import sha256_file

VALUE = os.path.join(value_folder(), "value-2p.npz")
ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")
LOOP = os.path.join(ROOT, "bench", "data", "generations-net", "2p")


def test_it_is_small_and_values_two_player_games():
    model = load_model(VALUE)
    assert os.path.getsize(VALUE) < 2 * 1024 * 1024
    assert value_trained(model) and trained_player_counts(model) == {2}
    assert model.metadata["observation_version"] == engine.OBSERVATION_VERSION
    assert auto_value_files() == {2: VALUE}


def test_it_is_the_loops_generation_30_and_its_card_agrees():
    assert filecmp.cmp(VALUE, os.path.join(LOOP, "models", "gen-030.npz"), shallow=False)
    card = json.loads(open(VALUE.replace(".npz", ".card.json"), encoding="utf-8").read())
    meta = load_model(VALUE).metadata
    assert card["hyperparameters"] == meta["hyperparameters"]
    assert card["hyperparameters"]["win_weight"] == 1.0
    assert all(d["spec"].startswith("netplay:") and d["players"] == 2 for d in card["data"])
    ladder = json.loads(open(os.path.join(LOOP, "generations.json"), encoding="utf-8").read())
    gen30 = next(g for g in ladder["generations"] if g["generation"] == 30)
    assert gen30["promoted"] and gen30["sha256"] == sha256_file(VALUE)


def test_its_maps_of_both_searches_are_fitted_for_its_bytes():
    sha = sha256_file(VALUE)
    info = json.loads(open(side_path(VALUE), encoding="utf-8").read())["info"]
    for kind in ("model", "mix"):
        maps = load_model_maps(VALUE, sha, kind)
        assert set(maps) == {2} and maps[2].win is not None
        assert info[kind]["fitted_by"] == "bench/calibration.py model"
        assert f"eval={kind}," in info[kind]["spec"] and info[kind]["training_positions"]["2"] > 5000


def test_the_default_bot_mixes_it_in_at_two_players_only():
    bot = ai.make_bot(DEFAULT_BOT)
    assert bot.model_files(2) == [VALUE]
    assert bot.prior_network(2).model.source == VALUE
    assert [bot.move_kind(MoveInfo(action=0, notation="", visits=1), n)
            for n in (1, 2, 3, 4)] == ["mcts", "mix", "mcts", "mcts"]
