"""MCTS: UCT with a value vector per node, determinization, root-parallel threads."""
from __future__ import annotations

import dataclasses
import math
import os
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

from gallerist import engine
from gallerist.ai.search._evaluation import WIN_TEMPERATURE, Evaluator, HeuristicEvaluator, MixEvaluator
from gallerist.ai.search._mcts import MctsEngine
from gallerist.ai.search._rollout import POLICIES, RolloutEvaluator
from gallerist.ai.bots.base import MIN_SEARCH_MS, Analysis, BaseBot, Budget, MoveInfo, decision_player
from gallerist.ai.learn.model_file import (
    auto_priors, check_model_eval, default_model_present, load_evaluator,
)
from gallerist.engine.actions import action_to_string


class MctsBot(BaseBot):
    """Monte Carlo tree search.

    Each iteration works on a resample of what the player to move cannot see (the
    opponents' Curator and Art Dealer cards), never on the true cards. Chance points are
    sampled by their probabilities. A leaf is played out (uniformly at random, or with the
    cheap heuristic policy) to the end or to `cutoff` decisions, where the shared
    evaluation estimates each player's final money: that leaf estimate is an Evaluator
    (ai.search._rollout.RolloutEvaluator around ai.search._evaluation.HeuristicEvaluator), built from
    the options unless one is passed in.

    With `eval=model` the leaf estimate is a trained network (ai.search._model.ModelEvaluator,
    a model file: ai/learn/model_file.py) instead: its money and win-share heads, after
    `rollout_steps` rollout decisions (0: at the leaf itself; a new decision-point leaf
    is then expanded at once, its priors and value from one forward pass). With
    `prior=model`, decision points select by PUCT, Q + c_puct * P * sqrt(N) / (1 + n),
    P the network's policy over the legal moves (stored per child when a node is
    expanded, from that iteration's determinization) and an unvisited child's Q the
    node's own mean reward; chance points are sampled as with UCT. With `prior=auto`
    (the service's and the CLI's default bot, ai.bots.spec.DEFAULT_BOT) PUCT is used where a
    model was trained: at the player counts of its training games (its metadata; all
    counts when the metadata does not say), UCT at the others, and UCT everywhere when
    there is no model (no `model`, no $GALLERIST_MODEL, no packaged file). Naming no
    model, it takes each count's prior from the packaged models (ai/models/default.npz
    first, then the other files there: default-1p.npz solo, default-3p.npz at 3 players:
    ai.learn.model_file.auto_priors). The model file
    (`model`, default $GALLERIST_MODEL or the packaged ai/models/default.npz:
    ai.learn.model_file.model_path) is read and checked when the
    bot is made: a missing, corrupt or mismatched file is a ModelFileError (a
    ValueError) naming the file and the mismatch, never an error inside the search.

    Rewards, per player, in [0, 1]: (1 - margin_weight) * win share + margin_weight *
    (0.5 + 0.5 tanh(margin / margin_scale)), where the win share is 1/k for k tied winners
    at the end (a softmax of the estimated money at a cut-off) and the margin is the
    player's money minus the best other player's. Each node keeps the sum of every
    player's reward, and each player picks by its own entry (UCT, constant `c`). Solo
    (one player against Lacerda, nobody to beat) the reward is a logistic of the score:
    0.5 + 0.5 tanh((money - solo_reference) / solo_scale).

    With threads > 1 the search is root-parallel: one tree per thread, the GIL released,
    root statistics summed. With `reuse`, consecutive calls on the same game continue the
    subtree of the new state when it lies below the previous root (same player to move).

    Args:
        evaluator: the leaf estimate, an ai.search._evaluation.Evaluator object (not a spec
            option: the first argument, or by keyword); it replaces rollout, cutoff and
            win_temperature. None: built from those options.
        seed: seed of every random choice; same seed, state and budget (single thread,
            iteration budget) give the same analysis.
        iterations: default iteration budget (0: none of its own; with neither it nor
            time_ms set, 1000 iterations).
        time_ms: default time budget (0 = none).
        threads: search threads.
        c: UCT exploration constant.
        rollout: "random", "heuristic" or "model" (moves drawn from the network's
            policy, its priors ** (1 / rollout_temperature): one forward pass a rollout
            decision).
        rollout_temperature: rollout=model: the temperature of its draws (> 0).
        rollout_model_steps: rollout=model: only the first this many rollout decisions
            are drawn from the policy, the rest uniformly (0: all of them).
        cutoff: eval=rollout: rollout length in decisions before evaluating (0 = play to
            the end).
        eval: the leaf estimate: "rollout" (above), "model" (the network) or "mix"
            (model_weight * the network + (1 - model_weight) * the rollout, AlphaGo's
            mixed leaf value: a playout and one forward pass per leaf).
        model_weight: eval=mix: the network's share of the leaf value, in [0, 1].
        rollout_steps: eval=model: rollout decisions before asking the network (0 = none).
        prior: "none" (UCT, constant c), "model" (PUCT with the network's policy) or
            "auto" (PUCT at the player counts the model was trained on, or without
            `model` each packaged model at its own counts; UCT otherwise).
        c_puct: PUCT's constant (prior=model).
        fpu_reduction: PUCT's first-play urgency: an unvisited move's value is its
            node's mean reward less fpu_reduction * sqrt(the priors of the moves already
            visited) (Leela Zero); 0 (the default): the node's mean reward.
        model: the model file of eval=model, eval=mix and prior=model/auto ("" =
            $GALLERIST_MODEL, else the packaged ai/models/default.npz; an error when
            neither is there, except for prior=auto, which then searches by UCT).
        margin_weight, margin_scale, win_temperature: the reward mix (above).
        solo_reference, solo_scale: the solo reward (above), in $.
        reuse: keep the tree between calls.
        max_nodes: nodes per tree.
        calibrated: report calibrated numbers (ai.calibration.maps, kind "mcts": a move's mean
            win share and money over its visits; "static" for unvisited moves); False:
            the raw means. prior=model/auto keeps these maps (the statistics are still
            rollout means; the maps were fitted on UCT's, and bench/calibration.py
            scores the default bot through them). eval=model has no map of its
            own yet: it needs calibrated=false (the network's estimates, raw), and a
            bot made without it is refused rather than report them as calibrated.
    """

    name = "mcts"
    calibration_kind = "mcts"
    #: Iterations of a search whose budget has neither iterations nor a time limit.
    FALLBACK_ITERATIONS = 1000

    def __init__(self, evaluator: Evaluator | None = None, *, seed: int = 0,
                 iterations: int = 0, time_ms: float = 0.0, threads: int = 1, c: float = 0.7,
                 rollout: str = "random", rollout_temperature: float = 1.0,
                 rollout_model_steps: int = 0, cutoff: int = 0,
                 eval: str = "rollout", rollout_steps: int = 0, prior: str = "none",
                 model_weight: float = 0.5,
                 c_puct: float = 1.5, fpu_reduction: float = 0.0, model: str = "",
                 margin_weight: float = 0.25, margin_scale: float = 20.0,
                 win_temperature: float = WIN_TEMPERATURE, solo_reference: float = 150.0,
                 solo_scale: float = 50.0, reuse: bool = True,
                 max_nodes: int = 2_000_000, calibrated: bool = True) -> None:
        if rollout not in POLICIES:
            raise ValueError(f"mcts option rollout must be one of {', '.join(POLICIES)}, "
                             f"got {rollout!r}")
        if not (math.isfinite(rollout_temperature) and rollout_temperature > 0):
            raise ValueError(f"mcts option rollout_temperature must be a finite number > 0, "
                             f"got {rollout_temperature}")
        if rollout_temperature != 1.0 and rollout != "model":
            raise ValueError(f"mcts option rollout_temperature needs rollout=model, "
                             f"got rollout={rollout}")
        if rollout_model_steps < 0 or (rollout_model_steps and rollout != "model"):
            raise ValueError(f"mcts option rollout_model_steps must be >= 0 and needs "
                             f"rollout=model, got {rollout_model_steps} with rollout={rollout}")
        if eval not in ("rollout", "model", "mix"):
            raise ValueError(f"mcts option eval must be 'rollout', 'model' or 'mix', got {eval!r}")
        if not 0 <= model_weight <= 1:
            raise ValueError(f"mcts option model_weight must be in [0, 1], got {model_weight}")
        if model_weight != 0.5 and eval != "mix":
            raise ValueError(f"mcts option model_weight needs eval=mix, got eval={eval}")
        if prior not in ("none", "model", "auto"):
            raise ValueError(f"mcts option prior must be 'none', 'model' or 'auto', got {prior!r}")
        if rollout_steps < 0 or (rollout_steps and eval != "model"):
            raise ValueError(f"mcts option rollout_steps must be >= 0 and needs eval=model, "
                             f"got {rollout_steps} with eval={eval}")
        if not math.isfinite(c_puct) or c_puct < 0:
            raise ValueError(f"mcts option c_puct must be a finite number >= 0, got {c_puct}")
        if not (math.isfinite(fpu_reduction) and 0 <= fpu_reduction <= 1):
            raise ValueError(f"mcts option fpu_reduction must be a number in [0, 1], "
                             f"got {fpu_reduction}")
        if fpu_reduction and prior == "none":
            raise ValueError("mcts option fpu_reduction needs prior=model or prior=auto")
        if model and eval == "rollout" and prior == "none" and rollout != "model":
            raise ValueError("mcts option model needs eval=model, eval=mix, prior=model, "
                             "prior=auto or rollout=model")
        if eval != "rollout":
            check_model_eval("mcts", calibrated, evaluator, option=f"eval={eval}")
        if not 1 <= threads <= 64:
            raise ValueError(f"mcts option threads must be 1..64, got {threads}")
        for key, value in (("c", c), ("time_ms", time_ms), ("margin_weight", margin_weight),
                           ("margin_scale", margin_scale), ("win_temperature", win_temperature),
                           ("solo_reference", solo_reference), ("solo_scale", solo_scale)):
            if not math.isfinite(value):
                raise ValueError(f"mcts option {key} must be a finite number, got {value}")
        if iterations < 0 or time_ms < 0:
            raise ValueError("mcts options iterations and time_ms must be >= 0")
        if c < 0 or cutoff < 0 or max_nodes < 1000 or not 0 <= margin_weight <= 1:
            raise ValueError("mcts options out of range: c >= 0, cutoff >= 0, max_nodes >= 1000, "
                             "0 <= margin_weight <= 1")
        if margin_scale <= 0 or win_temperature <= 0 or solo_scale <= 0:
            raise ValueError("mcts options margin_scale, win_temperature and solo_scale "
                             "must be > 0")
        self._use_calibration(calibrated)
        self.seed = seed
        self.iterations = iterations
        self.time_ms = time_ms
        self.threads = threads
        self.reuse = reuse
        wants = eval != "rollout" or prior == "model" or rollout == "model" or (
            prior == "auto" and (bool(model) or default_model_present()))
        network = load_evaluator(model, value=eval != "rollout") if wants else None
        playing = dict(policy=rollout, network=network if rollout == "model" else None,
                       temperature=rollout_temperature, model_steps=rollout_model_steps)
        if eval == "model":
            evaluator = network if not rollout_steps else RolloutEvaluator(
                network, cutoff=rollout_steps, **playing)
        elif evaluator is None:
            evaluator = RolloutEvaluator(HeuristicEvaluator(win_temperature=win_temperature),
                                         cutoff=cutoff, **playing)
            if eval == "mix":
                evaluator = MixEvaluator(network, evaluator, weight=model_weight)
        elif not isinstance(evaluator, Evaluator):
            raise ValueError(f"mcts evaluator must be an Evaluator, got {type(evaluator).__name__}")
        self.evaluator = evaluator
        self.network = network
        # the network's value or rollout policy is in use (its prior: _priors)
        self._network_used = network is not None and (eval != "rollout" or rollout == "model")
        # the prior of each player count that searches by PUCT (none: UCT)
        self._priors: dict[int, Any] = {}
        if prior == "model":
            self._priors = dict.fromkeys(range(1, 5), network)   # solo to 4 players
        elif prior == "auto" and network is not None:
            self._priors = auto_priors(model)
        # one engine per prior in use (None: UCT), keyed by the prior's id; trees grow
        # only when searched
        priors = {id(p): p for p in self._priors.values()}
        if len(self._priors) < 4:
            priors[id(None)] = None
        self._engines = {
            key: MctsEngine(threads, evaluator, c=c, c_puct=c_puct,
                            fpu_reduction=fpu_reduction, prior=p,
                            max_nodes=max_nodes, margin_weight=margin_weight,
                            margin_scale=margin_scale, solo_reference=solo_reference,
                            solo_scale=solo_scale)
            for key, p in priors.items()}
        self._calls = 0
        self._stop_requested = False
        self._lock = threading.Lock()

    def stop(self) -> None:
        """Ask a running search to stop soon (it returns what it has). The request
        sticks: a search that starts after it stops at once too."""
        self._stop_requested = True
        for eng in self._engines.values():
            eng.stop()

    def engine(self, num_players: int) -> MctsEngine:
        """The C search (ai.search._mcts.MctsEngine) that searches a `num_players` game: the
        PUCT engine where the prior is used (`uses_prior`), else the UCT one (benchmarks
        drive it directly)."""
        return self._engines[id(self._priors.get(num_players))]

    def uses_prior(self, num_players: int) -> bool:
        """Whether a search of a `num_players` game selects by PUCT with the model's
        policy (prior=model, or prior=auto at a player count the model was trained on)."""
        return num_players in self._priors

    def prior_network(self, num_players: int) -> Any:
        """The ai.search._model.ModelEvaluator whose policy is PUCT's prior in a `num_players`
        game, or None where the search is UCT."""
        return self._priors.get(num_players)

    def model_files(self, num_players: int) -> list[str]:
        """The model files a `num_players` search reads: its prior's (PUCT), then its
        value's or rollout policy's when another, as paths."""
        nets = [self.prior_network(num_players), self.network if self._network_used else None]
        files = [net.model.source for net in nets if net is not None]
        return list(dict.fromkeys(files))

    def resolved_options(self, options: dict[str, Any], num_players: int) -> dict[str, Any]:
        """prior=auto written out as what it is at `num_players` (prior=model with the
        prior's file, or prior=none), and model= the file name of the model in use ("":
        none); both left as given when the search reads two files (auto's prior and
        another value network)."""
        files = self.model_files(num_players)
        if len(files) > 1:
            return options
        out = dict(options, model=os.path.basename(files[0]) if files else "")
        if out["prior"] == "auto":
            out["prior"] = "model" if self.uses_prior(num_players) else "none"
        return out

    def analyze(self, state: engine.GameState, budget: "Budget | dict[str, Any] | None" = None,
                *, moves: Sequence[int] | None = None) -> Analysis:
        """Search from `state` and rank its legal moves by visits.

        Contract: every move in the result is legal in `state`; `moves[0]` is the most
        visited; visits sum to `iterations`; each `pv` starts with its move and is legal
        when replayed from `state` (chance points taking the listed outcome). With
        `moves` (the Bot protocol's restriction) the tree's root has only those children
        and the result lists only them.
        """
        player = decision_player(state)
        state = state.view(player)   # never read the opponents' hidden cards
        b = Budget.of(budget)
        if b.iterations or b.time_ms:       # the call's budget replaces the bot's own
            iterations, time_ms = int(b.iterations), float(b.time_ms)
        else:
            iterations, time_ms = int(self.iterations), float(self.time_ms)
        if iterations <= 0 and time_ms <= 0:
            iterations = self.FALLBACK_ITERATIONS
        legal = self.root_moves(state, moves)
        eng = self.engine(state.num_players)
        with self._lock:
            t0 = time.perf_counter()
            seed = (self.seed * 1_000_003 + self._calls) & 0xFFFFFFFFFFFFFFFF
            self._calls += 1
            eng.prepare(state, player, seed, self.reuse, None if moves is None else legal)
            if self._stop_requested:     # a stop that came before prepare() reset the flag
                eng.stop()
            deadline = (time.monotonic() + time_ms / 1000.0) if time_ms > 0 else 0.0
            per_thread = [iterations // self.threads + (1 if i < iterations % self.threads else 0)
                          for i in range(self.threads)] if iterations > 0 else [0] * self.threads
            if self.threads == 1:
                eng.run(0, per_thread[0], deadline)
            else:
                workers = [threading.Thread(target=eng.run, args=(i, per_thread[i], deadline))
                           for i in range(self.threads)]
                for w in workers:
                    w.start()
                for w in workers:
                    w.join()
            stats = eng.stats()
            elapsed = (time.perf_counter() - t0) * 1000.0
            children = stats["children"]
            moves = []
            for a in legal:
                visits, reward, money, win = children.get(a, [0, None, None, None])
                if visits:
                    moves.append(MoveInfo(
                        action=a, notation=action_to_string(a), visits=int(visits),
                        expected_money=[m / visits for m in money],
                        win_probabilities=[w / visits for w in win],
                        value=reward[player] / visits))
                else:
                    moves.append(MoveInfo(action=a, notation=action_to_string(a), visits=0))
            moves.sort(key=lambda m: (-m.visits, -m.value, m.action))
            for m in moves:
                m.pv = list(eng.principal_variation(m.action))
                if not m.expected_money:     # never visited: the static evaluation after it
                    after = state.clone_position()
                    after.apply(m.action)
                    m.expected_money, m.win_probabilities = self.evaluator.static().values(after)
        self.evaluator.check()   # a Python evaluator's error surfaces here
        visited = [m for m in moves if m.visits]
        total = sum(m.visits for m in visited)
        shares = ([sum(m.visits * m.win_probabilities[i] for m in visited) / total
                   for i in range(state.num_players)] if total and state.num_players > 1 else [])
        return self.report(state, Analysis(
            player=player, bot=self.name, moves=moves, iterations=total,
            nodes=int(stats["nodes"]), elapsed_ms=elapsed, playout_win=shares))

    def move_kind(self, move: MoveInfo) -> str:
        """"mcts" for a visited move; "static" for one the search never visited."""
        return "mcts" if move.visits else "static"

    def choose(self, state: engine.GameState) -> int:
        return self.analyze(state).best.action

    # ------------------------------------------------------------------ the Bot protocol

    def _with_stopping_rule(self, budget: Budget) -> Budget:
        """MCTS needs a stopping rule: with neither iterations nor time it runs
        FALLBACK_ITERATIONS (a time cap added later must not be the only limit)."""
        if budget.iterations or budget.time_ms:
            return budget
        return dataclasses.replace(budget, iterations=self.FALLBACK_ITERATIONS)

    def default_budget(self) -> Budget:
        """The bot's options (iterations, time_ms), or FALLBACK_ITERATIONS."""
        return self._with_stopping_rule(BaseBot.default_budget(self))

    def budget_for(self, requested: Budget) -> Budget:
        """`requested` (all zeros: the default budget), with the stopping rule."""
        return self._with_stopping_rule(BaseBot.budget_for(self, requested))

    def analyses(self, state: engine.GameState, budget: "Budget | dict[str, Any] | None" = None,
                 interval_ms: float = 250.0, *,
                 moves: Sequence[int] | None = None) -> Iterator[Analysis]:
        """Search in chunks of about `interval_ms`, one tree continued across chunks
        (tree reuse, whatever the `reuse` option), yielding the analysis of the whole
        search so far after each chunk; the last one is final. Iterations are counted
        over the whole search, time from the first chunk."""
        b = self.budget_for(Budget.of(budget))
        t0 = time.perf_counter()
        total = b.iterations
        reuse, self.reuse = self.reuse, True
        try:
            last: Analysis | None = None
            while True:
                left_ms = (b.time_ms - (time.perf_counter() - t0) * 1000.0
                           if b.time_ms else float("inf"))
                done = last.iterations if last is not None else 0
                over = self.stop_requested or left_ms <= 0 or (total > 0 and done >= total)
                if over and last is not None:
                    yield last
                    return
                chunk = Budget(iterations=max(0, total - done) if total else 0,
                               time_ms=max(MIN_SEARCH_MS, min(interval_ms, left_ms)))
                analysis = self.analyze(state, chunk, moves=moves)
                if last is not None and analysis.iterations < done:
                    # the tree was restarted (it had grown past half of max_nodes)
                    analysis.iterations += done
                last = analysis
                left_ms = (b.time_ms - (time.perf_counter() - t0) * 1000.0
                           if b.time_ms else float("inf"))
                if self.stop_requested or left_ms <= 0 or (total > 0 and last.iterations >= total):
                    yield last
                    return
                yield dataclasses.replace(last, final=False)
        finally:
            self.reuse = reuse
