"""Running one search for a hint: a bot, a position, a budget sized by limits and the
client's deadline; stoppable from another thread; whole (`Search.run`) or as a stream of
partial reports (`Search.reports`).

This module knows nothing of gRPC: the servicer, the command line (`gallerist hint
--local`) and the benchmark all use it.
"""
from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import engine
from ai.bot import Analysis, Budget
from server.limits import Limits, RequestError, default_budget

__all__ = ["Report", "Search", "check_position", "resolve_budget"]

#: MCTS iterations used when neither the request nor the bot's options give a budget.
FALLBACK_ITERATIONS = 1000
#: The shortest time a search is given when the deadline leaves (almost) nothing, in ms:
#: the bots then still rank every legal move by its static evaluation.
MIN_SEARCH_MS = 0.5


@dataclass
class Report:
    """One report of a search.

    Attributes:
        analysis: the bot's analysis (moves best first; iterations and nodes cumulative).
        final: the last report of the search.
        stopped: the search was stopped early (cancelled or shutting down).
        budget: the budget the search applied (defaults filled in, time capped).
        deadline_limited: the client's deadline set the time budget.
        elapsed_ms: wall time since the search started, in ms.
    """

    analysis: Analysis
    final: bool
    stopped: bool
    budget: Budget
    deadline_limited: bool
    elapsed_ms: float


def check_position(state: engine.GameState, perspective: int | None) -> tuple[engine.GameState, int]:
    """The position a hint search works on, and the seat to move.

    Args:
        state: a validated state.
        perspective: the requesting seat, or None.

    Returns:
        (the state, or `perspective`'s view of it; the seat to move).

    Raises:
        RequestError: the game is over, the state is at a chance event, or the
            perspective is out of range or not the seat to move.
    """
    if state.is_terminal():
        raise RequestError("state", "the game is over: there is no move to suggest")
    if state.is_chance():
        raise RequestError("state", "the position is at a chance event: apply an outcome "
                                    "first (LegalActions lists them)")
    mover = int(state.current_player)
    if perspective is not None:
        n = state.num_players
        if not 0 <= perspective < n:
            raise RequestError("perspective", f"{perspective} is outside 0..{n - 1} (seats)")
        if perspective != mover:
            raise RequestError("perspective", f"seat {perspective} is not the player to move "
                                              f"(seat {mover}); hints are for the player to move")
        state = state.view(perspective)
    return state, mover


def resolve_budget(bot: Any, requested: Budget, limits: Limits,
                   search_ms: float | None) -> tuple[Budget, bool]:
    """The budget a search applies.

    All zeros mean the bot's defaults (its options). The time is then capped by the
    server's `max_time_ms` (so every search ends, whatever its iteration or depth
    budget) and by the time left before the client's deadline.

    Args:
        bot: the bot (its options give the defaults).
        requested: the request's budget (already checked against the limits).
        limits: the server's limits.
        search_ms: time until the deadline less the reserve (None: no deadline).

    Returns:
        (the budget, whether the deadline set its time).
    """
    budget = requested
    if not (budget.iterations or budget.time_ms or budget.depth):
        budget = default_budget(bot)
    if getattr(bot, "name", "") == "mcts" and not (budget.iterations or budget.time_ms):
        # MCTS needs a stopping rule: with neither it would run a million iterations.
        budget = dataclasses.replace(budget, iterations=min(FALLBACK_ITERATIONS,
                                                            limits.max_iterations))
    time_ms = float(min(budget.time_ms or limits.max_time_ms, limits.max_time_ms))
    deadline_limited = search_ms is not None and search_ms < time_ms
    if search_ms is not None:
        time_ms = max(MIN_SEARCH_MS, min(time_ms, search_ms))
    return dataclasses.replace(budget, time_ms=time_ms), deadline_limited


