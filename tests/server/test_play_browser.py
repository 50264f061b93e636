"""The /play page in a real browser (Debian's Chromium driven by Playwright): a whole
2-player game against the weakest level played by clicking the board and the move list,
with a hint, an undo, the end and the review; a solo game to the end on a phone-sized
screen; no console errors, no request off the page's origin, no horizontal scrolling,
screenshots that are not blank."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from browser_testlib import chromium, variance
from server_testlib import running_server

from gallerist.server import GalleristServer

#: a game that has not ended after this many of the person's moves means the page is stuck
MAX_MOVES = 600


@pytest.fixture(scope="module")
def served() -> Iterator[GalleristServer]:
    with running_server(workers=2, http_port=0) as server:
        yield server


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


def _open(browser: Any, served: GalleristServer, width: int, height: int) -> tuple[Any, list[str]]:
    """The /play page in a new tab, and the list its console errors and off-origin
    requests go to."""
    assert served.http is not None
    origin = f"http://localhost:{served.http.port}"
    page = browser.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: errors.append(f"request off the origin: {r.url}")
            if not r.url.startswith((origin, "data:", "about:")) else None)
    page.goto(origin + "/play")
    return page, errors


def _settled(page: Any) -> None:
    """Wait until the page has no call out."""
    page.wait_for_selector('body[data-busy="0"]', state="attached", timeout=60_000)


def _played(page: Any) -> int:
    return int(page.get_attribute("body", "data-actions-played"))


def _no_sideways_scroll(page: Any) -> None:
    width, inner = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
    assert width <= inner, f"the page is {width} px wide in a {inner} px window"


def _click_a_move(page: Any, turn: int) -> None:
    """Play a move: on the board when a target there holds exactly one move (every
    other time), else from the move list."""
    single = page.locator("#board .move-target:not([data-actions*=','])")
    if turn % 2 == 0 and single.count():
        single.nth(turn % single.count()).click(force=True)
    else:
        moves = page.locator("button.move")
        moves.nth(turn % moves.count()).click()
    _settled(page)


def test_a_whole_game_against_level_1_by_clicking(browser: Any, served: GalleristServer) -> None:
    """Start, hint (top moves with win % and money, the best outlined on the board), a
    move on the board then undo (back to the same position), on to the end by clicks,
    then the review in the page."""
    page, errors = _open(browser, served, 1280, 800)
    page.select_option("#players", "2")
    page.fill("#seed", "12")
    assert page.input_value("select.opponent") == "level:1|0"
    page.click("#start")
    _settled(page)
    assert page.inner_text("#status").startswith("You must")
    assert page.locator("#players-line span").all_inner_texts() == ["■ P0 You", "■ P1 Level 1"]
    assert page.text_content("#board").count("Curator: hidden") == 1
    assert variance(page.screenshot()) > 100
    _no_sideways_scroll(page)

    # a hint: the top moves with win probability and money, the best outlined on the board
    page.click("#hint")
    _settled(page)
    rows = page.locator("#hints tr.hint-row")
    assert rows.count() >= 2 and "%" in rows.first.inner_text() and "$" in rows.first.inner_text()
    assert page.locator("#board .move-target.best").count() >= 1
    assert page.locator("button.move.picked").count() == 1

    # a move, then undo: back where it was
    before = _played(page)
    moves_before = page.inner_text("#moves")
    _click_a_move(page, 0)
    assert _played(page) > before and page.locator("#events li").count() >= 2
    page.click("#undo")
    _settled(page)
    assert _played(page) == before and page.inner_text("#moves") == moves_before

    # on to the end
    turn = 0
    while page.locator("button.move").count():
        _click_a_move(page, turn)
        turn += 1
        assert turn < MAX_MOVES, "the game did not end"
        if turn == 40:
            assert variance(page.screenshot()) > 100
    assert page.inner_text("#status").startswith("Game over:")
    page.click("#review")
    _settled(page)
    frame = page.frame_locator("#review-frame")
    assert frame.locator("#status").inner_text().startswith("Decision 1 of ")
    assert "P0 You" in frame.locator("#about").inner_text()
    assert variance(page.screenshot()) > 100
    page.close()
    assert not errors, errors


def test_a_solo_game_on_a_phone_sized_screen(browser: Any, served: GalleristServer) -> None:
    """Solo against Lacerda at 390 x 844 px: no bot to choose, the whole game by the move
    list, never wider than the screen."""
    page, errors = _open(browser, served, 390, 844)
    _no_sideways_scroll(page)
    page.select_option("#players", "1")
    assert page.locator("select.opponent").count() == 0
    page.click("#start")
    _settled(page)
    _no_sideways_scroll(page)
    turn = 0
    while page.locator("button.move").count():
        page.locator("button.move").nth(turn % 3 % page.locator("button.move").count()).click()
        _settled(page)
        turn += 1
        assert turn < MAX_MOVES, "the game did not end"
    assert page.inner_text("#status").startswith("Game over: you finished with $")
    _no_sideways_scroll(page)
    page.close()
    assert not errors, errors


def test_a_reloaded_page_resumes_its_game(browser: Any, served: GalleristServer) -> None:
    """The game's id is in the address: reloading the page shows the same game."""
    page, errors = _open(browser, served, 1280, 800)
    page.click("#start")
    _settled(page)
    _click_a_move(page, 1)
    played = _played(page)
    page.reload()
    _settled(page)
    page.wait_for_selector("button.move")
    assert _played(page) == played
    assert "Game resumed" in page.inner_text("#events")
    page.close()
    assert not errors, errors
