"""Expectimax: depth-limited search over decision points with chance points weighted."""
from __future__ import annotations

import dataclasses
import os
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

from gallerist import engine
from gallerist.ai.search._evaluation import WIN_TEMPERATURE, Evaluator, HeuristicEvaluator
from gallerist.ai.search._expectimax import ExpectimaxEngine
from gallerist.ai.bots.base import MIN_SEARCH_MS, BaseBot, decision_player
from gallerist.ai.values import Analysis, Budget, MoveInfo
from gallerist.ai.bots.options import Option, Options
from gallerist.ai.net.packaged import load_evaluator
from gallerist.engine.actions import action_to_string


class ExpectimaxBot(BaseBot):
    """Expectimax with iterative deepening, a transposition table and move ordering.

    Depth counts decisions (a turn is several). Chance points are weighted by their
    probabilities (or sampled, past `chance_width` outcomes); leaves take the shared
    evaluation, or a trained network's money. Each decision maximises the mover's own
    entry (max^n); with two players alpha-beta prunes on the money margin.

    Args:
        evaluator: the leaf estimate (ai.search._evaluation.Evaluator), in place of the
            heuristic with win_temperature.
        seed: seed of the chance sampling.
        **options: the options declared in `OPTIONS` (docs/bots.md).
    """

    name = "expectimax"
    calibration_kind = "expectimax"

    OPTIONS = Options(
        name,
        Option("depth", 2, "maximum depth, in decisions", low=1, high=64, limit="max_depth"),
        Option("time_ms", 0.0, "time budget in ms: deepening stops when it runs out and "
               "the last complete depth is reported (0: search to depth)", low=0,
               limit="max_time_ms"),
        Option("chance_width", 6, "the most outcomes enumerated at a chance point; past "
               "it this many are drawn by probability and averaged", low=1, high=64),
        Option("tt_bits", 18, "log2 of the transposition table's entries (32 bytes each)",
               low=10, high=26, limit="max_tt_bits"),
        Option("alpha_beta", True, "two players: prune by alpha-beta on the money margin "
               "(zero-sum, so the cut-offs are sound)"),
        Option("win_temperature", WIN_TEMPERATURE, "$ scale of the softmax from money to "
               "the raw win chances", above=0, applies="eval=heuristic"),
        Option("eval", "heuristic", "the horizon's estimate: the shared evaluation, or the "
               "money head of a trained network (the search backs up money only)",
               choices=("heuristic", "model")),
        Option("model", "", "the model file of eval=model (\"\": the packaged "
               "ai/models/default.npz), read and checked when the bot is made",
               says="a model file", needs=("eval=model",),
               refused="a request cannot name a model file (the server uses its own: "
                       "leave model out)"),
        Option("calibrated", True, "report calibrated numbers (maps of kind expectimax, "
               "from the searched money and the root playouts' win shares; false: the "
               "searched money and its softmax); eval=model has no map yet and needs false"),
        Option("playouts", 100, "games played on from the root by the uniform rollout "
               "policy for the calibrated numbers, in at most a quarter of a time budget "
               "(the maps were fitted with 100; 0 needs calibrated=false)",
               low=0, high=100_000, limit="max_playouts"),
    )

    def __init__(self, evaluator: Evaluator | None = None, *, seed: int = 0,
                 **options: Any) -> None:
        o = self.OPTIONS.resolve(options)
        if o["eval"] == "model":
            _check_model_eval(o["calibrated"], evaluator)
        self._use_calibration(o["calibrated"])
        self._use_playouts(o["playouts"])
        self.seed = seed
        self.depth = o["depth"]
        self.time_ms = o["time_ms"]
        self.win_temperature = o["win_temperature"]
        self._eval = o["eval"]
        if o["eval"] == "model":
            evaluator = load_evaluator(o["model"], value=True)
        elif evaluator is None:
            evaluator = HeuristicEvaluator(win_temperature=o["win_temperature"])
        elif not isinstance(evaluator, Evaluator):
            raise ValueError(f"expectimax evaluator must be an Evaluator, "
                             f"got {type(evaluator).__name__}")
        self.evaluator = evaluator
        self._engine = ExpectimaxEngine(evaluator, chance_width=o["chance_width"],
                                        tt_bits=o["tt_bits"], alpha_beta=o["alpha_beta"])
        self._stop_requested = False
        self._lock = threading.Lock()

    def model_files(self, num_players: int) -> list[str]:
        """The model file of eval=model (its value at the horizon), as a path; none with
        the heuristic."""
        model = getattr(self.evaluator, "model", None)
        return [model.source] if self._eval == "model" and model is not None else []

    def resolved_options(self, options: dict[str, Any], num_players: int) -> dict[str, Any]:
        """model= the file name of eval=model's model ("" with the heuristic)."""
        files = self.model_files(num_players)
        return dict(options, model=os.path.basename(files[0]) if files else "")

    def stop(self) -> None:
        """Ask a running search to stop soon; the request sticks for later searches."""
        self._stop_requested = True
        self._engine.stop()

    def analyze(self, state: engine.GameState, budget: "Budget | dict[str, Any] | None" = None,
                *, moves: Sequence[int] | None = None) -> Analysis:
        """Rank the legal moves by the mover's searched value.

        Contract: every listed move is legal; each move's value comes from the deepest
        completed iteration (at least depth 1 is always completed, whatever the budget).
        With `moves` (the Bot protocol's restriction) only those root moves are searched.
        """
        return self._analyze(state, budget, moves, None)

    def _analyze(self, state: engine.GameState, budget: "Budget | dict[str, Any] | None",
                 moves: Sequence[int] | None, shares: list[float] | None) -> Analysis:
        """`analyze` with the root playouts' win shares given (None: play them here,
        within a quarter of the time budget)."""
        player = decision_player(state)
        state = state.view(player)   # never read the opponents' hidden cards
        b = Budget.of(budget)
        max_depth = int(b.depth or self.depth)
        time_ms = float(b.time_ms or self.time_ms)
        with self._lock:
            t0 = time.perf_counter()
            if shares is None:
                shares = self.root_playouts(state, player, time_ms / 4)
                if time_ms:
                    time_ms = max(MIN_SEARCH_MS, time_ms - (time.perf_counter() - t0) * 1000.0)
            deadline = (time.monotonic() + time_ms / 1000.0) if time_ms > 0 else 0.0
            order = self.root_moves(state, moves)
            results: list[tuple[int, list[float]]] = []
            done_depth = 0
            nodes = 0
            for d in range(1, max_depth + 1):
                complete, res, n = self._engine.search_root(
                    state, d, deadline if d > 1 else 0.0, self.seed + d, order,
                    self._stop_requested and d > 1)
                nodes += n
                if not complete:
                    break
                results = res
                done_depth = d
                ranked = sorted(results, key=lambda r: -self._score(r[1], player))
                order = [a for a, _ in ranked]
                if deadline and time.monotonic() >= deadline:
                    break
            elapsed = (time.perf_counter() - t0) * 1000.0
            moves = []
            for a, vec in results:
                moves.append(MoveInfo(
                    action=a, notation=action_to_string(a), depth=done_depth,
                    expected_money=list(vec), win_probabilities=self.evaluator.win_chances(vec),
                    value=self._score(vec, player)))
            moves.sort(key=lambda m: (-m.value, m.action))
            for m in moves:
                m.pv = list(self._engine.principal_variation(state, m.action))
        self.evaluator.check()   # a Python evaluator's error surfaces here
        return self.report(state, Analysis(player=player, bot=self.name, moves=moves, nodes=nodes,
                                           depth=done_depth, elapsed_ms=elapsed,
                                           playout_win=shares))

    @staticmethod
    def _score(vec: list[float], player: int) -> float:
        """The money margin over the best other seat (solo: the money itself)."""
        others = [v for i, v in enumerate(vec) if i != player]
        return vec[player] - max(others, default=0.0)

    def choose(self, state: engine.GameState) -> int:
        return self._analyze(state, None, None, []).best.action

    # ------------------------------------------------------------------ the Bot protocol

    def analyses(self, state: engine.GameState, budget: "Budget | dict[str, Any] | None" = None,
                 interval_ms: float = 250.0, *,
                 moves: Sequence[int] | None = None) -> Iterator[Analysis]:
        """Deepen one depth at a time, yielding the analysis of each completed depth
        (at most one per `interval_ms`) while time is left; the last one, final, is the
        deepest completed."""
        b = self.budget_for(Budget.of(budget))
        max_depth = int(b.depth or self.depth)
        t0 = time.perf_counter()

        def elapsed_ms() -> float:
            return (time.perf_counter() - t0) * 1000.0

        def left_ms() -> float:
            return b.time_ms - elapsed_ms() if b.time_ms else float("inf")

        last: Analysis | None = None
        last_sent = 0.0
        player = decision_player(state)
        shares = self.root_playouts(state.view(player), player, b.time_ms / 4)
        for depth in range(1, max_depth + 1):
            left = left_ms()
            if last is not None and (self.stop_requested or left <= 0):
                break
            analysis = self._analyze(state, Budget(
                depth=depth, time_ms=max(MIN_SEARCH_MS, left) if b.time_ms else 0.0),
                moves, shares)
            complete = analysis.depth >= depth
            if last is None or analysis.depth >= last.depth:
                last = analysis
            if not complete:
                break
            now = elapsed_ms()
            if depth < max_depth and now - last_sent >= interval_ms and left_ms() > 0:
                last_sent = now
                yield dataclasses.replace(last, final=False)
        assert last is not None
        yield last


def _check_model_eval(calibrated: bool, evaluator: Any) -> None:
    """The checks of eval=model: no calibration map exists for a network's estimates yet
    (so calibrated=false is required rather than raw numbers reported as calibrated), and
    an explicit evaluator would contradict it (ValueError)."""
    if calibrated:
        raise ValueError("expectimax option eval=model has no calibration map yet: add "
                         "calibrated=false (the network's own estimates, reported raw)")
    if evaluator is not None:
        raise ValueError("expectimax: pass either an evaluator or eval=model, not both")
