"""The bot interface: a budget in, an Analysis out."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Protocol

import engine
from engine.actions import action_to_string

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

    Attributes:
        action: the action id.
        notation: its notation (engine.actions).
        visits: MCTS visits (0 for other bots).
        depth: expectimax depth searched (0 for other bots).
        expected_money: the estimated final money of every player after this move.
        win_probability: the estimated chance that the player to move wins.
        value: the search's own score of the move for the player to move.
        pv: the principal variation, starting with `action`, through the rest of the turn.
    """

    action: ActionId
    notation: str
    visits: int = 0
    depth: int = 0
    expected_money: list[float] = field(default_factory=list)
    win_probability: float = 0.0
    value: float = 0.0
    pv: list[ActionId] = field(default_factory=list)

    @property
    def pv_notation(self) -> list[str]:
        return [action_to_string(a) for a in self.pv]


@dataclass
class Analysis:
    """A bot's analysis of a decision point: the moves best first, and root statistics."""

    player: int
    bot: str
    moves: list[MoveInfo]
    iterations: int = 0
    nodes: int = 0
    depth: int = 0
    elapsed_ms: float = 0.0

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
            rows.append(f"{i + 1:>2} {m.notation:<28} {m.visits:>7} {m.depth:>5} "
                        f"{100 * m.win_probability:>5.1f}%  {money:<15} {plan}")
        rows.append(f"iterations {self.iterations}, nodes {self.nodes}, "
                    f"{self.elapsed_ms:.0f} ms, {self.nodes_per_second:,.0f} nodes/s")
        return "\n".join(rows)


class Bot(Protocol):
    """What every bot provides."""

    name: str

    def analyze(self, state: engine.GameState, budget: "Budget | dict[str, Any] | None" = None) -> Analysis: ...

    def choose(self, state: engine.GameState) -> ActionId: ...


def decision_player(state: engine.GameState) -> int:
    """The player to move, or a ValueError if the state is not a decision point."""
    if state.is_terminal():
        raise ValueError("the game is over: there is no move to analyse")
    if state.is_chance():
        raise ValueError("the state is at a chance event: apply an outcome first")
    return int(state.current_player)