class Search:
    """One search of one position by one bot; `stop()` may be called from any thread.

    Args:
        bot: a fresh bot (bots keep state between calls; a search owns its bot).
        state: the position, at a decision point of the seat to move.
        budget: the resolved budget (`resolve_budget`): time_ms > 0.
        deadline_limited: passed through to the reports.
    """

    def __init__(self, bot: Any, state: engine.GameState, budget: Budget, *,
                 deadline_limited: bool = False) -> None:
        if budget.time_ms <= 0:
            raise ValueError("a search needs a time limit (resolve_budget gives one)")
        self.bot = bot
        self.state = state
        self.budget = budget
        self.deadline_limited = deadline_limited
        self._stopped = threading.Event()
        self._t0 = 0.0

    @property
    def stopped(self) -> bool:
        """True once `stop()` was called."""
        return self._stopped.is_set()

    def stop(self) -> None:
        """Stop the search soon; it then reports what it has found."""
        self._stopped.set()
        stop = getattr(self.bot, "stop", None)
        if stop is not None:
            stop()

    def _elapsed_ms(self) -> float:
        return (time.perf_counter() - self._t0) * 1000.0

    def _report(self, analysis: Analysis, final: bool) -> Report:
        return Report(analysis=analysis, final=final, stopped=self.stopped, budget=self.budget,
                      deadline_limited=self.deadline_limited, elapsed_ms=self._elapsed_ms())

    def run(self) -> Report:
        """Search with the whole budget.

        Returns:
            The final report. Its moves are legal in the position, best first; it is the
            best found when the time ran out or the search was stopped.
        """
        self._t0 = time.perf_counter()
        return self._whole()

    def reports(self, interval_ms: float) -> Iterator[Report]:
        """Search, yielding partial reports about every `interval_ms`, then one final one.

        MCTS continues one tree across reports (tree reuse), so each report covers the
        whole search so far. Expectimax reports when a depth completes (at most once per
        interval). Other bots give only the final report.

        Args:
            interval_ms: time between partial reports, ms (> 0).

        Yields:
            Reports; the last one, and only it, has final=True.
        """
        self._t0 = time.perf_counter()
        name = getattr(self.bot, "name", "")
        if name == "mcts":
            yield from self._mcts_reports(interval_ms)
        elif name == "expectimax":
            yield from self._expectimax_reports(interval_ms)
        else:
            yield self._whole()

    def _whole(self) -> Report:
        budget = self.budget
        if self.stopped:   # stopped before it started: the least possible work
            budget = dataclasses.replace(budget, iterations=1, time_ms=MIN_SEARCH_MS, depth=1)
        return self._report(self.bot.analyze(self.state, budget), final=True)

    def _time_left_ms(self) -> float:
        return self.budget.time_ms - self._elapsed_ms()

    def _mcts_reports(self, interval_ms: float) -> Iterator[Report]:
        self.bot.reuse = True   # each chunk continues the tree of the previous one
        total = self.budget.iterations
        last: Analysis | None = None
        while True:
            left_ms = self._time_left_ms()
            done = last.iterations if last is not None else 0
            over = (self.stopped or left_ms <= 0 or (total > 0 and done >= total))
            if over and last is not None:
                yield self._report(last, final=True)
                return
            chunk = Budget(iterations=max(0, total - done) if total else 0,
                           time_ms=max(MIN_SEARCH_MS, min(interval_ms, left_ms)))
            analysis = self.bot.analyze(self.state, chunk)
            if last is not None and analysis.iterations < done:
                # the tree was restarted (it had grown past half of max_nodes)
                analysis.iterations += done
            last = analysis
            left_ms = self._time_left_ms()
            if self.stopped or left_ms <= 0 or (total > 0 and last.iterations >= total):
                yield self._report(last, final=True)
                return
            yield self._report(last, final=False)

    def _expectimax_reports(self, interval_ms: float) -> Iterator[Report]:
        max_depth = self.budget.depth or int(getattr(self.bot, "depth", 1))
        last: Analysis | None = None
        last_sent = 0.0
        for depth in range(1, max_depth + 1):
            left_ms = self._time_left_ms()
            if last is not None and (self.stopped or left_ms <= 0):
                break
            analysis = self.bot.analyze(
                self.state, Budget(depth=depth, time_ms=max(MIN_SEARCH_MS, left_ms)))
            complete = analysis.depth >= depth
            if last is None or analysis.depth >= last.depth:
                last = analysis
            if not complete:
                break
            now = self._elapsed_ms()
            if depth < max_depth and now - last_sent >= interval_ms and self._time_left_ms() > 0:
                last_sent = now
                yield self._report(last, final=False)
        assert last is not None
        yield self._report(last, final=True)
