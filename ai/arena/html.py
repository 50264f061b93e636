"""The arena's report as one HTML page (`write_html_report`): the tables of
`arena_report.format_report`, the ratings picture inline, and one row per game (seed,
seats, money, winners) linking to the game's review page when one exists.

A game's review page is looked for as ``REVIEWS/game-N.html`` (N the record's `game`;
REVIEWS defaults to the page's own folder), the name `gallerist analyze RECORDS --game N
--html REVIEWS/game-N.html` or `gallerist review` writes; the row of a game without one
says how to make it.
"""
from __future__ import annotations

import base64
import html
import os
from pathlib import Path
from typing import Any, Sequence

from gallerist.ai.arena.report import format_report

__all__ = ["review_page_name", "write_html_report"]


def review_page_name(game: int) -> str:
    """The file name of game `game`'s review page."""
    return f"game-{game}.html"


def _winners(money: Sequence[int]) -> str:
    if len(money) == 1:
        return f"solo ${money[0]}"
    best = max(money)
    return ", ".join(f"P{i}" for i, m in enumerate(money) if m == best)


def write_html_report(report: dict[str, Any], records: Sequence[Any], path: str,
                      records_path: str, png: str | None = None,
                      reviews: str | None = None) -> int:
    """Write the page; returns how many games link to a review page.

    Args:
        report: the arena's report (`Tournament.report()`).
        records: the games' `GameRecord`s.
        path: the HTML file to write.
        records_path: the records file (named in the command that makes a review page).
        png: the ratings picture to inline, if it exists.
        reviews: the folder of the review pages (default: the HTML file's folder).
    """
    page_dir = Path(path).resolve().parent
    folder = Path(reviews) if reviews else page_dir
    rows, linked = [], 0
    for rec in sorted(records, key=lambda r: r.game):
        review = folder / review_page_name(rec.game)
        if review.is_file():
            href = os.path.relpath(review.resolve(), page_dir)
            cell = f'<a href="{html.escape(Path(href).as_posix())}">review</a>'
            linked += 1
        else:
            cmd = (f"gallerist analyze {records_path} --game {rec.game} --html "
                   f"{folder / review_page_name(rec.game)}")
            cell = f'<span title="{html.escape(cmd)}">-</span>'
        seats = "<br>".join(f"P{i} {html.escape(b)}" for i, b in enumerate(rec.bots))
        money = ", ".join(f"${m}" for m in rec.money)
        rows.append(f"<tr><td>{rec.game}</td><td>{rec.seed}</td><td>{seats}</td>"
                    f"<td>{money}</td><td>{_winners(rec.money)}</td><td>{cell}</td></tr>")
    picture = ""
    if png and os.path.isfile(png):
        data = base64.b64encode(Path(png).read_bytes()).decode("ascii")
        picture = f'<img alt="ratings" src="data:image/png;base64,{data}">'
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Arena report</title>
<style>body{{font-family:sans-serif;margin:14px}}pre{{background:#f6f6f6;padding:8px}}
table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:3px 8px;vertical-align:top}}</style>
</head><body><h1>Arena report</h1>
<pre>{html.escape(format_report(report))}</pre>
{picture}
<h2>Games</h2>
<p>A review page is linked where <code>{html.escape(str(folder))}/game-N.html</code> exists
(<code>gallerist analyze {html.escape(records_path)} --game N --html ...</code>).</p>
<table id="games"><tr><th>game</th><th>seed</th><th>seats</th><th>money</th><th>winner</th>
<th>review</th></tr>{"".join(rows)}</table></body></html>
"""
    Path(path).write_text(page, encoding="utf-8")
    return linked
