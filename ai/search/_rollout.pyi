"""Type stub of ai.search._rollout, the rollout policy and evaluator (ai/search/_rollout.pyx)."""
from gallerist.ai.search._evaluation import Evaluator
from gallerist.ai.search._model import ModelEvaluator
from gallerist.engine.state import GameState

#: Rollout policy names, by their C number.
POLICIES: tuple[str, ...]

class RolloutEvaluator(Evaluator):
    inner: Evaluator
    policy: int
    cutoff: int
    network: ModelEvaluator | None
    temperature: float
    model_steps: int
    def __init__(self, inner: Evaluator, *, policy: str, cutoff: int,
                 network: ModelEvaluator | None = None, temperature: float = 1.0,
                 model_steps: int = 0) -> None: ...

def playout_shares(state: GameState, viewer: int, count: int, max_ms: float = 0.0,
                   seed: int = 0) -> tuple[list[float], int]: ...
