"""OpenSpiel's bots as arena entries: "openspiel-mcts" and "openspiel-random".

They implement our Bot interface (``choose``/``analyze`` on an ``engine.GameState``) by
converting the position to the OpenSpiel game registered in ``ai.interop.openspiel_game`` and
running OpenSpiel's own code on it. OpenSpiel is imported only when such a bot is made,
so ``import ai`` never needs it (``pip install -e ".[openspiel]"`` to use them).

Hidden cards: a bot starts from ``state.view(player)``, never from the true opponents'
cards. OpenSpiel's MCTS needs concrete cards to play rollouts to the end, so it searches
one determinization per call (``GameState.resample_hidden``, seeded); our own MCTS draws
a fresh determinization every iteration instead.
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from gallerist import engine
from gallerist.ai.bots.base import BaseBot, MoveRestrictionError, decision_player
from gallerist.ai.values import Analysis, Budget, MoveInfo
from gallerist.ai.bots.options import Option, Options
from gallerist.engine.actions import action_to_string

ActionId = int
_SEED_MASK = 0x7FFFFFFF   # OpenSpiel's C++ seeds are ints


def _require_openspiel(bot: str) -> Any:
    """Import ai.interop.openspiel_game (which registers the game), or a ValueError saying how."""
    try:
        import gallerist.ai.interop.openspiel_game as og
    except ImportError as exc:
        raise ValueError(f"the {bot} bot needs OpenSpiel: pip install -e \".[openspiel]\" ({exc})") from None
    return og


def _unrestricted(bot: str, state: engine.GameState, moves: Sequence[ActionId] | None) -> None:
    """OpenSpiel's searches always search every legal root move: a restriction (the Bot
    protocol's `moves`) other than all of them is refused, not filtered afterwards."""
    if moves is not None and sorted(BaseBot.root_moves(state, moves)) != state.legal_actions():
        raise MoveRestrictionError("moves", f"{bot} cannot restrict its root moves "
                                            "(OpenSpiel searches every legal move)")


def _derive_seed(seed: int, call: int) -> int:
    return (seed * 1_000_003 + call * 7_919 + 12_345) & _SEED_MASK


def _evaluated_move(state: engine.GameState, player: int, action: ActionId, **fields: Any) -> MoveInfo:
    """A MoveInfo whose expected money (and default win chance) come from the shared
    evaluation of the position after `action` (what our other bots report)."""
    from gallerist.ai.search._evaluation import evaluate

    after = state.clone_position()
    after.apply(action)
    money, win = evaluate(after)
    fields.setdefault("win_probability", win[player])
    return MoveInfo(action=action, notation=action_to_string(action), expected_money=money, **fields)


