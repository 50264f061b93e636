"""The compiled searches, run without the GIL: MCTS, expectimax, greedy lookahead, and
the evaluators they call at a leaf (heuristic, rollout, the network's forward pass).
Each `.pxd` is the map of its module's C API."""
from gallerist.ai._lazy import lazy_exports

_EXPORTS = {
    "Evaluator": "_evaluation", "HeuristicEvaluator": "_evaluation",
    "MixEvaluator": "_evaluation", "PythonEvaluator": "_evaluation",
    "RolloutEvaluator": "_rollout", "playout_shares": "_rollout", "ModelEvaluator": "_model",
    "MctsEngine": "_mcts", "ExpectimaxEngine": "_expectimax", "greedy_moves": "_greedy",
    "greedy_line": "_greedy",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
