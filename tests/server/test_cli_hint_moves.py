"""`gallerist hint` with a position given as a game's moves (--moves-file) and the
query options --allow / --avoid, locally and through a server."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from gallerist.ai.review.games import read_game
from gallerist.server import GalleristServer
from gallerist.cli.main import main

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture()
def before_mistake(tmp_path: Path) -> Path:
    """The planted-mistake game without its last move: seat 1 chooses action:A or B."""
    data = json.loads((DATA / "planted_mistake.json").read_text())
    data["moves"] = data["moves"][:-1]
    path = tmp_path / "moves.json"
    path.write_text(json.dumps(data))
    return path


def _hint_json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:  # type: ignore[type-arg]
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_hint_from_moves_local_and_remote_match_the_replayed_state(
        before_mistake: Path, service: GalleristServer, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """--moves-file gives the position after the moves: the same hint as the state file
    of that position, searched locally or by a server (sent as setup + moves)."""
    state = read_game(str(before_mistake)).state_at(155)
    state_file = tmp_path / "s.json"
    state_file.write_text(state.to_json())
    common = ["--bot", "mcts", "--iterations", "200", "--seed", "5", "--json"]
    by_state = _hint_json(capsys, ["hint", str(state_file), "--local", *common])
    by_moves = _hint_json(capsys, ["hint", "--moves-file", str(before_mistake), "--local", *common])
    remote = _hint_json(capsys, ["hint", "--moves-file", str(before_mistake), *common,
                                 "--address", f"localhost:{service.port}"])
    for other in (by_moves, remote):
        assert [(m["action"], m["visits"]) for m in other["moves"]] == \
               [(m["action"], m["visits"]) for m in by_state["moves"]]


def test_hint_allow_and_avoid(before_mistake: Path, service: GalleristServer,
                              capsys: pytest.CaptureFixture[str]) -> None:
    """--allow analyses only the given moves (all the iterations go below them), --avoid
    all the others, locally and remotely."""
    base = ["hint", "--moves-file", str(before_mistake), "--bot", "mcts", "--iterations", "300",
            "--json"]
    for where in (["--local"], ["--address", f"localhost:{service.port}"]):
        only = _hint_json(capsys, base + where + ["--allow", "action:A"])
        assert [(m["notation"], m["visits"]) for m in only["moves"]] == [("action:A", 300)]
        rest = _hint_json(capsys, base + where + ["--avoid", "action:A"])
        assert [m["notation"] for m in rest["moves"]] == ["action:B"]


def test_hint_bad_allow_names_the_option_and_move(before_mistake: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown move in --avoid: one line naming the option and the move."""
    assert main(["hint", "--moves-file", str(before_mistake), "--local", "--iterations", "10",
                 "--avoid", "action:A,zz"]) == 2
    err = capsys.readouterr().err
    assert "--avoid: 'zz' (unknown)" in err and err.count("\n") == 1


def test_hint_explains_the_best_moves_on_the_wire_and_in_words(
        before_mistake: Path, service: GalleristServer, capsys: pytest.CaptureFixture[str]) -> None:
    """A hint carries an explanation on each of its best 5 moves (MoveHint.explanation):
    the best move against the next best, the others against the best, with the hint's
    own numbers; `hint` prints the best move's in one line, `--why` every part."""
    common = ["--moves-file", str(before_mistake), "--bot", "mcts", "--iterations", "400",
              "--seed", "5", "--address", f"localhost:{service.port}"]
    r = _hint_json(capsys, ["hint", *common, "--json"])
    moves, me = r["moves"], r["player"]
    explained = [m for m in moves if m.get("explanation")]
    assert len(explained) == min(5, len(moves)) and explained == moves[:len(explained)]
    for i, m in enumerate(explained):
        v = m["explanation"]["versus"]
        other = moves[1] if i == 0 else moves[0]
        assert v["action"] == other["action"] and v["description"] == other["description"]
        assert v["expectedMoney"] == pytest.approx(
            m["expectedMoney"][me] - other["expectedMoney"][me])
        assert v["winProbability"] == pytest.approx(
            m["winProbability"] - other["winProbability"])
    assert main(["hint", *common]) == 0
    text = capsys.readouterr().out
    assert f"Why: {moves[0]['explanation']['words']}" in text
    assert main(["hint", *common, "--why", "--moves", "3"]) == 0
    text = capsys.readouterr().out
    assert text.count("\nWhy ") == min(3, len(moves))
    assert f"against {moves[1]['description']}: " in text


def test_the_worked_example_of_the_hints_doc_holds(capsys: pytest.CaptureFixture[str]) -> None:
    """docs/hints.md's worked example (a sale against signing a contract, 4 players): the
    explanation's amounts are those the doc quotes."""
    assert main(["hint", "--moves-file", str(DATA / "explain_example.json"), "--local", "--why",
                 "--moves", "2", "--iterations", "20000", "--seed", "1"]) == 0
    text = capsys.readouterr().out
    doc = (DATA.parents[1] / "docs" / "hints.md").read_text()
    for line in ("Why 1. Sell a work (Sales Office, second action)",
                 "  now: Money $12 → $26 (+$14)",
                 "  now: Contracts fulfilled 1 → 2",
                 "  Final scoring as it stands, your Art Dealer card: $10 → $15 (+$5)",
                 "    Contracts fulfilled: 2 against 0 (+2)"):
        assert line in text and line in doc
