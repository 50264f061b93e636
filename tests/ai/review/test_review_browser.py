"""The review page and the board's SVG in a real browser: Debian's Chromium driven by
Playwright (never `playwright install`: the system's /usr/bin/chromium). Chromium missing
is a failure that says how to install it, not a skip."""
from __future__ import annotations

import io
import json
import os
import shutil
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pytest
from review_fixtures import write_analysis

from gallerist import engine
from gallerist.ai.review.page import write_review_page

CHROMIUM = os.environ.get("GALLERIST_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)) and not shutil.which(CHROMIUM):
        pytest.fail(f"Chromium not found at {CHROMIUM}: install it with `apt-get install -y "
                    f"chromium` (Debian's package; tests/run.sh does) or set GALLERIST_CHROMIUM")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the playwright package is missing: pip install -e '.[dev]'")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


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


def _variance(png: bytes) -> float:
    from PIL import Image

    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("L"), dtype=float)
    return float(pixels.var())


def _index(page: Any) -> int:
    return int(page.get_attribute("#board", "data-index"))


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
    assert f"Move {positions[37]['ply']}, P{positions[37]['player']}" in page.inner_text("#details")
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
    assert _variance(page.screenshot()) > 100
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
    assert _variance(page.screenshot()) > 100
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

    gallerist = [sys.executable, "-m", "gallerist.server"]
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
    assert f"Move {positions[-1]['ply']}, P0" in page.inner_text("#details")
    assert _variance(page.screenshot()) > 100
    page.close()
    assert not errors, errors
