"""What searched, in words a report can carry: `ai.bots.spec.resolved_spec` (a bot's spec with
every option written out and prior=auto resolved for the player count) and
`ai.bots.spec.model_used` (the model files read, as "name@sha256 prefix")."""
import hashlib
import os

import pytest

from gallerist.ai.net.packaged import PACKAGED, model_label
from gallerist.ai.bots.spec import bot_options, make_bot, model_used, parse_spec, resolved_spec

MODELS = os.path.dirname(PACKAGED)


def _label(name: str) -> str:
    with open(os.path.join(MODELS, name), "rb") as fh:
        return f"{name}@{hashlib.sha256(fh.read()).hexdigest()[:8]}"


def test_model_label_is_the_file_name_and_a_short_sha256():
    """A model file is named by its file name and the first 8 hex digits of its sha256."""
    assert model_label(PACKAGED) == _label("default.npz")


@pytest.mark.parametrize("players,prior,model", [
    (1, "model", "default-1p.npz"), (2, "model", "default.npz"),
    (3, "model", "default-3p.npz"), (4, "none", ""),
])
def test_default_bot_resolves_prior_auto_by_player_count(players, prior, model):
    """mcts:prior=auto says what it searches with at each player count: PUCT with the
    packaged model trained on that count (named, with its hash), or UCT without a model."""
    bot = make_bot("mcts:prior=auto")
    name, options = parse_spec(resolved_spec("mcts:prior=auto", bot, players))
    assert name == "mcts" and list(options) == list(bot_options("mcts"))
    assert options["prior"] == prior and options["model"] == model
    assert model_used(bot, players) == (_label(model) if model else "")


def test_every_option_is_written_out_with_the_given_values():
    """Options given keep their values, the others get the bot's defaults, in the order
    of the bot's options; a bot without a model reads none."""
    spec = "expectimax:depth=3,playouts=40"
    bot = make_bot(spec)
    text = resolved_spec(spec, bot, 2)
    assert text == ("expectimax:depth=3,time_ms=0.0,chance_width=6,tt_bits=18,alpha_beta=true,"
                    "win_temperature=6.0,eval=heuristic,model=,calibrated=true,playouts=40")
    assert parse_spec(text)[1] == {**bot_options("expectimax"), "depth": 3, "playouts": 40}
    assert model_used(bot, 2) == ""
    assert resolved_spec("greedy", make_bot("greedy"), 3) == "greedy:calibrated=true,playouts=100"


def test_a_resolved_spec_without_a_model_makes_the_same_bot():
    """Where no model is read, the resolved spec is a spec of the same bot: made from it,
    the bot searches the same way (same moves and visits from the same seed)."""
    from gallerist import engine
    state = engine.new_game(4, seed=3)
    spec = "mcts:prior=auto,iterations=150"
    resolved = resolved_spec(spec, make_bot(spec), 4)
    first = make_bot(spec, seed=5).analyze(state)
    again = make_bot(resolved, seed=5).analyze(state)
    assert [(m.action, m.visits) for m in first.moves] == [(m.action, m.visits) for m in again.moves]


def test_a_spec_of_no_known_bot_is_kept_as_given():
    """A remote bot's spec is not one of this package's bots: it is reported as given."""
    assert resolved_spec("remote:localhost:1,bot=mcts", object(), 2) == "remote:localhost:1,bot=mcts"
    assert model_used(object(), 2) == ""
