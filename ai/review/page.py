"""The review page of an analyzed game: `write_review_page(analysis_jsonl_path, html_path)`
writes one self-contained HTML file (inline CSS, JavaScript and SVG; no network) from the
JSON Lines of `gallerist analyze` (docs/records.md, "Game analysis"): the board at every
decision, the labelled move list, a chart of the win probabilities, each position's
numbers. A line whose state is not a valid GameState is an error naming the line.
"""
from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from gallerist import engine
from gallerist.engine.svg import PLAYER_COLOURS
from gallerist.ai.review.strength import Strength, describe
from gallerist.engine.errors import GalleristError

__all__ = ["ReviewError", "read_analysis", "review_html", "write_review_page", "LABEL_MARKS"]

#: How a label is written after a move (as chess annotators do).
LABEL_MARKS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
_LABEL_COLOURS = {"inaccuracy": "#e6a700", "mistake": "#e67e22", "blunder": "#c0392b"}


class ReviewError(GalleristError, ValueError):
    """An analysis file that cannot be reviewed; the message names the line and the field."""


def _need(obj: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in obj:
        raise ReviewError(f"{where}: missing field {key!r}")
    if not isinstance(obj[key], kind) or isinstance(obj[key], bool) and kind is not bool:
        raise ReviewError(f"{where}: field {key!r} has the wrong type "
                          f"({type(obj[key]).__name__})")
    return obj[key]


def read_analysis(path: str | Path) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any] | None]:
    """The header, the positions (each with its `GameState` under "game_state") and the
    summary (None if the file has none, e.g. an analysis still being written).

    Raises:
        ReviewError: not an analysis file, or a line that does not fit the format.
        OSError: the file cannot be read.
    """
    header: dict[str, Any] | None = None
    positions: list[dict[str, Any]] = []
    summary = None
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            where = f"{path}:{n}"
            try:
                obj = json.loads(line)
            except ValueError as exc:
                raise ReviewError(f"{where}: not JSON ({exc})") from None
            if not isinstance(obj, dict):
                raise ReviewError(f"{where}: not a JSON object")
            kind = obj.get("type")
            if header is None:
                if kind != "header" or obj.get("format") != "gallerist-analysis":
                    raise ReviewError(f"{where}: not an analyzed game (the first line must be "
                                      f"the header of format 'gallerist-analysis'; write one "
                                      f"with `gallerist analyze`)")
                if obj.get("format_version") != 1:
                    raise ReviewError(f"{where}: format_version {obj.get('format_version')!r} "
                                      f"is not supported (1 is)")
                players = _need(obj, "players", int, where)
                if not 1 <= players <= 4:
                    raise ReviewError(f"{where}: field 'players' must be 1..4, got {players}")
                header = obj
            elif kind == "position":
                positions.append(_position(obj, header, where))
            elif kind == "summary":
                summary = obj
            else:
                raise ReviewError(f"{where}: unknown line type {kind!r} (header, position, summary)")
    if header is None:
        raise ReviewError(f"{path}: empty file (no analysis header)")
    if not positions:
        raise ReviewError(f"{path}: no analyzed positions")
    return header, positions, summary


def _position(obj: dict[str, Any], header: dict[str, Any], where: str) -> dict[str, Any]:
    for key, kind in (("ply", int), ("player", int), ("state", dict), ("root", dict),
                      ("played", dict), ("best", dict), ("loss", (int, float))):
        _need(obj, key, kind, where)
    for key in ("played", "best"):
        _need(obj[key], "action", int, f"{where}: {key}")
        _need(obj[key], "move", str, f"{where}: {key}")
    label = obj.get("label")
    if label is not None and label not in LABEL_MARKS:
        raise ReviewError(f"{where}: field 'label' must be null or one of "
                          f"{', '.join(LABEL_MARKS)}, got {label!r}")
    try:
        state = engine.GameState.from_json(json.dumps(obj["state"]))
    except engine.GalleristError as exc:
        raise ReviewError(f"{where}: field 'state': {exc}") from None
    if state.num_players != header["players"]:
        raise ReviewError(f"{where}: field 'state' has {state.num_players} players, the header "
                          f"{header['players']}")
    if not 0 <= obj["player"] < state.num_players:
        raise ReviewError(f"{where}: field 'player' {obj['player']} is not a seat")
    return {**obj, "game_state": state}


def _pct(p: Any) -> str:
    return "-" if p is None else f"{100 * p:.0f}%"


