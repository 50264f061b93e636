"""The bots: the `Bot` protocol and `BaseBot` (`base`), MCTS, expectimax, greedy and
random, the remote bot that asks a hint service, and the spec parser that makes a bot
from a string such as "mcts:iterations=2000" (`spec`)."""
from gallerist.ai._lazy import lazy_exports

_EXPORTS = {
    "Analysis": "base", "BaseBot": "base", "Bot": "base", "Budget": "base", "MoveInfo": "base",
    "PositionSummary": "base", "MoveRestrictionError": "base", "restrict_moves": "base",
    "MctsBot": "mcts", "ExpectimaxBot": "expectimax", "GreedyBot": "baselines",
    "RandomBot": "baselines", "RemoteBot": "remote", "RemoteError": "remote", "BOTS": "spec",
    "DEFAULT_BOT": "spec", "bot_options": "spec", "make_bot": "spec", "parse_spec": "spec",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
