"""The evaluators: the heuristic one, the rollout one, and that MCTS and expectimax
really score their leaves with the evaluator object they are given."""
from __future__ import annotations

import math

import pytest

from gallerist import ai
from gallerist import engine
from gallerist.ai.search._evaluation import (WIN_TEMPERATURE, Evaluator, HeuristicEvaluator, MixEvaluator,
                            PythonEvaluator, evaluate)
from gallerist.ai.search._rollout import RolloutEvaluator
from gallerist.ai.bots.expectimax import ExpectimaxBot
from gallerist.ai.bots.mcts import MctsBot
from gallerist.engine.state import GameState, SOLO_RETURN_SCALE
from tests.ai.bots.test_bots import random_decision_states


class ConstantEvaluator(PythonEvaluator):
    """Every position is worth the same money and win chances; counts its calls."""

    def __init__(self, money: list[float], win: list[float] | None = None) -> None:
        super().__init__()
        self.money = money
        self.win = win
        self.calls = 0

    def estimate(self, state: GameState) -> tuple[list[float], list[float] | None]:
        assert not state.is_terminal()
        self.calls += 1
        return self.money, self.win


class PreferPosition(PythonEvaluator):
    """Player 0 is rich in one given position only."""

    def __init__(self, target: bytes) -> None:
        super().__init__()
        self.target = target

    def estimate(self, state: GameState) -> tuple[list[float], None]:
        return ([100.0, 0.0] if state.state_bytes() == self.target else [0.0, 0.0]), None


def test_mcts_scores_its_leaves_with_the_given_evaluator() -> None:
    s = random_decision_states(2, 1, seed=3)[0]
    ev = ConstantEvaluator([12.0, 34.0], [0.25, 0.75])
    an = MctsBot(evaluator=ev, seed=1, iterations=80, calibrated=False).analyze(s)
    assert ev.calls >= 80     # a leaf estimate per iteration, then the PV's greedy moves
    assert an.iterations == 80
    for m in an.moves:
        assert m.expected_money == [12.0, 34.0]
        assert m.win_probability == [0.25, 0.75][s.current_player]


def test_mcts_threads_share_a_python_evaluator() -> None:
    s = random_decision_states(2, 1, seed=4)[0]
    ev = ConstantEvaluator([5.0, 5.0])
    an = MctsBot(ev, seed=1, iterations=60, threads=2, calibrated=False).analyze(s)
    assert ev.calls >= 60 and an.iterations == 60
    assert all(m.win_probability == pytest.approx(0.5) for m in an.moves)


def test_expectimax_scores_its_leaves_with_the_given_evaluator() -> None:
    s = random_decision_states(2, 1, seed=5)[0]
    ev = ConstantEvaluator([7.0, 9.0])
    an = ExpectimaxBot(evaluator=ev, depth=2, calibrated=False).analyze(s)
    assert ev.calls > 0
    win = ev.win_chances([7.0, 9.0])
    for m in an.moves:
        assert m.expected_money == [7.0, 9.0]
        assert m.win_probability == win[s.current_player]


def test_expectimax_follows_the_evaluator_to_its_choice() -> None:
    """The position the evaluator likes decides the move: every root move in turn."""
    s = next(x for x in random_decision_states(2, 10, seed=6) if x.current_player == 0
             and len(x.legal_actions()) >= 3)
    for a in s.legal_actions()[:3]:
        after = s.view(0)          # what the search sees: the opponent's cards hidden
        after.apply(a)
        bot = ExpectimaxBot(PreferPosition(after.state_bytes()), depth=1)
        assert bot.choose(s) == a


def test_rollout_evaluator_asks_its_inner_evaluator_at_the_cutoff() -> None:
    s = random_decision_states(2, 1, seed=7)[0]
    inner = ConstantEvaluator([1.0, 2.0])
    rollout = RolloutEvaluator(inner, policy="heuristic", cutoff=3)
    assert rollout.static() is inner and rollout.win_temperature == inner.win_temperature
    an = MctsBot(rollout, seed=2, iterations=40, calibrated=False).analyze(s)
    assert inner.calls >= 40 and an.iterations == 40
    assert all(m.expected_money == [1.0, 2.0] for m in an.moves if m.visits)
    with pytest.raises(ValueError, match="rollout policy"):
        RolloutEvaluator(inner, policy="smart", cutoff=0)