def _money(m: Any, seat: int) -> str:
    return f"${m[seat]:.0f}" if isinstance(m, list) and len(m) > seat else "-"


def _frame(pos: dict[str, Any], solo: bool) -> dict[str, Any]:
    """What the page shows of one position (its board SVG and its numbers)."""
    state: engine.GameState = pos["game_state"]
    seat = pos["player"]
    played, best = pos["played"], pos["best"]
    drawn = pos.get("label") is not None and best["action"] != played["action"]
    board = engine.svg(state, hint=best if drawn else None, viewer=seat)

    def row(m: dict[str, Any]) -> list[str]:
        money = _money(m.get("expected_money"), seat)
        return [m.get("move", "?"), money] if solo else [
            m.get("move", "?"), _pct(m.get("win_probability")), money]

    root = pos["root"]
    return {"svg": board, "ply": pos["ply"], "player": seat, "move": played["move"],
            "best": best["move"], "label": pos.get("label"), "loss": pos["loss"],
            "hint_drawn": drawn, "played": row(played), "best_row": row(best),
            "moves": [row(m) for m in pos.get("moves", [])[:8]],
            "root": (root.get("expected_money") or [0])[:1] if solo
            else root.get("win_probabilities") or []}


def _chart(frames: list[dict[str, Any]], players: int, solo: bool) -> str:
    """An inline SVG: every seat's win probability (solo: expected money) over the game."""
    w, h, left, top, bottom = 800, 200, 44, 10, 24
    n = len(frames)
    values = [f["root"] for f in frames]
    if solo:
        hi = max([1.0] + [v[0] for v in values if v]) * 1.1
        lo = 0.0
        seats = [0]
        axis = [(lo + (hi - lo) * k / 4, f"${lo + (hi - lo) * k / 4:.0f}") for k in range(5)]
    else:
        lo, hi = 0.0, 1.0
        seats = list(range(players))
        axis = [(k / 4, f"{25 * k}%") for k in range(5)]

    def xy(i: int, v: float) -> tuple[float, float]:
        x = left + (w - left - 10) * (i / max(1, n - 1))
        y = top + (h - top - bottom) * (1 - (v - lo) / (hi - lo))
        return x, y

    parts = [f'<svg id="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" '
             f'width="{w}" height="{h}" font-family="sans-serif" font-size="10">',
             f'<rect width="{w}" height="{h}" fill="#fff"/>']
    for v, label in axis:
        _, y = xy(0, v)
        parts.append(f'<line x1="{left}" x2="{w - 10}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eee"/>'
                     f'<text x="{left - 4}" y="{y + 3:.1f}" text-anchor="end">{label}</text>')
    parts.append(f'<text x="{left}" y="{h - 6}">{"expected final money" if solo else "win probability"}'
                 f' before each analyzed move (click a point)</text>')
    parts.append(f'<line id="chart-cursor" x1="{left}" x2="{left}" y1="{top}" '
                 f'y2="{h - bottom}" stroke="#888" stroke-dasharray="3,3"/>')
    for seat in seats:
        pts = [xy(i, f["root"][seat]) for i, f in enumerate(frames) if len(f["root"]) > seat]
        colour = PLAYER_COLOURS[seat]
        parts.append(f'<polyline class="chart-line" data-seat="{seat}" fill="none" '
                     f'stroke="{colour}" stroke-width="1.5" points="'
                     + " ".join(f"{x:.1f},{y:.1f}" for x, y in pts) + '"/>')
    for i, f in enumerate(frames):
        for seat in seats:
            if len(f["root"]) <= seat:
                continue
            x, y = xy(i, f["root"][seat])
            mark = f["label"] is not None and f["player"] == seat
            colour = _LABEL_COLOURS[f["label"]] if mark else PLAYER_COLOURS[seat]
            parts.append(f'<circle class="chart-point{" labelled" if mark else ""}" '
                         f'data-index="{i}" data-seat="{seat}" cx="{x:.1f}" cy="{y:.1f}" '
                         f'r="{4.5 if mark else 3}" fill="{colour}" '
                         f'style="cursor:pointer"><title>#{f["ply"]} P{f["player"]} '
                         f'{html.escape(f["move"])}</title></circle>')
    parts.append("</svg>")
    return "".join(parts)


