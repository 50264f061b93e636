"""MCTS: UCT with a value vector per node, determinization, root-parallel threads."""
from __future__ import annotations

import dataclasses
import os
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from gallerist import engine
from gallerist.ai.search._evaluation import WIN_TEMPERATURE, Evaluator, HeuristicEvaluator, MixEvaluator
from gallerist.ai.search._mcts import MctsEngine
from gallerist.ai.search._rollout import POLICIES, RolloutEvaluator
from gallerist.ai.bots.base import MIN_SEARCH_MS, BaseBot, decision_player
from gallerist.ai.values import Analysis, Budget, MoveInfo
from gallerist.ai.bots.options import Option, Options
from gallerist.ai.calibration.model_maps import KIND as MODEL_KIND, model_maps_for
from gallerist.ai.net.packaged import (
    auto_priors, auto_value_files, default_model_present, load_evaluator,
)
from gallerist.engine.actions import action_to_string


class MctsBot(BaseBot):
    """Monte Carlo tree search: UCT, or PUCT with a trained network's policy as prior.

    Each iteration works on a fresh resample of the cards the player to move cannot see;
    chance points are sampled by their probabilities. A leaf is valued by a rollout and
    the shared evaluation, a trained network, or both (`eval`). Rewards are a mix of the
    win share and the money margin per player (a logistic of the score solo); each
    player picks by its own entry. Threads search root-parallel, one tree each.

    Args:
        evaluator: the leaf estimate (ai.search._evaluation.Evaluator), in place of the
            one built from rollout, cutoff and win_temperature.
        seed: seed of every random choice (one thread and an iteration budget: the same
            analysis again).
        **options: the options declared in `OPTIONS` (docs/bots.md).
    """

    name = "mcts"
    calibration_kind = "mcts"
    #: Iterations of a search whose budget has neither iterations nor a time limit.
    FALLBACK_ITERATIONS = 1000
    #: A step of a move's expected line past the mover's turn (MoveInfo.line_after) needs
    #: at least this many visits.
    LINE_MIN_VISITS = 16

    # `says` keeps the wording these options' errors have always had
    OPTIONS = Options(
        name,
        Option("iterations", 0, "iteration budget of a call that gives none (0: none of "
               "its own; with neither it nor time_ms, 1000)", low=0, limit="max_iterations"),
        Option("time_ms", 0.0, "time budget in ms of a call that gives none (0: none)",
               low=0, limit="max_time_ms"),
        Option("threads", 1, "search threads: one tree each, root statistics summed",
               low=1, high=64, limit="max_threads"),
        Option("c", 0.7, "UCT's exploration constant", low=0),
        Option("rollout", "random", "how rollouts play: uniformly at random, by the cheap "
               "heuristic policy, or drawn from the network's policy (one forward pass a "
               "decision)", choices=POLICIES, says=f"one of {', '.join(POLICIES)}"),
        Option("rollout_temperature", 1.0, "temperature of rollout=model's draws: the "
               "priors ** (1 / rollout_temperature)", above=0, needs=("rollout=model",)),
        Option("rollout_model_steps", 0, "only this many first rollout decisions are "
               "drawn from the policy, the rest uniformly (0: all)", low=0,
               needs=("rollout=model",)),
        Option("cutoff", 0, "rollout length in decisions before the leaf is evaluated "
               "(0: to the end of the game)", low=0, applies="eval=rollout, mix or auto"),
        Option("eval", "rollout", "the leaf value: a rollout, the network's money and "
               "win-share heads, model_weight x the network + the rest x a rollout "
               "(AlphaGo's mixed value), or auto: mix at the player counts of a packaged "
               "value network (ai/models/value/; none when a model is named), its policy "
               "then prior=auto's, a rollout elsewhere", choices=("rollout", "model", "mix", "auto")),
        Option("rollout_steps", 0, "rollout decisions before asking the network (0: at "
               "the leaf itself)", low=0, needs=("eval=model",)),
        Option("prior", "none", "selection: UCT (none), PUCT with the network's policy "
               "(model), or PUCT at the player counts the model was trained on and UCT "
               "elsewhere (auto: without model, each packaged model at its own counts)",
               choices=("none", "model", "auto")),
        Option("model_weight", 0.5, "the network's share of eval=mix's leaf value",
               low=0, high=1, says="in [0, 1]",
               needs=("eval=mix", "eval=auto")),
        Option("c_puct", 1.5, "PUCT's constant: Q + c_puct * P * sqrt(N) / (1 + n)", low=0,
               applies="prior=model or prior=auto"),
        Option("fpu_reduction", 0.0, "first-play urgency: an unvisited move is worth its "
               "node's mean reward less this x sqrt(the priors of the visited moves) "
               "(Leela Zero; 0: the node's mean)", low=0, high=1,
               needs=("prior=model", "prior=auto")),
        Option("model", "", "the model file (\"\": $GALLERIST_MODEL, else the packaged "
               "ai/models/default.npz; prior=auto then falls back to UCT), read and "
               "checked when the bot is made", says="a model file",
               needs=("eval=model", "eval=mix", "eval=auto", "prior=model", "prior=auto",
                      "rollout=model"),
               refused="a request cannot name a model file (the server uses its own: "
                       "leave model out)"),
        Option("margin_weight", 0.25, "the reward's share from the money margin over the "
               "best other player; the rest is the win share. At 1 the win share is never "
               "read, so eval=model may then use a policy-only model (trained with "
               "--win-weight 0, as the packaged priors) by its money head", low=0, high=1),
        Option("margin_scale", 20.0, "$ scale of the margin's reward: 0.5 + 0.5 "
               "tanh(margin / margin_scale)", above=0),
        Option("win_temperature", WIN_TEMPERATURE, "$ scale of the softmax from the "
               "estimated money to win shares at a cut-off", above=0,
               applies="eval=rollout, mix or auto"),
        Option("solo_reference", 150.0, "solo reward: 0.5 + 0.5 tanh((money - "
               "solo_reference) / solo_scale), in $"),
        Option("solo_scale", 50.0, "$ scale of the solo reward", above=0),
        Option("reuse", True, "keep the tree between calls on the same game (the subtree "
               "of the new state, when it lies below the previous root)"),
        Option("max_nodes", 2_000_000, "nodes per tree", low=1000, limit="max_nodes"),
        Option("calibrated", True, "report calibrated numbers (maps of kind mcts; with "
               "eval=model or eval=mix the model's own, MODEL.calibration.json; false: the "
               "raw means)"),
    )

    def __init__(self, evaluator: Evaluator | None = None, *, seed: int = 0,
                 **options: Any) -> None:
        o = self.OPTIONS.resolve(options)
        leaf, prior, rollout, model = o["eval"], o["prior"], o["rollout"], o["model"]
        if leaf != "rollout" and evaluator is not None:
            raise ValueError(f"mcts: pass either an evaluator or eval={leaf}, not both")
        self._use_calibration(o["calibrated"])
        self.seed = seed
        self.iterations, self.time_ms = o["iterations"], o["time_ms"]
        self.threads, self.reuse = o["threads"], o["reuse"]
        # eval=auto: the mixed leaf with each player count's value network, a rollout elsewhere
        values = auto_value_files(model) if leaf == "auto" else {}
        wants = leaf in ("model", "mix") or prior == "model" or rollout == "model" or (
            prior == "auto" and (bool(model) or default_model_present()))
        # a reward all money margin (margin_weight=1) never reads the win head: a
        # policy-only model (win_weight 0) may then value positions with its money head
        values_win = leaf in ("model", "mix") and o["margin_weight"] < 1.0
        network = load_evaluator(model, value=values_win) if wants else None
        self.evaluator = self._leaf_value(evaluator, network, o)
        self.network = network
        # the network's value or rollout policy is in use (its prior: _priors)
        self._network_used = network is not None and (leaf in ("model", "mix")
                                                      or rollout == "model")
        # the prior of each player count that searches by PUCT (none: UCT)
        self._priors: dict[int, Any] = {}
        if prior == "model":
            self._priors = dict.fromkeys(range(1, 5), network)   # solo to 4 players
        elif prior == "auto" and network is not None:
            self._priors = auto_priors(model)
        # the leaf, its value network and its statistics' kind where they are not the
        # bot's own (eval=auto), by player count
        self._leaves: dict[int, Evaluator] = {}
        self._values: dict[int, Any] = {}
        self._kinds: dict[int, str] = {}
        if leaf in ("model", "mix"):   # the network's estimates: maps of the model's own
            self.calibration_kind = MODEL_KIND if leaf == "model" else "mix"
            if o["calibrated"]:
                self._own_maps = {self.calibration_kind: model_maps_for(model, self.calibration_kind)}
        self._mix_by_count(values, o)
        # one engine per (prior, leaf) in use (prior None: UCT), keyed by their ids;
        # trees grow only when searched
        setups = {(id(p), id(e)): (p, e) for p, e in
                  (self._setup(n) for n in range(1, 5))}
        self._engines = {
            key: MctsEngine(o["threads"], e, c=o["c"], c_puct=o["c_puct"],
                            fpu_reduction=o["fpu_reduction"], prior=p, max_nodes=o["max_nodes"],
                            margin_weight=o["margin_weight"], margin_scale=o["margin_scale"],
                            solo_reference=o["solo_reference"], solo_scale=o["solo_scale"])
            for key, (p, e) in setups.items()}
        self._calls = 0
        self._stop_requested = False
        self._lock = threading.Lock()

    def _mix_by_count(self, values: Mapping[int, str], o: Mapping[str, Any]) -> None:
        """eval=auto: at each player count of `values` ({n: value network file}) the
        mixed leaf with that network, its policy as prior=auto's prior, and its maps of
        kind "mix" (a count the file has no map for: the search's report says so)."""
        mixes: dict[str, tuple[Any, Evaluator, dict[int, Any]]] = {}
        for n, file in values.items():
            if file not in mixes:
                net = load_evaluator(file, value=o["margin_weight"] < 1.0)
                mixes[file] = (net, MixEvaluator(net, self.evaluator, weight=o["model_weight"]),
                               model_maps_for(file, "mix") if o["calibrated"] else {})
            net, self._leaves[n], maps = mixes[file]
            self._values[n], self._kinds[n] = net, "mix"
            if o["prior"] == "auto":
                self._priors[n] = net
            if n in maps:
                self._own_maps = self._own_maps or {}
                self._own_maps.setdefault("mix", {})[n] = maps[n]

    def _setup(self, num_players: int) -> tuple[Any, Evaluator]:
        """(PUCT's prior or None, the leaf evaluator) of a `num_players` search."""
        return (self._priors.get(num_players),
                self._leaves.get(num_players, self.evaluator))

    def leaf(self, num_players: int) -> Evaluator:
        """The leaf estimate of a `num_players` search."""
        return self._setup(num_players)[1]

    @staticmethod
    def _leaf_value(evaluator: Evaluator | None, network: Any, o: Mapping[str, Any]) -> Evaluator:
        """The leaf estimate: `evaluator` when given, else built from the options `o`."""
        playing = dict(policy=o["rollout"], network=network if o["rollout"] == "model" else None,
                       temperature=o["rollout_temperature"], model_steps=o["rollout_model_steps"])
        if o["eval"] == "model":
            if not o["rollout_steps"]:
                return network  # type: ignore[no-any-return]
            return RolloutEvaluator(network, cutoff=o["rollout_steps"], **playing)
        if evaluator is None:
            heuristic = HeuristicEvaluator(win_temperature=o["win_temperature"])
            built = RolloutEvaluator(heuristic, cutoff=o["cutoff"], **playing)
            if o["eval"] == "mix":
                return MixEvaluator(network, built, weight=o["model_weight"])
            return built
        if not isinstance(evaluator, Evaluator):
            raise ValueError(f"mcts evaluator must be an Evaluator, got {type(evaluator).__name__}")
        return evaluator

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
        prior, leaf = self._setup(num_players)
        return self._engines[(id(prior), id(leaf))]

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
        value = self._values.get(num_players, self.network if self._network_used else None)
        nets = [self.prior_network(num_players), value]
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
        if out.get("eval") == "auto":
            out["eval"] = "mix" if num_players in self._values else "rollout"
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
        eng, leaf = self.engine(state.num_players), self.leaf(state.num_players)
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
            stats = eng.stats(depth=True)
            elapsed = (time.perf_counter() - t0) * 1000.0
            children = stats["children"]
            moves = []
            for a in legal:
                visits, reward, money, win, depth, low, high = children.get(
                    a, [0, None, None, None, 0, [], []])
                if visits:
                    moves.append(MoveInfo(
                        action=a, notation=action_to_string(a), visits=int(visits),
                        expected_money=[m / visits for m in money],
                        win_probabilities=[w / visits for w in win],
                        value=reward[player] / visits, depth=int(depth),
                        # the range, when this search (not a reused tree alone) saw some
                        money_low=[float(x) for x in low] if _seen(low, high) else [],
                        money_high=[float(x) for x in high] if _seen(low, high) else []))
                else:
                    moves.append(MoveInfo(action=a, notation=action_to_string(a), visits=0))
            moves.sort(key=lambda m: (-m.visits, -m.value, m.action))
            for m in moves:
                m.pv = list(eng.principal_variation(m.action))
                if m.visits >= self.LINE_MIN_VISITS:
                    mine, rest = eng.continuation(m.action, self.LINE_MIN_VISITS)
                    if rest and list(mine) == m.pv:   # the tree's line, not a greedy end
                        m.line_after = list(rest)
                if not m.expected_money:     # never visited: the static evaluation after it
                    after = state.clone_position()
                    after.apply(m.action)
                    m.expected_money, m.win_probabilities = leaf.static().values(after)
        leaf.check()   # a Python evaluator's error surfaces here
        visited = [m for m in moves if m.visits]
        total = sum(m.visits for m in visited)
        shares = ([sum(m.visits * m.win_probabilities[i] for m in visited) / total
                   for i in range(state.num_players)] if total and state.num_players > 1 else [])
        return self.report(state, Analysis(
            player=player, bot=self.name, moves=moves, iterations=total,
            nodes=int(stats["nodes"]), elapsed_ms=elapsed, playout_win=shares,
            depth=1 + max((m.depth for m in visited), default=-1)))

    def move_kind(self, move: MoveInfo, num_players: int = 0) -> str:
        """The search's kind for a visited move of a `num_players` search ("mcts"; "model"
        for eval=model; "mix" for eval=mix, and for eval=auto where it mixes); "static"
        for one the search never visited."""
        if not move.visits:
            return "static"
        return self._kinds.get(num_players, self.calibration_kind)

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


def _seen(low: list[float], high: list[float]) -> bool:
    """Whether a root move's outcome range holds outcomes (each seat's low <= high)."""
    return bool(low) and all(lo <= hi for lo, hi in zip(low, high))
