"""A plain-text picture of a whole game state, for people: `GameState.render()`.

The output is fixed-width text without colour codes, about 40-60 lines for four players.
It reads the state only through the public wrapper (`GameState._raw()`, `legal_actions`,
`chance_outcomes`, `sale_value`, `final_scores`, `winners`), so it works on any state,
including a player's `view` (hidden cards show as "hidden").

Abbreviations used on the board (also printed in its "Key:" line):

- ``V2 I0 C1``: 2 VIPs, 0 investors, 1 collector (visitors or tickets of those colours).
- ``P1``: player 1 (players count from 0, as in ``describe_decision``).
- ``Lac``: Lacerda, the automated opponent of the solo game (her pieces and supply).
- ``+asst``: one of the owner's assistants sits on that contract.
- ``#7``: reputation tile 7 (numbers 1..20 as in docs/rules.md C§7), followed by
  what it pays at the end, e.g. ``$2+1i/rep tile`` = $2 and 1 influence per item.
"""
from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Any

from gallerist.engine import names as N
from gallerist.engine.actions import action_to_string, describe_decision
from gallerist.engine.state import (AUCTION_COST, EASELS, FAME_MAX, GAL_HOME, GAL_KO, LACERDA,
                          MARKET_COLUMN_INFLUENCE, WORK_FAME, WORK_TICKETS)

if TYPE_CHECKING:
    from gallerist.engine.state import GameState

__all__ = ["render", "WIDTH"]

#: Line width the board is laid out for (the legal-action list wraps at it).
WIDTH = 100

_PIECE_KIND = ("gallerist", "assistant")
_CONTRACT_SIDE = ("face-up", "money side up", "influence side up")
_ARTIST_BONUS = ("money bonus", "influence bonus", "fame bonus", "two tickets",
                 "plaza visitor")
_FORM_SHORT = ("paint", "sculpt", "photo", "digital")
#: Joins words that must stay on one line (textwrap never breaks at it); shown as a space.
_NBSP = "\u00a0"

#: What each reputation tile pays at the end, short (index = tile number - 1).
_REP_SHORT = (
    "$1/3 influence", "$3+1i/collector", "$2+1i/VIP", "$2+1i/investor", "$1/visitor",
    "$4/visitor set", "$2+1i/rep tile", "$3+1i/auction asst", "$1+1i/asst in play",
    "$2/promo-4 artist", "$2/work acquired", "$3+1i/work sold", "$3+1i/exhibited",
    "$2+1i/art form", "$3+1i/photo", "$3+1i/painting", "$3+1i/digital",
    "$3+1i/sculpture", "$2+1i/fame-15 artist", "$4+2i/masterpiece",
)
assert len(_REP_SHORT) == len(N.REPUTATION_TILES)

_LEGEND = ("Key: V/I/C = VIP/investor/collector, Pn = player n, #n = reputation tile n, "
           "+asst = assistant on it")
_LEGEND_SOLO = _LEGEND + ", Lac = Lacerda"


def _who(owner: int) -> str:
    """An owner id as shown on the board: 'P1', or 'Lac' for Lacerda."""
    return "Lac" if owner == LACERDA else f"P{owner}"


def _vic(v: list[int]) -> str:
    """A visitor or ticket triple, e.g. 'V2 I0 C1'."""
    return f"V{v[0]} I{v[1]} C{v[2]}"


def _tile(t: int) -> str:
    """A reputation tile with what it pays, e.g. '#7 $2+1i/rep tile'."""
    return f"#{t + 1}{_NBSP}{_REP_SHORT[t].replace(' ', _NBSP)}"


def _wrap(label: str, items: list[str]) -> list[str]:
    """`label` followed by `items`, wrapped at WIDTH with a hanging indent."""
    text = label + "  ".join(items) if items else label + "(none)"
    return textwrap.wrap(text, width=WIDTH, subsequent_indent=" " * len(label),
                         break_long_words=False, break_on_hyphens=False) or [label]


def _cells(prefix: str, cells: list[str], indent: int = 4) -> list[str]:
    """`prefix` then `cells` joined by ' | ', wrapped at WIDTH between cells.

    A continuation line starts with `indent` spaces; a single cell too long for a line
    is itself wrapped between words, its continuation indented two more.
    """
    lines = [prefix]
    empty = True  # the last line holds no cell yet
    for cell in cells:
        if not empty and len(lines[-1]) + 3 + len(cell) > WIDTH:
            lines.append(" " * indent)
            empty = True
        if not empty:
            lines[-1] += " | "
        if len(lines[-1]) + len(cell) > WIDTH:
            parts = textwrap.wrap(lines[-1] + cell, width=WIDTH,
                                  subsequent_indent=" " * (indent + 2),
                                  break_long_words=False, break_on_hyphens=False)
            lines[-1:] = parts
        else:
            lines[-1] += cell
        empty = False
    return lines


