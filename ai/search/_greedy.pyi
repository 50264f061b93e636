"""Type stub of ai.search._greedy, one-step greedy choices (ai/search/_greedy.pyx)."""
from gallerist.ai.search._evaluation import Evaluator
from gallerist.engine.state import GameState

def greedy_moves(state: GameState, seed: int, evaluator: Evaluator,
                 only: list[int] | None = None) -> list[tuple[int, float]]: ...
def greedy_line(state: GameState, action: int, evaluator: Evaluator, max_len: int = 60) -> list[int]: ...
