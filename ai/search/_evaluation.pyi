"""Type stub of ai.search._evaluation, the compiled evaluators (ai/search/_evaluation.pyx)."""
from typing import Sequence

from gallerist.engine.state import GameState

#: The default $ scale of the softmax from money to win chances.
WIN_TEMPERATURE: float

class Evaluator:
    """Base class of the evaluators (subclassed in Cython, or via PythonEvaluator)."""

    win_temperature: float
    def __init__(self, *, win_temperature: float = ...) -> None: ...
    def static(self) -> Evaluator: ...
    def values(self, state: GameState, seed: int = 0) -> tuple[list[float], list[float]]: ...
    def win_chances(self, money: Sequence[float]) -> list[float]: ...

class HeuristicEvaluator(Evaluator):
    ticket_value: float
    commission_value: float
    influence_value: float
    def __init__(self, *, win_temperature: float = ..., ticket_value: float = ...,
                 commission_value: float = ..., influence_value: float = ...) -> None: ...

class MixEvaluator(Evaluator):
    first: Evaluator
    second: Evaluator
    weight: float
    def __init__(self, first: Evaluator, second: Evaluator, *, weight: float) -> None: ...

class PythonEvaluator(Evaluator):
    def estimate(self, state: GameState) -> tuple[Sequence[float], Sequence[float] | None]: ...

def evaluate(state: GameState, evaluator: Evaluator | None = None) -> tuple[list[float], list[float]]: ...
