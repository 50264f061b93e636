"""Type stub of ai._rollout, the rollout policy and evaluator (ai/_rollout.pyx)."""
from gallerist.ai._evaluation import Evaluator

#: Rollout policy names, by their C number.
POLICIES: tuple[str, ...]

class RolloutEvaluator(Evaluator):
    inner: Evaluator
    policy: int
    cutoff: int
    def __init__(self, inner: Evaluator, *, policy: str, cutoff: int) -> None: ...