def test_a_model_rollout_draws_its_moves_from_the_networks_policy(tmp_path) -> None:
    """rollout=model: a network that puts nearly all its policy on one move makes the
    rollout play it (the inner evaluator, one decision on, sees the position after it);
    a high temperature flattens the draw toward uniform."""
    from gallerist.ai.search._model import ModelEvaluator
    from gallerist.ai.net.model_file import load_model, random_arrays, save_model
    s = random_decision_states(2, 1, seed=7)[0]
    legal = s.legal_actions()
    assert len(legal) >= 3
    target = legal[-1]
    after = s.copy()
    after.apply(target)
    arrays = random_arrays((8,), seed=1)
    arrays["policy_w"][:] = 0
    arrays["policy_b"][:] = 0
    arrays["policy_b"][target] = 8.0
    save_model(str(tmp_path / "fav.npz"), arrays, {})
    network = ModelEvaluator(load_model(str(tmp_path / "fav.npz")))

    def share(temperature: float) -> float:
        ev = RolloutEvaluator(PreferPosition(after.state_bytes()), policy="model", cutoff=1,
                              network=network, temperature=temperature)
        return sum(ev.values(s, seed=k)[0][0] == 100.0 for k in range(200)) / 200

    assert share(1.0) > 0.95                       # prior of the target ~ 0.999
    assert share(1000.0) < 2.0 / len(legal)        # nearly uniform
    with pytest.raises(ValueError, match="needs a network"):
        RolloutEvaluator(HeuristicEvaluator(), policy="model", cutoff=0)
    with pytest.raises(ValueError, match="needs a network"):
        RolloutEvaluator(HeuristicEvaluator(), policy="random", cutoff=0, network=network)
    for bad in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError, match="temperature must be"):
            RolloutEvaluator(HeuristicEvaluator(), policy="model", cutoff=0, network=network,
                             temperature=bad)


def test_a_model_rollout_draws_only_its_first_model_steps_from_the_policy(tmp_path) -> None:
    """rollout=model with model_steps=k: the first k rollout decisions come from the
    network's policy, the later ones uniformly. The network favours one move at each of
    two decisions in a row; the inner evaluator, two decisions on, is rich only after
    both: nearly always with k = 0 (every decision) or 2, about half the time with k = 1
    (the second of two legal moves drawn uniformly)."""
    from gallerist.ai.search._model import ModelEvaluator
    from gallerist.ai.net.model_file import load_model, random_arrays, save_model
    s = random_decision_states(2, 1, seed=7)[0]
    first = s.legal_actions()[-1]
    after = s.copy()
    after.apply(first)
    assert not after.is_chance() and len(after.legal_actions()) == 2
    second = after.legal_actions()[0]
    assert second not in s.legal_actions() and first not in after.legal_actions()
    after.apply(second)
    arrays = random_arrays((8,), seed=1)
    arrays["policy_w"][:] = 0
    arrays["policy_b"][:] = 0
    arrays["policy_b"][[first, second]] = 8.0
    save_model(str(tmp_path / "fav.npz"), arrays, {})
    network = ModelEvaluator(load_model(str(tmp_path / "fav.npz")))

    def share(steps: int) -> float:
        ev = RolloutEvaluator(PreferPosition(after.state_bytes()), policy="model", cutoff=2,
                              network=network, model_steps=steps)
        assert ev.model_steps == steps
        return sum(ev.values(s, seed=k)[0][0] == 100.0 for k in range(200)) / 200

    assert share(0) > 0.95 and share(2) > 0.95
    assert 0.3 < share(1) < 0.7
    for bad in ({"policy": "model", "network": network, "model_steps": -1},
                {"policy": "random", "model_steps": 2}):
        with pytest.raises(ValueError, match="model_steps must be >= 0 and needs policy 'model'"):
            RolloutEvaluator(HeuristicEvaluator(), cutoff=0, **bad)


