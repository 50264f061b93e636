"""The demo position of `gallerist demo` and `hint --demo`: found at every player count
and seed, or a one-line error naming a seed to try."""
from __future__ import annotations

import functools

import pytest

from gallerist.engine.actions import decision_kind
from gallerist.cli.main import main
from gallerist.cli.commands import hint
from gallerist.server.demo_state import DemoPositionError, demo_state


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_demo_position_found_for_every_player_count_and_seed(players: int) -> None:
    """Seeds 1 to 30 each give a turn start with 3 or more moves, short solo games too."""
    for seed in range(1, 31):
        state = demo_state(seed=seed, players=players)
        assert decision_kind(state) == "turn-start", seed
        assert len(state.legal_actions()) >= 3, seed
        assert state == demo_state(seed=seed, players=players)


def test_short_game_gives_a_position_of_its_middle() -> None:
    """A game that ends before the turns asked (seed 1 solo: 11 turns) gives a turn
    start of its middle: the one that asking for 4 to 6 turns first gives."""
    middle = demo_state(seed=1, players=1)
    assert any(middle == demo_state(seed=1, players=1, turns=t) for t in (4, 5, 6))
    assert middle != demo_state(seed=1, players=1, turns=0)


def test_no_position_names_a_seed_to_try() -> None:
    """When no turn start offers enough moves, the error is one line naming a seed whose
    game does, and that seed gives a position."""
    for min_moves in range(3, 300):
        try:
            demo_state(seed=1, players=1, min_moves=min_moves)
        except DemoPositionError as exc:
            message = str(exc)
            break
    else:
        pytest.fail("seed 1 gave a position for every number of moves")
    assert "\n" not in message and "seed 1 " in message
    other = int(message.rsplit("try seed ", 1)[1])
    state = demo_state(seed=other, players=1, min_moves=min_moves)
    assert len(state.legal_actions()) >= min_moves


def test_cli_solo_demo_and_local_hint(capsys: pytest.CaptureFixture[str]) -> None:
    """`demo --players 1` and `hint --demo --players 1 --local` (seed 1) print a hint."""
    assert main(["demo", "--players", "1", "--no-board", "--iterations", "300"]) == 0
    assert "expected final money" in capsys.readouterr().out
    assert main(["hint", "--demo", "--players", "1", "--local", "--iterations", "300"]) == 0
    assert "expected final money" in capsys.readouterr().out


def test_cli_seed_without_position_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """A demo seed without a position is one error line naming --demo-seed, exit 2."""
    monkeypatch.setattr(hint, "demo_state", functools.partial(demo_state, min_moves=10_000))
    assert main(["hint", "--demo", "--players", "1", "--local", "--iterations", "10"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --demo-seed: ") and err.count("\n") == 1
    assert "Traceback" not in err
