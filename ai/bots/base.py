"""The bot interface: a budget in, an Analysis out (`Bot`), and `BaseBot`, the defaults
every bot inherits: anytime analysis with periodic reports, `stop()`, the default budget."""
from __future__ import annotations

import dataclasses
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from gallerist import engine
from gallerist.ai.search._rollout import playout_shares
from gallerist.ai.calibration.maps import OWN_WIN_KINDS, Calibration
from gallerist.ai.calibration.endgame import outcome_spread
from gallerist.engine.actions import NOTATION, action_to_string, string_to_action
from gallerist.engine.errors import GalleristError

ActionId = int

#: The shortest time budget a search is given, in ms: enough for every bot to rank every
#: legal move by its static evaluation (a chunk of an anytime search, or a search whose
#: deadline leaves almost nothing).
MIN_SEARCH_MS = 0.5


@dataclass(frozen=True)
class Budget:
    """How much a search may do; it stops at the first limit reached.

    Attributes:
        iterations: MCTS iterations (0 = no limit of this kind).
        time_ms: wall time in milliseconds (0 = no limit of this kind).
        depth: expectimax depth in decisions (0 = the bot's default).
    """

    iterations: int = 0
    time_ms: float = 0.0
    depth: int = 0

    def __post_init__(self) -> None:
        for name in ("iterations", "time_ms", "depth"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"budget.{name} must be a number, got {value!r}")
            if value < 0:
                raise ValueError(f"budget.{name} must be >= 0, got {value}")
        if self.depth > 64:
            raise ValueError(f"budget.depth must be <= 64, got {self.depth}")

    @staticmethod
    def of(value: "Budget | dict[str, Any] | None") -> "Budget":
        """A Budget from a Budget, a dict of its fields, or None (the bot's defaults)."""
        if value is None:
            return Budget()
        if isinstance(value, Budget):
            return value
        if isinstance(value, dict):
            unknown = set(value) - {f.name for f in dataclasses.fields(Budget)}
            if unknown:
                raise ValueError(f"unknown budget field(s): {', '.join(sorted(unknown))}")
            return Budget(**value)
        raise ValueError(f"budget must be a Budget, a dict or None, got {type(value).__name__}")


@dataclass
class MoveInfo:
    """One legal move with its evaluation.

    The numbers are calibrated estimates (ai.calibration.maps) unless the bot was made with
    `calibrated=False`: they assume every player goes on playing as in the calibration's
    self-play games.

    Attributes:
        action: the action id.
        notation: its notation (engine.actions).
        visits: MCTS visits of this move (0 for other bots).
        depth: the decisions searched below this move (expectimax its depth, MCTS the
            deepest visited path of its tree, chance not counted; greedy: 1; random: 0).
        expected_money: the expected final money of every seat after this move, by seat.
        win_probability: the probability that the player to move finishes first after
            this move (a first place shared by k players counts 1/k); None in the solo
            game, where there is no one to beat (expected_money is the evaluation).
        win_probabilities: the same for every seat, by seat (they sum to 1); empty solo.
        value: what the bot ranks moves by, for the player to move (larger is better):
            MCTS its mean reward 0..1 (see MctsBot), expectimax the money margin over the
            best other seat in $ (solo: the money), greedy the money margin at the end of
            the turn in $, random 0. Not calibrated: compare it only within one analysis.
        pv: the principal variation, starting with `action`, through the rest of the turn.
        money_low, money_high: the lowest and highest final money by seat among the
            outcomes the search backed up through this move (MCTS; empty for the others):
            a calibrated number stays within them.
        line_after: where the search expects the game to go after `pv` (the other
            seats' decisions and chance, then the mover's next turn), each step visited
            at least `MctsBot.LINE_MIN_VISITS` times (MCTS; empty for the others).
        explanation: why the move is worth what it is (ai.explain.Explanation), when
            asked for; None otherwise.
    """

    action: ActionId
    notation: str
    visits: int = 0
    depth: int = 0
    expected_money: list[float] = field(default_factory=list)
    win_probability: float | None = None
    value: float = 0.0
    pv: list[ActionId] = field(default_factory=list)
    win_probabilities: list[float] = field(default_factory=list)
    money_low: list[float] = field(default_factory=list)
    money_high: list[float] = field(default_factory=list)
    line_after: list[ActionId] = field(default_factory=list)
    explanation: Any = None

    @property
    def pv_notation(self) -> list[str]:
        return [action_to_string(a) for a in self.pv]


