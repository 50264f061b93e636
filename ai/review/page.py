"""The review page of an analyzed game: `write_review_page(analysis_jsonl_path, html_path)`
writes one self-contained HTML file (inline CSS, JavaScript and SVG; no network) from the
JSON Lines of `gallerist analyze` (docs/records.md, "Game analysis"): each seat's biggest
mistakes, the board at every decision, the labelled move list (each mistake and blunder
with why: the move played explained against the better one), a chart of the win
probabilities, each position's numbers, the final score and each seat's summary. A line whose state is not a valid
GameState is an error naming the line. The style sheet and script are in `page_script`.
"""
from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from gallerist import engine
from gallerist.engine.svg import PLAYER_COLOURS
from gallerist.ai.review.analysis import BIGGEST_MISTAKES, biggest_mistakes
from gallerist.ai.review.page_script import CSS, SCRIPT
from gallerist.engine.actions import NOTATION_KINDS
from gallerist.ai.review.strength import Strength, describe
from gallerist.ai.words import counted
from gallerist.engine.errors import GalleristError

__all__ = ["ReviewError", "game_result", "read_analysis", "result_words", "review_html",
           "write_review_page", "LABEL_MARKS"]

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


def _where(state: engine.GameState, raw: dict[str, Any]) -> dict[str, Any]:
    """Where the game is: round and turn (the state's `turn`), whose turn, how many turns
    are left once the end is triggered (None before), the flags the status line names."""
    n = state.num_players
    turn = int(state.turn_number)
    end = raw.get("gameEnd") or {}
    return {"turn": turn, "round": None if n == 1 else max(0, (turn - 1) // n + 1),
            "turn_player": int(state.turn_player),
            "ea_used": bool((raw.get("turn") or {}).get("executiveActionUsed")),
            "turns_left": int(state.turns_left) if end.get("triggered") else None,
            "intermediate_done": bool((raw.get("intermediateScoring") or {}).get("done"))}


def _words(move: dict[str, Any]) -> str:
    """A move of an analysis line in words with its notation: "Move your gallerist to the
    Sales Office (move:SO)"; the notation alone when the line has no words."""
    notation = str(move.get("move", "?"))
    words = str(move.get("description") or "")
    return f"{words} ({notation})" if words else notation


#: The labels whose moves the page explains (the move list and the details).
_EXPLAINED = ("mistake", "blunder")


def _why(pos: dict[str, Any]) -> str:
    """Why a mistake or blunder lost: the played move's explanation against the better
    move, in one line ("" for a lesser label or a line without an explanation)."""
    e = pos["played"].get("explanation") if pos.get("label") in _EXPLAINED else None
    return str(e.get("words") or "") if isinstance(e, dict) else ""


def _frame(pos: dict[str, Any], solo: bool) -> dict[str, Any]:
    """What the page shows of one position (its board SVG and its numbers)."""
    state: engine.GameState = pos["game_state"]
    seat = pos["player"]
    played, best = pos["played"], pos["best"]
    drawn = pos.get("label") is not None and best["action"] != played["action"]
    board = engine.svg(state, hint=best if drawn else None, viewer=seat)

    def row(m: dict[str, Any]) -> list[str]:
        money = _money(m.get("expected_money"), seat)
        return [_words(m), money] if solo else [_words(m), _pct(m.get("win_probability")), money]

    root = pos["root"]
    return {"svg": board, "ply": pos["ply"], "player": seat, "move": played["move"],
            "why": _why(pos),
            "description": str(played.get("description") or ""),
            "best": best["move"], "best_description": _words(best), "label": pos.get("label"), "loss": pos["loss"],
            "hint_drawn": drawn, "played": row(played), "best_row": row(best),
            "moves": [row(m) for m in pos.get("moves", [])[:8]],
            "root": (root.get("expected_money") or [0])[:1] if solo
            else root.get("win_probabilities") or [], **_where(state, pos["state"])}


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
            label = f" ({f['label']})" if mark else ""
            colour = _LABEL_COLOURS[f["label"]] if mark else PLAYER_COLOURS[seat]
            parts.append(f'<circle class="chart-point{" labelled" if mark else ""}" '
                         f'data-index="{i}" data-seat="{seat}" cx="{x:.1f}" cy="{y:.1f}" '
                         f'r="{4.5 if mark else 3}" fill="{colour}" '
                         f'style="cursor:pointer"><title>Decision {i + 1:,}: P{f["player"]} '
                         f'{html.escape(f["move"])}{label}</title></circle>')
    parts.append("</svg>")
    return "".join(parts)


#: Nouns whose plural is not the noun with an s.
_PLURALS = {"inaccuracy": "inaccuracies"}


def _counted(count: int, noun: str) -> str:
    """`ai.words.counted`, with the irregular plurals of `_PLURALS`."""
    return f"{count:,} {_PLURALS[noun]}" if count != 1 and noun in _PLURALS else counted(count, noun)


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _seat(names: list[Any], seat: int) -> str:
    name = names[seat] if seat < len(names) else None
    return f"Seat {seat}" + (f" ({name})" if name else "")


def _replayed_source(header: dict[str, Any], history: list[int],
                     base: Path | None) -> engine.GameState | None:
    """The end of the game the analysis was made from (header "source" and "game", read
    as `gallerist analyze` reads it; a relative path also beside the analysis file), if
    it can be read and its moves begin with `history`."""
    from gallerist.ai.review.games import read_game

    source = header.get("source")
    if not isinstance(source, str) or not source:
        return None
    paths = [Path(source)] + ([base / source] if base is not None else [])
    path = next((x for x in paths if x.exists()), None)
    game_no = header.get("game") if isinstance(header.get("game"), int) else None
    if path is None:
        return None
    try:
        game = read_game(str(path), game_no)
    except (GalleristError, OSError, ValueError):
        return None
    seed = (header.get("setup") or {}).get("seed", game.seed)
    if (game.players, game.seed) != (header["players"], seed) or game.actions[:len(history)] != history:
        return None
    return game.state_at(len(game.actions))


def game_result(header: dict[str, Any], positions: list[dict[str, Any]],
                base: Path | None = None) -> dict[str, list[int]] | None:
    """The game's final money per seat and its winners (`{"money", "winners"}`): the last
    position's state with its move played, or (an analysis of some seats only) the game
    replayed from its source; None when neither reaches the end of the game."""
    last = positions[-1]
    state = last["game_state"].copy()
    try:
        state.apply(last["played"]["action"])
    except engine.GalleristError:
        return None
    if not state.is_terminal():
        state = _replayed_source(header, [int(a) for a in state.history], base)
    if state is None or not state.is_terminal():
        return None
    return {"money": [int(m) for m in state.money()], "winners": [int(w) for w in state.winners()]}


def result_words(result: dict[str, list[int]] | None, names: list[Any], source: Any = None) -> str:
    """The final score in words: "Seat 1 (greedy) won with $98 against $85"."""
    if result is None:
        game = f" ({source})" if isinstance(source, str) and source else ""
        return ("The final score is not known: the analysis stops before the end of the "
                f"game, and the game it was made from{game} could not be read to its end.")
    money, winners = result["money"], result["winners"]
    if len(money) == 1:
        return f"{_seat(names, 0)} finished the solo game with ${money[0]:,}."
    others = sorted((s for s in range(len(money)) if s not in winners), key=lambda s: -money[s])
    against = _and([f"${money[s]:,}" + ("" if len(money) == 2 else f" (seat {s})")
                    for s in others]) if others else ""
    top = f"${money[winners[0]]:,}"
    if len(winners) == 1:
        text = f"{_seat(names, winners[0])} won with {top}"
    else:
        text = f"{_and([_seat(names, w) for w in winners])} shared the win with {top} each"
    return text + (f" against {against}." if against else ".")


def _labels(counts: dict[str, Any]) -> str:
    said = [_counted(int(counts.get(k) or 0), k) for k in LABEL_MARKS if counts.get(k)]
    return ", ".join(said) if said else "none"


def _loss(value: Any, solo: bool) -> str:
    value = float(value or 0)
    return f"${value:,.2f}" if solo else f"{100 * value:.1f}%"


def _summary_table(header: dict[str, Any], summary: dict[str, Any] | None,
                   result: dict[str, list[int]] | None) -> str:
    """The summary area: the final score and winner, a row per analyzed seat (final money,
    decisions, average loss, labelled moves in words), each seat's playing strength."""
    names = header.get("names") or []
    words = result_words(result, names, header.get("source"))
    out = [f"<p id='result'>{html.escape(words)}</p>"]
    if not summary or not isinstance(summary.get("players"), list):
        return "".join(out) + "<p>No summary (the analysis was not finished).</p>"
    solo = header["players"] == 1
    lost = "expected $" if solo else "win probability"
    out.append(f"<table id='summary'><tr><th>seat</th><th>name</th><th>final money</th>"
               f"<th>decisions</th><th>average {lost} lost</th><th>labelled moves</th></tr>")
    for p in summary["players"]:
        seat = p.get("seat")
        final = (f"${result['money'][seat]:,}" if result and isinstance(seat, int)
                 and 0 <= seat < len(result["money"]) else "-")
        cells = [html.escape(str(v)) for v in (
            seat, p.get("name"), final, p.get("decisions"), _loss(p.get("average_loss"), solo),
            _labels(p.get("counts") or {}))]
        cells[1] = re.sub(r"([:,=])", r"\1<wbr>", cells[1])   # long bot specs wrap there
        out.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    if summary.get("complete") is False:
        out.append("<tr><td colspan='6'>analysis stopped early (incomplete)</td></tr>")
    out.append("</table>")
    for p in summary["players"]:
        s = p.get("strength")
        if isinstance(s, dict) and isinstance(s.get("ci"), list) and len(s["ci"]) == 2:
            words = describe(Strength(float(s["elo"]), (float(s["ci"][0]), float(s["ci"][1])),
                                      int(s.get("level") or 0)))
            out.append(f"<p class='strength'>Seat {html.escape(str(p.get('seat')))} "
                       f"{html.escape(words)} on the ladder's scale (random = 0).</p>")
    return "".join(out)


def _biggest(header: dict[str, Any], positions: list[dict[str, Any]],
             summary: dict[str, Any] | None) -> str:
    """Each seat's biggest mistakes (the summary's `biggest_mistakes`; for a summary
    without them, or no summary, found from the positions): the decision, the move played
    and the better one, the loss with its label and why. A row shows its decision when
    clicked."""
    names = header.get("names") or []
    solo = header["players"] == 1
    seats: list[tuple[int, list[Any]]] = []
    if summary and isinstance(summary.get("players"), list):
        for p in summary["players"]:
            if not isinstance(p, dict) or not isinstance(p.get("seat"), int):
                continue
            listed = p.get("biggest_mistakes")
            seats.append((p["seat"], listed if isinstance(listed, list)
                          else biggest_mistakes(positions, p["seat"])))
    else:
        seats = [(seat, biggest_mistakes(positions, seat))
                 for seat in sorted({pos["player"] for pos in positions})]
    index = {pos["ply"]: i for i, pos in enumerate(positions)}
    rows = []
    for seat, mistakes in seats:
        mistakes = [m for m in mistakes if isinstance(m, dict)]
        colour = PLAYER_COLOURS[seat] if 0 <= seat < len(PLAYER_COLOURS) else "#888"
        rows.append(f'<tr><th colspan="5" style="border-left:4px solid {colour}">'
                    f'{html.escape(_seat(names, seat))}</th></tr>')
        if not mistakes:
            rows.append('<tr><td colspan="5">no move lost anything</td></tr>')
        for m in mistakes:
            i = index.get(m.get("ply"))
            where = (f"{i + 1:,}" if i is not None else f"move {html.escape(str(m.get('ply')))}")
            label = m.get("label") if m.get("label") in LABEL_MARKS else None
            try:
                lost = _loss(m.get("loss"), solo)
            except (TypeError, ValueError):
                lost = "-"
            if label:
                lost = (f'<span class="{label}">{lost} {LABEL_MARKS[label]} {label}</span>')
            attrs = f' data-index="{i}"' if i is not None else ""
            rows.append(f'<tr{attrs}><td>{where}</td><td>{html.escape(str(m.get("played") or ""))}</td>'
                        f'<td>{html.escape(str(m.get("best") or ""))}</td><td>{lost}</td>'
                        f'<td class="why">{html.escape(str(m.get("why") or ""))}</td></tr>')
    if not rows:
        return ""
    lost = "$ of expected money" if solo else "win probability"
    return (f'<details id="biggest-mistakes" open><summary>Biggest mistakes: each seat\'s '
            f'{BIGGEST_MISTAKES} largest losses of {lost}, largest first (click one to see '
            f'it)</summary><div class="scroll"><table><tr><th>decision</th><th>played</th>'
            f'<th>better</th><th>lost</th><th>why</th></tr>{"".join(rows)}</table></div>'
            f'</details>')


_CHUNK = re.compile(r"(?=<g id=)")


def _share_chunks(frames: list[dict[str, Any]]) -> list[str]:
    """Replace each frame's SVG by the indices of its pieces in a shared table (split
    before every element with an id): consecutive boards share most of their pieces, so
    the page holds each piece once (the JavaScript joins them back, unchanged)."""
    table: dict[str, int] = {}
    for f in frames:
        f["svg"] = [table.setdefault(piece, len(table)) for piece in _CHUNK.split(f["svg"])]
    return list(table)


def _about(header: dict[str, Any], decisions: int) -> str:
    """Who analyzed the game, with what budget: "analyzed by B with 50 iterations (or at
    100 ms) per position; 230 decisions; setup seed 4"."""
    budget = []
    if isinstance(header.get("iterations"), int) and header["iterations"] > 0:
        budget.append(f"with {counted(header['iterations'], 'iteration')}")
    if isinstance(header.get("time_ms"), (int, float)) and header["time_ms"] > 0:
        budget.append(f"at {header['time_ms']:,g} ms")
    text = f"analyzed by {header.get('bot', '?')}"
    if budget:
        text += " " + " and ".join(budget) + " per position"
    text += f"; {counted(decisions, 'decision')}"
    seed = (header.get("setup") or {}).get("seed")
    return html.escape(text + (f"; setup seed {seed}" if seed is not None else ""))


def _move_rows(frames: list[dict[str, Any]]) -> str:
    """The move list: one line per decision, numbered as the status line numbers them."""
    rows = []
    for i, f in enumerate(frames):
        mark = (f'<span class="mark {f["label"]}">{LABEL_MARKS[f["label"]]}</span>'
                f' <span class="{f["label"]}">best: {html.escape(f["best_description"])}</span>'
                if f["label"] else "")
        if f["why"]:
            mark += f'<span class="why">why: {html.escape(f["why"])}</span>'

        words = html.escape(f["description"] or f["move"])
        rows.append(f'<div class="move" data-index="{i}" style="border-left:4px solid '
                    f'{PLAYER_COLOURS[f["player"]]}">{i + 1:,}. P{f["player"]} {words} '
                    f'<span class="notation">{html.escape(f["move"])}</span>{mark}</div>')
    return "".join(rows)


def _notation_legend() -> str:
    """What the grey notation beside each move means: each kind, in words."""
    rows = "".join(f"<tr><td>{html.escape(kind)}:</td><td>{html.escape(words)}</td></tr>"
                   for kind, words in NOTATION_KINDS.items())
    return ('<details id="notation-legend"><summary>The notation in grey</summary>'
            "<p>Beside each move, its notation: the engine's exact name of the move, as "
            "scripts and the service use it, by kind:</p>"
            f"<table>{rows}</table></details>")


def review_html(header: dict[str, Any], positions: list[dict[str, Any]],
                summary: dict[str, Any] | None, *, base: Path | None = None) -> str:
    """The page (a str) of a read analysis (`read_analysis`); `base`: the analysis file's
    folder, where a relative "source" is also looked for (`game_result`)."""
    players = header["players"]
    solo = players == 1
    frames = [_frame(p, solo) for p in positions]
    names = [str(x) for x in header.get("names") or []]
    legend = " ".join(f'<span style="color:{PLAYER_COLOURS[p]}">&#9632; P{p} '
                      f'{html.escape(names[p] if p < len(names) else "")}</span>'
                      for p in range(players))
    chart = _chart(frames, players, solo)
    rows = _move_rows(frames)
    chunks = _share_chunks(frames)
    head = "<th>expected $</th>" if solo else "<th>win %</th><th>expected $</th>"
    data = json.dumps({"chunks": chunks, "frames": frames, "names": names, "solo": solo,
                       "head": head}, separators=(",", ":")).replace("</", "<\\/")
    number = header.get("game")
    title = (("Game review: " if number is None else f"Game {number} review: ")
             + ("solo against Lacerda" if solo else f"{players} players"))
    summary_html = _summary_table(header, summary, game_result(header, positions, base))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>{html.escape(title)}</title><style>{CSS}</style></head>
<body>
<h1>{html.escape(title)}</h1>
<div id="about">{_about(header, len(frames))}. {legend}</div>
{_biggest(header, positions, summary)}
<div id="controls"><button id="first" title="first (Home)">|&#9664;</button>
<button id="prev" title="previous (left arrow)">&#9664;</button>
<button id="next" title="next (right arrow)">&#9654;</button>
<button id="last" title="last (End)">&#9654;|</button>
<span id="status"></span></div>
<div id="layout"><div id="main"><div id="board"></div>{chart}</div>
<div id="side"><div id="details"></div><div id="moves">{rows}</div>
{_notation_legend()}
{summary_html}</div></div>
<script id="review-data" type="application/json">{data}</script>
<script>{SCRIPT}</script>
</body></html>
"""


def write_review_page(analysis_jsonl_path: str | Path, html_path: str | Path) -> int:
    """Write the review page of an analyzed game; returns the number of positions.

    Raises:
        ReviewError: the analysis file does not fit the format (the message names the line).
        OSError: a file cannot be read or written.
    """
    header, positions, summary = read_analysis(analysis_jsonl_path)
    page = review_html(header, positions, summary, base=Path(analysis_jsonl_path).parent)
    target = Path(html_path)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(page, encoding="utf-8")
    tmp.replace(target)
    return len(positions)
