"""Bots for The Gallerist and what is built around them, one subpackage per concept:

- `search`: the compiled searches and evaluators (MCTS, expectimax, greedy, rollouts,
  the network's forward pass)
- `bots`: the `Bot` protocol, the bots and the spec parser (`make_bot("mcts:...")`)
- `calibration`: from search statistics to the numbers a hint reports
- `net`: the network: its model file, its NumPy reference and the packaged networks
- `learn`: the network's training
- `selfplay`: self-play records and their playout labels
- `arena`: tournaments, game records and ratings
- `review`: game analysis and its review page
- `interop`: OpenSpiel

The value types of an analysis (`Budget`, `MoveInfo`, `Analysis`) are `values`. The client
of the hint service is `gallerist.client`. The names below are the bots' and those types.
"""
from gallerist.ai.bots.baselines import GreedyBot, RandomBot
from gallerist.ai.bots.base import BaseBot, Bot
from gallerist.ai.values import Analysis, Budget, MoveInfo
from gallerist.ai.bots.expectimax import ExpectimaxBot
from gallerist.ai.bots.mcts import MctsBot
from gallerist.ai.bots.spec import BOTS, bot_options, make_bot, parse_spec

__all__ = ["Analysis", "BOTS", "BaseBot", "Bot", "Budget", "ExpectimaxBot", "GreedyBot",
           "MctsBot", "MoveInfo", "RandomBot", "bot_options", "make_bot", "parse_spec"]