@dataclass
class PositionSummary:
    """Who is ahead before the move: every seat's win probability and expected final
    money (KataGo's rootInfo), with the meanings of MoveInfo's fields. They are the
    position's value under the bot's best move, so they equal the best move's numbers.

    Attributes:
        win_probabilities: by seat (they sum to 1); empty in the solo game.
        expected_money: by seat, in $.
    """

    win_probabilities: list[float]
    expected_money: list[float]


@dataclass
class Analysis:
    """A bot's analysis of a decision point: the moves best first, and root statistics.

    `final` is False for the partial analyses an anytime search reports while it goes on
    (`BaseBot.analyses`); `analyze` always returns a final one. `root` summarises the
    position.

    `playout_win` is the position's win share by seat as playouts estimate it (empty when
    none were played, and solo): the bot's own root playouts for the bots that rank moves
    by the heuristic (their `playouts` option), MCTS's root statistics for MCTS. It is
    one input of the calibrated numbers (ai.calibration.maps), raw itself.

    `chosen` is the move a bot that does not always play the best plays (a level,
    ai.bots.levels); None: it plays `best`.
    """

    player: int
    bot: str
    moves: list[MoveInfo]
    iterations: int = 0
    nodes: int = 0
    depth: int = 0
    elapsed_ms: float = 0.0
    final: bool = True
    playout_win: list[float] = field(default_factory=list)
    chosen: ActionId | None = None

    @property
    def played(self) -> MoveInfo:
        """The move the bot plays: `chosen` (a level's pick among the moves) when set,
        else the best."""
        if self.chosen is None:
            return self.moves[0]
        return next(m for m in self.moves if m.action == self.chosen)

    @property
    def root(self) -> PositionSummary:
        """Who is ahead before the move: the best move's numbers."""
        best = self.moves[0]
        return PositionSummary(list(best.win_probabilities), list(best.expected_money))

    @property
    def best(self) -> MoveInfo:
        return self.moves[0]

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / (self.elapsed_ms / 1000.0) if self.elapsed_ms > 0 else 0.0

    def table(self, limit: int = 10) -> str:
        """A readable table of the best moves."""
        rows = [f"{'#':>2} {'move':<28} {'visits':>7} {'depth':>5} {'win%':>6}  expected money   plan"]
        for i, m in enumerate(self.moves[:limit]):
            money = "/".join(f"{x:.0f}" for x in m.expected_money)
            plan = " ".join(m.pv_notation[1:8])
            win = f"{100 * m.win_probability:>5.1f}%" if m.win_probability is not None else "    - "
            rows.append(f"{i + 1:>2} {m.notation:<28} {m.visits:>7} {m.depth:>5} "
                        f"{win}  {money:<15} {plan}")
        rows.append(f"iterations {self.iterations}, nodes {self.nodes}, "
                    f"{self.elapsed_ms:.0f} ms, {self.nodes_per_second:,.0f} nodes/s")
        return "\n".join(rows)


def restrict_moves(state: engine.GameState, allow: Sequence[ActionId | str] = (),
                   avoid: Sequence[ActionId | str] = (), *, allow_name: str = "allow_moves",
                   avoid_name: str = "avoid_moves") -> list[ActionId] | None:
    """The root moves a search may consider (KataGo's allowMoves / avoidMoves): only
    `allow` when given, else every legal move but `avoid`; None when neither is given
    (every legal move). Moves are action ids or notation.

    Args:
        state: a decision point.
        allow, avoid: at most one of them non-empty.
        allow_name, avoid_name: how errors name the two (request fields, options).

    Raises:
        MoveRestrictionError: both given, a move unknown or not legal here (all named),
            or no move left.
    """
    if allow and avoid:
        raise MoveRestrictionError(allow_name, f"give {allow_name} or {avoid_name}, not both")
    if not allow and not avoid:
        return None
    name, given = (allow_name, allow) if allow else (avoid_name, avoid)
    legal = state.legal_actions()
    ids: list[ActionId] = []
    bad: list[str] = []
    for move in given:
        try:
            a = string_to_action(move) if isinstance(move, str) else move
            action_to_string(a)
        except engine.IllegalActionError:
            bad.append(f"{move!r} (unknown)")
            continue
        if a not in legal:
            bad.append(f"{action_to_string(a)!r} (not legal here)")
        elif a not in ids:
            ids.append(a)
    if bad:
        raise MoveRestrictionError(name, ", ".join(bad) + "; legal: "
                                   + " ".join(action_to_string(a) for a in legal))
    out = ids if allow else [a for a in legal if a not in ids]
    if not out:
        raise MoveRestrictionError(name, "leaves no legal move to analyze")
    return out


