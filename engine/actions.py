"""Action ids and their notation.

An action is an int in [0, NUM_DISTINCT_ACTIONS); each kind of decision owns a fixed
range (engine.ACTION_BASES). The notation is independent of the state and the round
trip `string_to_action(action_to_string(a)) == a` is exact for every id.

>>> action_to_string(string_to_action("move:AC"))
'move:AC'
"""
from __future__ import annotations

from gallerist.engine import names as N
from gallerist.engine.errors import IllegalActionError
from gallerist.engine.state import ACTION_BASES, NUM_DISTINCT_ACTIONS, TASK_KINDS

ActionId = int

_B = ACTION_BASES


def _range_sizes() -> dict[str, int]:
    """How many ids each kind of decision owns: up to the next base (_core.pxd)."""
    starts = sorted(_B.items(), key=lambda kv: kv[1])
    ends = [base for _, base in starts[1:]] + [NUM_DISTINCT_ACTIONS]
    return {name: end - base for (name, base), end in zip(starts, ends)}


def _build() -> list[str]:
    t: list[str] = [""] * NUM_DISTINCT_ACTIONS
    sizes = _range_sizes()

    def put(base: str, labels: list[str] | tuple[str, ...]) -> None:
        assert len(labels) == sizes[base], f"{base}: {len(labels)} labels, {sizes[base]} ids"
        for i, label in enumerate(labels):
            t[_B[base] + i] = label

    put("start", [f"start:{x}" for x in N.LOCATIONS])
    put("move", [f"move:{x}" for x in N.LOCATIONS])
    put("ea-tickets", ["ea:tickets"])
    put("ea-contract", [f"ea:contract{i + 1}" for i in range(3)])
    put("leave-none", ["leave:none"])
    put("leave-desk", ["leave:desk"])
    put("leave", [f"leave:from-{x}" for x in N.LOCATIONS])
    put("action", ["action:A", "action:B"])
    put("pass", ["pass"])
    put("end-turn", ["end-turn"])
    put("ko-pass", ["ko:pass"])
    put("ko-action", ["ko:A", "ko:B"])
    put("artist", [f"artist:{x}" for x in N.ARTISTS])
    put("pay-influence", [f"pay:influence={k}" for k in range(20)])
    put("fame", [f"fame:+{k}" for k in range(8)])
    put("ticket", [f"ticket:{x}" for x in N.VISITORS])
    put("tickets", [f"tickets:{x}" for x in N.TICKET_PAIRS])
    put("box-discard", [f"box-discard:{x}" for x in N.VISITORS])
    put("visitor", [f"visitor:{x}" for x in N.VISITORS])
    put("rep-space", [f"rep-space:{x}" for x in N.REP_SPACES])
    put("deal4-no", ["deal4:no"])
    put("deal4-yes", ["deal4:yes"])
    put("pile", [f"pile:{i + 1}" for i in range(4)])
    put("contract-slot", [f"contract-slot:{i + 1}" for i in range(3)])
    put("sell", [f"sell:work{w + 1}/contract{c + 1}" for w in range(4) for c in range(3)])
    put("orient", ["orient:money", "orient:influence"])
    put("hire", [f"hire:{k}" for k in range(1, 5)])
    put("market", [f"market:{N.MARKET_ROWS[r]}-{N.COLUMNS[c]}" for r in range(7) for c in range(3)])
    put("from-desk", ["from:desk"])
    put("from-location", [f"from:{x}" for x in N.LOCATIONS])
    put("from-ko", ["from:kicked-out"])
    put("ticket-move", [f"tmove:{N.VISITORS[c]}:{N.TICKET_ROUTES[r]}" for c in range(3) for r in range(5)])
    put("tickets-done", ["tickets:done"])
    put("solo-discard", [f"solo-discard:{x}" for x in N.VISITORS])
    put("chance-visitor", [f"chance:visitor:{x}" for x in N.VISITORS])
    put("chance-tile", [f"chance:tile{k + 1}" for k in range(8)])
    put("chance-contract", [f"chance:contract:{N.contract_name(c)}" for c in range(20)])
    missing = [i for i, s in enumerate(t) if not s]
    assert not missing, f"actions without notation: {missing}"
    assert len(set(t)) == len(t), "notation is not unique"
    return t


NOTATION: tuple[str, ...] = tuple(_build())

