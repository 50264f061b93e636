"""Explanations of suggested moves (ai.explain) over random games of 1 to 4 players: every
explained move has one, its amounts are the engine's after the search's own line, its
probabilities and money are the analysis's, and it never depends on a card hidden from
the mover."""
from __future__ import annotations

import random

import pytest

from gallerist import engine
from gallerist.ai.bots.spec import make_bot
from gallerist.ai.explain import MAX_EXPLAINED, explain_analysis, explain_move
from gallerist.engine.line_effects import play_line, quantities


def _positions(players: int, seed: int, count: int = 3) -> list[engine.GameState]:
    """`count` decision points of a random game, spread over its first 150 steps."""
    rng = random.Random(seed)
    s = engine.new_game(players, seed)
    out = []
    for step in range(150):
        if s.is_terminal():
            break
        if s.is_chance():
            s.apply_random_chance(rng.randrange(1 << 30))
            continue
        if step % 50 == 25:
            out.append(s.clone_position())
        s.apply(rng.choice(s.legal_actions()))
    return out[:count]


def _other_cards(state: engine.GameState, seat: int) -> engine.GameState:
    """`state` with every other seat's Curator and Art Dealer cards changed."""
    raw = state._raw()
    for p, pl in enumerate(raw["players"]):
        if p != seat:
            pl["curator"] = (pl["curator"] + 1) % 4
            pl["dealer"] = (pl["dealer"] + 2) % 4
    return engine.GameState._from_raw(raw)


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_every_suggested_move_is_explained_with_the_engines_and_the_searchs_numbers(players):
    bot = make_bot("mcts:iterations=300", seed=5)
    for state in _positions(players, seed=100 + players):
        a = bot.analyze(state)
        explained = explain_analysis(state, a)
        assert len(explained) == min(MAX_EXPLAINED, len(a.moves))
        me = a.player
        view = state.view(me)
        start = quantities(view, me)
        for i, (m, e) in enumerate(zip(a.moves, explained)):
            assert m.explanation is e and e.action == m.action and e.words
            end = quantities(play_line(view, m.pv), me)
            for r in e.now + e.scoring:      # amounts: the engine's, before and after
                key = (r.kind, r.subject)
                if r.kind == "event":        # a scoring or Lacerda's turn happened
                    assert (r.before, r.after) == (0, 1) and start[key] != end[key]
                    continue
                assert (r.before, r.after) == (start[key], end[key])
                assert r.change != 0
            assert len(e.line) <= len(m.line_after)
            if len(a.moves) == 1:
                assert e.versus is None
                continue
            other = a.moves[1] if i == 0 else a.moves[0]
            v = e.versus
            assert v.action == other.action
            assert v.description == engine.describe_move(view, other.action)
            assert v.expected_money == pytest.approx(
                m.expected_money[me] - other.expected_money[me])
            if players == 1:
                assert v.win_probability is None
            else:
                assert v.win_probability == pytest.approx(
                    m.win_probability - other.win_probability)
            other_end = quantities(play_line(view, other.pv), me)
            for r in v.differences:
                if r.kind != "place" or (r.kind, r.subject) in end:
                    assert (r.before, r.after) == (other_end[(r.kind, r.subject)],
                                                   end[(r.kind, r.subject)])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_explanations_never_depend_on_a_card_hidden_from_the_mover(players):
    """The same moves explained on the true position and on one where every other seat
    holds other Curator and Art Dealer cards read the same, word for word."""
    bot = make_bot("mcts:iterations=200", seed=9)
    for state in _positions(players, seed=200 + players, count=2):
        a = bot.analyze(state)
        me = a.player
        changed = _other_cards(state, me)
        for i, m in enumerate(a.moves[:3]):
            other = a.moves[1] if i == 0 and len(a.moves) > 1 else a.moves[0]
            other = None if other is m else other
            assert explain_move(state, me, m, other) == explain_move(changed, me, m, other)


def test_the_line_after_the_turn_is_the_searchs_and_in_words():
    """A well-searched move's expected line past the turn (MoveInfo.line_after) replays
    from the end of its turn, each step visited often enough, and the explanation says
    each step with who takes it."""
    state = _positions(3, seed=7, count=1)[0]
    a = make_bot("mcts:iterations=8000", seed=1).analyze(state)
    move = next((m for m in a.moves if m.line_after), None)
    assert move is not None, "8,000 iterations reach past the mover's turn"
    walk = play_line(state.view(a.player), move.pv)
    for action in move.line_after:
        assert action in (walk.legal_actions() if not walk.is_chance()
                          else [x for x, _ in walk.chance_outcomes()])
        walk.apply(action)
    e = explain_move(state, a.player, move)
    assert len(e.line) == len(move.line_after)
    assert all(step.split(": ", 1)[0] in ("You", "P1", "P2", "Chance") for step in e.line)
