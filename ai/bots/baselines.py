"""Baseline bots: uniformly random, and greedy one-step lookahead."""
from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from gallerist import engine
from gallerist.ai.search._evaluation import HeuristicEvaluator, evaluate
from gallerist.ai.search._greedy import greedy_line, greedy_moves
from gallerist.ai.bots.base import Analysis, BaseBot, Budget, MoveInfo, decision_player
from gallerist.engine.actions import action_to_string


class RandomBot(BaseBot):
    """Picks a legal action uniformly at random (seeded numpy Generator). Its analysis
    reports the static evaluation after each move with the win shares of `playouts`
    root playouts, within a quarter of the time budget (calibration kind "static"; see
    GreedyBot)."""

    name = "random"

    def __init__(self, *, seed: int = 0, calibrated: bool = True, playouts: int = 100) -> None:
        self._use_calibration(calibrated)
        self._use_playouts(playouts)
        self.seed = seed
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
    """One step of lookahead with the shared evaluation, at the scale of a turn: each
    legal move is scored by the mover's estimated money margin once the rest of its turn
    is played by one-step greedy choices (chance outcomes sampled), because most single
    decisions (a move, a leave) change nothing until the turn's action is done. Ties are
    broken at random (seeded). The numbers it reports are the static evaluation after
    each move, calibrated (kind "static") with the win shares of `playouts` games played
    on from the root by the uniform rollout policy (BaseBot.root_playouts: about 10 ms
    for 100 early in a game, stopped after a quarter of the time budget, as expectimax's;
    the maps were fitted with 100); `calibrated=False` gives
    them raw, and playouts=0 (which needs calibrated=false) plays none. `choose` plays
    none (it reports nothing)."""

    name = "greedy"

    def __init__(self, *, seed: int = 0, calibrated: bool = True, playouts: int = 100) -> None:
        self._use_calibration(calibrated)
        self._use_playouts(playouts)
        self.seed = seed
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