def _header(state: GameState, r: dict[str, Any]) -> list[str]:
    """Game line: players, round and turn, whose turn, end and scoring status."""
    n = r["num_players"]
    parts = ["THE GALLERIST, solo against Lacerda" if n == 1 else f"THE GALLERIST, {n} players"]
    turns = r["turn_count"]
    if state.is_terminal():
        parts.append(f"game over after {turns} turns")
    elif turns == 0:
        parts.append("setup: start locations")
    elif n == 1 and r["ko_active"] and not r["lac_turn"]:
        parts.append(f"turn {turns}")
        parts.append("Lacerda's turn: P0's kicked-out step")
    else:
        parts.append(f"round {(turns - 1) // n + 1}, turn {turns}" if n > 1 else f"turn {turns}")
        ea = ", executive action used" if r["ea_used"] else ""
        parts.append(f"P{r['turn_player']}'s turn{ea}")
    if r["intermediate_done"]:
        parts.append("intermediate scoring done")
    elif r["intermediate_pending"]:
        parts.append("intermediate scoring at end of turn")
    if r["end_triggered"] and not r["terminal"]:
        left = r["turns_left"]  # turns still to play, this one included
        if n == 1:
            parts.append("FINAL TURN: the box office is empty; Lacerda moves no more")
        elif left <= n:
            parts.append(f"FINAL ROUND: {left} turn{'' if left == 1 else 's'} left, this one "
                         "included")
        else:
            parts.append(f"END TRIGGERED: the round ends, then a final round ({left} turns left)")
    return _cells("", parts, indent=2)


def _decision(state: GameState) -> list[str]:
    """The current decision in words, with its options in notation."""
    if state.is_terminal():
        return []
    lines = [f"Now: {describe_decision(state)}"]
    if state.is_chance():
        items = [f"{action_to_string(a).removeprefix('chance:')} {p:.0%}"
                 for a, p in state.chance_outcomes()]
        lines += _wrap(f"Outcomes ({len(items)}): ", items)
    else:
        items = [action_to_string(a) for a in state.legal_actions()]
        lines += _wrap(f"Legal ({len(items)}): ", items)
    return lines


def _locations(r: dict[str, Any]) -> list[str]:
    """The four location action spaces, start tiles and the kicked-out space."""
    cells = []
    for loc in range(4):
        owner = r["loc_owner"][loc]
        cell = f"{N.LOCATIONS[loc]} " + (
            f"{_who(owner)} {_PIECE_KIND[r['loc_kind'][loc]]}" if owner >= 0 else "-")
        if r["loc_tile"][loc] >= 0:
            cell += f" [start tile {_tile(r['loc_tile'][loc])}]"
        cells.append(cell)
    if r["ko_owner"] >= 0:
        cells.append(f"kicked out: {_who(r['ko_owner'])} {_PIECE_KIND[r['ko_kind']]}"
                     f" from {N.LOCATIONS[r['ko_loc']]}")
    return _cells("Locations: ", cells, indent=11)


def _artists(state: GameState, r: dict[str, Any]) -> list[str]:
    """One line per artist: status, fame, sale value, promotion, signature tokens."""
    commission = {p["commission"]: i for i, p in enumerate(r["players"]) if p["commission"] >= 0}
    lines = [f"{'Artist':15}{'status':27}fame value promo sign  notes"]
    for a in range(8):
        if r["ar_discovered"][a]:
            status = "CELEBRITY" if r["ar_fame"][a] >= FAME_MAX else "discovered"
        else:
            bonus = r["ar_bonus"][a]
            status = "face-down" + (f": {_ARTIST_BONUS[bonus]}" if bonus >= 0 else "")
        notes = []
        if a in commission:
            notes.append(f"commission P{commission[a]}")
        if r["ar_collector"][a]:
            notes.append("collector waiting")
        lines.append(f"{N.ARTISTS[a]:15}{status:27}{r['ar_fame'][a]:4} "
                     f"{'$' + str(state.sale_value(a)):>5} {r['ar_promo'][a]:5} "
                     f"{r['ar_tokens'][a]:4}  {', '.join(notes)}".rstrip())
    return lines


