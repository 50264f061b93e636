"""The review page's reading of an analyzed game (errors name the line and the field) and
what the page holds (every position's board, rebuilt exactly from the shared pieces; the
best move drawn only where a move was labelled; where the game is; the final score and the
winner; numbers with their units and counted nouns), without a browser."""
from __future__ import annotations

import json
import re
from html import escape as html_escape
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



def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def _history(lines: list[dict]) -> list[int]:
    """The whole game of a full analysis: the last position's history and its move."""
    last = [x for x in lines if x["type"] == "position"][-1]
    return [*last["state"]["history"], last["played"]["action"]]


def _end(lines: list[dict]) -> engine.GameState:
    """The game replayed from the header's setup seed to its end."""
    header = lines[0]
    state = engine.new_game(num_players=header["players"], seed=header["setup"]["seed"])
    for a in _history(lines):
        state.apply(a)
    assert state.is_terminal()
    return state


@pytest.mark.parametrize("players", [1, 2, 3])
def test_the_summary_says_the_final_score_and_the_winner(tmp_path: Path, players: int) -> None:
    """The summary area says in words who won with how much against whom ("Seat 1 (greedy)
    won with $98 against $85"; 3 players name the other seats; solo: the final money) and
    gives each seat's final money in its row."""
    analysis = tmp_path / "a.jsonl"
    write_analysis(analysis, players, seed=23)
    end = _end(_lines(analysis))
    names = _lines(analysis)[0]["names"]
    money, winners = end.money(), end.winners()
    page = tmp_path / "r.html"
    write_review_page(analysis, page)
    text = page.read_text()
    if players == 1:
        assert f"Seat 0 ({names[0]}) finished the solo game with ${money[0]}." in text
        return
    assert len(winners) == 1, "the fixture's game has one winner"
    w = winners[0]
    others = sorted((s for s in range(players) if s != w), key=lambda s: -money[s])
    against = (f"${money[others[0]]}" if players == 2 else
               " and ".join(f"${money[s]} (seat {s})" for s in others))
    assert f"Seat {w} ({names[w]}) won with ${money[w]} against {against}." in text
    for seat in range(players):
        assert f"<td>{names[seat]}</td><td>${money[seat]}</td>" in text


def test_an_analysis_of_one_seat_takes_the_final_score_from_its_game(tmp_path: Path) -> None:
    """An analysis of one seat stops before the game's end: the page replays the game it
    was made from (the header's "source", here a move list beside the analysis) for the
    final score; without that file it says the score is not known."""
    analysis = tmp_path / "a.jsonl"
    write_analysis(analysis, 2, seed=23)
    lines = _lines(analysis)
    end, history = _end(lines), _history(lines)
    last_mover = [x for x in lines if x["type"] == "position"][-1]["player"]
    kept = [x for x in lines if x["type"] != "position" or x["player"] != last_mover]
    kept[0].update(source="moves.json", game=None)
    analysis.write_text("".join(json.dumps(x) + "\n" for x in kept))
    (tmp_path / "moves.json").write_text(json.dumps(
        {"seed": lines[0]["setup"]["seed"], "players": 2, "moves": history}))
    page = tmp_path / "r.html"
    write_review_page(analysis, page)
    w = end.winners()[0]
    assert f"Seat {w} ({lines[0]['names'][w]}) won with ${end.money()[w]} against " \
           f"${end.money()[1 - w]}." in page.read_text()
    (tmp_path / "moves.json").unlink()
    write_review_page(analysis, page)
    assert "The final score is not known" in page.read_text()
    assert " won with " not in page.read_text()


def test_numbers_carry_units_and_counted_nouns(tmp_path: Path) -> None:
    """The budget in words with its unit ("1 iteration", "100 ms"; never "None ms"), the
    decision count, labelled moves counted ("1 inaccuracy, 2 mistakes", "2 inaccuracies,
    1 mistake, 1 blunder"), the average loss as a percentage."""
    analysis = tmp_path / "a.jsonl"
    write_analysis(analysis, 2, seed=23, max_positions=20)
    lines = _lines(analysis)
    lines[0].update(iterations=1, time_ms=None)
    lines[-1]["players"][0].update(average_loss=0.0312,
                                   counts={"inaccuracy": 1, "mistake": 2, "blunder": 0})
    lines[-1]["players"][1]["counts"] = {"inaccuracy": 2, "mistake": 1, "blunder": 1}
    analysis.write_text("".join(json.dumps(x) + "\n" for x in lines))
    page = tmp_path / "r.html"
    write_review_page(analysis, page)
    text = page.read_text()
    assert "with 1 iteration per position; 20 decisions;" in text
    assert "None" not in text
    assert "<td>1 inaccuracy, 2 mistakes</td>" in text
    assert "<td>2 inaccuracies, 1 mistake, 1 blunder</td>" in text
    assert "<td>3.1%</td>" in text
    lines[0].update(iterations=None, time_ms=100)
    analysis.write_text("".join(json.dumps(x) + "\n" for x in lines))
    write_review_page(analysis, page)
    assert "at 100 ms per position" in page.read_text()


