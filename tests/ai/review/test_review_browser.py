"""The review page and the board's SVG in a real browser (Debian's Chromium driven by
Playwright: tests/server/browser_testlib.py)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest
from browser_testlib import chromium, variance
from review_fixtures import write_analysis

from gallerist import engine
from gallerist.ai.review.page import write_review_page


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


def _open(browser: Any, path: Path, width: int = 1250) -> tuple[Any, list[str]]:
    """A page showing the file, and the list its console errors go to."""
    page = browser.new_page(viewport={"width": width, "height": 1100})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: errors.append(f"network request {r.url}")
            if not r.url.startswith(("file:", "data:", "about:")) else None)
    page.goto(path.as_uri())
    return page, errors


def _index(page: Any) -> int:
    return int(page.get_attribute("#board", "data-index"))


def _where(position: dict[str, Any]) -> str:
    """Where the position is, as the status line says it (from the state's `turn`)."""
    turn, n = position["state"]["turn"], position["state"]["numPlayers"]
    if turn["number"] == 0:
        return "setup (start locations)"
    if n == 1:
        return f"turn {turn['number']}"
    return f"round {(turn['number'] - 1) // n + 1}, turn {turn['number']}, P{turn['player']}'s turn"


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_review_page_steps_jumps_and_draws(browser: Any, tmp_path: Path, players: int) -> None:
    """The review page of a game of 1-4 players loads without console errors or network
    requests; the buttons and arrow keys step the board, clicking a chart point or a move
    jumps to it, a labelled move shows the best move's arrow labelled in words, and the
    screenshot is not blank."""
    analysis = tmp_path / "game.jsonl"
    positions = write_analysis(analysis, players, seed=players + 20, max_positions=60)
    html = tmp_path / "review.html"
    assert write_review_page(analysis, html) == len(positions) == 60
    page, errors = _open(browser, html)
    assert _index(page) == 0
    board0 = page.inner_html("#board")
    assert "<svg" in board0
    page.click("#next")
    assert _index(page) == 1 and page.inner_html("#board") != board0
    page.keyboard.press("ArrowRight")
    assert _index(page) == 2
    page.keyboard.press("ArrowLeft")
    assert _index(page) == 1
    page.keyboard.press("End")
    assert _index(page) == 59
    page.click("#first")
    assert _index(page) == 0
    page.locator(".chart-point[data-index='37']").last.click()  # the topmost of the seats' points
    assert _index(page) == 37
    assert page.inner_text("#status").startswith("Decision 38 of 60 \u00b7 " + _where(positions[37]))
    assert page.inner_text("#details").startswith(f"P{positions[37]['player']} (")
    page.click("#moves .move[data-index='12']")
    assert _index(page) == 12 and "current" in page.get_attribute(
        "#moves .move[data-index='12']", "class")
    labelled = [i for i, p in enumerate(positions)
                if p["label"] and p["best"]["action"] != p["played"]["action"]]
    unlabelled = [i for i, p in enumerate(positions) if not p["label"]]
    assert labelled, "the fixture game should have a labelled move"
    page.click(f"#moves .move[data-index='{labelled[0]}']")
    assert page.query_selector("#board #hint") is not None
    shown = positions[labelled[0]]
    state = engine.GameState.from_json(json.dumps(shown["state"]))
    assert engine.describe_move(state, shown["best"]["action"]) in page.text_content("#board #hint")
    page.click(f"#moves .move[data-index='{unlabelled[0]}']")
    assert page.query_selector("#board #hint") is None
    assert variance(page.screenshot()) > 100
    page.close()
    assert not errors, errors


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_board_svg_renders_in_the_browser(browser: Any, tmp_path: Path, players: int) -> None:
    """engine.svg of a mid-game position with a hint, opened as a file, renders 800 px wide
    without errors, with its hint arrow, and is not blank."""
    s = engine.new_game(num_players=players, seed=players)
    while not s.is_terminal() and len(s.history) < 60:
        s.apply(s.chance_outcomes()[0][0] if s.is_chance() else s.legal_actions()[-1])
    while s.is_chance():
        s.apply(s.chance_outcomes()[0][0])
    path = tmp_path / "board.svg"
    path.write_text(engine.svg(s, hint=s.legal_actions()[0], viewer=0), encoding="utf-8")
    page, errors = _open(browser, path, width=820)
    box = page.locator("svg").first.bounding_box()
    assert box is not None and box["width"] == 800
    assert page.locator("#hint line").count() == 1
    assert variance(page.screenshot()) > 100
    page.close()
    assert not errors, errors


@pytest.mark.parametrize("players", [1, 3])
def test_page_of_a_real_analysis_from_the_command_line(browser: Any, tmp_path: Path, players: int) -> None:
    """A game played with `play --record`, analyzed by `gallerist analyze --html` (greedy,
    to be quick): the page it writes loads without errors and steps through every
    analyzed decision of the seat."""
    import json
    import subprocess
    import sys

    gallerist = [sys.executable, "-m", "gallerist.cli"]
    record = tmp_path / "game.jsonl"
    bots = ["random", "greedy", "random"][:players]
    done = subprocess.run([*gallerist, "play", *bots, "--seed", "3", "--board", "none",
                           "--record", str(record)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    out, html = tmp_path / "a.jsonl", tmp_path / "review.html"
    done = subprocess.run([*gallerist, "analyze", str(record), "--bot", "greedy", "--seats", "0",
                           "--workers", "1", "--no-progress", "--out", str(out), "--html",
                           str(html)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    positions = [json.loads(x) for x in out.read_text().splitlines()][1:-1]
    page, errors = _open(browser, html)
    assert _index(page) == 0
    for i in range(1, min(len(positions), 30)):
        page.keyboard.press("ArrowRight")
        assert _index(page) == i
    page.keyboard.press("End")
    assert _index(page) == len(positions) - 1
    n = len(positions)
    assert page.inner_text("#status").startswith(f"Decision {n:,} of {n:,} \u00b7 ")
    assert page.inner_text("#details").startswith(f"P0 ({bots[0]}) played ")
    record_line = json.loads(record.read_text().splitlines()[0])
    money, winner = record_line["money"], max(range(players), key=lambda s: record_line["money"][s])
    result = page.inner_text("#result")
    if players == 1:
        assert result == f"Seat 0 ({bots[0]}) finished the solo game with ${money[0]}."
    else:   # only seat 0 analyzed: the score comes from the record the analysis names
        assert result.startswith(f"Seat {winner} ({bots[winner]}) won with ${money[winner]} against ")
    assert variance(page.screenshot()) > 100
    page.close()
    assert not errors, errors


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    """Two bounding boxes share more than a hairline."""
    return (min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"]) > 0.5
            and min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"]) > 0.5)


def _boxes(page: Any, selector: str) -> list[dict[str, float]]:
    """The bounding boxes of the visible elements `selector` matches."""
    loc = page.locator(selector)
    boxes = [loc.nth(k).bounding_box() for k in range(loc.count())]
    return [b for b in boxes if b and b["width"] > 0 and b["height"] > 0]


@pytest.mark.parametrize("width", [480, 1600])
@pytest.mark.parametrize("players", [2, 3])
def test_nothing_overlaps_at_the_first_a_middle_and_the_last_position(
        browser: Any, tmp_path: Path, players: int, width: int) -> None:
    """In a narrow and a wide window, at the first, a middle and the last position (where
    the end is triggered and the board's status is longest), no two texts of the board's
    header overlap (its title and its status line), the page's title, about line, buttons
    and status line overlap nothing, the board's title is clear of the status line, the
    board and the side panel do not overlap, and the page is no wider than the window."""
    analysis = tmp_path / "a.jsonl"
    positions = write_analysis(analysis, players, seed=20)
    last = positions[-1]["state"]
    assert last["turn"]["executiveActionUsed"] and last["gameEnd"]["triggered"] and \
        last["intermediateScoring"]["done"], "a game whose last board status is the longest"
    html = tmp_path / "r.html"
    write_review_page(analysis, html)
    page, errors = _open(browser, html, width=width)
    for index in (0, len(positions) // 2, len(positions) - 1):
        page.click(f"#moves .move[data-index='{index}']")
        assert _index(page) == index
        header = _boxes(page, "#board #header text")
        assert len(header) >= 2, "the board's title and its line saying what is to be done"
        title = header[0]
        top = [*(_boxes(page, x)[0] for x in ("h1", "#about", "#status", "#board")),
               *_boxes(page, "#controls button")]
        named = [*header, *top[:3], *top[4:]]
        for i, a in enumerate(named):
            for b in named[i + 1:]:
                assert not _overlap(a, b), (index, width, a, b)
        assert title["y"] >= top[2]["y"] + top[2]["height"], "board title below the status line"
        for box in top[:3] + top[4:]:
            assert not _overlap(box, top[3]), (index, width, box)
        assert not _overlap(_boxes(page, "#main")[0], _boxes(page, "#side")[0])
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.close()
    assert not errors, errors


def test_status_line_numbers_decisions_once_with_round_turn_and_turns_left(
        browser: Any, tmp_path: Path) -> None:
    """The status line says "Decision i of N" once (no second counter, no history index),
    the round and turn of the state's `turn`, who is to move, and the turns left once the
    end is triggered with the noun counted ("1 turn left", "3 turns left"); a labelled
    move's loss is a percentage."""
    analysis = tmp_path / "a.jsonl"
    positions = write_analysis(analysis, 2, seed=23)
    names = json.loads(analysis.read_text().splitlines()[0])["names"]
    html = tmp_path / "r.html"
    write_review_page(analysis, html)
    page, errors = _open(browser, html)
    n = len(positions)
    several = next(i for i, p in enumerate(positions) if p["state"]["gameEnd"]["turnsLeft"] > 1)
    for i in (0, n // 2, several, n - 1):
        page.click(f"#moves .move[data-index='{i}']")
        status = page.inner_text("#status")
        pos = positions[i]
        assert status.startswith(f"Decision {i + 1} of {n} \u00b7 {_where(pos)}")
        assert status.endswith(f"\u00b7 P{pos['player']} ({names[pos['player']]}) to move")
        assert status.count("Decision") == 1 and "Move " not in status and " / " not in status
        left = pos["state"]["gameEnd"]["turnsLeft"]
        if i == n // 2 or i == 0:
            assert "left" not in status
        else:
            assert f"the end is triggered: {left} {'turn' if left == 1 else 'turns'} left" in status
    assert "1 turn left" in page.inner_text("#status")
    labelled = next(i for i, p in enumerate(positions) if p["label"])
    page.click(f"#moves .move[data-index='{labelled}']")
    loss = f"{100 * positions[labelled]['loss']:.1f}% of win probability lost"
    assert loss in page.inner_text("#details")
    page.close()
    assert not errors, errors


def test_the_board_s_title_and_status_never_overlap(browser: Any, tmp_path: Path) -> None:
    """engine.svg alone: a long status (end triggered, executive action used, intermediate
    scoring done) goes on a line of its own instead of running into the title."""
    import random

    rng = random.Random(3)
    found = None
    for seed in range(40):
        s = engine.new_game(num_players=2, seed=seed)
        while not s.is_terminal() and found is None:
            if s.is_chance():
                s.apply_random_chance(rng.randrange(1 << 30))
            else:
                s.apply(rng.choice(s.legal_actions()))
            r = s._raw()
            if r["end_triggered"] and r["ea_used"] and r["intermediate_done"] and not s.is_terminal():
                found = s.copy()
        if found is not None:
            break
    assert found is not None
    path = tmp_path / "board.svg"
    path.write_text(engine.svg(found), encoding="utf-8")
    page, errors = _open(browser, path, width=820)
    title, status = (page.locator(f"#header text >> nth={k}").bounding_box() for k in (0, 1))
    assert title is not None and status is not None
    assert not _overlap(title, status)
    page.close()
    assert not errors, errors


def test_clicking_a_biggest_mistake_shows_its_decision_and_why(browser: Any, tmp_path: Path) -> None:
    """A row of "Biggest mistakes" shows its decision when clicked; a mistake or blunder's
    details say why (the played move's explanation, as text: markup in it is escaped),
    another move's details do not."""
    analysis = tmp_path / "a.jsonl"
    positions = write_analysis(analysis, 2, seed=23, max_positions=60)
    lines = [json.loads(x) for x in analysis.read_text().splitlines()]
    worst = lines[-1]["players"][0]["biggest_mistakes"][0]
    index = next(i for i, p in enumerate(positions) if p["ply"] == worst["ply"])
    assert positions[index]["label"] in ("mistake", "blunder"), "the fixture's worst move"
    lines[1 + index]["played"]["explanation"]["words"] = "Now: <i>money</i> & more"
    analysis.write_text("".join(json.dumps(x) + "\n" for x in lines))
    html = tmp_path / "r.html"
    write_review_page(analysis, html)
    page, errors = _open(browser, html)
    page.click(f"#biggest-mistakes tr[data-index='{index}']")
    assert _index(page) == index
    assert "Why: Now: <i>money</i> & more" in page.inner_text("#details")
    assert page.query_selector("#details i") is None
    plain = next(i for i, p in enumerate(positions) if not p["label"])
    page.click(f"#moves .move[data-index='{plain}']")
    assert "Why:" not in page.inner_text("#details")
    page.close()
    assert not errors, errors