_CSS = """
body{font-family:sans-serif;margin:12px;background:#f5f3ee;color:#222}
h1{font-size:18px;margin:0 0 6px}
#layout{display:flex;gap:14px;align-items:flex-start}
#board{width:800px;min-height:400px;background:#fff;border:1px solid #ccc}
#controls{margin:6px 0;display:flex;gap:6px;align-items:center}
#controls button{font-size:15px;padding:3px 10px}
#side{width:380px}
#moves{height:520px;overflow-y:auto;background:#fff;border:1px solid #ccc;font-size:12px}
#moves div{padding:2px 6px;cursor:pointer;white-space:nowrap}
#moves div.current{background:#ffe9a8}
#moves .mark{font-weight:bold;margin-left:4px}
table{border-collapse:collapse;font-size:12px;background:#fff}
td,th{border:1px solid #ddd;padding:2px 6px;text-align:left}
#details{margin:8px 0}
.inaccuracy{color:#b58900}.mistake{color:#d35400}.blunder{color:#c0392b}
"""

_JS = """
(function(){
const DATA = JSON.parse(document.getElementById('review-data').textContent);
const D = DATA.frames, CH = DATA.chunks;
const board = document.getElementById('board');
const rows = Array.from(document.querySelectorAll('#moves div'));
const cursor = document.getElementById('chart-cursor');
const points = document.querySelectorAll('.chart-point');
const xs = {};
points.forEach(function(p){ xs[p.dataset.index] = p.getAttribute('cx'); });
let cur = -1;
function cells(r){ return '<td>' + r.map(esc).join('</td><td>') + '</td>'; }
function esc(s){ return String(s).replace(/[&<>"]/g, function(c){
  return {'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]; }); }
function show(i){
  i = Math.max(0, Math.min(D.length - 1, i));
  if (i === cur) return;
  if (cur >= 0) rows[cur].classList.remove('current');
  cur = i;
  const f = D[i];
  board.innerHTML = f.svg.map(function(k){ return CH[k]; }).join('');
  board.dataset.index = i;
  rows[i].classList.add('current');
  rows[i].scrollIntoView({block: 'nearest'});
  document.getElementById('position').textContent = (i + 1) + ' / ' + D.length;
  if (cursor && xs[i] !== undefined) { cursor.setAttribute('x1', xs[i]); cursor.setAttribute('x2', xs[i]); }
  let h = '<b>Move ' + f.ply + ', P' + f.player + '</b>';
  if (f.label) h += ' <span class="' + f.label + '">' + f.label + ' (loss ' + f.loss.toFixed(3) + ')</span>';
  if (f.hint_drawn) h += '<br>The arrow shows the best move, ' + esc(f.best) + '.';
  h += '<table><tr><th></th><th>move</th>' + HEAD + '</tr>'
     + '<tr><th>played</th>' + cells(f.played) + '</tr><tr><th>best</th>' + cells(f.best_row) + '</tr>';
  f.moves.forEach(function(m, k){ h += '<tr><th>' + (k + 1) + '</th>' + cells(m) + '</tr>'; });
  document.getElementById('details').innerHTML = h + '</table>';
}
rows.forEach(function(r){ r.addEventListener('click', function(){ show(+r.dataset.index); }); });
points.forEach(function(p){ p.addEventListener('click', function(){ show(+p.dataset.index); }); });
document.getElementById('first').onclick = function(){ show(0); };
document.getElementById('prev').onclick = function(){ show(cur - 1); };
document.getElementById('next').onclick = function(){ show(cur + 1); };
document.getElementById('last').onclick = function(){ show(D.length - 1); };
document.addEventListener('keydown', function(e){
  if (e.key === 'ArrowRight' || e.key === 'ArrowDown') { show(cur + 1); e.preventDefault(); }
  else if (e.key === 'ArrowLeft' || e.key === 'ArrowUp') { show(cur - 1); e.preventDefault(); }
  else if (e.key === 'Home') { show(0); e.preventDefault(); }
  else if (e.key === 'End') { show(D.length - 1); e.preventDefault(); }
});
show(0);
})();
"""


