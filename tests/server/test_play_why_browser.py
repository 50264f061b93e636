"""The /play page's hint explanations in a real browser (Debian's Chromium driven by
Playwright): under the hint table, the best move's explanation as the SuggestMoves
response carried it (MoveHint.explanation: its one line, and a "Why?" disclosure with
this turn's changes, the final scoring as it stands, the line the search expects and the
comparison with the next best move); another move's explanation by its row's "why"
button, which plays nothing; a click on the row still plays the move. A screenshot of
the opened explanation is saved in the test's folder (pytest's tmp_path)."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_testlib import chromium, variance
from server_testlib import running_server

from gallerist.server import GalleristServer
from gallerist.v1 import hints_pb2

SUGGEST = "/gallerist.v1.GalleristAI/SuggestMoves"
SCORING = "Final scoring as it stands, "
#: positions to ask hints in until one shows every part of an explanation
MAX_TRIES = 40


@pytest.fixture(scope="module")
def served() -> Iterator[GalleristServer]:
    with running_server(workers=2, http_port=0) as server:
        yield server


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


def _settled(page: Any) -> None:
    page.wait_for_selector('body[data-busy="0"]', state="attached", timeout=60_000)


def _played(page: Any) -> int:
    return int(page.get_attribute("body", "data-actions-played"))


def _texts(locator: Any) -> list[str]:
    return [t.strip() for t in locator.all_text_contents()]


def _check_explanation(page: Any, move: Any) -> None:
    """The #why panel shows `move`'s explanation (a MoveHint), part by part."""
    e = move.explanation
    why = page.locator("#why")
    assert why.get_attribute("data-action") == str(move.action)
    assert why.locator("h2").inner_text().endswith(move.description)
    assert why.locator(".why-words").text_content() == e.words
    assert why.locator("summary").text_content() == "Why?"
    now = why.locator(".why-now")
    if e.now:
        assert now.count() == 1, "no part 'This turn:'"
        assert now.locator("h3").text_content() == "This turn:"
        assert _texts(now.locator("li")) == [r.words for r in e.now]
    else:
        assert now.count() == 0
    scoring = why.locator(".why-scoring")
    if e.scoring:
        assert scoring.count() == 1, "no part 'Final scoring as it stands:'"
        assert scoring.locator("h3").text_content() == "Final scoring as it stands:"
        shown = _texts(scoring.locator("li"))
        assert len(shown) == len(e.scoring)
        for text, r in zip(shown, e.scoring):   # the words without the heading's prefix
            assert r.words.startswith(SCORING)
            assert text.lower() == r.words[len(SCORING):].lower()
    else:
        assert scoring.count() == 0
    line = why.locator(".why-line")
    if e.line:
        assert line.count() == 1, "no part 'Then, as the search expects:'"
        assert line.locator("h3").text_content() == "Then, as the search expects:"
        assert _texts(line.locator("li")) == list(e.line)
    else:
        assert line.count() == 0
    versus = why.locator(".why-versus")
    assert e.HasField("versus"), "a hint of several moves compares each with another"
    v = e.versus
    assert versus.count() == 1, "no part 'Against ...:'"
    assert versus.locator("h3").text_content() == f"Against {v.description}:"
    said = versus.locator("p").text_content()
    assert said and v.words.endswith(said)
    assert _texts(versus.locator("li")) == [r.words for r in v.differences]