def test_mix_evaluator_weights_its_two_estimates_each_on_its_own_copy() -> None:
    """MixEvaluator: weight * first + (1 - weight) * second, money and win alike; the
    first evaluator's playout does not move the position the second one sees."""
    s = random_decision_states(2, 1, seed=7)[0]
    first = ConstantEvaluator([80.0, 20.0], [0.9, 0.1])
    second = ConstantEvaluator([40.0, 60.0], [0.3, 0.7])
    for weight in (0.0, 0.25, 1.0):
        money, win = MixEvaluator(first, second, weight=weight).values(s)
        assert money == pytest.approx([40 + 40 * weight, 60 - 40 * weight])
        assert win == pytest.approx([0.3 + 0.6 * weight, 0.7 - 0.6 * weight])
    played = RolloutEvaluator(HeuristicEvaluator(), policy="random", cutoff=0)
    mixed = MixEvaluator(played, HeuristicEvaluator(), weight=0.0)
    assert mixed.values(s, seed=3) == HeuristicEvaluator().values(s)
    assert mixed.static() is mixed.second.static()
    for weight in (-0.1, 1.5, math.nan):
        with pytest.raises(ValueError, match="mix weight must be in"):
            MixEvaluator(first, second, weight=weight)


def test_explicit_default_evaluators_give_the_same_analyses() -> None:
    s = random_decision_states(3, 1, seed=8)[0]

    def key(an: ai.Analysis) -> list[tuple[int, int, list[float], float, list[int]]]:
        return [(m.action, m.visits, m.expected_money, m.win_probability, m.pv) for m in an.moves]

    for rollout, cutoff in (("random", 0), ("heuristic", 6)):
        ev = RolloutEvaluator(HeuristicEvaluator(), policy=rollout, cutoff=cutoff)
        built = MctsBot(seed=3, iterations=120, rollout=rollout, cutoff=cutoff).analyze(s)
        given = MctsBot(ev, seed=3, iterations=120).analyze(s)
        assert key(built) == key(given)
    built = ExpectimaxBot(seed=3, depth=2).analyze(s)
    given = ExpectimaxBot(HeuristicEvaluator(), seed=3, depth=2).analyze(s)
    assert key(built) == key(given)


def test_heuristic_values_exact_at_the_end_and_softmax_before() -> None:
    s = random_decision_states(2, 1, seed=9)[0]
    money, win = evaluate(s)
    assert win == HeuristicEvaluator().win_chances(money)
    z = sum(math.exp((m - max(money)) / WIN_TEMPERATURE) for m in money)
    assert win == pytest.approx([math.exp((m - max(money)) / WIN_TEMPERATURE) / z for m in money])
    hot = HeuristicEvaluator(win_temperature=1.0)
    assert hot.values(s)[0] == money
    end = engine.new_game(2, seed=4)
    while not end.is_terminal():
        end.apply_random_chance(1) if end.is_chance() else end.apply(end.legal_actions()[0])
    assert evaluate(end) == (list(map(float, end.money())), end.returns())


def test_solo_win_chance_is_the_estimated_return() -> None:
    ev = HeuristicEvaluator()
    assert ev.win_chances([50.0]) == [50.0 / (50.0 + SOLO_RETURN_SCALE)]
    assert ev.win_chances([-3.0]) == [0.0]


def test_evaluator_arguments_are_checked() -> None:
    with pytest.raises(TypeError, match="base class"):
        Evaluator()
    with pytest.raises(ValueError, match="win_temperature"):
        HeuristicEvaluator(win_temperature=0.0)
    with pytest.raises(ValueError, match="mcts evaluator must be an Evaluator"):
        MctsBot(evaluator="heuristic")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="expectimax evaluator must be an Evaluator"):
        ExpectimaxBot(evaluator=3)  # type: ignore[arg-type]