def _works(r: dict[str, Any]) -> list[str]:
    """The four work stacks: top tile, visitors on it, tiles under it, renowned work."""
    n = r["num_players"]
    easels = r["easel"][: EASELS[n] if n < len(EASELS) else 3]
    lines = [f"{'Works':10}{'top tile':8}{'fame':>5}  {'tickets':15}{'on it':10}"
             f"{'under':>5}  renowned (easel)"]
    for f in range(4):
        top = r["stack_top"][f]
        under = bin(r["stack_mask"][f]).count("1")
        renowned = "yes" if f in easels else ""
        if top < 0:  # sold out, or the next tile is about to be revealed (a chance event)
            what = "to be revealed" if under else "empty"
            lines.append(f"{N.FORMS[f]:10}{what:30}{'':10}{under:5}  {renowned}".rstrip())
            continue
        tickets = N.TICKET_PATTERNS[WORK_TICKETS[top]]
        lines.append(f"{N.FORMS[f]:10}{'tile ' + str(top + 1):8}{'+' + str(WORK_FAME[top]):>5}  "
                     f"{tickets:15}{_vic(r['top_visitors'][f]):10}{under:5}  "
                     f"{renowned}".rstrip())
    return lines


def _contracts(r: dict[str, Any]) -> list[str]:
    """The four contract display piles (top card, size) and the deck."""
    cells = []
    for i in range(4):
        size = r["pile_len"][i]
        top = N.contract_name(r["pile"][i][size - 1]) if size > 0 else "empty"
        cells.append(f"{i + 1} {top} ({size})")
    cells.append(f"deck {bin(r['deck_mask']).count('1')}")
    return _cells("Contracts: ", cells, indent=11)


def _market(r: dict[str, Any]) -> list[str]:
    """The International Market grid: tiles and assistants by player."""
    used = [not (r["num_players"] <= 2 and c == 1) for c in range(3)]
    w = 2 + max(len(t) for t in _REP_SHORT) + 4  # room for "#nn " and a gap
    head = "".join(f"{N.COLUMNS[c] + ' (' + str(MARKET_COLUMN_INFLUENCE[c]) + ' influence)':{w}}"
                   for c in range(3))
    lines = [f"{'Market':14}{head}".rstrip()]
    for row in range(7):
        cells = []
        for c in range(3):
            if not used[c]:
                cells.append("unused")
                continue
            asst = r["mk_asst"][row][c]
            tile = r["mk_tile"][row][c] if row < 4 else -1
            parts = ([_who(asst)] if asst >= 0 else []) + ([_tile(tile)] if tile >= 0 else [])
            cells.append(" ".join(parts) or "-")
        lines.append(f"{N.MARKET_ROWS[row]:14}" + "".join(f"{c:{w}}" for c in cells).rstrip())
    return lines


def _pools(r: dict[str, Any]) -> list[str]:
    """Plaza, bag, box office, discards and the promotion tokens in stock."""
    stock = " ".join(str(r["promo_stock"][lvl]) for lvl in range(1, 6))
    return _cells("Visitors: ", [
        f"plaza {_vic(r['plaza'])}", f"bag {_vic(r['bag'])}",
        f"Tickets: box office {_vic(r['box'])}", f"discards {_vic(r['discards'])}",
        f"promotion tokens left, levels 1-5: {stock}"], indent=10)


def _lacerda_offer(r: dict[str, Any]) -> int:
    """Solo: Lacerda's auction offer, the sum of her auction spaces' costs (RN §10)."""
    return sum(AUCTION_COST[row - 4] for row in range(4, 7) for c in range(3)
               if r["mk_asst"][row][c] == LACERDA)


def _lacerda(r: dict[str, Any]) -> list[str]:
    """Solo: one line for Lacerda: her gallerist, supply, pieces on the board, next move."""
    loc = r["lac_loc"]
    if loc < 0:
        where = "not on the board yet (first move: opposite P0)"
    elif r["loc_owner"][loc] == LACERDA and r["loc_kind"][loc] == 0:
        where = N.LOCATIONS[loc]
    else:
        where = f"kicked out from {N.LOCATIONS[loc]} (next: {N.LOCATIONS[(loc + 1) % 4]})"
    on_locations = sum(1 for L in range(4) if r["loc_owner"][L] == LACERDA
                       and r["loc_kind"][L] == 1)
    in_market = sum(row.count(LACERDA) for row in r["mk_asst"])
    offer = _lacerda_offer(r)
    due = "moves after this turn" if r["lac_turn"] else "no move due"
    return _cells("Lacerda: ", [
        f"gallerist {where}", f"supply {r['lac_supply']}",
        f"assistants: {on_locations} on locations, {in_market} in the market "
        f"(auction offer ${offer})", due], indent=9)