class OpenSpielMctsBot(BaseBot):
    """OpenSpiel's MCTS (UCT, random-rollout evaluator) on one determinization.

    ``impl="cpp"`` runs OpenSpiel's C++ ``MCTSBot.mcts_search`` (not its ``step``, which
    releases the GIL and then calls back into our Python game), ``impl="python"``
    OpenSpiel's Python ``MCTSBot``. Both back up the terminal returns (1/k per winner)
    and choose by OpenSpiel's ``best_child``; a single legal move is returned without
    searching. `seed` seeds the determinization and OpenSpiel's random numbers; the
    options are declared in `OPTIONS` (docs/bots.md).

    Raises:
        ValueError: an option out of range, or OpenSpiel not installed.
    """

    name = "openspiel-mcts"
    OPTIONS = Options(
        name,
        Option("simulations", 1000, "MCTS simulations per move (the default iteration "
               "budget)", low=2),
        Option("time_ms", 0.0, "wall time per move instead, ms (0: use simulations)", low=0,
               needs=("impl=cpp",), because="impl=python has no time limit: use simulations",
               limit="max_time_ms"),
        Option("uct_c", 1.4, "UCT's exploration constant (returns lie in [0, 1])", low=0),
        Option("rollouts", 1, "random rollouts per leaf evaluation", low=1),
        Option("solve", True, "back up proven outcomes (MCTS-Solver), OpenSpiel's default"),
        Option("impl", "cpp", "OpenSpiel's C++ search or its Python one",
               choices=("cpp", "python")),
        Option("max_memory_mb", 1000, "the C++ tree's memory bound (it garbage-collects "
               "beyond it)", low=1),
    )

    def __init__(self, *, seed: int = 0, **options: Any) -> None:
        o = self.OPTIONS.resolve(options)
        self._og = _require_openspiel(self.name)
        self.seed = seed
        self.simulations = o["simulations"]
        self.time_ms = o["time_ms"]
        self.uct_c = o["uct_c"]
        self.rollouts = o["rollouts"]
        self.solve = o["solve"]
        self.impl = o["impl"]
        self.max_memory_mb = o["max_memory_mb"]
        self._games: dict[int, Any] = {}
        self._calls = 0

    def _game(self, num_players: int) -> Any:
        if num_players not in self._games:
            self._games[num_players] = self._og.load_game(num_players)
        return self._games[num_players]

    def _limits(self, budget: "Budget | dict[str, Any] | None") -> tuple[int, float]:
        """(simulations, seconds) from a budget: a time budget wins over iterations."""
        b = Budget.of(budget)
        if b.time_ms > 0:
            if self.impl == "python":
                raise ValueError("openspiel-mcts impl=python has no time limit: give an iteration budget")
            return self.simulations, b.time_ms / 1000.0
        if b.iterations > 0:
            return max(2, int(b.iterations)), 0.0
        return self.simulations, self.time_ms / 1000.0

    def search(self, state: engine.GameState, budget: "Budget | dict[str, Any] | None" = None
               ) -> tuple[Any, engine.GameState, float]:
        """Run OpenSpiel's MCTS from `state` as its player to move may know it.

        Returns:
            (root search node, the determinized engine position searched, elapsed ms).
            The root's children are the legal moves once it has been expanded.
        """
        import pyspiel  # type: ignore[import-not-found]

        player = decision_player(state)
        view = state.view(player)           # never read the opponents' hidden cards
        simulations, seconds = self._limits(budget)
        seed = _derive_seed(self.seed, self._calls)
        self._calls += 1
        world = view.resample_hidden(player, seed)
        game = self._game(state.num_players)
        os_state = game.state_from_engine(world)
        t0 = time.perf_counter()
        if self.impl == "cpp":
            bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(self.rollouts, seed), self.uct_c,
                                  simulations, self.max_memory_mb, self.solve, seed, False,
                                  max_wall_clock_time=seconds if seconds > 0 else -1.0)
            root = bot.mcts_search(os_state)
        else:
            import numpy as np
            from open_spiel.python.algorithms import mcts  # type: ignore[import-untyped]

            evaluator = mcts.RandomRolloutEvaluator(self.rollouts, np.random.RandomState(seed))
            bot = mcts.MCTSBot(game, self.uct_c, simulations, evaluator, solve=self.solve,
                               random_state=np.random.RandomState(seed ^ 0x5A5A5A5A))
            root = bot.mcts_search(os_state)
        return root, world, (time.perf_counter() - t0) * 1000.0

    def _best(self, root: Any, legal: list[ActionId]) -> ActionId:
        """OpenSpiel's choice at the root: ``best_child``, once the root has children.

        The root is expanded by the second simulation; when a time budget ends during the
        first one, OpenSpiel's own ``Step`` samples from the evaluator's prior, uniform
        for random rollouts, and so does this (seeded). Calling the C++ ``best_child`` on
        a root without children would read past an empty vector.
        """
        if int(root.explore_count) >= 2:
            return int(root.best_child().action)
        return int(legal[_derive_seed(self.seed, self._calls) % len(legal)])

    def choose(self, state: engine.GameState) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return int(legal[0])
        root, _, _ = self.search(state)
        return self._best(root, legal)

    def analyze(self, state: engine.GameState, budget: "Budget | dict[str, Any] | None" = None,
                *, moves: Sequence[ActionId] | None = None) -> Analysis:
        """Search and list every legal move: OpenSpiel's choice first, then by visits.

        Contract: every legal move of `state` appears once; ``moves[0]`` is the move
        ``choose`` would play for the same search; ``visits`` and ``value`` (the mover's
        mean return, its estimated win share) come from OpenSpiel's root children;
        ``expected_money`` is the shared evaluation after the move (OpenSpiel's MCTS does
        not estimate money); ``pv`` follows the most visited children while the mover
        (or chance) is to act.
        """
        player = decision_player(state)
        view = state.view(player)
        legal = view.legal_actions()
        _unrestricted(self.name, view, moves)
        if len(legal) == 1:
            Budget.of(budget)
            move = _evaluated_move(view, player, legal[0], pv=[legal[0]])
            return Analysis(player=player, bot=self.name, moves=[move])
        root, _, elapsed = self.search(view, budget)
        children = {int(c.action): c for c in root.children} if int(root.explore_count) >= 2 else {}
        best = self._best(root, legal)
        moves = []
        for a in legal:
            c = children.get(a)
            visits = int(c.explore_count) if c is not None else 0
            fields: dict[str, Any] = {"visits": visits, "pv": self._pv(c, player) if c is not None else [a]}
            if c is not None and visits:
                fields["value"] = float(c.total_reward) / visits
                fields["win_probability"] = fields["value"]
            moves.append(_evaluated_move(view, player, a, **fields))
        moves.sort(key=lambda m: (m.action != best, -m.visits, -m.value, m.action))
        return Analysis(player=player, bot=self.name, moves=moves, iterations=int(root.explore_count),
                        nodes=int(root.explore_count), elapsed_ms=elapsed)

    @staticmethod
    def _pv(node: Any, player: int, limit: int = 32) -> list[ActionId]:
        pv = [int(node.action)]
        while len(pv) < limit:
            kids = list(node.children)
            if not kids:
                break
            node = max(kids, key=lambda c: (c.explore_count, c.total_reward))
            if node.explore_count == 0 or node.player not in (player, -1):
                break
            pv.append(int(node.action))
        return pv


