"""The bot interface: a budget in, an Analysis out (`Bot`), and `BaseBot`, the defaults
every bot inherits: anytime analysis with periodic reports, `stop()`, the default budget."""
from __future__ import annotations

import zlib
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from gallerist import engine
from gallerist.ai.search._rollout import playout_shares
from gallerist.ai.calibration.maps import OWN_WIN_KINDS, Calibration
from gallerist.ai.calibration.endgame import outcome_spread
from gallerist.ai.values import ActionId, Analysis, Budget, MoveInfo
from gallerist.engine.actions import NOTATION, action_to_string, string_to_action
from gallerist.engine.errors import GalleristError

#: The shortest time budget a search is given, in ms: enough for every bot to rank every
#: legal move by its static evaluation (a chunk of an anytime search, or a search whose
#: deadline leaves almost nothing).
MIN_SEARCH_MS = 0.5


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
