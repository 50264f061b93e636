"""OpenSpiel's bots as arena entries: specs, analysis, hidden cards, whole games."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from gallerist import engine
from gallerist.ai.arena.tournament import replay, run_tournament
from gallerist.ai.values import Analysis
from gallerist.ai.interop.openspiel_bots import OpenSpielMctsBot, OpenSpielRandomBot
from gallerist.ai.bots.spec import BOTS, bot_options, make_bot

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _decision(players: int = 2, seed: int = 3, steps: int = 25) -> engine.GameState:
    """A mid-game decision point with several legal moves."""
    state = engine.new_game(num_players=players, seed=seed)
    k = 0
    while k < steps or state.is_chance() or len(state.legal_actions()) < 3:
        if state.is_chance():
            state.apply(state.chance_outcomes()[-1][0])
        else:
            legal = state.legal_actions()
            state.apply(legal[k % len(legal)])
            k += 1
    return state


def test_import_ai_does_not_need_open_spiel() -> None:
    code = ("import sys; from gallerist import ai; "
            "assert 'pyspiel' not in sys.modules and 'open_spiel' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_specs() -> None:
    assert BOTS["openspiel-mcts"] is OpenSpielMctsBot and BOTS["openspiel-random"] is OpenSpielRandomBot
    assert bot_options("openspiel-mcts")["simulations"] == 1000
    bot = make_bot("openspiel-mcts:simulations=20,uct_c=2,impl=python", seed=4)
    assert (bot.simulations, bot.uct_c, bot.impl, bot.seed) == (20, 2.0, "python", 4)
    with pytest.raises(ValueError, match="unknown option 'depth' for bot 'openspiel-mcts'"):
        make_bot("openspiel-mcts:depth=2")
    with pytest.raises(ValueError, match="expected int"):
        make_bot("openspiel-mcts:simulations=many")
    with pytest.raises(ValueError, match="impl"):
        make_bot("openspiel-mcts:impl=rust")
    with pytest.raises(ValueError, match="no time limit"):
        make_bot("openspiel-mcts:impl=python,time_ms=10")


def _check_analysis(analysis: Analysis, state: engine.GameState, chosen: int) -> None:
    legal = state.legal_actions()
    assert sorted(m.action for m in analysis.moves) == legal
    assert analysis.best.action == chosen
    assert analysis.player == state.current_player
    for m in analysis.moves:
        assert m.pv[0] == m.action and len(m.expected_money) == state.num_players
        assert 0.0 <= m.win_probability <= 1.0


@pytest.mark.parametrize("impl, players", [("cpp", 2), ("cpp", 3), ("python", 2)])
def test_mcts_analysis_lists_every_move_with_the_choice_first(impl: str, players: int) -> None:
    state = _decision(players)
    spec = f"openspiel-mcts:simulations={40 if impl == 'cpp' else 8},impl={impl}"
    analysis = make_bot(spec, seed=11).analyze(state)
    chosen = make_bot(spec, seed=11).choose(state)            # same seed, same search
    _check_analysis(analysis, state, chosen)
    assert analysis.iterations == (40 if impl == "cpp" else 8)
    assert sum(m.visits for m in analysis.moves) == analysis.iterations - 1   # the first one evaluates the root


def test_mcts_never_reads_the_opponents_cards() -> None:
    """Same seed, positions differing only in the opponents' cards: same analysis."""
    state = _decision(3, seed=8)
    player = state.current_player
    other = state.resample_hidden(player, seed=99)
    assert other.state_bytes() != state.state_bytes()
    a = make_bot("openspiel-mcts:simulations=30", seed=2).analyze(state)
    b = make_bot("openspiel-mcts:simulations=30", seed=2).analyze(other)
    assert [(m.action, m.visits, m.value) for m in a.moves] == [(m.action, m.visits, m.value) for m in b.moves]


def test_mcts_budgets() -> None:
    state = _decision(2)
    bot = make_bot("openspiel-mcts", seed=1)
    assert bot.analyze(state, {"iterations": 12}).iterations == 12
    timed = bot.analyze(state, {"time_ms": 60})
    assert timed.iterations >= 2 and timed.elapsed_ms >= 55
    with pytest.raises(ValueError, match="no time limit"):
        make_bot("openspiel-mcts:impl=python").analyze(state, {"time_ms": 10})
    with pytest.raises(ValueError, match="chance"):
        bot.analyze(_chance_state())


def test_mcts_time_budget_shorter_than_one_simulation() -> None:
    """The root is expanded by the second simulation; with none, the move is still legal."""
    state = _decision(2)
    bot = make_bot("openspiel-mcts:time_ms=0.001", seed=3)
    analysis = bot.analyze(state)
    assert analysis.iterations == 1 and all(m.visits == 0 for m in analysis.moves)
    assert sorted(m.action for m in analysis.moves) == state.legal_actions()
    assert bot.choose(state) in state.legal_actions()


def _chance_state() -> engine.GameState:
    state = engine.new_game(num_players=2, seed=1)
    while not state.is_chance():
        state.apply(state.legal_actions()[0])
    return state


def test_random_bot_analysis() -> None:
    state = _decision(4)
    analysis = make_bot("openspiel-random", seed=5).analyze(state)
    _check_analysis(analysis, state, make_bot("openspiel-random", seed=5).choose(state))


@pytest.mark.parametrize("bots", [["openspiel-random", "random"], ["openspiel-mcts:simulations=20", "random"]])
def test_openspiel_bots_play_complete_arena_games(bots: list[str]) -> None:
    tournament = run_tournament(bots, players=2, games=2, workers=1, seed=3)
    assert len(tournament.records) == 2 and not tournament.interrupted
    assert {tuple(r.bots) for r in tournament.records} == {tuple(bots), tuple(bots[::-1])}
    for record in tournament.records:
        final = replay(record)
        assert final.is_terminal() and abs(sum(record.returns) - 1.0) < 1e-9
    report = tournament.report()
    assert sum(s["games"] for s in report["summary"]) == 4