class MoveRestrictionError(GalleristError, ValueError):
    """A root-move restriction that cannot be applied: the message starts with the
    option or field (`field`) that gave it."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


class Bot(Protocol):
    """What every bot provides (`BaseBot` gives the defaults of all but `analyze`).

    `moves` (in `analyze` and `analyses`) restricts the search's root to these legal
    moves (`restrict_moves` builds it from allow/avoid lists; None: every legal move):
    the search spends its whole budget below them and the analysis lists only them.
    `BaseBot.root_moves` is the one check every bot applies to it.
    """

    name: str

    def analyze(self, state: engine.GameState, budget: "Budget | dict[str, Any] | None" = None,
                *, moves: Sequence[ActionId] | None = None) -> Analysis: ...

    def choose(self, state: engine.GameState) -> ActionId: ...

    def analyses(self, state: engine.GameState, budget: "Budget | dict[str, Any] | None" = None,
                 interval_ms: float = 250.0, *,
                 moves: Sequence[ActionId] | None = None) -> Iterator[Analysis]: ...

    def stop(self) -> None: ...

    def default_budget(self) -> Budget: ...

    def budget_for(self, requested: Budget) -> Budget: ...


class BaseBot:
    """The defaults of the `Bot` protocol. A bot defines `name` and `analyze`; it
    overrides `analyses` when it can report while it searches, and `stop` when a running
    search can be interrupted.

    The default budget comes from the bot's own options named like the `Budget` fields
    (`iterations`, `time_ms`, `depth`), when it has them. A bot may keep state between
    calls (MCTS continues its tree, `reuse`), so each search should own its bot.
    """

    name: str = "bot"
    #: The kind of statistics the bot reports (a key of ai.calibration.maps's maps).
    calibration_kind: str = "static"
    _calibrated: bool = True
    _calibration: Calibration | None = None
    #: Maps of kinds the packaged file lacks, {kind: {player count: map}} (a model's own,
    #: ai.calibration.model_maps), added to the default ones at first use.
    _own_maps: dict[str, dict[int, Any]] | None = None
    #: Root playouts behind the calibrated numbers of a bot that ranks by the heuristic.
    playouts: int = 0
    #: Seed of those playouts (bots with a `seed` option set it).
    seed: int = 0

    def _use_calibration(self, calibrated: bool) -> None:
        """Report calibrated numbers (the default maps, loaded at the first report) or,
        with False, raw ones."""
        if not isinstance(calibrated, bool):
            raise ValueError(f"{self.name} option calibrated must be true or false, got {calibrated!r}")
        self._calibrated = calibrated

    def _use_playouts(self, playouts: int) -> None:
        """Play `playouts` games on from the root for the reported numbers (after
        `_use_calibration`: calibrated numbers need them; its range is checked by the
        bot's declared options)."""
        if playouts == 0 and self._calibrated:
            raise ValueError(f"{self.name} option playouts=0 needs calibrated=false (the "
                             f"calibrated numbers are mapped from the playouts' win shares)")
        self.playouts = playouts

    def root_playouts(self, state: engine.GameState, player: int, max_ms: float = 0.0) -> list[float]:
        """Every seat's win share over `playouts` games played on from `state` by the
        uniform rollout policy (the hidden cards `player` cannot see dealt anew for each),
        stopping after `max_ms` when > 0, and after one game once `stop()` was called:
        the estimate of who is ahead that the calibration maps of the heuristic bots
        take. Empty solo, at the end of the game, or with playouts=0. Seeded by the
        bot's seed and the position (deterministic)."""
        if self.playouts == 0 or state.num_players == 1 or state.is_terminal():
            return []
        seed = (self.seed * 0x9E3779B1 + zlib.crc32(state.state_bytes())) & 0xFFFFFFFFFFFFFFFF
        if self.stop_requested:
            max_ms = 1e-6   # the least work: one game
        return playout_shares(state, player, self.playouts, max_ms, seed)[0]

    @property
    def calibration(self) -> Calibration | None:
        """The maps the numbers go through (None: raw numbers). The default ones are
        read at first use: a missing or corrupt file is a CalibrationError naming it
        (`gallerist serve` reads them when it starts)."""
        if self._calibrated and self._calibration is None:
            cal = Calibration.default()
            for kind, maps in (self._own_maps or {}).items():
                cal = cal.with_maps(kind, maps)
            self._calibration = cal
        return self._calibration if self._calibrated else None

    @calibration.setter
    def calibration(self, value: Calibration | None) -> None:
        self._calibration, self._calibrated = value, value is not None

    def move_kind(self, move: MoveInfo, num_players: int = 0) -> str:
        """The kind of statistics behind one move's raw numbers in a `num_players` game."""
        return self.calibration_kind

    def win_input(self, analysis: Analysis, move: MoveInfo, num_players: int = 0
                  ) -> list[float] | None:
        """The raw win shares the win map takes for `move` (None: none): the move's own
        for the kinds of a search's means ("mcts", "model", "mix": OWN_WIN_KINDS), the
        position's root playouts (`analysis.playout_win`) for the others."""
        if self.move_kind(move, num_players) in OWN_WIN_KINDS:
            return move.win_probabilities or None
        return analysis.playout_win or None

    def report(self, state: engine.GameState, analysis: Analysis) -> Analysis:
        """Turn the moves' raw numbers (expected_money and win_probabilities by seat, as
        the search estimated them) into calibrated ones, once per move, and add the
        position's summary (`Analysis.root`) follows. A move that ends the game keeps
        the search's numbers: its final scoring is exact, not estimated; near the end,
        the mapped numbers are bounded by what uniform playouts after the move reach
        (ai.calibration.endgame, `Calibration.settle`), exact where the rest is forced, and
        always by the outcomes the search itself saw after the move (`money_low`,
        `money_high`), which near the end close in on what is left. Solo: no win
        probabilities. The win map of kind "mcts" takes the move's own win shares, the
        others the position's `analysis.playout_win` and the move's money against that
        of the first move of its kind (ai.calibration.maps's move scale)."""
        n, player, cal = state.num_players, analysis.player, self.calibration
        maps = {}
        if cal is not None:
            t = cal.stage(n, state.turn_number)
            maps = {kind: cal.mapper(kind, n, t, player) for kind in {self.move_kind(m, n)
                                                                    for m in analysis.moves}}
        ending = _ending_moves(state, analysis.moves) if maps else set()
        refs: dict[str, list[float]] = {}   # the raw money of the first move of each kind
        for m in analysis.moves:
            refs.setdefault(self.move_kind(m, n), list(m.expected_money))
        for m in analysis.moves:
            win = m.win_probabilities if n > 1 else None
            if maps and m.action not in ending:   # the end is known, not estimated
                kind = self.move_kind(m, n)
                raw_win = win
                m.expected_money, win = maps[kind](m.expected_money,
                                                   self.win_input(analysis, m, n), refs[kind])
                after = state.clone_position()
                after.apply(m.action)
                spread = outcome_spread(after, player, self.seed)
                if spread is not None:   # near the end: bounded by what is left
                    m.expected_money, win = cal.settle(
                        m.expected_money, win, spread, raw_win if kind in OWN_WIN_KINDS else None)
                if m.money_low:   # never beyond the outcomes the search saw after the move
                    m.expected_money = [min(max(x, lo), hi) for x, lo, hi in zip(
                        m.expected_money, m.money_low, m.money_high)]
            m.win_probabilities = list(win) if win else []
            m.win_probability = m.win_probabilities[player] if win else None
        return analysis

    def analyze(self, state: engine.GameState, budget: "Budget | dict[str, Any] | None" = None,
                *, moves: Sequence[ActionId] | None = None) -> Analysis:
        """Every bot defines its own; a class that forgot to is told so."""
        raise TypeError(f"{type(self).__name__} does not define analyze(state, budget)")

    @staticmethod
    def root_moves(state: engine.GameState, moves: Sequence[ActionId] | None) -> list[ActionId]:
        """The root moves a search of `state` considers: `moves` (the `Bot` protocol's
        restriction), checked to be legal, without repeats, in their order; every
        legal move when None.

        Raises:
            MoveRestrictionError: `moves` is empty, repeats a move or has one that is
                not legal in `state` (field "moves").
        """
        legal = state.legal_actions()
        if moves is None:
            return legal
        out = [int(a) for a in moves]
        if not out:
            raise MoveRestrictionError("moves", "is empty: give at least one legal move")
        if len(set(out)) != len(out):
            raise MoveRestrictionError("moves", f"repeats a move: {out}")
        allowed = set(legal)
        bad = [a for a in out if a not in allowed]
        if bad:
            raise MoveRestrictionError("moves", "not legal here: " + ", ".join(
                action_to_string(a) if 0 <= a < len(NOTATION) else str(a) for a in bad))
        return out

    def choose(self, state: engine.GameState) -> ActionId:
        """The move `analyze` with the bot's own budget plays (`Analysis.played`)."""
        return self.analyze(state).played.action

    def analyses(self, state: engine.GameState, budget: "Budget | dict[str, Any] | None" = None,
                 interval_ms: float = 250.0, *,
                 moves: Sequence[ActionId] | None = None) -> Iterator[Analysis]:
        """Anytime analysis: partial analyses about every `interval_ms` (each covering the
        whole search so far, `final` False), then the final one. This default cannot
        report partially: it yields only the final analysis.

        Args:
            state: a decision point.
            budget: as for `analyze`.
            interval_ms: time between partial analyses, ms (> 0).
            moves: as for `analyze`.
        """
        yield self.analyze(state, budget, moves=moves)

    def stop(self) -> None:
        """Ask a running search to stop soon (it returns what it has); the request
        sticks for later searches. This default only records it (`stop_requested`): a
        bot without a long search finishes soon anyway."""
        self._stop_requested = True

    @property
    def stop_requested(self) -> bool:
        """True once `stop()` was called."""
        return bool(getattr(self, "_stop_requested", False))

    def model_files(self, num_players: int) -> list[str]:
        """The model files whose networks a search of a `num_players` game reads (paths;
        this default: none, the bot searches without a network)."""
        return []

    def resolved_options(self, options: dict[str, Any], num_players: int) -> dict[str, Any]:
        """Every option of the bot (`options`: its spec's, defaults filled in) as it acts
        in a `num_players` game: a bot whose options choose by player count (MCTS's
        prior=auto) writes out the choice. This default: `options` unchanged."""
        return options

    def default_budget(self) -> Budget:
        """The budget the bot applies when a call gives none (all zeros): its options."""
        return Budget(iterations=int(getattr(self, "iterations", 0) or 0),
                      time_ms=float(getattr(self, "time_ms", 0.0) or 0.0),
                      depth=int(getattr(self, "depth", 0) or 0))

    def budget_for(self, requested: Budget) -> Budget:
        """The budget a call asking for `requested` applies: all zeros mean
        `default_budget()`; a bot that needs a stopping rule of its own adds it."""
        if requested.iterations or requested.time_ms or requested.depth:
            return requested
        return self.default_budget()


def _ending_moves(state: engine.GameState, moves: list[MoveInfo]) -> set[ActionId]:
    """The moves after which the game is over (only once its end is triggered)."""
    if state.turns_left < 0:
        return set()
    out = set()
    for m in moves:
        after = state.clone_position()
        after.apply(m.action)
        if after.is_terminal():
            out.add(m.action)
    return out


def decision_player(state: engine.GameState) -> int:
    """The player to move, or a ValueError if the state is not a decision point."""
    if state.is_terminal():
        raise ValueError("the game is over: there is no move to analyze")
    if state.is_chance():
        raise ValueError("the state is at a chance event: apply an outcome first")
    return int(state.current_player)
