"""The root playouts behind the calibrated numbers of the heuristic bots (expectimax,
greedy, random): `ai.search._rollout.playout_shares` and the bots' `playouts` option."""
import random

import pytest

from bot_positions import decision_point
from gallerist import engine
from gallerist.ai import ExpectimaxBot, GreedyBot, MctsBot, RandomBot
from gallerist.ai.search._rollout import playout_shares
from gallerist.ai.calibration.maps import PACKAGED, Calibration, SeatMap
from gallerist.ai.bots.spec import make_bot

HEURISTIC_BOTS = {
    "expectimax": lambda **kw: ExpectimaxBot(depth=1, seed=3, **kw),
    "greedy": lambda **kw: GreedyBot(seed=3, **kw),
    "random": lambda **kw: RandomBot(seed=3, **kw),
}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_playout_shares_are_win_shares_that_sum_to_one(players):
    state = decision_point(players, seed=players, skip=20)
    shares, played = playout_shares(state, 0, 60, 0.0, 5)
    assert played == 60 and len(shares) == players
    assert all(0.0 <= w <= 1.0 for w in shares)
    assert sum(shares) == pytest.approx(1.0)   # random games end (R-END), one result each


def test_playout_shares_are_deterministic_by_seed():
    state = decision_point(2, seed=1, skip=10)
    assert playout_shares(state, 0, 40, 0.0, 9) == playout_shares(state, 0, 40, 0.0, 9)
    assert playout_shares(state, 0, 40, 0.0, 9) != playout_shares(state, 0, 40, 0.0, 10)


def test_playout_shares_never_read_the_hidden_cards_of_others():
    """Each playout deals the cards the viewer cannot see anew (R-SETUP hidden cards), so
    the true cards and a view that hides them give the same result from the same seed."""
    state = decision_point(3, seed=4, skip=15)
    assert playout_shares(state, 1, 50, 0.0, 2) == playout_shares(state.view(1), 1, 50, 0.0, 2)


def test_playout_shares_stop_at_the_time_limit():
    state = engine.new_game(2, 1)
    shares, played = playout_shares(state, 0, 1_000_000, 1.0, 1)
    assert 1 <= played < 1_000_000
    assert sum(shares) == pytest.approx(1.0)


def test_a_finished_game_gives_its_exact_result():
    rng = random.Random(3)
    state = engine.new_game(2, 3)
    while not state.is_terminal():
        if state.is_chance():
            state.apply_random_chance(rng.randrange(1 << 30))
        else:
            state.apply(rng.choice(state.legal_actions()))
    assert playout_shares(state, 0, 5)[0] == pytest.approx(list(state.returns()))


@pytest.mark.parametrize("viewer, count, max_ms, problem", [
    (2, 10, 0.0, "viewer must be a seat 0..1, got 2"),
    (-1, 10, 0.0, "viewer must be a seat 0..1, got -1"),
    (0, 0, 0.0, "count must be 1..1000000, got 0"),
    (0, 10, float("nan"), "max_ms must be >= 0"),
])
def test_playout_shares_refuse_bad_arguments_by_name(viewer, count, max_ms, problem):
    with pytest.raises(ValueError, match=problem.replace("(", r"\(").replace(".", r"\.")):
        playout_shares(engine.new_game(2, 1), viewer, count, max_ms)


@pytest.mark.parametrize("name", sorted(HEURISTIC_BOTS))
def test_heuristic_bots_report_their_root_playouts(name):
    state = decision_point(2, seed=6, skip=20)
    a = HEURISTIC_BOTS[name]().analyze(state)
    assert len(a.playout_win) == 2 and sum(a.playout_win) == pytest.approx(1.0)
    assert a.playout_win == HEURISTIC_BOTS[name]().analyze(state).playout_win   # seeded
    assert HEURISTIC_BOTS[name]().analyze(decision_point(1, seed=2, skip=10)).playout_win == []


def test_mcts_reports_its_root_statistics_as_playout_shares():
    state = decision_point(2, seed=6, skip=20)
    a = MctsBot(iterations=200, seed=1, calibrated=False).analyze(state)
    total = sum(m.visits for m in a.moves)
    want = [sum(m.visits * m.win_probabilities[i] for m in a.moves if m.visits) / total
            for i in range(2)]
    assert a.playout_win == pytest.approx(want)


@pytest.mark.parametrize("name", sorted(HEURISTIC_BOTS))
def test_the_win_map_of_a_heuristic_bot_follows_its_playouts(name):
    """With a map that weighs only the playouts' shares, the reported win probability is
    the softmax of their logs: the playouts, not the heuristic's money, decide it."""
    cal = Calibration.load(PACKAGED)
    kind = "expectimax" if name == "expectimax" else "static"
    maps = dict(cal.maps)
    maps[(kind, 2)] = SeatMap(win=(1.0, 0.0, 0.0, 0.0, 0.0, 0.0), money=cal.maps[(kind, 2)].money)
    bot = HEURISTIC_BOTS[name]()
    bot.calibration = Calibration(maps, cal.turns)
    a = bot.analyze(decision_point(2, seed=8, skip=30))
    floor = [max(w, 0.01) for w in a.playout_win]
    want = [w / sum(floor) for w in floor]
    assert all(m.win_probabilities == pytest.approx(want) for m in a.moves)


@pytest.mark.parametrize("spec, problem", [
    ("greedy:playouts=-1", "greedy option playouts must be an integer 0..100000, got -1"),
    ("expectimax:playouts=0", "expectimax option playouts=0 needs calibrated=false"),
    ("random:playouts=0", "random option playouts=0 needs calibrated=false"),
])
def test_the_playouts_option_is_checked_by_name(spec, problem):
    with pytest.raises(ValueError, match=problem):
        make_bot(spec)


def test_no_playouts_for_raw_numbers():
    bot = make_bot("greedy:calibrated=false,playouts=0")
    assert bot.analyze(decision_point(2, seed=6, skip=20)).playout_win == []


def test_expectimax_choice_is_the_analysis_best_move_at_a_fixed_depth():
    """The playouts only feed the reported numbers: the ranking is the search's."""
    state = decision_point(2, seed=9, skip=25)
    bot = ExpectimaxBot(depth=2, seed=1)
    assert bot.choose(state) == bot.analyze(state).best.action
    assert ExpectimaxBot(depth=2, seed=1, calibrated=False, playouts=0).analyze(state).best.action \
        == bot.analyze(state).best.action
