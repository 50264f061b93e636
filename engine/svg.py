"""The board as a picture: `engine.svg(state, hint=None, viewer=None)`, a standalone SVG
(plain SVG 1.1, 800 units wide) of what `engine.render` writes as text; hidden cards only
for `viewer`, `hint` as an arrow. What it draws and its element ids are in
docs/python.md ("The board as SVG").
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import escape, quoteattr

from gallerist.engine import names as N
from gallerist.engine.actions import action_to_string, describe_decision, string_to_action
from gallerist.engine.errors import IllegalActionError
from gallerist.engine.moves_text import describe_move
from gallerist.engine.render import _ARTIST_BONUS, _CONTRACT_SIDE, _REP_SHORT
from gallerist.engine.state import (EASELS, FAME_MAX, GAL_HOME, GAL_KO, LACERDA,
                                    MARKET_COLUMN_INFLUENCE, WORK_FAME, WORK_TICKETS)

if TYPE_CHECKING:
    from gallerist.engine.state import GameState

__all__ = ["svg", "hint_target", "PLAYER_COLOURS", "WIDTH"]

#: The width of the picture (viewBox units = px at its natural size).
WIDTH = 800
#: Pieces and panels of players 0..3; Lacerda's are grey.
PLAYER_COLOURS = ("#1f6fb4", "#c0392b", "#23914a", "#8e44ad")
LACERDA_COLOUR = "#555555"
_VISITOR_COLOURS = ("#d4a017", "#c2185b", "#6d8f1f")   # VIP, investor, collector
_FONT = "font-family:DejaVu Sans,Verdana,Arial,sans-serif"
_COL_W = 385
_LEFT, _RIGHT = 10, 405


def _colour(owner: int) -> str:
    return LACERDA_COLOUR if owner == LACERDA else PLAYER_COLOURS[owner % 4]


def _who(owner: int) -> str:
    return "Lac" if owner == LACERDA else f"P{owner}"


class _Canvas:
    """SVG elements in order, and the box of every element with an id (for the hint)."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.boxes: dict[str, tuple[float, float, float, float]] = {}

    def text(self, x: float, y: float, s: str, size: float = 11, weight: str = "normal",
             fill: str = "#222", anchor: str = "start", cls: str = "") -> None:
        c = f" class={quoteattr(cls)}" if cls else ""
        self.parts.append(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" '
                          f'font-weight="{weight}" fill="{fill}" text-anchor="{anchor}"{c}>'
                          f"{escape(s)}</text>")

    def rect(self, x: float, y: float, w: float, h: float, fill: str = "none",
             stroke: str = "#999", sw: float = 1, rx: float = 3) -> None:
        self.parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" '
                          f'rx="{rx}" fill="{fill}" stroke="{stroke}" stroke-width="{sw}"/>')

    def circle(self, x: float, y: float, r: float, fill: str, title: str = "") -> None:
        t = f"<title>{escape(title)}</title>" if title else ""
        self.parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{fill}" '
                          f'stroke="#222" stroke-width="0.7">{t}</circle>')

    def open(self, ident: str, cls: str, box: tuple[float, float, float, float]) -> None:
        self.boxes[ident] = box
        self.parts.append(f"<g id={quoteattr(ident)} class={quoteattr(cls)}>")

    def close(self) -> None:
        self.parts.append("</g>")

    def row(self, ident: str, cls: str, x: float, y: float, h: float, title: str) -> None:
        """Open a table row of the column at `x`: its group, background and bold title."""
        self.open(ident, cls, (x, y, _COL_W, h))
        self.rect(x, y, _COL_W, h, fill="#fbfaf7", stroke="#ccc")
        self.text(x + 4, y + 13, title, size=10, weight="bold")

    def visitors(self, x: float, y: float, counts: list[int], label: str = "") -> float:
        """Three coloured dots with their counts (VIP, investor, collector); returns the x after."""
        if label:
            self.text(x, y + 4, label, size=10)
            x += 6.2 * len(label) + 4
        for kind, n in enumerate(counts):
            self.circle(x + 5, y, 5, _VISITOR_COLOURS[kind], N.VISITORS[kind])
            self.text(x + 13, y + 4, str(n), size=10)
            x += 28
        return x