def test_frames_say_where_the_game_is_and_the_moves_are_numbered_once(tmp_path: Path) -> None:
    """Each frame holds the state's turn number, whose turn it is, the round (turn - 1) //
    players + 1 and the turns left once the end is triggered; the move list numbers the
    decisions 1..N as the status line does (not by their index in the history)."""
    analysis = tmp_path / "a.jsonl"
    positions = write_analysis(analysis, 3, seed=23)
    page = tmp_path / "r.html"
    write_review_page(analysis, page)
    text = page.read_text()
    frames = _page_data(text)["frames"]
    for pos, frame in zip(positions, frames):
        turn, end = pos["state"]["turn"], pos["state"]["gameEnd"]
        assert frame["turn"] == turn["number"] and frame["turn_player"] == turn["player"]
        assert frame["round"] == (turn["number"] - 1) // 3 + 1 or turn["number"] == 0
        assert frame["turns_left"] == (end["turnsLeft"] if end["triggered"] else None)
    assert frames[-1]["turns_left"] == 1 and any((f["turns_left"] or 0) > 1 for f in frames)
    rows = re.findall(r'<div class="move" data-index="(\d+)"[^>]*>([\d,]+)\. P', text)
    assert [(int(i), int(n.replace(",", ""))) for i, n in rows] == [
        (i, i + 1) for i in range(len(positions))]


def test_moves_are_listed_in_words_with_their_notation_and_its_legend(tmp_path: Path) -> None:
    """The move list and a labelled move's best move read in words (as the mover saw
    them), each with its notation beside it; the legend explains every kind of notation."""
    from gallerist.engine.actions import NOTATION, NOTATION_KINDS

    analysis = tmp_path / "a.jsonl"
    positions = write_analysis(analysis, 2, seed=31, max_positions=40)
    page = tmp_path / "r.html"
    write_review_page(analysis, page)
    text = page.read_text()
    rows = re.findall(r'<div class="move" data-index="(\d+)"[^>]*>(.*?)</div>', text)
    assert len(rows) == 40
    for (index, row), pos in zip(rows, positions):
        played = pos["played"]
        assert played["description"] and html_escape(played["description"]) in row
        assert f'<span class="notation">{html_escape(played["move"])}</span>' in row
        if pos["label"]:
            assert "best: " + html_escape(pos["best"]["description"]) in row
    assert {t.split(":")[0] for t in NOTATION} == set(NOTATION_KINDS)
    legend = re.search(r'<details id="notation-legend">(.*?)</details>', text, re.S).group(1)
    for kind in NOTATION_KINDS:
        assert f"<td>{kind}:</td>" in legend


def test_mistakes_are_explained_and_each_seats_biggest_mistakes_listed_escaped(tmp_path: Path) -> None:
    """Each mistake and blunder shows why (the played move's explanation against the
    better move): in its move-list row and in its frame (the details); lesser labels do
    not. Near the top, "Biggest mistakes" lists per seat the summary's biggest_mistakes
    in order, each row pointing at its decision; all their text is escaped (an
    explanation holding "<b>&" reads as text). A summary without biggest_mistakes (an
    older file) gets them from the positions."""
    analysis = tmp_path / "a.jsonl"
    write_analysis(analysis, 2, seed=23, max_positions=60)
    lines = _lines(analysis)
    positions = [x for x in lines if x["type"] == "position"]
    bad = next(i for i, p in enumerate(positions) if p["label"] == "blunder")
    positions[bad]["played"]["explanation"]["words"] = "Now: <b>&\"x\""
    seat = positions[bad]["player"]
    summary = lines[-1]
    from gallerist.ai.review.analysis import biggest_mistakes
    for p in summary["players"]:
        p["biggest_mistakes"] = biggest_mistakes(positions, p["seat"])
    assert any(m["why"] == "Now: <b>&\"x\"" for m in summary["players"][seat]["biggest_mistakes"])
    analysis.write_text("".join(json.dumps(x) + "\n" for x in lines))
    page = tmp_path / "r.html"
    write_review_page(analysis, page)
    text = page.read_text()
    markup = re.sub(r'<script id="review-data".*?</script>', "", text, flags=re.S)
    assert "<b>&" not in markup    # the frames' JSON holds it raw; the script escapes it
    frames = _page_data(text)["frames"]
    rows = dict(re.findall(r'<div class="move" data-index="(\d+)"[^>]*>(.*?)</div>', text))
    for i, (pos, frame) in enumerate(zip(positions, frames)):
        why = pos["played"]["explanation"]["words"]
        if pos["label"] in ("mistake", "blunder"):
            assert frame["why"] == why and why
            assert f'<span class="why">why: {html_escape(why)}</span>' in rows[str(i)]
        else:
            assert frame["why"] == "" and 'class="why"' not in rows[str(i)]
    top = re.search(r'<details id="biggest-mistakes" open>(.*?)</details>', text, re.S).group(1)
    assert text.index('id="biggest-mistakes"') < text.index('id="controls"')
    index = {pos["ply"]: i for i, pos in enumerate(positions)}
    at = 0
    for p in summary["players"]:
        at = top.index(f">Seat {p['seat']} ({html_escape(p['name'])})</th>", at)
        assert p["biggest_mistakes"]
        for m in p["biggest_mistakes"]:
            row = (f'<tr data-index="{index[m["ply"]]}"><td>{index[m["ply"]] + 1}</td>'
                   f'<td>{html_escape(m["played"])}</td><td>{html_escape(m["best"])}</td>')
            at = top.index(row, at)
            assert f'<td class="why">{html_escape(m["why"])}</td>' in top[at:]
    assert '<td class="why">Now: &lt;b&gt;&amp;&quot;x&quot;</td>' in top
    for p in summary["players"]:
        del p["biggest_mistakes"]
    analysis.write_text("".join(json.dumps(x) + "\n" for x in lines))
    write_review_page(analysis, page)
    again = page.read_text()
    assert re.search(r'<details id="biggest-mistakes" open>(.*?)</details>', again, re.S).group(1) == top
