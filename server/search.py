"""Running one search for a hint: a bot, a position, a budget sized by limits and the
client's deadline; stoppable from another thread; whole (`Search.run`) or as a stream of
partial reports (`Search.reports`). Any bot of the `ai.bots.base.Bot` protocol will do: the
bot itself knows its default budget and how it reports while it searches.

This module knows nothing of gRPC: the servicer, the command line (`gallerist hint
--local`) and the benchmark all use it.
"""
from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

from gallerist import engine
from gallerist.ai.bots.base import MIN_SEARCH_MS, Bot
from gallerist.ai.values import Analysis, Budget
from gallerist.ai.bots.spec import model_used, resolved_spec
from gallerist.server.limits import Limits

__all__ = ["Report", "Search", "resolve_budget"]


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
        legal_move_count: the position's legal moves, searched or not (a restricted
            search ranks fewer).
        bot_spec: the bot as it searched (`ai.bots.spec.resolved_spec`: every option).
        model: the model files it read, "name@sha256 prefix" (`ai.bots.spec.model_used`).
        state: the position searched (a seat's view when the request asked as that seat),
            for the moves in words (`engine.describe_moves`); None: not known.
    """

    analysis: Analysis
    final: bool
    stopped: bool
    budget: Budget
    deadline_limited: bool
    elapsed_ms: float
    legal_move_count: int
    bot_spec: str
    model: str
    state: engine.GameState | None = None


def resolve_budget(bot: Bot, requested: Budget, limits: Limits,
                   search_ms: float | None) -> tuple[Budget, bool]:
    """The budget a search applies.

    The bot fills in its defaults (`Bot.budget_for`: all zeros mean its options, and a
    bot that needs a stopping rule adds its own, within `max_iterations`). The time is
    then capped by the server's `max_time_ms` (so every search ends, whatever its
    iteration or depth budget) and by the time left before the client's deadline.

    Args:
        bot: the bot (it gives the defaults).
        requested: the request's budget (already checked against the limits).
        limits: the server's limits.
        search_ms: time until the deadline less the reserve (None: no deadline).

    Returns:
        (the budget, whether the deadline set its time).
    """
    budget = bot.budget_for(requested)
    if budget.iterations > limits.max_iterations:   # a bot's own fallback, above the limit
        budget = dataclasses.replace(budget, iterations=limits.max_iterations)
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
        moves: the root moves to search (the Bot protocol's restriction), or None.
        spec: the spec the bot was made from ("": its name), resolved in the reports.
    """

    def __init__(self, bot: Bot, state: engine.GameState, budget: Budget, *,
                 deadline_limited: bool = False, moves: list[int] | None = None,
                 spec: str = "") -> None:
        if budget.time_ms <= 0:
            raise ValueError("a search needs a time limit (resolve_budget gives one)")
        self.bot = bot
        self.state = state
        self.budget = budget
        self.deadline_limited = deadline_limited
        self.moves = moves
        self._legal_move_count = len(state.legal_actions())
        self.bot_spec = resolved_spec(spec or bot.name, bot, state.num_players, budget)
        self.model = model_used(bot, state.num_players)
        self._stopped = threading.Event()
        self._t0 = 0.0

    @property
    def stopped(self) -> bool:
        """True once `stop()` was called."""
        return self._stopped.is_set()

    def stop(self) -> None:
        """Stop the search soon; it then reports what it has found."""
        self._stopped.set()
        self.bot.stop()

    def _elapsed_ms(self) -> float:
        return (time.perf_counter() - self._t0) * 1000.0

    def _report(self, analysis: Analysis, final: bool) -> Report:
        return Report(analysis=analysis, final=final, stopped=self.stopped, budget=self.budget,
                      deadline_limited=self.deadline_limited, elapsed_ms=self._elapsed_ms(),
                      legal_move_count=self._legal_move_count, bot_spec=self.bot_spec,
                      model=self.model, state=self.state)

    def run(self) -> Report:
        """Search with the whole budget.

        Returns:
            The final report. Its moves are legal in the position, best first; it is the
            best found when the time ran out or the search was stopped.
        """
        self._t0 = time.perf_counter()
        return self._whole()

    def reports(self, interval_ms: float) -> Iterator[Report]:
        """Search, yielding partial reports about every `interval_ms`, then one final one
        (`Bot.analyses`: each report covers the whole search so far; a bot that cannot
        report partially gives only the final one).

        Args:
            interval_ms: time between partial reports, ms (> 0).

        Yields:
            Reports; the last one, and only it, has final=True.
        """
        self._t0 = time.perf_counter()
        for analysis in self.bot.analyses(self.state, self._budget_now(), interval_ms,
                                          moves=self.moves):
            yield self._report(analysis, final=analysis.final)

    def _budget_now(self) -> Budget:
        if self.stopped:   # stopped before it started: the least possible work
            return dataclasses.replace(self.budget, iterations=1, time_ms=MIN_SEARCH_MS,
                                       depth=1)
        return self.budget

    def _whole(self) -> Report:
        return self._report(self.bot.analyze(self.state, self._budget_now(), moves=self.moves),
                            final=True)