# ----------------------------------------------------------------------------- parts

def _header(c: _Canvas, state: GameState, r: dict[str, Any]) -> float:
    n = r["num_players"]
    title = "The Gallerist, solo against Lacerda" if n == 1 else f"The Gallerist, {n} players"
    turns = r["turn_count"]
    if state.is_terminal():
        status = f"game over after {turns} turns"
    elif turns == 0:
        status = "setup: start locations"
    else:
        status = (f"round {(turns - 1) // n + 1}, turn {turns}" if n > 1 else f"turn {turns}")
        status += f", P{r['turn_player']}'s turn" + (", executive action used" if r["ea_used"] else "")
    if r["end_triggered"] and not r["terminal"]:
        left = r["turns_left"]
        status += f"; END TRIGGERED ({left} turn{'' if left == 1 else 's'} left)"
    if r["intermediate_done"]:
        status += "; intermediate scoring done"
    # DejaVu Sans averages about 0.62 em a character (bold 0.68): a status too long to sit
    # beside the title goes on a line of its own
    wide = len(title) * 15 * 0.68 + len(status) * 11 * 0.62 + 24 > WIDTH - 2 * _LEFT
    drop = 16 if wide else 0
    c.open("header", "header", (0, 0, WIDTH, 44 + drop))
    c.text(_LEFT, 18, title, size=15, weight="bold")
    c.text(WIDTH - _LEFT, 18 + drop, status, size=11, anchor="end")
    if state.is_terminal():
        if n == 1:
            now = f"Solo score: ${state.final_scores()[0]['money']}"
        else:
            now = "Winner(s): " + ", ".join(f"P{w}" for w in state.winners()) + \
                  " (" + ", ".join(f"P{p} ${m}" for p, m in enumerate(state.money())) + ")"
    else:
        now = "Now: " + describe_decision(state)
    c.text(_LEFT, 36 + drop, now, size=11, weight="bold",
           fill=_colour(state.current_player) if state.current_player >= 0 else "#222")
    c.close()
    return 46 + drop