class OpenSpielRandomBot(BaseBot):
    """OpenSpiel's uniform random bot (``pyspiel.make_uniform_random_bot``), one per seat,
    each seeded from the bot's seed.

    Raises:
        ValueError: OpenSpiel not installed.
    """

    name = "openspiel-random"
    OPTIONS = Options(name)

    def __init__(self, *, seed: int = 0) -> None:
        self._og = _require_openspiel(self.name)
        self.seed = seed
        self._bots: dict[tuple[int, int], Any] = {}
        self._games: dict[int, Any] = {}

    def choose(self, state: engine.GameState) -> int:
        import pyspiel

        player = decision_player(state)
        n = state.num_players
        if n not in self._games:
            self._games[n] = self._og.load_game(n)
        if (n, player) not in self._bots:
            self._bots[(n, player)] = pyspiel.make_uniform_random_bot(player, _derive_seed(self.seed, player))
        # Legal moves depend on public information and the player's own cards only.
        os_state = self._games[n].state_from_engine(state.view(player))
        return int(self._bots[(n, player)].step(os_state))

    def analyze(self, state: engine.GameState, budget: "Budget | dict[str, Any] | None" = None,
                *, moves: Sequence[ActionId] | None = None) -> Analysis:
        """OpenSpiel's random pick first, then the other legal moves in ascending order,
        each with the shared evaluation of the position after it."""
        player = decision_player(state)
        view = state.view(player)
        Budget.of(budget)
        _unrestricted(self.name, view, moves)
        t0 = time.perf_counter()
        pick = self.choose(view)
        order = [pick] + [a for a in view.legal_actions() if a != pick]
        moves = [_evaluated_move(view, player, a, pv=[a]) for a in order]
        return Analysis(player=player, bot=self.name, moves=moves, nodes=len(moves),
                        elapsed_ms=(time.perf_counter() - t0) * 1000.0)
