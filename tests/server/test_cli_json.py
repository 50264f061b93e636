"""The JSON the command line prints names every field: proto3's JSON form drops
zero values, so seat 0 to move had no "player" and move 0 no "action" in `hint --json`."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from gallerist.cli.main import main


def test_hint_json_keeps_seat_0_and_action_0(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """A solo game's first decision: seat 0 moves and action 0 (start:SO) is legal; both
    zeros are printed, and so is every other field of the response and of each move."""
    path = tmp_path / "solo.json"
    assert main(["new", "--players", "1", "-o", str(path)]) == 0
    capsys.readouterr()
    assert main(["hint", str(path), "--local", "--bot", "greedy", "--json"]) == 0
    response = json.loads(capsys.readouterr().out)
    assert response["player"] == 0
    actions = [m["action"] for m in response["moves"]]
    assert 0 in actions
    for move in response["moves"]:
        assert {"action", "notation", "visits", "depth", "expectedMoney", "winProbabilities",
                "value", "pv", "pvNotation"} <= set(move)
        # solo: nobody to beat, so no win probability (a field with presence, left unset)
        assert "winProbability" not in move and move["winProbabilities"] == []
    assert {"deadlineLimited", "stopped", "final", "legalMoveCount", "stats",
            "budget"} <= set(response)
    assert response["budget"]["iterations"] == 0 and response["stopped"] is False


def test_new_json_keeps_zero_fields(capsys: pytest.CaptureFixture[str]) -> None:
    """`new` prints the state with its zeros too (seat 0, empty galleries)."""
    assert main(["new", "--players", "2"]) == 0
    state = json.loads(capsys.readouterr().out)
    first = state["players"][0]
    assert first["seat"] == 0 and first["gallery"] == {"vip": 0, "investor": 0, "collector": 0}
