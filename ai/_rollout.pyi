"""Type stub of ai._rollout, the rollout policy and evaluator (ai/_rollout.pyx)."""
from gallerist.ai._evaluation import Evaluator
from gallerist.ai._model import ModelEvaluator
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
