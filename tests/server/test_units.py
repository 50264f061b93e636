"""The service's building blocks without gRPC: budgets, limits, slots, searches, error
paths."""
from __future__ import annotations

import threading

import pytest

from gallerist import engine
from gallerist.ai import make_bot
from gallerist.ai.values import Budget
from gallerist.server.convert import state_error
from gallerist.server.limits import Limits, RequestError, check_budget, check_interval, check_spec
from gallerist.server.search import Search, resolve_budget
from gallerist.server.slots import SearchSlots

LIMITS = Limits()


@pytest.mark.parametrize("spec,requested,search_ms,expected,limited", [
    # all zeros: the bot's defaults; the time always capped by max_time_ms
    ("mcts", Budget(), None, Budget(iterations=1000, time_ms=10_000), False),
    ("mcts:iterations=0", Budget(), None, Budget(iterations=1000, time_ms=10_000), False),
    ("mcts:time_ms=300,iterations=0", Budget(), None, Budget(time_ms=300), False),
    ("expectimax", Budget(), None, Budget(depth=2, time_ms=10_000), False),
    ("expectimax:depth=4", Budget(depth=3), None, Budget(depth=3, time_ms=10_000), False),
    ("greedy", Budget(), None, Budget(time_ms=10_000), False),
    # the deadline shortens the time, never below the minimum
    ("mcts", Budget(time_ms=5000), 120.0, Budget(time_ms=120), True),
    ("mcts", Budget(time_ms=100), 120.0, Budget(time_ms=100), False),
    ("mcts", Budget(iterations=50), 0.0, Budget(iterations=50, time_ms=0.5), True),
])
def test_resolve_budget(spec: str, requested: Budget, search_ms: float | None,
                        expected: Budget, limited: bool) -> None:
    """Zeros mean the bot's defaults; time is capped by the limit and the deadline."""
    budget, deadline_limited = resolve_budget(make_bot(spec), requested, LIMITS, search_ms)
    assert budget == expected and deadline_limited == limited


def test_search_ms_keeps_a_reserve() -> None:
    """The search gets the time to the deadline less 15 ms and 10%."""
    assert LIMITS.search_ms(None) is None
    assert LIMITS.search_ms(1.0) == pytest.approx(1000 - 15 - 100)
    assert LIMITS.search_ms(0.001) == 0.0


def test_limits_checks() -> None:
    """Budgets, intervals and specs beyond the limits are RequestErrors naming the
    field; bad limits fail at construction."""
    with pytest.raises(RequestError, match=r"^budget.time_ms: 10001 is above"):
        check_budget(0, 10_001, 0, LIMITS)
    assert check_budget(5, 6, 2, LIMITS) == Budget(iterations=5, time_ms=6, depth=2)
    assert check_interval(0, LIMITS) == 250
    with pytest.raises(RequestError, match="report_interval_ms"):
        check_interval(10_001, LIMITS)
    assert check_spec("mcts:iterations=5,c=0.5", LIMITS) == ("mcts", {"iterations": 5, "c": 0.5})
    with pytest.raises(RequestError, match=r"^bot_spec: option time_ms=20000.0 is above"):
        check_spec("mcts:time_ms=20000", LIMITS)
    with pytest.raises(ValueError):
        Limits(max_time_ms=0)
    with pytest.raises(RequestError, match="default_bot"):
        Limits(default_bot="nope")


def test_state_error_paths() -> None:
    """Engine validation messages become paths inside the request."""
    assert str(state_error(engine.InvalidStateError("players[1].money: 5 is bad"))) == \
        "state.players[1].money: 5 is bad"
    assert str(state_error(engine.InvalidStateError("state: breaks an invariant"))) == \
        "state: breaks an invariant"
    assert str(state_error(engine.InvalidStateError("expected a message, got int"))) == \
        "state: expected a message, got int"


def test_slots_never_block_and_stop_all() -> None:
    """Slots are taken or refused at once; stop_all stops running searches and refuses
    new ones."""
    slots = SearchSlots(3)
    assert slots.try_acquire(2) and not slots.try_acquire(2) and slots.try_acquire(1)
    slots.release(3)
    stopped = threading.Event()

    class Fake:
        def stop(self) -> None:
            stopped.set()

    with slots.running(Fake()):
        assert slots.stop_all() == 1
    assert stopped.is_set() and not slots.try_acquire(1)


