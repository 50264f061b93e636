"""A calibrated number never leaves the range of the outcomes the search saw after the
move, so near the end it closes in on them: the solo game where the map said $123 while
every outcome left was $110 at most."""
from __future__ import annotations

from gallerist import engine
from gallerist.ai.arena.play import play_game
from gallerist.ai.values import Budget
from gallerist.ai.bots.spec import make_bot


def test_calibrated_money_stays_within_what_the_search_saw_near_the_end() -> None:
    """`gallerist play greedy --seed 4` solo, then each late decision searched (MCTS, 300
    iterations, calibrated): every visited move's expected money lies between the lowest
    and highest final money the search backed up through it, and the best move's number
    is never above the best outcome the search saw."""
    final = play_game([make_bot("greedy", seed=4)], seed=4)
    history = list(final.history)
    state = engine.new_game(num_players=1, seed=4)
    checked = 0
    for ply, action in enumerate(history):
        if ply >= len(history) - 12 and not state.is_chance() and len(state.legal_actions()) > 1:
            bot = make_bot("mcts:threads=1", seed=ply)
            analysis = bot.analyze(state, Budget(iterations=300))
            for m in analysis.moves:
                if m.visits and m.money_low:
                    assert m.money_low[0] - 1e-6 <= m.expected_money[0] <= m.money_high[0] + 1e-6, (
                        ply, m.notation, m.expected_money, m.money_low, m.money_high)
                    checked += 1
        state.apply(action)
    assert checked >= 5
