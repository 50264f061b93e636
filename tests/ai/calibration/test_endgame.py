"""Calibrated numbers near the end of a game (ai.calibration.endgame, Calibration.settle): a map
fitted on every stage of a game must give way to what is known, so where the rest of
the game is forced the reported expected money is its exact final result."""
import random

import pytest

from gallerist import engine
from gallerist.ai import ExpectimaxBot, GreedyBot, MctsBot
from gallerist.ai.calibration.maps import Calibration
from gallerist.ai.calibration.endgame import HORIZON, outcome_spread

#: Before the end: how many decisions (of the recorded game) the tested positions are.
BEFORE_END = (1, 2, 5)
#: The most tree nodes a proof that the rest of a game is forced may visit.
PROOF_NODES = 4000


def _greedy_game(players: int, seed: int) -> list[engine.GameState]:
    """Every decision point of one game played by greedy bots (chance drawn from the
    seed), in order: the kind of game the analysis of a record reads."""
    rng = random.Random(seed)
    bot = GreedyBot(seed=seed)
    state = engine.new_game(players, seed)
    points = []
    while not state.is_terminal():
        if state.is_chance():
            state.apply_random_chance(rng.randrange(1 << 30))
            continue
        points.append(state.clone_position())
        state.apply(bot.choose(state))
    return points


def _forced_money(state: engine.GameState, seat: int) -> float | None:
    """`seat`'s final money when every choice and every chance outcome left leads to
    the same amount (found by walking the whole rest of the game), else None; None as
    well when the rest is larger than PROOF_NODES nodes."""
    seen: set[float] = set()
    budget = [PROOF_NODES]

    def walk(s: engine.GameState) -> bool:
        budget[0] -= 1
        if budget[0] < 0:
            return False
        if s.is_terminal():
            seen.add(float(s.money()[seat]))
            return len(seen) == 1
        branches = ([a for a, _ in s.chance_outcomes()] if s.is_chance()
                    else s.legal_actions())
        for a in branches:
            s.apply(a)
            ok = walk(s)
            s.undo()
            if not ok:
                return False
        return True

    return seen.pop() if walk(state.copy()) else None


def _cases() -> list[tuple[int, int, int]]:
    return [(players, seed, k) for players in (1, 2, 3, 4) for seed in (3, 4, 5)
            for k in BEFORE_END]


@pytest.mark.parametrize("spec", ["mcts", "expectimax"])
def test_forced_rest_reports_the_exact_final_money_at_every_player_count(spec):
    """R-END-1 near the end: 1, 2 and 5 decisions before the end of greedy games (solo
    and 2-4 players), a move after which the rest of the game is forced reports the
    mover's exact final money within $1 with the calibration maps on (the default)."""
    checked = {n: 0 for n in (1, 2, 3, 4)}
    games: dict[tuple[int, int], list[engine.GameState]] = {}
    for players, seed, k in _cases():
        points = games.setdefault((players, seed), _greedy_game(players, seed))
        state = points[-k]
        seat = state.current_player
        bot = (MctsBot(iterations=400, seed=1) if spec == "mcts"
               else ExpectimaxBot(depth=2, seed=1))
        assert bot.calibration is not None   # the maps are on: this is what is reported
        for move in bot.analyze(state).moves:
            after = state.copy()
            after.apply(move.action)
            exact = _forced_money(after, seat)
            if exact is None:
                continue
            checked[players] += 1
            assert move.expected_money[seat] == pytest.approx(exact, abs=1.0), (
                f"{players} players, seed {seed}, {k} before the end, "
                f"{state.action_to_string(move.action)}")
    assert all(checked.values()), f"no forced move found at some player count: {checked}"


def test_settle_bounds_money_and_takes_the_known_win_shares_when_settled():
    """Calibration.settle: the mapped money is kept within what the playouts reached,
    and with every seat's money settled the win probabilities are the known shares."""
    state = _greedy_game(2, 3)[-1]
    after = state.copy()
    after.apply(state.legal_actions()[0])
    spread = outcome_spread(after, state.current_player, 0)
    assert spread is not None
    money, win = Calibration.settle([spread.high[0] + 40.0, spread.low[1] - 40.0],
                                    [0.9, 0.1], spread, None)
    assert money == [spread.high[0], spread.low[1]]
    if max(spread.sd) == 0.0:
        assert win == pytest.approx(list(spread.win))


def test_outcome_spread_is_none_in_the_middle_game_and_exact_at_the_end():
    """ai.calibration.endgame.outcome_spread: None where a playout runs past HORIZON decisions (the
    calibration maps stand), one exact result for a finished game."""
    points = _greedy_game(3, 4)
    assert len(points) > 3 * HORIZON
    assert outcome_spread(points[len(points) // 3], 0, 0) is None
    end = points[-1].copy()
    end.apply(end.legal_actions()[0])
    while not end.is_terminal():
        end.apply(end.chance_outcomes()[0][0] if end.is_chance() else end.legal_actions()[0])
    spread = outcome_spread(end, 0, 0)
    assert spread.low == spread.high == tuple(map(float, end.money()))


def test_outcome_spread_is_the_same_for_the_same_state_and_seed():
    """The spread is seeded: the same hint twice gives the same numbers."""
    state = _greedy_game(2, 5)[-5]
    assert outcome_spread(state, state.current_player, 7) == \
        outcome_spread(state, state.current_player, 7)
