"""The models the package ships (part 7: ai/models/default.npz, a PUCT prior for
`mcts:prior=model` and the default bot at 2 players, and ai/models/default-1p.npz and
default-3p.npz, the default bot's priors solo and at 3 players): each passes the model
file's checks, is small, says in its metadata how it was trained (the policy alone, on
self-play of mcts:iterations=200 at its player count), steers the search through its
priors, and is refused where a bot would take its untrained value."""
from __future__ import annotations

import json
import os

import pytest

from gallerist import ai, engine
from gallerist.ai.net.model_file import ModelFileError, load_model, trained_player_counts
from gallerist.ai.net.packaged import PACKAGED

SOLO = os.path.join(os.path.dirname(PACKAGED), "default-1p.npz")
THREE = os.path.join(os.path.dirname(PACKAGED), "default-3p.npz")
#: each packaged file: its player counts and the games of each self-play run it read
SHIPPED = {PACKAGED: ({2}, [300, 320, 80, 1020]), SOLO: ({1}, [1500]), THREE: ({3}, [610])}
SHIPPED_FILES = pytest.mark.parametrize("path", sorted(SHIPPED), ids=os.path.basename)


@SHIPPED_FILES
def test_the_packaged_model_loads_and_is_small(path):
    model = load_model(path)
    assert os.path.getsize(path) < 2 * 1024 * 1024
    assert model.source == path
    assert [w.shape[1] for w, _ in model.trunk] == [64, 64]


@SHIPPED_FILES
def test_its_metadata_says_how_it_was_trained(path):
    """The card beside it and the metadata inside it agree: the documented commands
    (docs/training.md, "Rebuilding the packaged models") made it."""
    meta = load_model(path).metadata
    card = json.loads(open(path.replace(".npz", ".card.json"), encoding="utf-8").read())
    assert meta["hyperparameters"] == card["hyperparameters"]
    hyper = meta["hyperparameters"]
    assert (hyper["win_weight"], hyper["policy_temperature"], hyper["hidden"],
            hyper["value_target"]) == (0.0, 0.25, [64, 64], "outcome")
    assert meta["seed"] == 0
    assert {d["spec"] for d in meta["data"]} == {"mcts:iterations=200"}
    players, games = SHIPPED[path]
    assert {d["players"] for d in meta["data"]} == players
    assert trained_player_counts(load_model(path)) == players
    assert [d["games"] for d in meta["data"]] == games
    assert meta["observation_version"] == engine.OBSERVATION_VERSION


def test_mcts_prior_model_takes_it_without_a_path():
    bot = ai.make_bot("mcts:prior=model,iterations=60", seed=1)
    assert bot.network.model.source == PACKAGED
    s = engine.new_game(num_players=2, seed=5)
    while s.is_chance():
        s.apply(s.chance_outcomes()[0][0])
    a = bot.analyze(s)
    assert a.iterations == 60 and a.best.action in s.legal_actions()


@pytest.mark.parametrize("spec", ["mcts:eval=model,calibrated=false",
                                  "expectimax:eval=model,calibrated=false"])
def test_its_untrained_value_is_not_used(spec):
    with pytest.raises(ModelFileError, match="its win head was not trained"):
        ai.make_bot(spec)
