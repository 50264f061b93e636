"""The root playouts of greedy and random stay within the time budget: like expectimax's,
they stop after a quarter of it, so a large `playouts` cannot make a short search long."""
import pytest

import gallerist.ai.bots.base as bot_module
from gallerist import engine
from gallerist.ai.bots.spec import make_bot


@pytest.fixture()
def played(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, float, int]]:
    """Every root playout call of the bots: (playouts asked, time limit ms, games played)."""
    calls: list[tuple[int, float, int]] = []
    real = bot_module.playout_shares

    def counting(state, viewer, count, max_ms=0.0, seed=0):  # type: ignore[no-untyped-def]
        shares, games = real(state, viewer, count, max_ms, seed)
        calls.append((count, max_ms, games))
        return shares, games

    monkeypatch.setattr(bot_module, "playout_shares", counting)
    return calls


@pytest.mark.parametrize("name", ["greedy", "random"])
def test_root_playouts_stop_at_a_quarter_of_the_time_budget(name, played):
    """With playouts=1000 and a 3 ms budget the playouts get 0.75 ms and play far fewer
    than 1000 games (1000 take 40-90 ms from a new game); without a time budget they all
    run."""
    state = engine.new_game(4, seed=1)
    bot = make_bot(f"{name}:playouts=1000", seed=1)
    analysis = bot.analyze(state, {"time_ms": 3})
    assert len(analysis.moves) == len(state.legal_actions())
    [(count, max_ms, games)] = played
    assert count == 1000 and max_ms == pytest.approx(0.75)
    assert 1 <= games < 1000
    played.clear()
    make_bot(f"{name}:playouts=50", seed=1).analyze(state)
    assert played == [(50, 0.0, 50)]


@pytest.mark.parametrize("name", ["greedy", "random", "expectimax:depth=1"])
def test_a_stopped_bot_plays_one_root_playout(name, played):
    """After stop() (a cancelled or shut-down search) the root playouts do the least
    work, one game, whatever `playouts` and the budget say."""
    bot = make_bot(f"{name}{',' if ':' in name else ':'}playouts=1000", seed=1)
    bot.stop()
    bot.analyze(engine.new_game(2, seed=1))
    assert [games for _, _, games in played] == [1]
