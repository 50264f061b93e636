"""The value types of an analysis, shared by every layer: what a search may do (`Budget`),
and what it finds: each move's evaluation (`MoveInfo`), who is ahead (`PositionSummary`)
and the analysis of a decision point (`Analysis`). The bots (ai/bots/base.py: the `Bot`
protocol takes a Budget and returns an Analysis), the review, the service and the command
line use them; they depend on the engine alone, no other module of `gallerist.ai`
(tests/test_layers.py checks it)."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from gallerist.engine.actions import action_to_string

#: An action id (engine.actions: its notation).
ActionId = int


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