#: What each kind of notation (the part before the first ":") names, in words.
NOTATION_KINDS: dict[str, str] = {
    "start": "the start location (SO Sales Office, AC Artists Colony, MC Media Center, "
             "IM International Market)",
    "move": "move the gallerist to a location (as start)",
    "ea": "an executive action: tickets, or a contract's bonus (contract1-3: its slot)",
    "leave": "leave an assistant behind, from the desk or a location, or none",
    "action": "the location's first (A) or second (B) action",
    "pass": "pass",
    "end-turn": "end the turn",
    "ko": "the kicked-out player's action: pass, or the location's A or B",
    "artist": "an artist, by art form and colour",
    "pay": "how much of a payment is in influence",
    "fame": "influence steps spent on fame",
    "ticket": "take a ticket of this colour",
    "tickets": "take two tickets of these colours, or stop spending tickets (done)",
    "box-discard": "the ticket discarded from the box office when a colour runs out",
    "visitor": "a visitor of this kind sent from your lobby or gallery to the plaza",
    "rep-space": "the space a reputation tile goes on, and so its bonus",
    "deal4": "deal four new contracts before choosing one, or choose among those shown",
    "pile": "a contract pile, 1-4",
    "contract-slot": "the slot, 1-3, a contract goes to",
    "sell": "sell a work (by its place in your gallery) with a contract (by its slot)",
    "orient": "turn a sold contract's money or influence side up",
    "hire": "hire this many assistants",
    "market": "a space of the International Market: a reputation tile or an auction "
              "offer, by row and column (I-III)",
    "from": "where the assistant comes from: the desk, a location or the kicked-out space",
    "tmove": "move a visitor with a ticket: its kind and route (plaza, lobby, gallery)",
    "solo-discard": "the ticket discarded from the box office when Lacerda is kicked out",
    "chance": "what chance drew: a visitor from the bag, a contract dealt, a work's tile",
}
_PARSE = {s: i for i, s in enumerate(NOTATION)}


def action_to_string(action: ActionId) -> str:
    """The notation of an action id. Raises IllegalActionError for an unknown id."""
    if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < len(NOTATION):
        raise IllegalActionError(f"action must be an int in 0..{len(NOTATION) - 1}, got {action!r}")
    return NOTATION[action]


def string_to_action(text: str) -> ActionId:
    """The action id of a notation string (surrounding spaces ignored)."""
    if not isinstance(text, str):
        raise IllegalActionError(f"action text must be a str, got {type(text).__name__}")
    try:
        return _PARSE[text.strip()]
    except KeyError:
        raise IllegalActionError(f"unknown action notation {text!r}") from None


_TASK_NAMES = {v: k for k, v in TASK_KINDS.items()}
_DECISION_TEXT = {
    "T_START_LOC": "choose a start location",
    "T_TURN_START": "take an executive action or move the gallerist",
    "T_LEAVE": "leave an assistant behind or not",
    "T_LOC_ACTION": "choose the location action",
    "T_AFTER_ACTION": "take an executive action or end the turn",
    "T_KO": "choose the kicked-out action",
    "T_DISCOVER": "choose an artist to discover",
    "T_BUY": "choose an artist to buy a work from",
    "T_PROMOTE": "choose an artist to promote",
    "T_PAY": "choose how much influence pays",
    "T_FAME_STEPS": "choose influence steps for extra fame",
    "T_FAME_BONUS": "choose an artist for the fame bonus",
    "T_TICKET_ANY": "choose a ticket colour",
    "T_TICKET_PAIR": "choose two ticket colours",
    "T_TICKET_OR": "choose a ticket colour",
    "T_BOX_DISCARD": "choose the ticket colour to discard from the box office",
    "T_VISITOR_PLAZA": "choose a visitor from the plaza",
    "T_LOBBY_OUT": "choose a lobby visitor to leave",
    "T_GALLERY_OUT": "choose a gallery visitor to leave",
    "T_ORIENT": "choose the sold contract's side",
    "T_REP_SPACE": "choose a reputation space",
    "T_DEAL4": "deal 4 new contracts or not",
    "T_PILE": "choose a contract pile",
    "T_CONTRACT_SLOT": "choose a contract slot",
    "T_SELL": "choose a work and a contract to sell",
    "T_HIRE": "choose how many assistants to hire",
    "T_MARKET": "choose a market space",
    "T_ASSIST_SRC": "choose where the assistant comes from",
    "T_TICKET_MOVE": "spend a ticket or stop",
    "T_DISCARD_LARGEST": "choose the box-office stack to discard from",
    "T_CH_VISITOR": "chance: a visitor is drawn from the bag",
    "T_CH_TILE": "chance: a work of art is revealed",
    "T_CH_CONTRACT": "chance: a contract is dealt",
}


def describe_decision(state) -> str:  # type: ignore[no-untyped-def]
    """What the current decision point is, in words (for error messages and clients)."""
    if state.is_terminal():
        return "the game is over"
    raw_tasks = state._raw()["tasks"]
    if not raw_tasks:
        return "no decision"
    top = raw_tasks[-1]
    name = _TASK_NAMES.get(top["kind"], "?")
    text = _DECISION_TEXT.get(name, name)
    if top["player"] >= 0 and not name.startswith("T_CH_"):
        return f"player {top['player']} must {text}"
    return text


def decision_kind(state) -> str:  # type: ignore[no-untyped-def]
    """The short name of the current decision point (e.g. 'buy', 'chance-tile', 'end')."""
    if state.is_terminal():
        return "end"
    raw_tasks = state._raw()["tasks"]
    if not raw_tasks:
        return "end"
    name = _TASK_NAMES.get(raw_tasks[-1]["kind"], "?")
    return name[2:].lower().replace("_", "-")
