"""Baseline bots: uniformly random, and greedy one-step lookahead."""
from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from gallerist import engine
from gallerist.ai.search._evaluation import HeuristicEvaluator, evaluate
from gallerist.ai.search._greedy import greedy_line, greedy_moves
from gallerist.ai.bots.base import BaseBot, decision_player
from gallerist.ai.values import Analysis, Budget, MoveInfo
from gallerist.ai.bots.options import Option, Options
from gallerist.engine.actions import action_to_string


def _options(bot: str) -> Options:
    """The options of the greedy and random bots: their reported numbers."""
    return Options(
        bot,
        Option("calibrated", True, "report calibrated numbers (maps of kind static, from "
               "the static evaluation and the root playouts' win shares); false: raw"),
        Option("playouts", 100, "games played on from the root by the uniform rollout "
               "policy for the calibrated numbers, in at most a quarter of a time budget "
               "(about 10 ms for 100 early in a game; the maps were fitted with 100; 0 "
               "needs calibrated=false); choose plays none", low=0, high=100_000,
               limit="max_playouts"))



def _set_options(bot: BaseBot, seed: int, options: dict[str, Any]) -> None:
    """Check `options` against the bot's declaration and set its seed, calibration and
    root playouts (the greedy and random bots take the same options)."""
    o = bot.OPTIONS.resolve(options)
    bot._use_calibration(o["calibrated"])
    bot._use_playouts(o["playouts"])
    bot.seed = seed

class RandomBot(BaseBot):
    """Picks a legal move uniformly at random (seeded). Its analysis reports the static
    evaluation after each move, as greedy's."""

    name = "random"
    OPTIONS = _options(name)

    def __init__(self, *, seed: int = 0, **options: Any) -> None:
        _set_options(self, seed, options)
        self.rng = np.random.default_rng(seed)

    def analyze(self, state: engine.GameState, budget: "Budget | dict[str, Any] | None" = None,
                *, moves: Sequence[int] | None = None) -> Analysis:
        """The legal moves (or `moves`, the Bot protocol's restriction) in a random
        order, each with the evaluation after it."""
        player = decision_player(state)
        state = state.view(player)   # never read the opponents' hidden cards
        b = Budget.of(budget)
        t0 = time.perf_counter()
        legal = self.root_moves(state, moves)
        order = [legal[i] for i in self.rng.permutation(len(legal))]
        moves = []
        for a in order:
            after = state.clone_position()
            after.apply(a)
            money, win = evaluate(after)
            moves.append(MoveInfo(action=a, notation=action_to_string(a), expected_money=money,
                                  win_probabilities=win, pv=[a]))
        shares = self.root_playouts(state, player, b.time_ms / 4)
        return self.report(state, Analysis(player=player, bot=self.name, moves=moves, nodes=len(legal),
                                           elapsed_ms=(time.perf_counter() - t0) * 1000.0,
                                           playout_win=shares))

    def choose(self, state: engine.GameState) -> int:
        legal = state.legal_actions()
        if not legal:
            decision_player(state)
        return int(legal[int(self.rng.integers(len(legal)))])


class GreedyBot(BaseBot):
    """One step of lookahead with the shared evaluation, at the scale of a turn.

    Each legal move is scored by the mover's estimated money margin once the rest of
    its turn is played by one-step greedy choices (chance outcomes sampled), because
    most single decisions change nothing until the turn's action is done. Ties are
    broken at random (seeded). It reports the static evaluation after each move.
    """

    name = "greedy"
    OPTIONS = _options(name)

    def __init__(self, *, seed: int = 0, **options: Any) -> None:
        _set_options(self, seed, options)
        self._calls = 0
        self._evaluator = HeuristicEvaluator()

    def _scores(self, state: engine.GameState,
                only: list[int] | None = None) -> list[tuple[int, float]]:
        self._calls += 1
        return greedy_moves(state, (self.seed * 1_000_003 + self._calls) & 0xFFFFFFFFFFFFFFFF,
                            self._evaluator, only)

    def analyze(self, state: engine.GameState, budget: "Budget | dict[str, Any] | None" = None,
                *, moves: Sequence[int] | None = None) -> Analysis:
        player = decision_player(state)
        state = state.view(player)   # never read the opponents' hidden cards
        b = Budget.of(budget)
        t0 = time.perf_counter()
        only = None if moves is None else self.root_moves(state, moves)
        scored = self._scores(state, only)
        first, rest = scored[0], sorted(scored[1:], key=lambda r: (-r[1], r[0]))
        moves = []
        for a, value in [first] + rest:
            after = state.clone_position()
            after.apply(a)
            money, win = evaluate(after, self._evaluator)
            moves.append(MoveInfo(action=a, notation=action_to_string(a), depth=1,
                                  expected_money=money, win_probabilities=win,
                                  value=value, pv=list(greedy_line(state, a, self._evaluator))))
        shares = self.root_playouts(state, player, b.time_ms / 4)
        return self.report(state, Analysis(player=player, bot=self.name, moves=moves, nodes=len(moves),
                                           depth=1, elapsed_ms=(time.perf_counter() - t0) * 1000.0,
                                           playout_win=shares))

    def choose(self, state: engine.GameState) -> int:
        player = decision_player(state)
        return int(self._scores(state.view(player))[0][0])
