"""The review page's reading of an analyzed game (errors name the line and the field) and
what the page holds (every position's board, rebuilt exactly from the shared pieces; the
best move drawn only where a move was labelled), without a browser."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from review_fixtures import write_analysis

from gallerist import engine
from gallerist.ai.review.page import ReviewError, read_analysis, write_review_page


def _page_data(html: str) -> dict:
    text = re.search(r'<script id="review-data" type="application/json">(.*?)</script>', html,
                     re.S).group(1)
    return json.loads(text.replace("<\\/", "</"))


def test_page_holds_every_board_exactly(tmp_path: Path) -> None:
    """Each frame's pieces join back into engine.svg of its state (the mover's view, the best
    move drawn where the move was labelled and differs from the best)."""
    analysis = tmp_path / "a.jsonl"
    positions = write_analysis(analysis, 3, seed=23, max_positions=60)
    page = tmp_path / "r.html"
    assert write_review_page(analysis, page) == 60
    data = _page_data(page.read_text())
    assert len(data["frames"]) == 60
    for pos, frame in zip(positions, data["frames"]):
        state = engine.GameState.from_json(json.dumps(pos["state"]))
        drawn = pos["label"] is not None and pos["best"]["action"] != pos["played"]["action"]
        expected = engine.svg(state, hint=pos["best"] if drawn else None, viewer=pos["player"])
        assert "".join(data["chunks"][k] for k in frame["svg"]) == expected
        assert frame["hint_drawn"] == drawn and frame["move"] == pos["played"]["move"]
    assert any(f["hint_drawn"] for f in data["frames"])


def test_an_unfinished_analysis_without_summary_is_reviewed(tmp_path: Path) -> None:
    """An analysis stopped early (no summary line) still makes a page, which says so."""
    analysis = tmp_path / "a.jsonl"
    write_analysis(analysis, 2, seed=2, max_positions=5)
    lines = analysis.read_text().splitlines()[:-1]
    analysis.write_text("\n".join(lines) + "\n")
    header, positions, summary = read_analysis(analysis)
    assert summary is None and len(positions) == 5
    page = tmp_path / "r.html"
    write_review_page(analysis, page)
    assert "not finished" in page.read_text()


def _rewrite(path: Path, index: int, change) -> None:  # type: ignore[no-untyped-def]
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    change(lines[index])
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")


@pytest.mark.parametrize("change,fragment", [
    (lambda p: p.pop("played"), ":2: missing field 'played'"),
    (lambda p: p.update(label="oops"), ":2: field 'label' must be null or one of"),
    (lambda p: p["state"].update(numPlayers=7), ":2: field 'state'"),
    (lambda p: p.update(player=5), ":2: field 'player' 5 is not a seat"),
    (lambda p: p.update(type="move"), ":2: unknown line type 'move'"),
    (lambda p: p.update(loss="big"), ":2: field 'loss' has the wrong type"),
])
def test_bad_lines_are_named(tmp_path: Path, change, fragment: str) -> None:  # type: ignore[no-untyped-def]
    """A position line that does not fit the format is a ReviewError naming the file, the
    line and the field."""
    analysis = tmp_path / "a.jsonl"
    write_analysis(analysis, 2, seed=2, max_positions=3)
    _rewrite(analysis, 1, change)
    with pytest.raises(ReviewError, match=re.escape(fragment)):
        read_analysis(analysis)


def test_not_an_analysis(tmp_path: Path) -> None:
    """A file whose first line is not the analysis header (a game record, an empty file,
    another version) is refused, saying what it should be."""
    path = tmp_path / "x.jsonl"
    path.write_text('{"game": 0, "seed": 1}\n')
    with pytest.raises(ReviewError, match="not an analyzed game"):
        read_analysis(path)
    path.write_text("")
    with pytest.raises(ReviewError, match="empty file"):
        read_analysis(path)
    path.write_text(json.dumps({"type": "header", "format": "gallerist-analysis",
                                "format_version": 2, "players": 2}) + "\n")
    with pytest.raises(ReviewError, match="format_version 2 is not supported"):
        read_analysis(path)


def test_the_summary_says_how_strong_each_seat_played(tmp_path: Path) -> None:
    """A summary with a seat's strength: the page says "played like level N (about E Elo,
    95% CI ...)" for it; a seat without one gets no such line."""
    analysis = tmp_path / "a.jsonl"
    write_analysis(analysis, 2, seed=23, max_positions=20)
    lines = [json.loads(x) for x in analysis.read_text().splitlines()]
    summary = {"type": "summary", "complete": True, "players": [
        {"seat": 0, "name": "a", "decisions": 10, "average_loss": 0.01,
         "counts": {"inaccuracy": 1, "mistake": 0, "blunder": 0},
         "strength": {"elo": 702.4, "ci": [233.0, 1171.8], "level": 4}},
        {"seat": 1, "name": "b", "decisions": 10, "average_loss": 0.02,
         "counts": {"inaccuracy": 2, "mistake": 1, "blunder": 0}, "strength": None}]}
    lines = [x for x in lines if x.get("type") != "summary"] + [summary]
    analysis.write_text("".join(json.dumps(x) + "\n" for x in lines))
    page = tmp_path / "r.html"
    write_review_page(analysis, page)
    html = page.read_text()
    assert "Seat 0 played like level 4 (about 702 Elo, 95% CI 233 to 1,172)" in html
    assert "Seat 1 played" not in html
