"""What an MCTS hint says of its search: the depth of the tree under each move (the
decisions searched below it, chance not counted) and of the whole search, and, in its
resolved spec, the budget it applied."""
from __future__ import annotations

from gallerist import engine
from gallerist.ai.values import Budget
from gallerist.ai.bots.spec import make_bot, parse_spec, resolved_spec
from gallerist.server.limits import Limits
from gallerist.server.search import Search, resolve_budget


def test_each_move_reports_the_depth_searched_below_it() -> None:
    """A few thousand iterations reach several decisions below the moves they visit most;
    a move with one visit has depth 0; the search's depth is one more than its deepest
    move's."""
    state = engine.new_game(2, seed=7)
    bot = make_bot("mcts:threads=1", seed=3)
    analysis = bot.analyze(state, Budget(iterations=3000))
    visited = [m for m in analysis.moves if m.visits]
    assert visited[0].depth >= 3
    assert all(m.depth == 0 for m in visited if m.visits == 1)
    assert analysis.depth == 1 + max(m.depth for m in visited)
    assert all(m.depth <= m.visits for m in visited)


def test_the_resolved_spec_says_the_budget_applied() -> None:
    """The spec a hint reports carries the budget its search applied, not the bot's
    defaults (it read iterations=0,time_ms=0.0 for a 300 ms search)."""
    state = engine.new_game(2, seed=7)
    bot = make_bot("mcts:threads=1", seed=3)
    budget, _ = resolve_budget(bot, Budget(time_ms=300), Limits(), None)
    search = Search(bot, state, budget, spec="mcts:threads=1")
    options = parse_spec(search.bot_spec)[1]
    assert options["time_ms"] == 300.0 and options["iterations"] == 0
    plain = parse_spec(resolved_spec("mcts:threads=1", bot, 2))[1]
    assert plain["time_ms"] == 0.0   # without a budget: the bot's own options
