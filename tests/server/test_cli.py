"""The `gallerist` command line, run in-process through `main(argv)`."""
from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest

from gallerist import engine
from gallerist.server import GalleristServer
from gallerist.cli.main import build_parser, main
from gallerist.server.demo_state import demo_state


def test_new_writes_a_valid_state(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`new` writes the new game's JSON to a file or stdout; it reads back as that game."""
    out = tmp_path / "game.json"
    assert main(["new", "--players", "3", "--seed", "7", "-o", str(out)]) == 0
    state = engine.GameState.from_json(out.read_text())
    assert state == engine.new_game(3, seed=7)
    assert main(["new", "--seed", "7", "--indent", "2"]) == 0
    text = capsys.readouterr().out
    assert engine.GameState.from_json(text) == engine.new_game(2, seed=7)
    assert text.count("\n") > 50


def test_hint_local_demo(capsys: pytest.CaptureFixture[str]) -> None:
    """`hint --local --demo` prints the table of moves in words with evaluations and the
    turn plan one step a line; `--notation` the moves by notation, each with its plan,
    and the turn plan on one line."""
    assert main(["hint", "--local", "--demo", "--bot", "mcts", "--iterations", "300",
                 "--board"]) == 0
    out = capsys.readouterr().out
    assert "THE GALLERIST" in out                     # the board
    assert "Hints for player 0 by mcts" in out
    assert "visits" in out and "win%" in out and "expected $ P0/P1" in out
    words = engine.describe_moves(demo_state(seed=1, players=2))
    best = re.search(r"^ 1  (.+?) {2,}\d", out, re.M)
    assert best and best.group(1).strip() in words.values()
    assert f"Turn plan:\n  1. {best.group(1).strip()}\n  2. " in out
    assert "300 iterations" in out
    assert main(["hint", "--local", "--demo", "--bot", "mcts", "--iterations", "300",
                 "--notation"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^Turn plan: \S+:", out, re.M) and "plan (rest of the turn)" in out
    assert not any(text in out for text in words.values())


def test_hint_local_state_file_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`hint FILE --local --json` prints the final HintResponse as JSON."""
    path = tmp_path / "s.json"
    main(["new", "--seed", "3", "-o", str(path)])
    capsys.readouterr()
    assert main(["hint", str(path), "--local", "--bot", "expectimax:depth=2", "--json"]) == 0
    response = json.loads(capsys.readouterr().out)
    assert response["final"] is True and response["bot"] == "expectimax"
    assert {m["notation"] for m in response["moves"]} == {"start:SO", "start:AC", "start:MC",
                                                          "start:IM"}
    words = engine.describe_moves(engine.new_game(2, seed=3))
    assert all(m["description"] == words[m["action"]] for m in response["moves"])


def test_hint_local_progress_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    """A longer local search reports progress on stderr while it runs."""
    assert main(["hint", "--local", "--demo", "--time-ms", "700", "--interval-ms", "100"]) == 0
    captured = capsys.readouterr()
    assert "searching" in captured.err and "best so far" in captured.err
    assert "Hints for player" in captured.out


def test_hint_remote(service: GalleristServer, capsys: pytest.CaptureFixture[str]) -> None:
    """`hint --demo --address` asks a running server and prints the table."""
    assert main(["hint", "--demo", "--address", f"localhost:{service.port}", "--bot", "greedy",
                 "--moves", "2"]) == 0
    out = capsys.readouterr().out
    assert "Hints for player 0 by greedy" in out and "Turn plan:" in out
    assert "more legal move(s) not shown" in out


def test_hint_without_bot_asks_for_the_servers_default_bot(
        capsys: pytest.CaptureFixture[str]) -> None:
    """A bare `hint` names no bot, so the server answers with its own default bot
    (`serve --default-bot`), not the CLI's."""
    from server_testlib import running_server
    from gallerist.server.limits import Limits

    with running_server(workers=1, limits=Limits(default_bot="greedy")) as server:
        assert main(["hint", "--demo", "--address", f"localhost:{server.port}",
                     "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["bot"] == "greedy"


def test_hint_errors(service: GalleristServer, tmp_path: Path,
                     capsys: pytest.CaptureFixture[str]) -> None:
    """Errors are one line on stderr with a non-zero status: the server's
    INVALID_ARGUMENT message (1), a bad state file (2), a bad local bot (2), no server (1)."""
    assert main(["hint", "--demo", "--address", f"localhost:{service.port}",
                 "--bot", "mcts:iterations=999999999"]) == 1
    assert "INVALID_ARGUMENT: bot_spec: option iterations=999999999" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text('{"schemaVersion": 1, "numPlayers": 7}')
    assert main(["hint", str(bad), "--local"]) == 2
    assert "not a valid state: num_players: 7 is outside 1..4" in capsys.readouterr().err
    assert main(["hint", "--demo", "--local", "--bot", "nobot"]) == 2
    assert "unknown bot 'nobot'" in capsys.readouterr().err
    assert main(["hint", "--demo", "--address", "localhost:1", "--timeout", "2"]) == 1
    assert "UNAVAILABLE" in capsys.readouterr().err


def test_play_prints_moves_boards_and_scores(capsys: pytest.CaptureFixture[str]) -> None:
    """`play` plays a whole game between two bot specs, move by move with the board at
    each turn start, and ends with the scores and the winner."""
    assert main(["play", "greedy", "mcts:iterations=10", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert out.count("THE GALLERIST") > 10
    assert "P0 (greedy)" in out and "P1 (mcts:iterations=10)" in out
    assert "move:" in out and "[" in out            # decisions and chance events
    assert "Final scores" in out and "Winner(s): P" in out


def test_play_rejects_bad_specs(capsys: pytest.CaptureFixture[str]) -> None:
    """`play` needs 1-4 valid specs (one is a solo game against Lacerda)."""
    assert main(["play", "greedy", "greedy", "greedy", "greedy", "greedy"]) == 2
    assert "give 1 to 4 bot specs" in capsys.readouterr().err
    assert main(["play", "greedy", "--board", "none"]) == 0
    capsys.readouterr()
    assert main(["play", "greedy", "chess"]) == 2
    assert "unknown bot 'chess'" in capsys.readouterr().err


def test_demo_starts_service_and_prints_hint(capsys: pytest.CaptureFixture[str]) -> None:
    """`demo` starts the service on a free localhost port, prints the board and a hint,
    and stops, in well under the seconds the README promises."""
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "service started on localhost:" in out
    assert "THE GALLERIST" in out and "Hints for player" in out and "Turn plan:" in out
    seconds = float(out.rsplit("whole demo ", 1)[1].split(" s")[0])
    assert seconds < 5


def test_help_texts_show_percent_signs_once() -> None:
    """Descriptions are printed as written (argparse does not %-format them): `arena
    --help` says "95% intervals", not "95%% intervals"."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in sub.choices.items():
        assert "%%" not in command.format_help(), name
    assert "95% intervals" in " ".join(sub.choices["arena"].format_help().split())


def test_help_texts() -> None:
    """Every subcommand has help; `--help` exits 0."""
    parser = build_parser()
    help_text = parser.format_help()
    for command in ("serve", "hint", "play", "new", "demo"):
        assert command in help_text
    with pytest.raises(SystemExit) as info:
        main(["serve", "--help"])
    assert info.value.code == 0
