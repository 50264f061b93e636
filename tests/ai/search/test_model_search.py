"""Searching with a model: MCTS (eval=model, prior=model) and expectimax (eval=model)
with a tiny random model play legal games to the end, deterministically for a fixed seed
and iteration budget; PUCT's priors steer the visits; a missing, corrupt or mismatched
model file is refused when the bot is made (the CLI: one line, exit 1), never inside the
search."""
from __future__ import annotations

import numpy as np
import pytest

from gallerist import ai, engine
from gallerist.ai.bots.mcts import MctsBot
from gallerist.ai.net.model_file import ModelFileError, random_arrays, save_model
from gallerist.ai.arena.play import play_game
from gallerist.cli.main import main
from gallerist.server.limits import Limits, RequestError, check_spec


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A tiny random model file (trunk 16 x 8)."""
    path = str(tmp_path_factory.mktemp("models") / "tiny.npz")
    save_model(path, random_arrays((16, 8), seed=7), {"note": "random, for tests"})
    return path


def first_decision(players=2, seed=5):
    s = engine.new_game(num_players=players, seed=seed)
    while s.is_chance():
        s.apply(s.chance_outcomes()[0][0])
    return s


SPECS = [
    "mcts:iterations=12,eval=model,prior=model,calibrated=false,model={}",
    "mcts:iterations=12,eval=model,calibrated=false,model={}",
    "mcts:iterations=12,eval=model,rollout_steps=3,prior=model,calibrated=false,model={}",
    "mcts:iterations=12,prior=model,cutoff=10,model={}",
    "mcts:iterations=12,prior=model,rollout=model,model={}",
    "mcts:iterations=12,rollout=model,rollout_temperature=0.5,model={}",
    "mcts:iterations=12,prior=model,rollout=model,rollout_model_steps=2,model={}",
    "mcts:iterations=12,eval=mix,prior=model,calibrated=false,model={}",
    "expectimax:depth=1,eval=model,calibrated=false,model={}",
]


@pytest.mark.parametrize("spec", SPECS)
def test_a_model_bot_plays_legal_games_to_the_end_deterministically(tiny, spec):
    """play_game applies every chosen move through the engine (an illegal one raises)."""
    spec = spec.format(tiny)
    histories = []
    for _ in range(2):
        bots = [ai.make_bot(spec, seed=11 + i) for i in range(2)]
        final = play_game(bots, seed=3)
        assert final.is_terminal()
        histories.append(final.history)
    assert histories[0] == histories[1]


@pytest.mark.parametrize("players", [1, 3, 4])
def test_model_mcts_plays_solo_and_multiplayer_games(tiny, players):
    bots = [ai.make_bot(SPECS[0].format(tiny).replace("iterations=12", "iterations=4"), seed=i)
            for i in range(players)]
    assert play_game(bots, seed=players).is_terminal()


def test_model_mcts_analysis_is_reproducible_and_keeps_the_bot_contract(tiny):
    s = first_decision(3)
    a = ai.make_bot(SPECS[0].format(tiny).replace("iterations=12", "iterations=400"), seed=2).analyze(s)
    b = ai.make_bot(SPECS[0].format(tiny).replace("iterations=12", "iterations=400"), seed=2).analyze(s)
    assert [(m.action, m.visits, m.expected_money) for m in a.moves] == \
           [(m.action, m.visits, m.expected_money) for m in b.moves]
    assert sum(m.visits for m in a.moves) == 400 == a.iterations
    assert {m.action for m in a.moves} == set(s.legal_actions())
    for m in a.moves:
        if m.visits:
            assert sum(m.win_probabilities) == pytest.approx(1.0, abs=1e-4)
        replay = s.copy()
        assert m.pv[0] == m.action
        for act in m.pv:       # IllegalActionError if the line is not legal
            replay.apply(act)


def favouring(target, path):
    """A model whose every value is the same and whose policy prefers `target`."""
    arrays = random_arrays((8,), seed=1)
    for key in ("win_w", "win_b", "money_w", "money_b", "policy_w", "policy_b"):
        arrays[key][:] = 0
    arrays["policy_b"][target] = 4.0
    save_model(path, arrays, {})
    return path


def visits(bot, s):
    return {m.action: m.visits for m in bot.analyze(s).moves}


def test_prior_model_moves_visits_toward_the_high_prior_move(tmp_path):
    s = first_decision(2)
    legal = s.legal_actions()
    target = legal[-1]                    # not the first: ties do not favour it
    path = favouring(target, str(tmp_path / "fav.npz"))
    common = f"mcts:iterations=600,eval=model,calibrated=false,model={path}"
    puct = visits(ai.make_bot(common + ",prior=model", seed=1), s)
    uct = visits(ai.make_bot(common, seed=1), s)
    share = puct[target] / 600
    assert share > 0.5                              # the values are equal: the prior decides
    assert uct[target] / 600 < 2.0 / len(legal)     # UCT spreads them evenly
    assert max(puct, key=puct.get) == target


def test_prior_model_with_rollouts_still_favours_the_high_prior_move(tmp_path):
    s = first_decision(2)
    target = s.legal_actions()[-1]
    path = favouring(target, str(tmp_path / "fav.npz"))
    v = visits(ai.make_bot(f"mcts:iterations=400,prior=model,cutoff=5,model={path}", seed=3), s)
    assert v[target] == max(v.values())


def test_fpu_reduction_keeps_puct_on_the_moves_already_searched(tiny):
    """fpu_reduction lowers an unvisited move's first-play value below its node's mean
    by fpu_reduction * sqrt(the visited moves' priors): with a small c_puct, a reduction
    of 1 keeps every root visit on the first move searched, while without it PUCT tries
    the others too."""
    s = first_decision(2)
    common = f"mcts:iterations=400,prior=model,c_puct=0.05,model={tiny}"
    plain = visits(ai.make_bot(common, seed=2), s)
    reduced = visits(ai.make_bot(common + ",fpu_reduction=1", seed=2), s)
    assert sum(v > 0 for v in plain.values()) >= 2
    assert sorted(reduced.values())[-2:] == [0, 400]


def test_eval_model_estimates_the_leaves_with_the_network(tmp_path):
    """A model that says seat 0 ends with $70 and seat 1 with $20: the root numbers are
    the network's (raw, calibrated=false)."""
    arrays = random_arrays((8,), seed=1)
    for key in ("win_w", "win_b", "money_w", "money_b"):
        arrays[key][:] = 0
    s = first_decision(2)
    mover = s.current_player
    arrays["money_b"][0], arrays["money_b"][1] = 0.7, 0.2   # tensor seats: the observer first
    path = str(tmp_path / "m.npz")
    save_model(path, {**arrays, "money_scale": np.array(100.0)}, {})
    bot = ai.make_bot(f"mcts:iterations=1,eval=model,calibrated=false,model={path}", seed=1)
    best = bot.analyze(s).best
    # the leaf is one move later: the observer is whoever moves there
    after = s.copy()
    after.apply(best.action)
    viewer = after.current_player if not after.is_chance() else after.turn_player
    want = [0.0, 0.0]
    want[viewer], want[1 - viewer] = 70.0, 20.0
    assert best.expected_money == pytest.approx(want, abs=1e-3)
    assert mover in (0, 1)


def test_eval_mix_weighs_the_network_against_the_rollout(tmp_path):
    """eval=mix with model_weight=1 gives the network's numbers, as eval=model does; with
    model_weight=0 the rollout's alone (the same analysis as plain rollout MCTS, whose
    random stream it shares)."""
    arrays = random_arrays((8,), seed=1)
    for key in ("win_w", "win_b", "money_w", "money_b"):
        arrays[key][:] = 0
    arrays["money_b"][0], arrays["money_b"][1] = 0.7, 0.2
    path = str(tmp_path / "m.npz")
    save_model(path, {**arrays, "money_scale": np.array(100.0)}, {})
    s = first_decision(2)
    whole = ai.make_bot(f"mcts:iterations=30,eval=mix,model_weight=1,calibrated=false,model={path}",
                        seed=1).analyze(s)
    for m in whole.moves:
        if m.visits:
            assert sorted(m.expected_money) == pytest.approx([20.0, 70.0], abs=1e-3)
    none = ai.make_bot(f"mcts:iterations=30,eval=mix,model_weight=0,calibrated=false,model={path}",
                       seed=1).analyze(s)
    plain = ai.make_bot("mcts:iterations=30,calibrated=false", seed=1).analyze(s)
    assert [(m.action, m.visits, m.expected_money) for m in none.moves] == \
        [(m.action, m.visits, m.expected_money) for m in plain.moves]


@pytest.mark.parametrize("spec,words", [
    ("mcts:eval=model,calibrated=false,model={missing}", ["is missing"]),
    ("mcts:prior=model,model={text}", ["not an .npz archive"]),
    ("expectimax:eval=model,calibrated=false,model={wrong}", ["observation_size", "mismatch"]),
])
def test_a_bad_model_file_is_refused_when_the_bot_is_made(tmp_path, spec, words):
    text = tmp_path / "text.npz"
    text.write_text("not a model")
    wrong = str(tmp_path / "wrong.npz")
    arrays = random_arrays((8,), seed=0)
    with open(wrong, "wb") as fh:
        np.savez(fh, **{**arrays, "format": np.array("gallerist-model"),
                        "format_version": np.array(1),
                        "observation_version": np.array(engine.OBSERVATION_VERSION),
                        "observation_size": np.array(99), "num_actions": np.array(183),
                        "num_layers": np.array(1), "metadata": np.array("{}")})
    spec = spec.format(missing=tmp_path / "nope.npz", text=text, wrong=wrong)
    with pytest.raises(ModelFileError) as info:
        ai.make_bot(spec)
    for word in words:
        assert word in str(info.value)


def test_a_policy_only_model_is_refused_as_a_value_and_taken_as_a_prior(tmp_path):
    """A model trained with win_weight 0 (a PUCT prior) has an untrained win head: eval=model
    and eval=mix (MCTS, expectimax) refuse it by name; prior=model takes it."""
    path = str(tmp_path / "prior.npz")
    save_model(path, random_arrays((8,), seed=2), {"hyperparameters": {"win_weight": 0.0}})
    for spec in ("mcts:eval=model,calibrated=false", "mcts:eval=mix,calibrated=false",
                 "expectimax:eval=model,calibrated=false"):
        with pytest.raises(ModelFileError, match="its win head was not trained"):
            ai.make_bot(f"{spec},model={path}")
    bot = ai.make_bot(f"mcts:prior=model,iterations=20,model={path}", seed=1)
    assert bot.analyze(first_decision(2)).iterations == 20


def test_without_a_packaged_model_the_bot_asks_for_a_path(monkeypatch, tmp_path):
    monkeypatch.setattr("gallerist.ai.net.packaged.PACKAGED", str(tmp_path / "default.npz"))
    with pytest.raises(ModelFileError, match="no model: pass model=PATH"):
        ai.make_bot("mcts:prior=model")


def test_the_packaged_default_is_used_when_no_path_is_given(monkeypatch, tmp_path, tiny):
    monkeypatch.setattr("gallerist.ai.net.packaged.PACKAGED", tiny)
    bot = ai.make_bot("mcts:prior=model,iterations=10")
    assert bot.network.model.source == tiny


@pytest.mark.parametrize("spec,message", [
    ("mcts:eval=model,margin_weight=1", "default.npz has no calibration maps "
     r"\(default.calibration.json is missing\): fit them with 'python bench/calibration.py "
     "model --model"),
    ("expectimax:eval=model", "no calibration map yet: add calibrated=false"),
    ("mcts:eval=neural", "eval must be 'rollout', 'model', 'mix' or 'auto'"),
    ("mcts:eval=mix", "default.npz: its win head was not trained"),
    ("mcts:eval=mix,calibrated=false,model_weight=1.5", "model_weight must be in"),
    ("mcts:model_weight=0.3", "model_weight needs eval=mix or eval=auto"),
    ("mcts:prior=policy", "prior must be 'none', 'model' or 'auto'"),
    ("mcts:rollout_steps=3", "needs eval=model"),
    ("mcts:model=x.npz", "model needs eval=model, eval=mix, eval=auto, prior=model, prior=auto "
                         "or rollout=model"),
    ("mcts:rollout=neural", "rollout must be one of random, heuristic, model"),
    ("mcts:rollout_temperature=0.5", "rollout_temperature needs rollout=model"),
    ("mcts:rollout=model,rollout_temperature=0", "rollout_temperature must be a finite number > 0"),
    ("mcts:rollout_model_steps=3", "rollout_model_steps must be >= 0 and needs rollout=model"),
    ("mcts:rollout=model,rollout_model_steps=-1", "rollout_model_steps must be >= 0"),
    ("expectimax:model=x.npz", "model needs eval=model"),
    ("mcts:prior=model,c_puct=-1", "c_puct"),
    ("mcts:prior=model,fpu_reduction=1.5", "fpu_reduction must be a number in \\[0, 1\\]"),
    ("mcts:prior=model,fpu_reduction=nan", "fpu_reduction must be a number in"),
    ("mcts:fpu_reduction=0.2", "fpu_reduction needs prior=model or prior=auto"),
])
def test_model_options_are_checked(spec, message):
    with pytest.raises(ValueError, match=message):
        ai.make_bot(spec)


def test_an_explicit_evaluator_and_eval_model_conflict(tiny):
    from gallerist.ai.search._evaluation import HeuristicEvaluator
    with pytest.raises(ValueError, match="either an evaluator or eval=model"):
        MctsBot(HeuristicEvaluator(), eval="model", calibrated=False, model=tiny)


@pytest.mark.parametrize("argv", [
    ["hint", "--demo", "--local", "--bot", "mcts:eval=model,calibrated=false,model={bad}"],
    ["play", "mcts:prior=model,iterations=5,model={bad}", "greedy"],
    ["serve", "--port", "0", "--default-bot", "mcts:prior=model,model={bad}"],
])
def test_the_cli_refuses_a_bad_model_file_in_one_line_exit_1(tmp_path, capsys, argv):
    bad = tmp_path / "bad.npz"
    bad.write_text("garbage")
    assert main([a.format(bad=bad) for a in argv]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: model file ") and str(bad) in err
    assert "Traceback" not in err and err.count("\n") == 1


def test_a_service_request_cannot_name_a_model_file():
    with pytest.raises(RequestError, match="cannot name a model file"):
        check_spec("mcts:prior=model,model=/etc/passwd", Limits())
    name, opts = check_spec("mcts:prior=model,model=x.npz", Limits(local=True))
    assert opts["model"] == "x.npz"


def test_a_restricted_root_gets_the_policy_over_its_moves_as_priors(tmp_path):
    """analyze(moves=...) builds the root from just those moves: with prior=model they
    carry the policy renormalised over them, so PUCT still favours the high-prior one."""
    s = first_decision(2)
    legal = s.legal_actions()
    target = legal[-1]
    path = favouring(target, str(tmp_path / "fav.npz"))
    bot = ai.make_bot(f"mcts:iterations=300,eval=model,prior=model,calibrated=false,model={path}",
                      seed=2)
    v = {m.action: m.visits for m in bot.analyze(s, moves=[legal[0], legal[1], target]).moves}
    assert set(v) == {legal[0], legal[1], target}
    assert v[target] > 0.5 * 300
