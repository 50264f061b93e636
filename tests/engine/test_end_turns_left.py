"""The end's turn count (R-END-1): once the end is triggered, `game_end.turns_left` counts
the turns still to play, the current one included, so a live game has at least one and the
turn that takes it to 0 scores the game. A state read from outside that says otherwise is
refused naming the field; every count the reader accepts plays to a writable end."""
import json
import random

import pytest

from gallerist import engine
from gallerist.engine.errors import InvalidStateError


def _play(state: engine.GameState, steps: int, rng: random.Random) -> None:
    for _ in range(steps):
        if state.is_terminal():
            return
        if state.is_chance():
            state.apply_random_chance(rng.randrange(1 << 30))
        else:
            state.apply(rng.choice(state.legal_actions()))


def _triggered(state: engine.GameState, turns_left: int) -> str:
    d = json.loads(state.to_json())
    d.setdefault("gameEnd", {}).update(triggered=True, turnsLeft=turns_left)
    return json.dumps(d)


def test_R_END_1_turns_left_counts_the_current_turn():
    """In the engine's own games a live game whose end is triggered always has a turn
    left (1..2n-1), and a finished one has none."""
    rng = random.Random(3)
    for game in range(24):
        n = 1 + game % 4
        s = engine.new_game(n, seed=game)
        while not s.is_terminal():
            if s.turns_left >= 0:
                assert 1 <= s.turns_left <= 2 * n - 1
            _play(s, 1, rng)
        assert s.turns_left == 0


@pytest.mark.parametrize("players", [2, 3, 4])
def test_R_END_1_live_game_without_a_turn_left_is_refused(players):
    """A game in progress whose end is triggered with 0 turns left is refused, naming
    game_end.turns_left and the problem (it would play a turn past the end)."""
    s = engine.new_game(players, seed=1)
    _play(s, 7, random.Random(1))
    with pytest.raises(InvalidStateError) as info:
        engine.GameState.from_json(_triggered(s, 0))
    assert str(info.value).startswith("game_end.turns_left: is 0 but the game is not over")
    engine.GameState.from_json(_triggered(s, 1))      # one turn left is a valid position


def test_R_END_1_every_accepted_turn_count_plays_to_a_writable_end():
    """Triggered at random points of random games with every count 0..2n-1: a state the
    reader accepts plays to the end with every position writable (no negative count), and
    one with 0 turns left is refused by name."""
    rng = random.Random(5)
    accepted = 0
    for game in range(40):
        n = 2 + game % 3
        s = engine.new_game(n, seed=100 + game)
        _play(s, rng.randrange(0, 250), rng)
        if s.is_terminal():
            continue
        for turns_left in range(2 * n):
            try:
                t = engine.GameState.from_json(_triggered(s, turns_left))
            except InvalidStateError as e:
                assert turns_left == 0, str(e)
                assert "game_end.turns_left" in str(e)
                continue
            accepted += 1
            while not t.is_terminal():
                _play(t, 1, rng)
                t.to_proto()
            assert t.turns_left == 0
    assert accepted > 40
