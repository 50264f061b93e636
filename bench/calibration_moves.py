"""The move scale of the calibration (bench/calibration.py's `moves` step): how many $ of
the heuristic's money difference between two moves make one unit of logit.

Expectimax, greedy and random report win probabilities from the position's root
playouts, the same for every move; what tells their moves apart is the heuristic's money
after each. The scale that turns a money difference into a difference of win probability
is fitted against MCTS on the same positions: for training-half 2-player positions, MCTS
(200 ms) and each heuristic bot analyze every move; for each move MCTS visited well
(ai.calibration.fit.MIN_VISITS) and the heuristic bot's first move, the difference of
MCTS's calibrated logits is regressed through the origin on the difference of the
mover's money margin (ai.calibration.fit.fit_move_scales, in the `fit` step).

    moves.jsonl.gz   per position and bot: every move's raw money (and MCTS's visits and
                     win shares)
"""
from __future__ import annotations

import os
import sys
from typing import Any

from tqdm import tqdm

from gallerist.ai.values import Budget
from gallerist.ai.bots.spec import make_bot

#: Training-half 2-player positions analyzed (full run, --quick).
POSITIONS, QUICK_POSITIONS = 300, 12
#: (label, kind, spec, budget) of the bots analyzed move by move.
BOTS = (("mcts", "mcts", "mcts:calibrated=false,reuse=false", Budget(time_ms=200)),
        ("expectimax", "expectimax", "expectimax:calibrated=false,playouts=0",
         Budget(time_ms=200, depth=64)),
        ("greedy", "static", "greedy:calibrated=false,playouts=0", Budget()))
QUICK_BOTS = (("mcts", "mcts", "mcts:calibrated=false,reuse=false", Budget(time_ms=20)),
              ("expectimax", "expectimax", "expectimax:calibrated=false,playouts=0",
               Budget(time_ms=20, depth=64)),
              ("greedy", "static", "greedy:calibrated=false,playouts=0", Budget()))

_worker: dict[str, Any] = {}


def _init(bots: tuple, games: dict, seed: int) -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker["bots"] = [(label, kind, make_bot(spec, seed=seed), budget)
                       for label, kind, spec, budget in bots]
    _worker["games"] = games


def _analyze(pos: Any) -> dict[str, Any]:
    state = pos.state(_worker["games"])
    out: dict[str, Any] = {"game": pos.game, "ply": pos.ply, "mover": pos.mover,
                           "turn": state.turn_number, "bots": {}}
    for label, kind, bot, budget in _worker["bots"]:
        a = bot.analyze(state, budget)
        out["bots"][label] = {"kind": kind, "moves": [
            [m.action, m.visits, m.expected_money, m.win_probabilities] for m in a.moves]}
    return out


def evaluate_moves(data: str, positions: list, games: dict, workers: int, quick: bool,
                   seed: int) -> None:
    """Every move of the chosen training-half 2-player positions, by every bot."""
    import multiprocessing

    from calibration import write_jsonl

    count = QUICK_POSITIONS if quick else POSITIONS
    pool_positions = [p for p in positions if p.players == 2 and p.game % 2 == 0]
    step = max(1, len(pool_positions) // count)
    chosen = pool_positions[::step][:count]
    bots = QUICK_BOTS if quick else BOTS
    with multiprocessing.get_context("fork").Pool(max(1, workers), initializer=_init,
                                                  initargs=(bots, games, seed)) as pool:
        rows = list(tqdm(pool.imap(_analyze, chosen), total=len(chosen), desc="moves",
                         unit="position", file=sys.stderr))   # leaving terminates the workers
    write_jsonl(os.path.join(data, "moves.jsonl.gz"), rows)