def test_the_hint_explains_its_moves(browser: Any, served: GalleristServer,
                                     tmp_path: Path) -> None:
    """Ask for a hint in a new 2-player game: the best move's one line is shown, "Why?"
    opens its parts (those of the SuggestMoves response the page received), "Against"
    names the second row's move; the second row's "why" shows its own explanation
    without playing it; a click on the row plays it."""
    assert served.http is not None
    origin = f"http://localhost:{served.http.port}"
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(origin + "/play")
    page.select_option("#players", "2")
    page.fill("#seed", "12")
    page.click("#start")
    _settled(page)

    # hints until one has every part to show: the best move's turn, line and comparison,
    # and a move whose final scoring changes (a few moves into the game)
    for _ in range(MAX_TRIES):
        with page.expect_response(lambda r: r.url.endswith(SUGGEST)) as reply:
            page.click("#hint")
        _settled(page)
        response = hints_pb2.HintResponse.FromString(reply.value.body())
        moves = list(response.moves)
        assert all(m.HasField("explanation") for m in moves[:5]), "SuggestMoves explains none"
        e = moves[0].explanation
        if (len(moves) >= 2 and e.now and e.line and e.HasField("versus")
                and any(m.explanation.scoring for m in moves)):
            break
        page.locator("button.move").first.click()
        _settled(page)
    else:
        pytest.fail(f"no hint in {MAX_TRIES} positions explained every part")
    best, second = moves[0], moves[1]

    # the best move's one line, always visible; its parts in the closed disclosure
    why = page.locator("#hints #why")
    assert why.is_visible()
    assert page.locator("#why .why-words").inner_text() == best.explanation.words
    assert page.locator("#why details").get_attribute("open") is None
    assert not page.locator("#why .why-part").first.is_visible()
    _check_explanation(page, best)
    # the best move is compared with the next best: the second row of the table
    rows = page.locator("#hints tr.hint-row")
    assert rows.count() == len(moves)
    second_words = rows.nth(1).locator("td").first.inner_text()
    assert second_words == second.description
    assert best.explanation.versus.action == second.action
    assert page.locator("#why .why-versus h3").text_content() == f"Against {second_words}:"
    assert page.locator("#hints button.why-toggle").count() == len(moves)
    assert rows.first.get_attribute("class") == "hint-row explained"

    # "Why?" opens the parts
    page.click("#why summary")
    assert page.locator("#why details").get_attribute("open") is not None
    for part in page.locator("#why .why-part").all():
        assert part.is_visible()
    text = page.inner_text("#hints")
    assert "This turn:" in text or not best.explanation.now
    assert best.explanation.words in text
    width, inner = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
    assert width <= inner, f"the page is {width} px wide in a {inner} px window"
    shot = tmp_path / "play-why.png"
    page.screenshot(path=str(shot), full_page=True)
    assert variance(shot.read_bytes()) > 100
    page.locator("#hints").screenshot(path=str(tmp_path / "play-why-panel.png"))

    # each other row's "why": its explanation (against the best move), nothing played
    played = _played(page)
    toggles = page.locator("#hints button.why-toggle")
    for i, move in enumerate(moves[1:], start=1):
        toggles.nth(i).click()
        assert _played(page) == played
        assert page.locator("#why details").get_attribute("open") is not None   # stays open
        _check_explanation(page, move)
        assert move.explanation.versus.action == best.action
        assert [t.get_attribute("aria-pressed") for t in toggles.all()] == [
            "true" if j == i else "false" for j in range(len(moves))]
        assert "explained" in rows.nth(i).get_attribute("class").split()
    scored = next(i for i, m in enumerate(moves) if m.explanation.scoring)
    toggles.nth(scored).click()
    _check_explanation(page, moves[scored])
    assert page.locator("#why .why-scoring li").first.is_visible()
    page.locator("#hints").screenshot(path=str(tmp_path / "play-why-scoring-panel.png"))
    page.set_viewport_size({"width": 390, "height": 844})   # a phone: still no sideways scroll
    width, inner = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
    assert width <= inner, f"the page is {width} px wide in a {inner} px window"
    page.locator("#hints").screenshot(path=str(tmp_path / "play-why-phone.png"))
    page.set_viewport_size({"width": 1280, "height": 900})

    # a click on the row plays the move, as before
    rows.nth(1).locator("td").first.click()
    _settled(page)
    assert _played(page) > played
    assert page.locator("#why").count() == 0
    page.close()
    assert not errors, errors