def _player(state: GameState, r: dict[str, Any], p: int) -> list[str]:
    """About four lines for one player (more when a line must wrap)."""
    pl = r["players"][p]
    tag = ""
    if state.current_player == p:
        tag = " (to act)"
    elif not r["terminal"] and r["turn_count"] > 0 and r["turn_player"] == p:
        tag = " (turn)"
    gal = pl["gallerist"]
    where = (N.LOCATIONS[gal] if gal < 4 else "home" if gal == GAL_HOME
             else "kicked out" if gal == GAL_KO else "?")
    lines = _cells(f"P{p}{tag}: ", [
        f"${pl['money']}, infl {pl['influence']}", f"tickets {_vic(pl['tickets'])}",
        f"lobby {_vic(pl['lobby'])}", f"gallery {_vic(pl['gallery'])}", f"gallerist {where}"])
    cards = ", ".join(
        f"{label} {'hidden' if pl[key] < 0 else '#' + str(pl[key] + 1)}"
        for label, key in (("Curator", "curator"), ("Dealer", "dealer")))
    commission = N.ARTISTS[pl["commission"]] if pl["commission"] >= 0 else "-"
    lines += _cells("    ", [
        f"assistants: desks {pl['desks']}, queue {pl['queue']}, removed {pl['removed']}",
        f"commission {commission}", cards])
    works = [f"{N.ARTISTS[a]} ${state.sale_value(a)}"
             + (" masterpiece" if r["ar_fame"][a] >= FAME_MAX else "")
             for a in pl["works"][: pl["nworks"]]]
    by_form = [f"{_FORM_SHORT[f]} {b}/{sd}"
               for f, (b, sd) in enumerate(zip(pl["acquired"], pl["sold"])) if b or sd]
    cells = [f"acquired {sum(pl['acquired'])}, sold {sum(pl['sold'])}"
             + (f" ({', '.join(by_form)})" if by_form else ""),
             "exhibits: " + (", ".join(works) or "none")]
    if pl["start_tile"] >= 0:
        cells.append(f"3rd slot {_tile(pl['start_tile'])}")
    tiles = [_tile(t) for t in pl["rep"] if t >= 0]
    cells.append("reputation: " + (", ".join(tiles) if tiles else "none"))
    lines += _cells("    ", cells)
    contracts = []
    for k in range(3):
        card = pl["contract"][k]
        if card < 0:
            contracts.append(f"{k + 1}:-")
            continue
        state_ = pl["contract_state"][k]
        contracts.append(f"{k + 1}:{N.contract_name(card)}"
                         + (f" ({_CONTRACT_SIDE[state_]})" if state_ else "")
                         + (" +asst" if pl["contract_asst"][k] else ""))
    lines += _cells("    contracts: ", contracts, indent=15)
    return lines


def _final(state: GameState, r: dict[str, Any]) -> list[str]:
    """The final scoring table, auction results and the winners."""
    steps = N.SCORING_STEPS
    lines = ["Final " + " ".join(f"{s:>{max(len(s), 5)}}" for s in steps)
             + f"{'gained':>8}{'money':>7}"]
    scores = state.final_scores()
    for p, sc in enumerate(scores):
        lines.append(f"P{p:<5}" + " ".join(f"{sc[s]:>{max(len(s), 5)}}" for s in steps)
                     + f"{sc['total']:>8}{sc['money']:>7}")
    auction = [f"P{p} the {N.FORMS[pl['auction_work']]} work as "
               + ("sold (Dealer)" if pl["auction_as"] else "exhibited (Curator)")
               for p, pl in enumerate(r["players"]) if pl["auction_work"] >= 0]
    if r["num_players"] == 1 and not auction and _lacerda_offer(r) > 0:
        auction = [f"Lacerda (offer ${_lacerda_offer(r)}) outbid P0"]
    lines += _cells("Auction of renowned works: ", auction or ["nobody took part"], indent=4)
    if r["num_players"] == 1:
        lines.append(f"Solo score (against Lacerda): ${scores[0]['money']}")
        return lines
    winners = state.winners()
    best = max(sc["money"] for sc in scores)
    label = "Winner" if len(winners) == 1 else "Winners (tied)"
    lines.append(f"{label}: {', '.join(f'P{w}' for w in winners)} with ${best}")
    return lines


def render(state: GameState) -> str:
    """The whole board as readable fixed-width text.

    Args:
        state: any game state (a full state or a player's view).

    Returns:
        Plain text without colour codes or a trailing newline: the game status, the
        current decision and its options, the locations, artists, work stacks, contract
        display, International Market, visitor and ticket pools, every player, and at the
        end the final score breakdown and the winners.
    """
    r = state._raw()
    rule = "-" * WIDTH
    lines = _header(state, r) + _decision(state) + [rule]
    lines += _locations(r) + _artists(state, r) + _works(r) + _contracts(r) + _market(r)
    lines += _pools(r) + [rule]
    if r["num_players"] == 1:
        lines += _lacerda(r)
    for p in range(r["num_players"]):
        lines += _player(state, r, p)
    lines.append(_LEGEND_SOLO if r["num_players"] == 1 else _LEGEND)
    if state.is_terminal():
        lines += [rule] + _final(state, r)
    return "\n".join(line.rstrip() for line in lines).replace(_NBSP, " ")