def test_option_defaults_have_one_home() -> None:
    """The evaluator is an object, not a spec option; the bots' defaults are their
    signatures' (and the shared win temperature is the evaluation's)."""
    assert "evaluator" not in ai.bot_options("mcts")
    assert "evaluator" not in ai.bot_options("expectimax")
    assert ai.bot_options("mcts")["win_temperature"] == WIN_TEMPERATURE
    assert ai.bot_options("expectimax")["win_temperature"] == WIN_TEMPERATURE
    assert HeuristicEvaluator().win_temperature == WIN_TEMPERATURE
    bot = ai.make_bot("mcts:rollout=heuristic,cutoff=5,win_temperature=3")
    assert isinstance(bot.evaluator, RolloutEvaluator)
    assert (bot.evaluator.policy, bot.evaluator.cutoff, bot.evaluator.win_temperature) == (1, 5, 3.0)
    assert ai.make_bot("expectimax:win_temperature=2").evaluator.win_temperature == 2.0


class _Broken(PythonEvaluator):
    """An evaluator whose estimate returns the wrong shape (a common slip)."""

    def estimate(self, state):
        return [0.0] * state.num_players   # not a (money, win) pair


@pytest.mark.parametrize("make", [
    lambda ev: MctsBot(ev, rollout="random", cutoff=1, iterations=50),
    lambda ev: ExpectimaxBot(ev, depth=1),
])
def test_failing_python_evaluator_is_one_clear_error(make, capsys):
    """An exception inside a Python evaluator cannot cross the C search; the bot raises
    it once, as a ValueError naming the evaluator, when its search returns."""
    state = engine.new_game(num_players=2, seed=3)
    bot = make(_Broken())
    with pytest.raises(ValueError, match=r"_Broken\.estimate failed during the search: "
                                         r"(TypeError|ValueError)"):
        bot.analyze(state)
    assert "Exception ignored" not in capsys.readouterr().err


def test_python_evaluator_without_estimate_says_so():
    """A PythonEvaluator subclass that forgot estimate() gets a message that says so."""
    class Empty(PythonEvaluator):
        pass
    with pytest.raises(ValueError, match="defines no estimate"):
        Empty().values(engine.new_game(num_players=2, seed=1))


def _one_move_from_the_end(seed: int) -> tuple[GameState, list[int]]:
    """A decision point of a random 2-player game where some move ends the game at once,
    and those moves."""
    import random
    rng = random.Random(seed)
    state = engine.new_game(num_players=2, seed=seed)
    while not state.is_terminal():
        if state.is_chance():
            state.apply_random_chance(rng.randrange(1 << 30))
            continue
        ending = []
        for a in state.legal_actions():
            after = state.clone_position()
            after.apply(a)
            if after.is_terminal():
                ending.append(a)
        if ending:
            return state, ending
        state.apply(rng.choice(state.legal_actions()))
    raise AssertionError("no game-ending move found")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_expectimax_and_greedy_score_the_end_exactly(seed):
    """A move that ends the game is worth the mover's real final money, not the heuristic's
    estimate of a finished game (which would count the final scoring twice). (The other
    seats' final money depends on their hidden cards, which the bots do not read.)"""
    state, ending = _one_move_from_the_end(seed)
    mover = state.current_player
    for analysis in (ExpectimaxBot(depth=1).analyze(state), ai.GreedyBot().analyze(state)):
        for move in analysis.moves:
            if move.action in ending:
                after = state.clone_position()
                after.apply(move.action)
                assert move.expected_money[mover] == pytest.approx(after.money()[mover]), \
                    analysis.bot


def test_mcts_tree_headers_fill_whole_cache_lines() -> None:
    """Root-parallel threads write their tree header at every iteration: each takes whole
    128-byte lines (posix_memalign'd), so no two threads' headers share one."""
    from gallerist.ai.search import _mcts as _mcts

    assert _mcts.TREE_HEADER_BYTES % 128 == 0
