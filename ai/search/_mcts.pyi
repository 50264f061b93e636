"""Type stub of ai.search._mcts, the compiled MCTS (ai/search/_mcts.pyx)."""
from typing import Any

from gallerist.ai.search._evaluation import Evaluator
from gallerist.ai.search._model import ModelEvaluator
from gallerist.engine.state import GameState

TREE_HEADER_BYTES: int

class MctsEngine:
    evaluator: Evaluator
    prior: ModelEvaluator | None
    def __init__(self, threads: int, evaluator: Evaluator, *, c: float, c_puct: float,
                 fpu_reduction: float, prior: ModelEvaluator | None, max_nodes: int,
                 margin_weight: float, margin_scale: float, solo_reference: float,
                 solo_scale: float) -> None: ...
    def prepare(self, state: GameState, viewer: int, seed: int, reuse: bool,
                only: list[int] | None = None) -> int: ...
    def run(self, i: int, iterations: int, deadline: float) -> None: ...
    def stop(self) -> None: ...
    def stats(self, depth: bool = False) -> dict[str, Any]: ...
    def principal_variation(self, action: int, max_len: int = 60) -> list[int]: ...
    def continuation(self, action: int, min_visits: int = 10,
                     max_len: int = 24) -> tuple[list[int], list[int]]: ...
