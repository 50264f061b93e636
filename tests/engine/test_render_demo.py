"""render() at every decision point of random games, the demo CLI, and bench_core."""
from __future__ import annotations

import io
import random
import re

import pytest

from gallerist import engine
from gallerist.engine import demo
from gallerist.engine.actions import action_to_string, describe_decision
from gallerist.engine.render import WIDTH, render
from gallerist.engine._bench import bench_core
from gallerist.engine.state import GameState, new_game

PLAYER_COUNTS = (2, 3, 4)


def _check_render(state: GameState) -> str:
    """Render `state` and check what must hold at any point of any game."""
    before = state.state_bytes()
    text = render(state)
    assert state.state_bytes() == before, "render() changed the state"
    assert isinstance(text, str) and text
    assert text == state.render()
    assert "\x1b" not in text, "no colour codes"
    lines = text.split("\n")
    assert all(len(line) <= WIDTH for line in lines), max(lines, key=len)
    assert all(line == line.rstrip() for line in lines), "no trailing spaces"
    assert not re.search(r"[^\s(]#\d", text), "cells run into each other"
    n = state.num_players
    assert f"{n} players" in lines[0]
    for p in range(n):
        assert re.search(rf"^P{p}\b", text, re.M), f"player {p} missing"
    for loc in ("SO", "AC", "MC", "IM"):
        assert f"{loc} " in text
    for name in ("painting-blue", "digital-red", "rep-digital", "auction-$6", "Contracts:",
                 "plaza", "box office"):
        assert name in text
    if state.is_terminal():
        assert "Final" in text and re.search(r"^Winners?\b", text, re.M)
        for p, sc in enumerate(state.final_scores()):
            row = next(line for line in lines if line.startswith(f"P{p} ") and
                       line.split()[-1].isdigit())
            assert int(row.split()[-1]) == sc["money"]
            assert int(row.split()[-2]) == sc["total"]
        assert "Now:" not in text
    else:
        assert f"Now: {describe_decision(state)}" in text
        options = ([a for a, _ in state.chance_outcomes()] if state.is_chance()
                   else state.legal_actions())
        words = set(text.split())
        for a in options:
            label = action_to_string(a)
            assert label in words or label.removeprefix("chance:") in words, label
        assert "Final " not in text
    return text


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_render_at_every_point_of_a_random_game(num_players: int) -> None:
    rng = random.Random(100 + num_players)
    state = new_game(num_players, seed=num_players)
    sizes = []
    while not state.is_terminal():
        sizes.append(len(_check_render(state).split("\n")))
        if state.is_chance():
            state.apply_random_chance(rng.getrandbits(64))
        else:
            state.apply(rng.choice(state.legal_actions()))
    final = _check_render(state)
    assert "Auction of renowned works:" in final
    # compact: about 40-60 lines, never far beyond
    assert max(sizes) <= 45 + 8 * num_players, max(sizes)


def test_render_of_a_view_hides_the_opponents_cards() -> None:
    state = new_game(3, seed=5)
    view = state.view(1)
    text = _check_render(view)
    assert text.count("Curator hidden, Dealer hidden") == 2
    assert "Curator hidden" not in _check_render(state)


def test_render_shows_the_board_details() -> None:
    state = new_game(2, seed=0)
    raw = state._raw()
    text = render(state)
    assert "setup" in text.split("\n")[0]
    assert "unused" in text  # the middle market column with two players
    assert "start tile #" in text  # start tiles still beside the locations
    for p, pl in enumerate(raw["players"]):
        assert f"P{p}" in text and f"${pl['money']}, infl {pl['influence']}" in text
    discovered = [a for a in range(8) if raw["ar_discovered"][a]]
    assert len(discovered) == 1
    assert text.count("collector waiting") == 4  # the red artists


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_demo_main_plays_a_game_to_the_final_scores(
        num_players: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert demo.main(["--players", str(num_players), "--seed", "3"]) == 0
    out = capsys.readouterr().out
    lines = out.rstrip("\n").split("\n")
    assert lines[0].startswith(f"The Gallerist: a {num_players}-player game, seed 3")
    assert "Turn 1 (round 1) P0:" in out
    assert re.search(r"^Winners?( \(tied\))?: P\d", out, re.M)
    last = lines[-1]
    assert last.startswith("Final scores: ") and "winner" in last
    for p in range(num_players):
        assert f"P{p} $" in last
    # the last line agrees with the game that play() replays from the same seed
    state = demo.play(num_players, 3, out=io.StringIO())
    assert state.is_terminal()
    assert last == demo.format_result(state)


def test_demo_is_deterministic_and_has_moves_and_boards_modes(
        capsys: pytest.CaptureFixture[str]) -> None:
    demo.main(["--seed", "11"])
    first = capsys.readouterr().out
    demo.main(["--seed", "11"])
    assert capsys.readouterr().out == first
    demo.main(["--seed", "11", "--moves"])
    moves = capsys.readouterr().out
    assert " -> start:" in moves and "must choose" in moves
    assert moves.rstrip().split("\n")[-1] == first.rstrip().split("\n")[-1]
    demo.main(["-p", "3", "-s", "2", "--boards"])
    boards = capsys.readouterr().out
    assert boards.count("THE GALLERIST, 3 players") > 20  # one board per turn


def test_demo_help_and_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        demo.main(["--help"])
    assert exc.value.code == 0
    assert "--players" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        demo.main(["--players", "5"])
    assert exc.value.code == 2


def test_bench_core_reports_sane_rates() -> None:
    r = bench_core(2, iterations=2000, seed=1, repeat=1)
    assert r["state_bytes"] > 0
    for key in ("copy_per_s", "memcpy_per_s", "legal_per_s", "apply_undo_per_s",
                "apply_per_s", "undo_per_s"):
        assert r[key] > 0, key
    assert r["apply_undo_per_s"] <= r["apply_per_s"]
    with pytest.raises(ValueError):
        bench_core(2, iterations=0)
    assert engine.random_playouts(2, games=3, seed=1)["unfinished"] == 0
