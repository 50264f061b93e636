"""Readable names of the engine's indices (the conventions of engine/data.h)."""
from __future__ import annotations

#: Art forms, by form index (artist slot = 2 * form + colour; works and contracts alike).
FORMS = ("painting", "sculpture", "photo", "digital")
#: Visitor types, by type index; tickets use the same colours (VIP, INVESTOR, COLLECTOR).
VISITORS = ("vip", "investor", "collector")
LOCATIONS = ("SO", "AC", "MC", "IM")
LOCATION_NAMES = ("Sales Office", "Artists Colony", "Media Center", "International Market")
LOCATION_ACTIONS = (
    ("sign a contract", "sell a work"),
    ("discover an artist", "buy a work"),
    ("hire assistants", "promote an artist"),
    ("take a reputation tile", "make an auction offer"),
)
#: Artist colours (the blue and red artist of each form), not the visitor/ticket colours.
COLOURS = ("blue", "red")
ARTISTS = tuple(f"{FORMS[a >> 1]}-{COLOURS[a & 1]}" for a in range(8))
REP_SPACES = ("influence", "money", "fame", "visitor", "tickets", "assistant")
MARKET_ROWS = ("rep-digital", "rep-photo", "rep-sculpture", "rep-painting",
               "auction-$1", "auction-$3", "auction-$6")
COLUMNS = ("I", "II", "III")
CONTRACT_KINDS = ("sign", "assistant", "bag-visitor", "plaza-vip-investor", "bonus")
ARTIST_BONUSES = ("money bonus", "influence bonus", "fame bonus", "two tickets",
                  "visitor from the plaza")
#: C§5 ticket icons of a work tile, by pattern (TKP_* of data.h; engine.state.WORK_TICKETS).
TICKET_PATTERNS = ("vip", "investor", "any", "vip + inv/col", "inv + vip/col", "two colours")
TICKET_PAIRS = ("vip+investor", "vip+collector", "investor+collector")
TICKET_ROUTES = ("plaza>lobby", "lobby>gallery", "lobby+1>plaza", "lobby+2>plaza",
                 "lobby+3>plaza")
SCORING_STEPS = ("majorities", "reputation", "exhibition", "auction", "curator", "dealer",
                 "influence")
REPUTATION_TILES = (
    "$1 per 3 influence", "$3+1i per collector", "$2+1i per VIP", "$2+1i per investor",
    "$1 per visitor", "$4 per visitor set", "$2+1i per reputation tile",
    "$3+1i per auction assistant", "$1+1i per assistant in play",
    "$2 per artist at promotion 4+", "$2 per work acquired", "$3+1i per work sold",
    "$3+1i per work exhibited", "$2+1i per art form acquired", "$3+1i per photo acquired",
    "$3+1i per painting acquired", "$3+1i per digital work acquired",
    "$3+1i per sculpture acquired", "$2+1i per artist at fame 15+",
    "$4+2i per masterpiece exhibited",
)


def contract_name(card: int) -> str:
    """E.g. 'painting-sign', 'sculpture-influence'."""
    form, kind = divmod(card, 5)
    if kind == 4:
        kind_name = "money" if form in (0, 2) else "influence"
    else:
        kind_name = CONTRACT_KINDS[kind]
    return f"{FORMS[form]}-{kind_name}"