def _summary_table(header: dict[str, Any], summary: dict[str, Any] | None) -> str:
    if not summary or not isinstance(summary.get("players"), list):
        return "<p>No summary (the analysis was not finished).</p>"
    unit = header.get("thresholds", {}).get("unit", "")
    out = [f"<table id='summary'><tr><th>seat</th><th>name</th><th>decisions</th>"
           f"<th>average loss ({html.escape(str(unit))})</th><th>?!</th><th>?</th><th>??</th></tr>"]
    for p in summary["players"]:
        counts = p.get("counts", {})
        out.append("<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in (
            p.get("seat"), p.get("name"), p.get("decisions"),
            f"{p.get('average_loss', 0):.3f}", counts.get("inaccuracy", 0),
            counts.get("mistake", 0), counts.get("blunder", 0))) + "</tr>")
    if summary.get("complete") is False:
        out.append("<tr><td colspan='7'>analysis stopped early (incomplete)</td></tr>")
    out.append("</table>")
    for p in summary["players"]:
        s = p.get("strength")
        if isinstance(s, dict) and isinstance(s.get("ci"), list) and len(s["ci"]) == 2:
            words = describe(Strength(float(s["elo"]), (float(s["ci"][0]), float(s["ci"][1])),
                                      int(s.get("level") or 0)))
            out.append(f"<p class='strength'>Seat {html.escape(str(p.get('seat')))} "
                       f"{html.escape(words)} on the ladder's scale (random = 0).</p>")
    return "".join(out)


_CHUNK = re.compile(r"(?=<g id=)")


def _share_chunks(frames: list[dict[str, Any]]) -> list[str]:
    """Replace each frame's SVG by the indices of its pieces in a shared table (split
    before every element with an id): consecutive boards share most of their pieces, so
    the page holds each piece once (the JavaScript joins them back, unchanged)."""
    table: dict[str, int] = {}
    for f in frames:
        f["svg"] = [table.setdefault(piece, len(table)) for piece in _CHUNK.split(f["svg"])]
    return list(table)


def review_html(header: dict[str, Any], positions: list[dict[str, Any]],
                summary: dict[str, Any] | None) -> str:
    """The page (a str) of a read analysis (`read_analysis`)."""
    players = header["players"]
    solo = players == 1
    frames = [_frame(p, solo) for p in positions]
    names = header.get("names") or [f"P{p}" for p in range(players)]
    rows = []
    for i, f in enumerate(frames):
        mark = (f'<span class="mark {f["label"]}">{LABEL_MARKS[f["label"]]}</span>'
                f' <span class="{f["label"]}">best {html.escape(f["best"])}</span>'
                if f["label"] else "")
        rows.append(f'<div class="move" data-index="{i}" style="border-left:4px solid '
                    f'{PLAYER_COLOURS[f["player"]]}">{f["ply"]}. P{f["player"]} '
                    f'{html.escape(f["move"])}{mark}</div>')
    legend = " ".join(f'<span style="color:{PLAYER_COLOURS[p]}">&#9632; P{p} '
                      f'{html.escape(str(names[p]) if p < len(names) else "")}</span>'
                      for p in range(players))
    chunks = _share_chunks(frames)
    data = json.dumps({"chunks": chunks, "frames": frames},
                      separators=(",", ":")).replace("</", "<\\/")
    title = (f"Game {header.get('game', '?')} review: "
             + ("solo against Lacerda" if solo else f"{players} players"))
    about = (f"analyzed by {html.escape(str(header.get('bot', '?')))} at "
             f"{html.escape(str(header.get('time_ms', '?')))} ms per position; setup seed "
             f"{html.escape(str(header.get('setup', {}).get('seed', '?')))}")
    head = "<th>expected $</th>" if solo else "<th>win %</th><th>expected $</th>"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>{html.escape(title)}</title><style>{_CSS}</style></head>
<body>
<h1>{html.escape(title)}</h1>
<div>{about}. {legend}</div>
<div id="controls"><button id="first" title="first (Home)">|&#9664;</button>
<button id="prev" title="previous (left arrow)">&#9664;</button>
<button id="next" title="next (right arrow)">&#9654;</button>
<button id="last" title="last (End)">&#9654;|</button>
<span id="position"></span></div>
<div id="layout"><div><div id="board"></div>{_chart(frames, players, solo)}</div>
<div id="side"><div id="details"></div><div id="moves">{"".join(rows)}</div>
{_summary_table(header, summary)}</div></div>
<script id="review-data" type="application/json">{data}</script>
<script>const HEAD = {json.dumps(head)};{_JS}</script>
</body></html>
"""


def write_review_page(analysis_jsonl_path: str | Path, html_path: str | Path) -> int:
    """Write the review page of an analyzed game; returns the number of positions.

    Raises:
        ReviewError: the analysis file does not fit the format (the message names the line).
        OSError: a file cannot be read or written.
    """
    header, positions, summary = read_analysis(analysis_jsonl_path)
    page = review_html(header, positions, summary)
    target = Path(html_path)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(page, encoding="utf-8")
    tmp.replace(target)
    return len(positions)
