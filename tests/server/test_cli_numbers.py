"""Every number of the `gallerist` commands is checked by argparse before any work, by the
shared validators of `cli.commands.options`: a seed is 0..2^63-1, a worker count
1..MAX_WORKERS, a game count 1..MAX_GAMES (the schedule is made up front), a listed-move
count 1 or more. A bad one is a usage error naming the option (exit 2), and nothing runs."""
from __future__ import annotations

from pathlib import Path

import pytest

from gallerist.ai.arena.tournament import schedule
from gallerist.cli.main import main
from gallerist.cli.commands.options import MAX_GAMES, MAX_SEED, MAX_WORKERS

BAD_NUMBERS = [
    # (argv, option, value): each must be refused naming the option
    (["arena", "greedy", "random", "--games", "2"], "--seed", "-1"),
    (["arena", "greedy", "random", "--games", "2"], "--seed", str(MAX_SEED + 1)),
    (["arena", "greedy", "random"], "--games", "0"),
    (["arena", "greedy", "random"], "--games", "99999999999"),
    (["arena", "greedy", "random", "--games", "2"], "--workers", "0"),
    (["arena", "greedy", "random", "--games", "2"], "--workers", "-2"),
    (["arena", "greedy", "random", "--games", "2"], "--workers", str(MAX_WORKERS + 1)),
    (["play", "greedy", "random"], "--seed", "-3"),
    (["new"], "--seed", "-1"),
    (["new"], "--indent", "-1"),
    (["hint", "--demo", "--local"], "--demo-seed", "-1"),
    (["hint", "--demo", "--local"], "--moves", "-2"),
    (["hint", "--demo", "--local"], "--moves", "0"),
    (["hint", "--demo"], "--timeout", "-1"),
    (["demo"], "--demo-seed", "-1"),
    (["selfplay", "greedy", "--out", "sp"], "--games", "999999999999"),
    (["selfplay", "greedy", "--games", "1", "--out", "sp"], "--seed", "-1"),
    (["selfplay", "greedy", "--games", "1", "--out", "sp"], "--workers", "0"),
    (["label", "sp"], "--workers", "-2"),
    (["analyze", "game.jsonl"], "--workers", "0"),
    (["analyze", "game.jsonl"], "--game", "-1"),
    (["replay", "game.jsonl"], "--game", "-1"),
    (["serve"], "--workers", "0"),
    (["serve"], "--grace", "-1"),
    (["serve"], "--state-cache", "-1"),
]


@pytest.mark.parametrize("argv,option,value", BAD_NUMBERS,
                         ids=[f"{a[0]} {o} {v}" for a, o, v in BAD_NUMBERS])
def test_bad_number_is_a_usage_error_naming_the_option(
        argv: list[str], option: str, value: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A number out of its range is refused by argparse (exit 2) with one error line naming
    the option and the value, before anything runs or is written."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as info:
        main([*argv, option, value])
    assert info.value.code == 2
    captured = capsys.readouterr()
    errors = [line for line in captured.err.splitlines() if "error: " in line]
    assert len(errors) == 1, captured.err
    assert f"argument {option}: {value}" in errors[0]
    assert "Traceback" not in captured.err and captured.out == ""
    assert list(tmp_path.iterdir()) == []


def test_games_bound_names_the_limit(capsys: pytest.CaptureFixture[str]) -> None:
    """Too many games is refused at once with the bound and what to do, not after
    building a schedule of gigabytes."""
    with pytest.raises(SystemExit):
        main(["arena", "greedy", "random", "--games", str(MAX_GAMES + 1)])
    err = capsys.readouterr().err
    assert f"is outside 1..{MAX_GAMES}" in err and "several runs" in err


def test_largest_values_are_accepted() -> None:
    """The bounds themselves are valid values."""
    from gallerist.cli.main import build_parser

    parser = build_parser()
    args = parser.parse_args(["arena", "greedy", "--seed", str(MAX_SEED),
                              "--games", str(MAX_GAMES), "--workers", str(MAX_WORKERS)])
    assert (args.seed, args.games, args.workers) == (MAX_SEED, MAX_GAMES, MAX_WORKERS)
    assert parser.parse_args(["new", "--seed", str(MAX_SEED)]).seed == MAX_SEED


def test_arena_schedule_keeps_setup_seeds_in_range() -> None:
    """An arena whose later games would need setup seeds above 2^63-1 is refused before
    any game, naming the seed; one that fits is scheduled."""
    with pytest.raises(ValueError, match="above 2\\^63-1"):
        schedule(["greedy", "random"], 2, 4, MAX_SEED)
    with pytest.raises(ValueError, match="seed must be 0..2\\^63-1, got -1"):
        schedule(["greedy", "random"], 2, 2, -1)
    plan = schedule(["greedy", "random"], 2, 2, MAX_SEED)
    assert {g.seed for g in plan} == {MAX_SEED}


def test_arena_seed_overflow_is_a_one_line_error(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """`arena --seed 2^63-1 --games 4` (two setup seeds) is one error line, exit 2."""
    argv = ["arena", "greedy", "random", "--games", "4", "--seed", str(MAX_SEED), "--workers", "1",
            "--no-progress", "--records", str(tmp_path / "g.jsonl"),
            "--out", str(tmp_path / "r.json"), "--png", str(tmp_path / "p.png")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error: seed" in err and "above 2^63-1" in err