def _locations(c: _Canvas, r: dict[str, Any], y0: float) -> float:
    w, h = 190, 64
    for loc in range(4):
        x = _LEFT + (loc % 2) * (w + 5)
        y = y0 + (loc // 2) * (h + 5)
        c.open(f"location-{N.LOCATIONS[loc]}", "location", (x, y, w, h))
        c.rect(x, y, w, h, fill="#f4efe6")
        c.text(x + 6, y + 15, N.LOCATION_NAMES[loc], size=12, weight="bold")
        acts = " / ".join(N.LOCATION_ACTIONS[loc])
        c.text(x + 6, y + 29, acts, size=8, fill="#555")
        owner = r["loc_owner"][loc]
        if owner >= 0:
            kind = "gallerist" if r["loc_kind"][loc] == 0 else "assistant"
            c.circle(x + 12, y + 43, 7 if kind == "gallerist" else 5, _colour(owner),
                     f"{_who(owner)} {kind}")
            c.text(x + 24, y + 47, f"{_who(owner)} {kind}", size=10, fill=_colour(owner))
        else:
            c.text(x + 6, y + 47, "empty", size=10, fill="#888")
        tile = r["loc_tile"][loc]
        if tile >= 0:
            c.text(x + 6, y + 60, f"start tile #{tile + 1} {_REP_SHORT[tile]}", size=9)
        c.close()
    y = y0 + 2 * (h + 5)
    c.open("kicked-out", "kicked-out", (_LEFT, y, _COL_W, 16))
    ko = r["ko_owner"]
    text = (f"kicked out: {_who(ko)} {'gallerist' if r['ko_kind'] == 0 else 'assistant'} "
            f"from {N.LOCATIONS[r['ko_loc']]}") if ko >= 0 else "kicked-out space: empty"
    c.text(_LEFT + 4, y + 12, text, size=10, fill=_colour(ko) if ko >= 0 else "#666")
    c.close()
    return y + 20


def _artists(c: _Canvas, state: GameState, r: dict[str, Any], y0: float) -> float:
    commission = {p["commission"]: i for i, p in enumerate(r["players"]) if p["commission"] >= 0}
    c.text(_LEFT, y0 + 11, "Artists", size=12, weight="bold")
    for col, x in (("fame", 192), ("value", 298), ("promo", 333), ("sign", 363)):
        c.text(_LEFT + x, y0 + 11, col, size=9, fill="#555")
    h = 21
    for a in range(8):
        y = y0 + 15 + a * h
        c.row(f"artist-{a}", "artist", _LEFT, y, h - 2, N.ARTISTS[a])
        if r["ar_discovered"][a]:
            status = "CELEBRITY" if r["ar_fame"][a] >= FAME_MAX else "discovered"
        else:
            bonus = r["ar_bonus"][a]
            status = "face-down"
        notes = [_ARTIST_BONUS[bonus]] if not r["ar_discovered"][a] and r["ar_bonus"][a] >= 0 else []
        if a in commission:
            notes.append(f"commission P{commission[a]}")
        if r["ar_collector"][a]:
            notes.append("collector")
        c.text(_LEFT + 96, y + 9, status, size=8, fill="#555")
        if notes:
            c.text(_LEFT + 96, y + 17, ", ".join(notes), size=7, fill="#555")
        fame = r["ar_fame"][a]
        c.rect(_LEFT + 192, y + 5, 86, 8, fill="#eee", stroke="#bbb", rx=1)
        c.rect(_LEFT + 192, y + 5, 86 * min(fame, FAME_MAX) / FAME_MAX, 8,
               fill="#e67e22", stroke="none", rx=1)
        c.text(_LEFT + 282, y + 13, str(fame), size=9)
        c.text(_LEFT + 300, y + 13, f"${state.sale_value(a)}", size=10)
        c.text(_LEFT + 340, y + 13, str(r["ar_promo"][a]), size=10)
        c.text(_LEFT + 368, y + 13, str(r["ar_tokens"][a]), size=10)
        c.close()
    return y0 + 15 + 8 * h + 4


def _market(c: _Canvas, r: dict[str, Any], y0: float) -> float:
    c.text(_RIGHT, y0 + 11, "International Market", size=12, weight="bold")
    used = [not (r["num_players"] <= 2 and col == 1) for col in range(3)]
    lw, cw, h = 82, 101, 25
    for col in range(3):
        c.text(_RIGHT + lw + col * cw + 3, y0 + 24,
               f"{N.COLUMNS[col]} ({MARKET_COLUMN_INFLUENCE[col]} infl)", size=9, fill="#555")
    for row in range(7):
        y = y0 + 28 + row * h
        c.text(_RIGHT, y + 15, N.MARKET_ROWS[row], size=9)
        for col in range(3):
            x = _RIGHT + lw + col * cw
            c.open(f"market-{row}-{col}", "market-cell", (x, y, cw - 3, h - 3))
            c.rect(x, y, cw - 3, h - 3, fill="#eef2f7" if used[col] else "#ddd")
            if not used[col]:
                c.text(x + 4, y + 14, "unused", size=9, fill="#888")
            else:
                asst = r["mk_asst"][row][col]
                tile = r["mk_tile"][row][col] if row < 4 else -1
                tx = x + 4
                if asst >= 0:
                    c.circle(x + 9, y + 11, 5, _colour(asst), f"{_who(asst)} assistant")
                    tx = x + 18
                if tile >= 0:
                    c.parts.append(f'<g class="rep-tile"><title>{escape(_REP_SHORT[tile])}'
                                   "</title>")
                    c.text(tx, y + 10, f"#{tile + 1}", size=9, weight="bold")
                    c.text(tx, y + 19, _REP_SHORT[tile], size=7)
                    c.parts.append("</g>")
                elif asst < 0:
                    c.text(x + 4, y + 14, "-", size=9, fill="#888")
            c.close()
    return y0 + 28 + 7 * h + 4


def _works(c: _Canvas, r: dict[str, Any], y0: float) -> float:
    n = r["num_players"]
    easels = r["easel"][: EASELS[n] if n < len(EASELS) else 3]
    c.text(_RIGHT, y0 + 11, "Works of art", size=12, weight="bold")
    h = 20
    for f in range(4):
        y = y0 + 15 + f * h
        c.row(f"work-stack-{f}", "work-stack", _RIGHT, y, h - 2, N.FORMS[f])
        top = r["stack_top"][f]
        under = bin(r["stack_mask"][f]).count("1")
        if top < 0:
            c.text(_RIGHT + 70, y + 13, "to be revealed" if under else "empty", size=9)
        else:
            c.text(_RIGHT + 70, y + 13, f"tile {top + 1} +{WORK_FAME[top]} fame, "
                   f"{N.TICKET_PATTERNS[WORK_TICKETS[top]]}", size=9)
            c.visitors(_RIGHT + 235, y + 9, r["top_visitors"][f])
        c.text(_RIGHT + 318, y + 9, f"{under} under", size=7, fill="#555")
        if f in easels:
            c.text(_RIGHT + 318, y + 17, "renowned", size=7, fill="#555")
        c.close()
    return y0 + 15 + 4 * h + 4


def _contracts(c: _Canvas, r: dict[str, Any], y0: float) -> float:
    c.text(_RIGHT, y0 + 11, "Contracts", size=12, weight="bold")
    w = 75
    for i in range(4):
        x = _RIGHT + i * (w + 3)
        size = r["pile_len"][i]
        c.open(f"contract-pile-{i}", "contract-pile", (x, y0 + 15, w, 30))
        c.rect(x, y0 + 15, w, 30, fill="#fdf6e3")
        top = N.contract_name(r["pile"][i][size - 1]) if size > 0 else "empty"
        c.text(x + 3, y0 + 27, f"pile {i + 1} ({size})", size=8, fill="#555")
        c.text(x + 3, y0 + 40, top, size=8)
        c.close()
    x = _RIGHT + 4 * (w + 3)
    c.open("contract-deck", "contract-deck", (x, y0 + 15, _COL_W - 4 * (w + 3), 30))
    c.rect(x, y0 + 15, _COL_W - 4 * (w + 3), 30, fill="#eee")
    c.text(x + 3, y0 + 34, f"deck {bin(r['deck_mask']).count('1')}", size=9)
    c.close()
    return y0 + 50


def _pools(c: _Canvas, r: dict[str, Any], y0: float) -> float:
    c.text(_RIGHT, y0 + 11, "Visitors and tickets", size=12, weight="bold")
    for i, (ident, label, key) in enumerate((("plaza", "plaza", "plaza"), ("bag", "bag", "bag"),
                                             ("box-office", "box office", "box"),
                                             ("discards", "discards", "discards"))):
        x = _RIGHT + (i % 2) * 193
        y = y0 + 15 + (i // 2) * 22
        c.open(ident, "pool", (x, y, 190, 20))
        c.rect(x, y, 190, 20, fill="#f7f7f7", stroke="#ccc")
        c.text(x + 4, y + 14, label, size=10, weight="bold")
        c.visitors(x + 75, y + 10, r[key])
        c.close()
    stock = " ".join(str(r["promo_stock"][lvl]) for lvl in range(1, 6))
    c.text(_RIGHT, y0 + 72, f"promotion tokens left, levels 1-5: {stock}", size=9, fill="#555")
    return y0 + 78


def _lacerda(c: _Canvas, r: dict[str, Any], y0: float) -> float:
    c.open("lacerda", "lacerda", (_LEFT, y0, WIDTH - 2 * _LEFT, 22))
    c.rect(_LEFT, y0, WIDTH - 2 * _LEFT, 22, fill="#eee", stroke=LACERDA_COLOUR)
    loc = r["lac_loc"]
    where = ("not on the board yet" if loc < 0 else N.LOCATIONS[loc]
             if r["loc_owner"][loc] == LACERDA and r["loc_kind"][loc] == 0
             else f"kicked out from {N.LOCATIONS[loc]}")
    c.text(_LEFT + 6, y0 + 15, f"Lacerda: gallerist {where}, supply {r['lac_supply']}"
           + (", moves after this turn" if r["lac_turn"] else ""), size=10,
           fill=LACERDA_COLOUR, weight="bold")
    c.close()
    return y0 + 26


def _player(c: _Canvas, state: GameState, r: dict[str, Any], p: int, x: float, y0: float,
            viewer: int | None) -> None:
    pl = r["players"][p]
    col = PLAYER_COLOURS[p]
    w, h = _COL_W, 176
    c.open(f"player-{p}", "player", (x, y0, w, h))
    to_act = state.current_player == p
    c.rect(x, y0, w, h, fill="#ffffff", stroke=col, sw=3 if to_act else 1.2)
    c.rect(x, y0, w, 18, fill=col, stroke=col, rx=3)
    gal = pl["gallerist"]
    where = (N.LOCATIONS[gal] if gal < 4 else "home" if gal == GAL_HOME
             else "kicked out" if gal == GAL_KO else "?")
    c.text(x + 6, y0 + 13, f"P{p}" + (" (to act)" if to_act else "") + f" - gallerist {where}",
           size=11, weight="bold", fill="#fff")
    y = y0 + 22

    def part(ident: str, height: float = 17) -> tuple[float, float]:
        c.open(f"player-{p}-{ident}", f"player-{ident}", (x + 4, y, w - 8, height))
        return x + 6, y + 12

    tx, ty = part("money")
    c.text(tx, ty, f"${pl['money']}   influence {pl['influence']}", size=11, weight="bold")
    c.close()
    c.open(f"player-{p}-tickets", "player-tickets", (x + 200, y, 180, 17))
    c.visitors(x + 200, y + 8, pl["tickets"], "tickets")
    c.close()
    y += 18
    c.open(f"player-{p}-lobby", "player-lobby", (x + 4, y, 180, 17))
    c.visitors(x + 6, y + 8, pl["lobby"], "lobby")
    c.close()
    c.open(f"player-{p}-gallery", "player-gallery", (x + 200, y, 180, 17))
    c.visitors(x + 200, y + 8, pl["gallery"], "gallery")
    c.close()
    y += 18
    tx, ty = part("assistants")
    commission = N.ARTISTS[pl["commission"]] if pl["commission"] >= 0 else "-"
    c.text(tx, ty, f"assistants: desks {pl['desks']}, queue {pl['queue']}, removed "
           f"{pl['removed']}; commission {commission}", size=9)
    c.close()
    y += 17
    tx, ty = part("works")
    works = [f"{N.ARTISTS[a]} ${state.sale_value(a)}"
             + (" masterpiece" if r["ar_fame"][a] >= FAME_MAX else "")
             for a in pl["works"][: pl["nworks"]]]
    c.text(tx, ty, f"acquired {sum(pl['acquired'])}, sold {sum(pl['sold'])}; exhibits: "
           + (", ".join(works) or "none"), size=9)
    c.close()
    y += 17
    tx, ty = part("reputation", 30)
    tiles = [f"#{t + 1} {_REP_SHORT[t]}" for t in pl["rep"] if t >= 0]
    third = f"3rd slot #{pl['start_tile'] + 1}; " if pl["start_tile"] >= 0 else ""
    line = third + "reputation: " + (", ".join(tiles) if tiles else "none")
    c.text(tx, ty, line[:80], size=9)
    if len(line) > 80:
        c.text(tx, ty + 12, line[80:160], size=9)
    c.close()
    _player_cards(c, pl, p, x, y + 31, viewer)
    c.close()


def _player_cards(c: _Canvas, pl: dict[str, Any], p: int, x: float, y: float,
                  viewer: int | None) -> None:
    """A player's three contract slots, then the Curator and Art Dealer cards (shown to
    `viewer` only when it is that player)."""
    col = PLAYER_COLOURS[p]
    for k in range(3):
        cx = x + 4 + k * 127
        c.open(f"player-{p}-contract-{k}", "player-contract", (cx, y, 124, 30))
        c.rect(cx, y, 124, 30, fill="#fdf6e3", stroke="#ccc")
        card = pl["contract"][k]
        c.text(cx + 3, y + 12, f"contract {k + 1}", size=8, fill="#555")
        if card >= 0:
            side = pl["contract_state"][k]
            text = N.contract_name(card) + (f" ({_CONTRACT_SIDE[side]})" if side else "")
            c.text(cx + 3, y + 24, text[:26], size=8)
            if pl["contract_asst"][k]:
                c.circle(cx + 116, y + 8, 4, col, "assistant on it")
        else:
            c.text(cx + 3, y + 24, "-", size=8, fill="#888")
        c.close()
    y += 34
    for k, (label, key) in enumerate((("Curator", "curator"), ("Art Dealer", "dealer"))):
        cx = x + 4 + k * 190
        card = pl[key]
        shown = card >= 0 and (viewer == p)
        c.open(f"player-{p}-{key}", "card " + ("shown" if shown else "hidden"), (cx, y, 186, 16))
        c.rect(cx, y, 186, 16, fill="#efe" if shown else "#e6e6e6", stroke="#bbb")
        c.text(cx + 4, y + 12, f"{label}: " + (f"#{card + 1}" if shown else "hidden"), size=9)
        c.close()


# ------------------------------------------------------------------------------ hint

class _Fields:
    """A dict's keys as attributes (a move of an analyzed game read as a MoveInfo)."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.__dict__.update(data)


def _hint_action(hint: Any) -> tuple[int, float | None, list[float]]:
    """(action id, win probability or None, expected money) of a hint argument."""
    if isinstance(hint, bool):
        raise TypeError(f"hint must be an action id, its notation or a MoveInfo, got {hint!r}")  # noqa: E501
    if isinstance(hint, int):
        action_to_string(hint)   # raises IllegalActionError naming a bad id
        return hint, None, []
    if isinstance(hint, str):
        return string_to_action(hint), None, []
    if isinstance(hint, dict):   # a move of an analyzed game: action, win_probability, expected_money
        hint = _Fields(hint)
    action = getattr(hint, "action", None)
    if isinstance(action, int) and not isinstance(action, bool):
        action_to_string(action)
        return action, getattr(hint, "win_probability", None), list(getattr(hint, "expected_money", []) or [])
    raise TypeError(f"hint must be an action id, its notation or a MoveInfo, got "
                    f"{type(hint).__name__}")


def hint_target(state: GameState, action: int) -> str:
    """The id of the element an action acts on (the hint arrow's destination)."""
    r = state._raw()
    p = state.current_player if state.current_player >= 0 else r["turn_player"]
    me = f"player-{p}"
    text = action_to_string(action)
    kind, _, arg = text.partition(":")
    if kind in ("start", "move"):
        return f"location-{arg}"
    if kind == "leave":
        return f"location-{arg[5:]}" if arg.startswith("from-") else f"{me}-assistants"
    if kind == "ko":   # the kicked-out player's action (R-TURN: kicked out)
        return "kicked-out"
    if kind == "action":
        gal = r["players"][p]["gallerist"] if 0 <= p < r["num_players"] else -1
        return f"location-{N.LOCATIONS[gal]}" if 0 <= gal < 4 else me
    if kind == "ea":
        return f"{me}-tickets" if arg == "tickets" else f"{me}-contract-{int(arg[-1]) - 1}"
    if kind == "artist":
        return f"artist-{N.ARTISTS.index(arg)}"
    if kind in ("pay", "fame"):
        return f"{me}-money"
    if kind in ("ticket", "tickets") and arg != "done":
        return f"{me}-tickets"
    if kind in ("box-discard", "solo-discard"):
        return "box-office"
    if kind == "visitor":
        return "plaza"
    if kind == "rep-space":
        return f"{me}-reputation"
    if kind in ("deal4",):
        return "contract-deck"
    if kind == "pile":
        return f"contract-pile-{int(arg) - 1}"
    if kind == "contract-slot":
        return f"{me}-contract-{int(arg) - 1}"
    if kind == "sell":
        return f"{me}-contract-{int(arg[-1]) - 1}"
    if kind == "hire":
        return f"{me}-assistants"
    if kind == "market":
        name, _, column = arg.rpartition("-")
        return f"market-{N.MARKET_ROWS.index(name)}-{N.COLUMNS.index(column)}"
    if kind == "from":
        return f"location-{arg}" if arg in N.LOCATIONS else (
            "kicked-out" if arg == "kicked-out" else f"{me}-assistants")
    if kind == "tmove":
        route = arg.split(":")[1]
        return {"plaza>lobby": f"{me}-lobby", "lobby>gallery": f"{me}-gallery"}.get(route, "plaza")
    if kind == "chance":
        what = arg.split(":")[0]
        return ("bag" if what == "visitor" else "contract-deck" if what == "contract"
                else "work-stack-0")
    return me


def _hint_words(state: GameState, action: int) -> str:
    """The hint's move in words (`engine.moves_text`); its notation when it is not legal
    in `state`."""
    try:
        return describe_move(state, action)
    except IllegalActionError:
        return action_to_string(action)


def _draw_hint(c: _Canvas, state: GameState, hint: Any) -> None:
    action, win, money = _hint_action(hint)
    target = hint_target(state, action)
    p = state.current_player
    source = f"player-{p}" if p >= 0 else "header"
    tx, ty, tw, th = c.boxes.get(target, c.boxes[source])
    sx, sy, sw, sh = c.boxes[source]
    x1, y1 = sx + sw / 2, sy + 9
    x2, y2 = tx + tw / 2, ty + th / 2
    if (x1, y1) == (x2, y2) or (sx <= x2 <= sx + sw and sy <= y2 <= sy + sh):
        x1, y1 = x2 + 60, max(y2 - 50, 50)   # a destination inside the mover's own panel
    label = _hint_words(state, action)
    if win is not None:
        label += f"  win {100 * win:.0f}%"
    elif money and 0 <= p < len(money):
        label += f"  ${money[p]:.0f} expected"
    c.parts.append('<g id="hint" class="hint">')
    c.parts.append(f'<rect class="hint-target" data-target={quoteattr(target)} x="{tx - 2:.1f}" '
                   f'y="{ty - 2:.1f}" width="{tw + 4:.1f}" height="{th + 4:.1f}" rx="4" '
                   'fill="#ffd54f" fill-opacity="0.25" stroke="#ff8f00" stroke-width="3"/>')
    c.parts.append(f'<line class="hint-arrow" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" '
                   f'y2="{y2:.1f}" stroke="#ff8f00" stroke-width="4" stroke-opacity="0.85" '
                   'marker-end="url(#arrowhead)"/>')
    width = 7 * len(label) + 8
    lx = min(max((x1 + x2) / 2, 8.0), WIDTH - width - 4)   # the whole label on the picture
    ly = (y1 + y2) / 2
    c.parts.append(f'<rect x="{lx - 4:.1f}" y="{ly - 13:.1f}" width="{width:.1f}" '
                   'height="18" rx="3" fill="#fff8e1" stroke="#ff8f00"/>')
    c.text(lx, ly, label, size=11, weight="bold", fill="#e65100", cls="hint-label")
    c.parts.append("</g>")


# ------------------------------------------------------------------------------ whole

def _draw_targets(c: _Canvas, state: GameState, actions: Any) -> None:
    """A clickable rectangle over each element that `actions` act on, naming them in
    ``data-actions``; larger first, so a smaller one inside stays on top."""
    by_target: dict[str, list[int]] = {}
    for a in actions:
        by_target.setdefault(hint_target(state, int(a)), []).append(int(a))
    placed = [(t, acts) for t, acts in by_target.items() if t in c.boxes]
    placed.sort(key=lambda item: -c.boxes[item[0]][2] * c.boxes[item[0]][3])
    c.parts.append('<g id="move-targets">')
    for target, acts in placed:
        x, y, w, h = c.boxes[target]
        c.parts.append(f'<rect class="move-target" data-target={quoteattr(target)} '
                       f'data-actions="{",".join(map(str, acts))}" x="{x:.1f}" y="{y:.1f}" '
                       f'width="{w:.1f}" height="{h:.1f}" rx="3" fill="#000" fill-opacity="0"/>')
    c.parts.append("</g>")


def svg(state: GameState, hint: Any = None, viewer: int | None = None,
        targets: Any = None) -> str:
    """The whole board as a standalone SVG document (a str, UTF-8 text).

    Args:
        state: any game state (a full state or a player's view).
        hint: None, or a move to draw: an action id, its notation, or a `MoveInfo`
            (its win probability, or solo its expected money, is written by the arrow).
        viewer: whose hidden cards may be shown: None (the public view: nobody's) or a seat.
        targets: action ids (e.g. the legal moves) whose elements get a clickable
            ``<rect class="move-target" data-actions="...">`` on top.

    Raises:
        ValueError: `viewer` is not None nor a seat of the game (IllegalActionError for a
            hint that is not an action).
        TypeError: `hint` is not an action id, notation or MoveInfo.
    """
    r = state._raw()
    n = r["num_players"]
    if viewer is not None and (isinstance(viewer, bool) or not isinstance(viewer, int)
                               or not 0 <= viewer < n):
        raise ValueError(f"viewer must be None (the public view) or a seat 0..{n - 1}, "
                         f"got {viewer!r}")
    c = _Canvas()
    y = _header(c, state, r)
    left = _locations(c, r, y)
    left = _artists(c, state, r, left)
    right = _market(c, r, y)
    right = _works(c, r, right)
    right = _contracts(c, r, right)
    right = _pools(c, r, right)
    y = max(left, right) + 4
    if n == 1:
        y = _lacerda(c, r, y)
    for p in range(n):
        _player(c, state, r, p, _LEFT if p % 2 == 0 else _RIGHT, y + (p // 2) * 182, viewer)
    height = y + ((n + 1) // 2) * 182 + 4
    if targets is not None:
        _draw_targets(c, state, targets)
    if hint is not None:
        try:
            _draw_hint(c, state, hint)
        except IllegalActionError as exc:
            raise IllegalActionError(f"hint: {exc}") from None
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" class="gallerist-board" '
            f'viewBox="0 0 {WIDTH} {height:.0f}" width="{WIDTH}" height="{height:.0f}" '
            f'style="{_FONT}">'
            '<defs><marker id="arrowhead" viewBox="0 0 10 10" refX="8" refY="5" '
            'markerWidth="5" markerHeight="5" orient="auto-start-reverse">'
            '<path d="M 0 0 L 10 5 L 0 10 z" fill="#ff8f00"/></marker></defs>'
            f'<rect width="{WIDTH}" height="{height:.0f}" fill="#fffdf8"/>')
    return head + "".join(c.parts) + "</svg>"
