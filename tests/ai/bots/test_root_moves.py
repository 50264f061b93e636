"""The Bot protocol's root restriction (`moves=`, KataGo's allowMoves/avoidMoves): every
bot searches only the given root moves, inside the search, and bad restrictions are
errors naming the moves."""
from __future__ import annotations

import random

import pytest

from gallerist import ai, engine
from gallerist.ai.bots.base import BaseBot, MoveRestrictionError, restrict_moves
from gallerist.engine.actions import action_to_string


def _position(min_moves: int = 5, seed: int = 3) -> engine.GameState:
    """A 2-player decision point with at least `min_moves` legal moves."""
    rng = random.Random(seed)
    s = engine.new_game(num_players=2, seed=seed)
    while True:
        if s.is_chance():
            s.apply_random_chance(rng.randrange(1 << 30))
        elif len(s.legal_actions()) >= min_moves and len(s.history) > 10:
            return s
        else:
            s.apply(rng.choice(s.legal_actions()))


def test_mcts_spends_every_iteration_below_the_allowed_moves() -> None:
    """MCTS with moves=[a, b]: the root has only a and b, so their visits add up to every
    iteration (filtering the output of a full search would leave visits elsewhere)."""
    s = _position()
    legal = s.legal_actions()
    allowed = [legal[-1], legal[-2]]
    a = ai.make_bot("mcts", seed=1).analyze(s, {"iterations": 400}, moves=allowed)
    assert sorted(m.action for m in a.moves) == sorted(allowed)
    assert sum(m.visits for m in a.moves) == a.iterations == 400
    assert a.root.expected_money == a.best.expected_money


def test_mcts_single_allowed_move_gets_all_visits_and_restrictions_do_not_share_trees() -> None:
    """A restricted root is not reused for an unrestricted search of the same position
    (and vice versa): each search's tree matches its own restriction."""
    s = _position()
    legal = s.legal_actions()
    bot = ai.make_bot("mcts", seed=2)
    one = bot.analyze(s, {"iterations": 200}, moves=[legal[0]])
    assert [(m.action, m.visits) for m in one.moves] == [(legal[0], 200)]
    full = bot.analyze(s, {"iterations": 200})
    assert sorted(m.action for m in full.moves) == legal
    assert sum(m.visits for m in full.moves) == 200


def test_mcts_stream_keeps_the_restriction_across_chunks() -> None:
    """analyses(moves=...) continues one restricted tree: every report lists only them."""
    s = _position()
    allowed = s.legal_actions()[:2]
    reports = list(ai.make_bot("mcts", seed=1).analyses(s, {"iterations": 3000}, 5.0,
                                                         moves=allowed))
    assert reports[-1].final and reports[-1].iterations == 3000
    for r in reports:
        assert sorted(m.action for m in r.moves) == sorted(allowed)


def test_expectimax_searches_only_the_allowed_moves() -> None:
    """Expectimax with one allowed move searches fewer nodes than with all of them, and
    lists only it, with the same value as in the full search (same depth)."""
    s = _position()
    legal = s.legal_actions()
    full = ai.make_bot("expectimax:depth=2", seed=1).analyze(s)
    one = ai.make_bot("expectimax:depth=2", seed=1).analyze(s, moves=[legal[1]])
    assert [m.action for m in one.moves] == [legal[1]]
    assert one.nodes < full.nodes
    same = next(m for m in full.moves if m.action == legal[1])
    assert one.moves[0].expected_money == pytest.approx(same.expected_money)


@pytest.mark.parametrize("spec", ["greedy", "random"])
def test_greedy_and_random_choose_among_the_allowed_moves(spec: str) -> None:
    """Greedy scores and random orders only the allowed moves; the chosen (first) move is
    one of them, whichever the full search would have picked."""
    s = _position()
    legal = s.legal_actions()
    full_best = ai.make_bot(spec, seed=1).analyze(s).best.action
    allowed = [a for a in legal if a != full_best][:2]
    a = ai.make_bot(spec, seed=1).analyze(s, moves=allowed)
    assert sorted(m.action for m in a.moves) == sorted(allowed)
    assert a.best.action in allowed
    assert len(a.root.expected_money) == 2


def test_restrict_moves_allow_avoid_and_their_errors() -> None:
    """allow keeps only the given moves (ids or notation), avoid drops them; unknown or
    illegal moves, both lists, or no move left are errors naming the field and moves."""
    s = _position()
    legal = s.legal_actions()
    assert restrict_moves(s) is None
    assert restrict_moves(s, allow=[action_to_string(legal[1]), legal[0]]) == [legal[1], legal[0]]
    assert restrict_moves(s, avoid=[legal[0]]) == legal[1:]
    illegal = next(a for a in range(183) if a not in legal)
    with pytest.raises(MoveRestrictionError, match=r"allow_moves: 'bogus' \(unknown\), '"
                       + action_to_string(illegal) + r"' \(not legal here\)"):
        restrict_moves(s, allow=["bogus", illegal])
    with pytest.raises(MoveRestrictionError, match="avoid_moves: leaves no legal move"):
        restrict_moves(s, avoid=legal)
    with pytest.raises(MoveRestrictionError, match="not both"):
        restrict_moves(s, allow=legal[:1], avoid=legal[1:2])


def test_root_moves_rejects_empty_repeated_or_illegal_moves() -> None:
    """BaseBot.root_moves, the one check every bot applies to `moves`."""
    s = _position()
    legal = s.legal_actions()
    illegal = next(a for a in range(183) if a not in legal)
    assert BaseBot.root_moves(s, None) == legal
    for bad, text in (([], "empty"), ([legal[0], legal[0]], "repeats"), ([illegal], "not legal")):
        with pytest.raises(MoveRestrictionError, match=text):
            BaseBot.root_moves(s, bad)
        with pytest.raises(MoveRestrictionError, match=text):
            ai.make_bot("mcts", seed=0).analyze(s, {"iterations": 10}, moves=bad)


def test_openspiel_bots_refuse_a_restriction_they_cannot_search() -> None:
    """OpenSpiel's MCTS always searches every root move: a real restriction is refused
    (not filtered afterwards); all legal moves is no restriction."""
    from gallerist.ai.interop.openspiel_bots import OpenSpielRandomBot

    s = _position()
    bot = OpenSpielRandomBot(seed=1)
    with pytest.raises(MoveRestrictionError, match="cannot restrict"):
        bot.analyze(s, moves=s.legal_actions()[:1])
    assert len(bot.analyze(s, moves=s.legal_actions()).moves) == len(s.legal_actions())