def test_search_stopped_before_start_does_little(demo: engine.GameState) -> None:
    """A search stopped before it runs answers at once with a minimal analysis."""
    search = Search(make_bot("mcts"), demo, Budget(iterations=100_000, time_ms=10_000))
    search.stop()
    report = search.run()
    assert report.stopped and report.final and report.elapsed_ms < 100
    assert len(report.analysis.moves) == len(demo.legal_actions())


def test_search_reports_from_another_thread_stop(demo: engine.GameState) -> None:
    """stop() from another thread ends a streaming MCTS search with a final report."""
    search = Search(make_bot("mcts"), demo, Budget(time_ms=10_000))
    timer = threading.Timer(0.2, search.stop)
    timer.start()
    reports = list(search.reports(50))
    assert reports[-1].final and reports[-1].stopped
    assert reports[-1].elapsed_ms < 1000


def test_state_cache_reuses_validated_states(demo: engine.GameState) -> None:
    """The cache validates a message once, returns independent copies, evicts the least
    recently used, and lets invalid states through to their error every time."""
    from gallerist.server.state_cache import StateCache
    cache = StateCache(2)
    msg = demo.to_proto()
    first = cache.get(msg)
    first.apply(first.legal_actions()[0])          # a copy: the cached state is untouched
    assert cache.get(msg) == demo and (cache.hits, cache.misses) == (1, 1)
    for seed in (1, 2):
        cache.get(engine.new_game(2, seed=seed).to_proto())
    cache.get(msg)
    assert cache.misses == 4                         # demo was evicted
    bad = demo.to_proto()
    bad.num_players = 9
    for _ in range(2):
        with pytest.raises(engine.InvalidStateError, match="num_players"):
            cache.get(bad)
    assert StateCache(0).get(msg) == demo


def test_state_cache_serves_the_servers_own_states(demo: engine.GameState) -> None:
    """A state the server made (put) is served from the cache when its message comes
    back, also after a round trip through bytes, as an independent copy."""
    from gallerist.v1 import state_pb2
    from gallerist.server.state_cache import StateCache
    cache = StateCache(4)
    state = demo.copy()
    state.apply(state.legal_actions()[0])
    msg = state.to_proto()
    cache.put(msg, state)
    back = state_pb2.GameState.FromString(msg.SerializeToString())
    got = cache.get(back)
    assert got == state and got.history == state.history and got is not state
    assert (cache.hits, cache.misses) == (1, 0)
    got.apply(got.legal_actions()[0])
    assert cache.get(back) == state
    StateCache(0).put(msg, state)                   # disabled: nothing kept, no error


def test_bots_report_through_one_protocol(demo: engine.GameState) -> None:
    """`analyses`: MCTS reports partial analyses (cumulative iterations, one tree) and a
    final one; expectimax one per completed depth; a bot that cannot report partially
    (greedy) gives only the final one. Every bot has stop() and a default budget."""
    mcts = list(make_bot("mcts", seed=1).analyses(demo, Budget(iterations=3000), 1.0))
    assert [a.final for a in mcts] == [False] * (len(mcts) - 1) + [True] and len(mcts) > 1
    assert [a.iterations for a in mcts] == sorted(a.iterations for a in mcts)
    assert mcts[-1].iterations == 3000
    deep = list(make_bot("expectimax:depth=2").analyses(demo, Budget(time_ms=60_000), 0.001))
    assert [(a.depth, a.final) for a in deep] == [(1, False), (2, True)]
    greedy = make_bot("greedy")
    assert [a.final for a in greedy.analyses(demo, None, 1.0)] == [True]
    greedy.stop()
    assert greedy.stop_requested
    assert make_bot("mcts:time_ms=40").default_budget() == Budget(time_ms=40)
    assert make_bot("mcts").default_budget() == Budget(iterations=1000)
    assert make_bot("mcts").budget_for(Budget(depth=3)) == Budget(iterations=1000, depth=3)
    assert make_bot("expectimax:depth=3").budget_for(Budget()) == Budget(depth=3)
