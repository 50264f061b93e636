"""The things of the game in plain words, for `engine.moves_text`: artists, contracts,
visitors, tickets, work tiles, reputation tiles and places, read from a raw state
(`GameState._raw()`) and seen from one seat ("your", or "P1" for another seat)."""
from __future__ import annotations

import re
from typing import Any

from gallerist.engine import names as N
from gallerist.engine.state import (ARTIST_FAME0, AUCTION_COST, INFLUENCE_MAX, LACERDA,
                                    MARKET_ROW_FORM)

Raw = dict[str, Any]

#: Visitor types and ticket colours, by index (engine.names.VISITORS).
VISITOR_WORDS = ("VIP", "investor", "collector")
#: The artist of each art form, by form index (engine.names.FORMS).
ARTIST_NOUNS = ("painter", "sculptor", "photographer", "digital artist")
#: The printed bonus of a face-up contract, by contract kind (engine.names.CONTRACT_KINDS;
#: the last kind is the money or influence bonus of its art form).
CONTRACT_BONUS_WORDS = ("sign another contract", "a free assistant",
                        "a visitor from the bag", "a VIP or investor from the plaza")
#: The tickets of a work tile, by ticket pattern (engine.names.TICKET_PATTERNS).
TICKET_PATTERN_WORDS = ("a VIP ticket", "an investor ticket", "a ticket of any colour",
                        "VIP + investor/collector tickets", "investor + VIP/collector tickets",
                        "two tickets of different colours")
#: The bonus of each player-board reputation space (engine.names.REP_SPACES), after the
#: influence and money bonuses (which say their amount).
REP_SPACE_WORDS = ("", "", "fame for an artist", "a visitor from the plaza",
                   "two tickets", "a free assistant")
#: The two halves of a used contract's back (contract_state 1 and 2).
SIDE_WORDS = ("money side up", "influence side up")


def artist(a: int) -> str:
    """E.g. 'blue sculptor' (artist slot a = 2 * form + colour)."""
    return f"{N.COLOURS[a & 1]} {ARTIST_NOUNS[a >> 1]}"


def artist_fame0(raw: Raw, a: int) -> int:
    """The artist's initial fame (the price of a commission's work, R-ART-1)."""
    return ARTIST_FAME0[a >> 1][a & 1][raw["ar_variant"][a]]


def visitor(c: int) -> str:
    """E.g. 'a VIP', 'an investor'."""
    return f"{'an' if c == 1 else 'a'} {VISITOR_WORDS[c]}"


def ticket(c: int) -> str:
    """E.g. 'a VIP ticket', 'an investor ticket'."""
    return f"{'an' if c == 1 else 'a'} {VISITOR_WORDS[c]} ticket"


def tickets_held(counts: list[int]) -> str:
    """E.g. '1 VIP and 3 investor tickets', 'a collector ticket', 'no tickets'."""
    parts = [f"{k} {VISITOR_WORDS[c]}" for c, k in enumerate(counts) if k]
    if not parts:
        return "no tickets"
    if sum(counts) == 1:
        return ticket(counts.index(1))
    return (", ".join(parts[:-1]) + " and " if len(parts) > 1 else "") + parts[-1] + " tickets"


def seat(raw: Raw, owner: int, me: int) -> str:
    """The owner of a piece: 'your', "P1's" or "Lacerda's"."""
    if owner == me:
        return "your"
    return "Lacerda's" if owner == LACERDA else f"P{owner}'s"


def location(loc: int) -> str:
    """E.g. 'the Sales Office'."""
    return f"the {N.LOCATION_NAMES[loc]}"


def rep_tile(tile: int) -> str:
    """A reputation tile by what it pays at the end, e.g. '“$2 per work acquired”' or
    '“$2 + 1 influence per VIP”'."""
    text = re.sub(r"\+(\d)i", r" + \1 influence", N.REPUTATION_TILES[tile])
    return f"“{text}”"


def money_bonus(pl: dict[str, Any]) -> int:
    """R-DATA-3: $2 per investor + $1 per collector in the gallery."""
    return 2 * pl["gallery"][1] + pl["gallery"][2]


def influence_bonus(pl: dict[str, Any]) -> int:
    """R-DATA-3: 2 per VIP + 1 per collector in the gallery, as much as the track takes."""
    return min(INFLUENCE_MAX, pl["influence"] + 2 * pl["gallery"][0] + pl["gallery"][2]) \
        - pl["influence"]


def bonus(kind: str, pl: dict[str, Any], name: bool = True) -> str:
    """A money or influence bonus with what it gives now: 'money bonus, +$4' (`name`
    False: '+$4')."""
    gain = f"+${money_bonus(pl)}" if kind == "money" else f"+{influence_bonus(pl)} influence"
    return f"{kind} bonus, {gain}" if name else gain


def contract_bonus(card: int) -> str:
    """The printed bonus of a contract card: 'sign another contract', 'money bonus'..."""
    kind = card % 5
    if kind < 4:
        return CONTRACT_BONUS_WORDS[kind]
    return "money bonus" if N.contract_name(card).endswith("money") else "influence bonus"


def contract(card: int) -> str:
    """E.g. 'the painting contract (sign another contract)'."""
    return f"the {N.FORMS[card // 5]} contract ({contract_bonus(card)})"


def board_contract(pl: dict[str, Any], slot: int) -> str:
    """A contract on a player board, e.g. 'painting contract in slot 2'."""
    return f"{N.FORMS[pl['contract'][slot] // 5]} contract in slot {slot + 1}"


def market_space(space: int) -> str:
    """A market space by row and column: 'the digital tile space in column I', 'the $3
    auction space in column II'."""
    row, col = divmod(space, 3)
    what = (f"{N.FORMS[MARKET_ROW_FORM[row]]} tile" if row < 4
            else f"${AUCTION_COST[row - 4]} auction")
    return f"the {what} space in column {N.COLUMNS[col]}"
