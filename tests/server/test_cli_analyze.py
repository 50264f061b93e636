"""`gallerist analyze`: the analysis file and the per-player summary, the seats and
budget options, one-line errors, and Ctrl-C keeping what was analyzed (exit 130)."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from gallerist import engine
from gallerist.ai.review.games import read_game
from gallerist.cli.main import main

DATA = Path(__file__).resolve().parents[1] / "data"
RECORD = DATA / "analyze_game.jsonl"


def _lines(path: Path) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_analyze_writes_the_file_and_prints_the_summary(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Every decision of the chosen seat becomes a position line in game order, between
    the header and a complete summary; the table on stdout has the same counts."""
    out = tmp_path / "a.jsonl"
    assert main(["analyze", str(RECORD), "--game", "0", "--bot", "mcts", "--iterations", "60",
                 "--seats", "0", "--workers", "2", "--out", str(out), "--no-progress"]) == 0
    lines = _lines(out)
    head, positions, summary = lines[0], lines[1:-1], lines[-1]
    game = read_game(str(RECORD))
    assert head["type"] == "header" and head["game"] == 0 and head["iterations"] == 60
    assert head["names"] == game.names and head["players"] == 2
    assert [p["ply"] for p in positions] == [ply for ply, _ in game.decisions([0])]
    assert summary["type"] == "summary" and summary["complete"] is True
    (seat0,) = summary["players"]
    assert seat0["decisions"] == len(positions)
    for label in ("inaccuracy", "mistake", "blunder"):
        assert seat0["counts"][label] == sum(p["label"] == label for p in positions)
    text = capsys.readouterr().out
    assert f"{len(positions)} of {len(positions)} decisions analyzed" in text
    row = next(line for line in text.splitlines() if line.startswith("0 "))
    assert row.split()[-3:] == [str(seat0["counts"][k]) for k in ("inaccuracy", "mistake", "blunder")]


def test_the_analysis_file_has_the_mode_of_any_new_file(tmp_path: Path) -> None:
    """The analysis file is readable as the umask allows (0o644 under 0o022), like the
    other outputs, not private (0o600) as its temporary file was."""
    old = os.umask(0o022)
    try:
        assert main(["analyze", str(RECORD), "--game", "0", "--bot", "greedy", "--seats", "0",
                     "--workers", "1", "--out", str(tmp_path / "a.jsonl"),
                     "--no-progress"]) == 0
    finally:
        os.umask(old)
    assert (tmp_path / "a.jsonl").stat().st_mode & 0o777 == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["a.jsonl"]


def test_analyze_labels_the_planted_mistake(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """The move list of tests/data/planted_mistake.json ends with a move the bots agree
    loses the game: at the default budget (200 ms per position) its line is a mistake
    or a blunder; the line names the moves in words too (as the mover saw them), and the
    summary lists it in words after the table with why (its explanation against the best
    move)."""
    out = tmp_path / "p.jsonl"
    assert main(["analyze", str(DATA / "planted_mistake.json"), "--seats", "1",
                 "--workers", "2", "--out", str(out), "--no-progress"]) == 0
    last = _lines(out)[-2]
    assert last["played"]["move"] == "action:A"
    assert last["label"] in ("mistake", "blunder")
    state = engine.GameState.from_json(json.dumps(last["state"]))
    words = engine.describe_moves(state.view(last["player"]))
    assert last["played"]["description"] == words[last["played"]["action"]]
    assert last["best"]["description"] == words[last["best"]["action"]]
    text = capsys.readouterr().out
    assert (f"seat 1, {last['label']} (loss {last['loss']:.2f}): "
            f"{last['played']['description']}\n      best: {last['best']['description']}\n"
            f"      why: {last['played']['explanation']['words']}\n") in text


def test_analyze_prints_each_seats_biggest_mistakes_with_why(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """After the table: every mistake and blunder with a why line (the played move's
    explanation against the best), then a "Biggest mistakes" section with, per seat, the
    summary's biggest_mistakes in order: move, loss and label, the move played, the better
    move and why; --notation names the moves by notation there."""
    out = tmp_path / "a.jsonl"
    argv = ["analyze", str(RECORD), "--game", "0", "--bot", "mcts", "--iterations", "60",
            "--workers", "2", "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    lines = _lines(out)
    positions, summary = lines[1:-1], lines[-1]
    text = capsys.readouterr().out
    for p in positions:
        if p["label"] in ("mistake", "blunder"):
            assert (f"{p['best']['description']}\n      why: "
                    f"{p['played']['explanation']['words']}\n") in text
    section = text[text.index("Biggest mistakes (each seat's 5 largest losses, largest first):\n"):]
    at = 0
    for seat in summary["players"]:
        assert 1 <= len(seat["biggest_mistakes"]) <= 5
        losses = [m["loss"] for m in seat["biggest_mistakes"]]
        assert losses == sorted(losses, reverse=True) and losses[0] > 0
        at = section.index(f"  seat {seat['seat']} ({seat['name']}):\n", at)
        for m in seat["biggest_mistakes"]:
            label = f", {m['label']}" if m["label"] else ""
            block = (f"    move {m['ply']} (loss {m['loss']:.2f}{label}): {m['played']}\n"
                     f"        better: {m['best']}\n        why: {m['why']}\n")
            at = section.index(block, at)
            assert m["why"]
    assert main([*argv, "--notation"]) == 0
    text = capsys.readouterr().out
    first = summary["players"][0]["biggest_mistakes"][0]
    assert f"): {first['played_move']}\n        better: {first['best_move']}\n" in text


@pytest.mark.parametrize("argv, fragment", [
    (["analyze", "nofile.jsonl"], "cannot read nofile.jsonl"),
    (["analyze", str(RECORD), "--game", "7"], "no game 7"),
    (["analyze", str(RECORD), "--seats", "3"], "--seats '3': give distinct seats in 0..1"),
    (["analyze", str(RECORD), "--seats", "a"], "--seats 'a'"),
    (["analyze", str(RECORD), "--bot", "nobot"], "--bot: unknown bot 'nobot'"),
    (["analyze", str(RECORD), "--out", "/nonexistent/x.jsonl"], "does not exist"),
])
def test_analyze_errors_are_one_line(argv: list[str], fragment: str,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Bad input: a one-line error naming the problem, no traceback, non-zero status."""
    assert main(argv) in (1, 2)
    err = capsys.readouterr().err
    assert fragment in err and "Traceback" not in err and err.count("\n") == 1


def test_ctrl_c_keeps_what_was_analyzed(tmp_path: Path) -> None:
    """Ctrl-C once some positions are done: the file holds them with complete=false,
    and the exit status is 130."""
    out = tmp_path / "c.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "gallerist.cli", "analyze", str(RECORD), "--time-ms",
         "300", "--workers", "2", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    err: list[str] = []

    def read() -> None:
        assert proc.stderr is not None
        while ch := proc.stderr.read(1):
            err.append(ch)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    end = time.monotonic() + 60
    while not re.search(r"\| *[1-9]\d*/\d+", "".join(err)):
        assert time.monotonic() < end and proc.poll() is None, "".join(err)
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGINT)
    assert proc.wait(timeout=30) == 130
    reader.join(5)
    lines = _lines(out)
    assert lines[-1]["type"] == "summary" and lines[-1]["complete"] is False
    positions = lines[1:-1]
    assert positions and all(p["type"] == "position" for p in positions)
    assert [p["ply"] for p in positions] == sorted(p["ply"] for p in positions)
    assert len(positions) < len(read_game(str(RECORD)).decisions())
    assert "interrupted: keeping the" in "".join(err)
