"""Search bots for The Gallerist: MCTS, expectimax and baselines (re-exports only)."""
from gallerist.ai.baselines import GreedyBot, RandomBot
from gallerist.ai.bot import Analysis, BaseBot, Bot, Budget, MoveInfo
from gallerist.ai.expectimax import ExpectimaxBot
from gallerist.ai.mcts import MctsBot
from gallerist.ai.spec import BOTS, bot_options, make_bot, parse_spec

__all__ = ["Analysis", "BOTS", "BaseBot", "Bot", "Budget", "ExpectimaxBot", "GreedyBot",
           "MctsBot", "MoveInfo", "RandomBot", "bot_options", "make_bot", "parse_spec"]
