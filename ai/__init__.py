"""Search bots for The Gallerist: MCTS, expectimax and baselines (re-exports only)."""
from ai.baselines import GreedyBot, RandomBot
from ai.bot import Analysis, BaseBot, Bot, Budget, MoveInfo
from ai.expectimax import ExpectimaxBot
from ai.mcts import MctsBot
from ai.spec import BOTS, bot_options, make_bot, parse_spec

__all__ = ["Analysis", "BOTS", "BaseBot", "Bot", "Budget", "ExpectimaxBot", "GreedyBot",
           "MctsBot", "MoveInfo", "RandomBot", "bot_options", "make_bot", "parse_spec"]
