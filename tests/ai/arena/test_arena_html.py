"""The arena's HTML report (`gallerist arena --html`): the tables, the ratings picture
inline, and each game linked to its review page when that page exists."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from gallerist.ai.arena.records import read_records
from gallerist.cli.main import main


def test_html_report_links_games_that_have_a_review_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Games whose REVIEWS/game-N.html exists are linked (relative links); the others name
    the command that makes the page; the report's tables and picture are in the page."""
    monkeypatch.chdir(tmp_path)
    reviews = tmp_path / "reviews"
    reviews.mkdir()
    (reviews / "game-1.html").write_text("<html></html>")
    status = main(["arena", "greedy", "random", "--players", "2", "--games", "2", "--workers", "1",
                   "--no-progress", "--html", "report.html", "--reviews", str(reviews)])
    assert status == 0
    page = (tmp_path / "report.html").read_text()
    games = sorted(r.game for r in read_records(str(tmp_path / "arena-games.jsonl")))
    assert games == [0, 1]
    links = re.findall(r'<a href="([^"]+)">review</a>', page)
    assert links == ["reviews/game-1.html"]
    assert "gallerist analyze arena-games.jsonl --game 0 --html" in page
    assert "win rate" in page and "data:image/png;base64," in page
    assert page.count("<tr><td>") == 2


def test_html_report_refuses_an_unwritable_path_before_playing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A --html path in a missing folder is an error before any game is played."""
    status = main(["arena", "greedy", "random", "--games", "2", "--no-progress",
                   "--records", str(tmp_path / "g.jsonl"), "--html", str(tmp_path / "no" / "r.html")])
    assert status == 2 and "--html" in capsys.readouterr().err
    assert not (tmp_path / "g.jsonl").exists()


def test_counts_of_one_are_singular(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    """An arena of one game with one review page says "1 game" in its headline and "1 game
    linked", not "1 games"."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "game-0.html").write_text("<html></html>")
    assert main(["arena", "greedy", "--players", "1", "--games", "1", "--workers", "1",
                 "--no-progress", "--html", "report.html"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("1 game, solo against Lacerda")
    assert "HTML report: report.html (1 game linked to a review page)" in out
    assert "1 games" not in out
