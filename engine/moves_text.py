"""Every legal move in words: `describe_move(state, action)` says in one short line what a
legal action (or a chance outcome) does, from the mover's point of view, naming the
concrete things: the location, the artist (with the price and the fame the state makes
certain), the work, the contract, the visitor, the ticket, the tile or the amount.

It reads only what `state` holds (`GameState._raw()`), so on a player's view it never
names a card that view hides. `describe_moves(state)` gives every legal action at once.

>>> from gallerist import engine
>>> describe_move(engine.new_game(2, seed=1), 1)   # start:AC
'Start at the Artists Colony with the tile “$2 per work acquired”'
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gallerist.engine import moves_words as W
from gallerist.engine import names as N
from gallerist.engine.actions import action_to_string, describe_decision
from gallerist.engine.errors import IllegalActionError
from gallerist.engine.state import (ACTION_BASES, AUCTION_COST, FAME_MAX, INFLUENCE_MAX,
                                    MARKET_COLUMN_INFLUENCE, MARKET_ROW_FORM, TASK_KINDS,
                                    WORK_FAME, WORK_TICKETS, GameState)

__all__ = ["describe_move", "describe_moves", "seat_words"]

_B = ACTION_BASES
_KIND_NAMES = {v: k for k, v in TASK_KINDS.items()}
_CD_TILE, _CD_GALLERY_ANY = 0, 1   # ChanceDest of _core.pxd: a bag draw's destination
_CELEBRITY = ", a celebrity: +$5"
_DESKS = 4   # C§1: the desks of an office (NUM_DESKS of data.h)
#: The market's spaces: an assistant-source task's target `a` is market space `a` below
#: this number, contract slot `a - _MARKET_SPACES` from it (T_ASSIST_SRC of _core.pxd).
_MARKET_SPACES = len(N.MARKET_ROWS) * len(N.COLUMNS)


@dataclass
class _Move:
    """What a describer reads: the state, its raw dict, the top task and the mover."""

    state: GameState
    raw: dict[str, Any]
    top: dict[str, Any]
    me: int

    @property
    def pl(self) -> dict[str, Any]:
        """The mover's own player board."""
        return self.raw["players"][self.me]

    def below(self, depth: int = 2) -> dict[str, Any]:
        """A task under the top one (depth 2: the one right under it)."""
        tasks = self.raw["tasks"]
        return tasks[-depth] if len(tasks) >= depth else {"kind": 0, "a": 0, "b": 0, "c": 0}


# ---------------------------------------------------------------------- turn structure

def _start(m: _Move, a: int) -> str:
    loc = a - _B["start"]
    return f"start at {W.location(loc)} with the tile {W.rep_tile(m.raw['loc_tile'][loc])}"


def _home(pl: dict[str, Any]) -> str:
    """Where an assistant sent home goes: a free desk, or out of the game (RN §2.6)."""
    return "goes home" if pl["desks"] < _DESKS else "leaves the game (desks full)"


def _move(m: _Move, a: int) -> str:
    loc = a - _B["move"]
    text = f"move your gallerist to {W.location(loc)}"
    owner = m.raw["loc_owner"][loc]
    if owner < 0:
        return text
    piece = ("gallerist", "assistant")[m.raw["loc_kind"][loc]]
    if owner == m.me:
        return text + f", your assistant there {_home(m.pl)}"
    return text + f", kicking out {W.seat(m.raw, owner, m.me)} {piece}"


def _executive(m: _Move, a: int) -> str:
    """The two executive actions: spend tickets, or a contract's bonus."""
    if a == _B["ea-tickets"]:
        return f"use tickets to move visitors (you hold {W.tickets_held(m.pl['tickets'])})"
    slot = a - _B["ea-contract"]
    card, state = m.pl["contract"][slot], m.pl["contract_state"][slot]
    if state:
        side = ("money", "influence")[state - 1]
        gain = f"{side} side, {W.bonus(side, m.pl, name=False)}"
    elif card % 5 == 4:
        gain = W.bonus(W.contract_bonus(card).split()[0], m.pl)
    else:
        gain = W.contract_bonus(card)
    return f"use the bonus of your {W.board_contract(m.pl, slot)}: {gain}"


def _turn_start(m: _Move, a: int) -> str:
    return _move(m, a) if a < _B["ea-tickets"] else _executive(m, a)


def _leave(m: _Move, a: int) -> str:
    left = W.location(m.top["a"])
    if a == _B["leave-none"]:
        return f"leave no assistant behind at {left}"
    if a == _B["leave-desk"]:
        return f"leave an assistant from your office at {left}"
    return f"move your assistant from {W.location(a - _B['leave'])} to {left}"


def _location_action(loc: int, which: int) -> str:
    return f"{N.LOCATION_ACTIONS[loc][which]} ({N.LOCATION_NAMES[loc]}, " \
           f"{('first', 'second')[which]} action)"


def _loc_action(m: _Move, a: int) -> str:
    loc = m.top["a"]
    if a == _B["pass"]:
        return f"pass: no action is possible at {W.location(loc)}"
    return _location_action(loc, a - _B["action"])


def _after_action(m: _Move, a: int) -> str:
    return "end your turn" if a == _B["end-turn"] else _executive(m, a)


def _kicked_out(m: _Move, a: int) -> str:
    r = m.raw
    if a == _B["ko-pass"]:
        if r["ko_kind"] == 0:
            return "kicked out: pass, your gallerist goes home"
        return f"kicked out: pass, your assistant {_home(m.pl)}"
    if a < _B["ko-pass"]:
        return "kicked out: " + _executive(m, a)
    infl = m.pl["influence"]
    cost = infl - ((infl - 1) // 5) * 5   # R-KO-1: back to the previous fame icon
    return f"kicked out: {_location_action(r['ko_loc'], a - _B['ko-action'])} for {cost} influence"


# ---------------------------------------------------------------------- artists and works

def _fame_change(fame: int, gain: int) -> str:
    """'fame 5 → 6', or with a new celebrity 'fame 15 → 19, a celebrity: +$5' (R-ART-3)."""
    new = min(FAME_MAX, fame + gain)
    return f"fame {fame} → {new}" + (_CELEBRITY if new >= FAME_MAX > fame else "")


def _discover(m: _Move, a: int) -> str:
    k = a - _B["artist"]
    b = m.raw["ar_bonus"][k]
    gain = (W.bonus(("money", "influence")[b], m.pl) if b in (0, 1)
            else N.ARTIST_BONUSES[b] if b >= 0 else "no bonus")
    return f"discover the {W.artist(k)} (fame {m.raw['ar_fame'][k]}): {gain}"


def _buy(m: _Move, a: int) -> str:
    r, k = m.raw, a - _B["artist"]
    fame, pl = r["ar_fame"][k], m.pl
    commission = pl["commission"] == k
    price = W.artist_fame0(r, k) if commission else fame
    how = " with your commission" if commission else ""
    if fame >= FAME_MAX:
        return f"buy a masterpiece by the {W.artist(k)}{how} for ${price}"
    base = WORK_FAME[r["stack_top"][k >> 1]] + pl["gallery"][2]
    masterpiece = any(r["ar_fame"][w] >= FAME_MAX for w in pl["works"][: pl["nworks"]])
    if pl["nworks"] == 3 and not masterpiece:
        base = FAME_MAX - fame   # R-ART-1: a 4th work only with the fame of a celebrity
    return f"buy the {W.artist(k)}'s work{how} for ${price} ({_fame_change(fame, base)})"


def _promote(m: _Move, a: int) -> str:
    r, k = m.raw, a - _B["artist"]
    level, fame, pl = r["ar_promo"][k] + 1, r["ar_fame"][k], m.pl
    text = f"promote the {W.artist(k)} to level {level} for {level} influence"
    if fame >= FAME_MAX:
        return text + " (a celebrity: no fame)"
    room = pl["gallery"][2] < 1 + sum(pl["sold"])
    if level == 5 and room and (r["plaza"][2] or r["bag"][2]):
        return text   # its visitor bonus may bring a collector first: the fame is not certain
    return text + f" ({_fame_change(fame, 1 + pl['gallery'][2])})"


def _fame_bonus(m: _Move, a: int) -> str:
    k = a - _B["artist"]
    fame, gain = m.raw["ar_fame"][k], m.pl["gallery"][2]
    return f"give the fame bonus to the {W.artist(k)} (" + (
        _fame_change(fame, gain) if gain else f"fame {fame}, +1 per influence step") + ")"


def _fame_steps(m: _Move, a: int) -> str:
    steps, t = a - _B["fame"], m.top
    change = _fame_change(m.raw["ar_fame"][t["a"]], t["b"] + steps)
    change, celebrity = change.split(",")[0], change.endswith("+$5")
    who = f"the {W.artist(t['a'])}'s {change}"
    if not steps:
        text = f"{who}, no influence spent"
    else:
        infl = m.pl["influence"]
        after = ((infl - 1) // 5) * 5 - 5 * (steps - 1)   # RN §7.3: down a fame icon each
        text = (f"{who} with {steps} influence step{'s' if steps > 1 else ''} "
                f"(influence {infl} → {after})")
    return text + (_CELEBRITY if celebrity else "")


def _pay(m: _Move, a: int) -> str:
    steps, price = a - _B["pay-influence"], m.top["a"]
    below = m.below()
    kind = _KIND_NAMES.get(below["kind"], "")
    if kind in ("T_FAME_STEPS", "T_BUY_FINISH"):
        what = f"the {W.artist(below['a'])}'s work"
    elif kind == "T_MARKET_FINISH":
        what = "the auction offer"
    else:
        what = "the assistants"
    how = (", all in cash" if steps == 0 else ", all with influence" if steps == price
           else f": ${price - steps} in cash and ${steps} with influence")
    return f"pay ${price} for {what}{how}"


# ---------------------------------------------------------------------- tickets and visitors

def _ticket(m: _Move, c: int) -> str:
    """Take one ticket of colour c (R-TIX-1: from the discards when the box office has
    none; R-INT-1: the first colour to run out brings the intermediate scoring)."""
    box = m.raw["box"][c]
    if box == 0:
        return f"take {W.ticket(c)} from the discards (the box office has none)"
    if box == 1 and not (m.raw["intermediate_done"] or m.raw["intermediate_pending"]):
        return (f"take the last {W.VISITOR_WORDS[c]} ticket of the box office "
                "(intermediate scoring follows)")
    return f"take {W.ticket(c)} ({box} in the box office)"


def _ticket_pair(m: _Move, a: int) -> str:
    first, second = (W.ticket(N.VISITORS.index(x))
                     for x in N.TICKET_PAIRS[a - _B["tickets"]].split("+"))
    return f"take {first} and {second}"


def _box_discard(m: _Move, a: int) -> str:
    c = a - (_B["box-discard"] if a < _B["visitor"] else _B["solo-discard"])
    why = (f"the {W.VISITOR_WORDS[m.top['a']]} tickets ran out"
           if _KIND_NAMES[m.top["kind"]] == "T_BOX_DISCARD" else "Lacerda was kicked out")
    return f"discard {W.ticket(c)} from the box office ({why})"


def _visitor(m: _Move, a: int) -> str:
    c, kind = a - _B["visitor"], _KIND_NAMES[m.top["kind"]]
    if kind == "T_VISITOR_PLAZA":
        return f"bring {W.visitor(c)} from the plaza into your gallery"
    if kind == "T_LOBBY_OUT":
        return f"send {W.visitor(c)} from your lobby to the plaza"
    side = ("sold contract: influence side up", "sold contract: money side up",
            "you choose the sold contract's side")[c]
    return f"send {W.visitor(c)} from your gallery to the plaza ({side})"


def _ticket_move(m: _Move, a: int) -> str:
    if a == _B["tickets-done"]:
        return "stop spending tickets"
    c, route = divmod(a - _B["ticket-move"], 5)
    who = W.visitor(c)
    if route == 0:
        where = "from the plaza to your lobby"
    elif route == 1:
        where = "from your lobby to your gallery"
    else:
        other = (m.me + route - 1) % m.raw["num_players"]
        where = f"from P{other}'s lobby to the plaza"
    return f"spend {W.ticket(c)}: {who} {where}"


# ---------------------------------------------------------------------- contracts

def _deal4(m: _Move, a: int) -> str:
    if a == _B["deal4-yes"]:
        return "deal 4 new contracts onto the piles before choosing one"
    tops = [N.FORMS[p[n - 1] // 5] for p, n in zip(m.raw["pile"], m.raw["pile_len"]) if n > 0]
    return "choose among the contracts on display" + (f" ({', '.join(tops)})" if tops else "")


def _pile(m: _Move, a: int) -> str:
    i = a - _B["pile"]
    card = m.raw["pile"][i][m.raw["pile_len"][i] - 1]
    return f"take {W.contract(card)} from pile {i + 1}"


def _contract_slot(m: _Move, a: int) -> str:
    k, pl = a - _B["contract-slot"], m.pl
    text = f"put the {N.FORMS[m.top['a'] // 5]} contract in slot {k + 1}"
    if pl["contract"][k] >= 0:
        return text + f", covering your used {N.FORMS[pl['contract'][k] // 5]} contract"
    gained = _slot_ticket(m, a)
    return text + (f" ({gained})" if gained else "")


def _slot_ticket(m: _Move, a: int) -> str:
    """The ticket an empty board slot gives (R-CON-1), seen by playing the move on a copy:
    '' when none can be had."""
    after = m.state.clone_position()
    after.apply(a)
    r = after._raw()
    if r["tasks"] and _KIND_NAMES.get(r["tasks"][-1]["kind"]) == "T_TICKET_ANY" \
            and r["tasks"][-1]["player"] == m.me:
        return "a ticket of any colour"
    gained = [c for c in range(3) if r["players"][m.me]["tickets"][c] > m.pl["tickets"][c]]
    return W.ticket(gained[0]) if len(gained) == 1 else ""


def _sell(m: _Move, a: int) -> str:
    w, k = divmod(a - _B["sell"], 3)
    pl = m.pl
    works = pl["works"][: pl["nworks"]]
    artist = works[w]
    which = f" in exhibit slot {w + 1}" if works.count(artist) > 1 else ""
    return (f"sell the {W.artist(artist)}'s work{which} for ${m.state.sale_value(artist)} "
            f"with your {W.board_contract(pl, k)}")


def _orient(m: _Move, a: int) -> str:
    slot = m.top["a"]
    form = N.FORMS[m.pl["contract"][slot] // 5]
    return f"turn your sold {form} contract (slot {slot + 1}) {W.SIDE_WORDS[a - _B['orient']]}"


# ---------------------------------------------------------------------- assistants and market

def _hire(m: _Move, a: int) -> str:
    k = a - _B["hire"] + 1
    price = _hire_price(m, a)
    return f"hire {k} assistant{'s' if k > 1 else ''}" + (f" for ${price}" if price else "")


def _hire_price(m: _Move, a: int) -> int:
    """What hiring costs (C§9), read from the payment it asks for in a copy of the
    position where the mover is rich enough that the payment is a choice; 0 if unseen."""
    raw = m.state._raw()
    raw["players"][m.me]["money"] = 1000
    raw["players"][m.me]["influence"] = INFLUENCE_MAX
    probe = GameState._from_raw(raw)
    probe.apply(a)
    top = probe._raw()["tasks"][-1]
    return int(top["a"]) if _KIND_NAMES.get(top["kind"]) == "T_PAY" else 0


def _market(m: _Move, a: int) -> str:
    space = a - _B["market"]
    row, col = divmod(space, 3)
    gain, infl = MARKET_COLUMN_INFLUENCE[col], m.pl["influence"]
    if row < 4:
        got = min(INFLUENCE_MAX, infl + gain) - infl
        what = (f"take tile {W.rep_tile(m.raw['mk_tile'][row][col])} "
                f"({N.FORMS[MARKET_ROW_FORM[row]]} row, column {N.COLUMNS[col]})")
        return f"{what}, +{got} influence"
    what = f"make a ${AUCTION_COST[row - 4]} auction offer in column {N.COLUMNS[col]}"
    return what + (f", +{gain} influence" if infl + gain <= INFLUENCE_MAX else "")


def _assist_src(m: _Move, a: int) -> str:
    if a == _B["from-desk"]:
        src = "an assistant from your office"
    elif a == _B["from-ko"]:
        src = "your kicked-out assistant"
    else:
        src = f"your assistant from {W.location(a - _B['from-location'])}"
    dest = m.top["a"]
    where = (W.market_space(dest) if dest < _MARKET_SPACES
             else f"your {W.board_contract(m.pl, dest - _MARKET_SPACES)}")
    return f"send {src} to {where}"


def _rep_space(m: _Move, a: int) -> str:
    space = a - _B["rep-space"]
    gain = W.bonus(N.REP_SPACES[space], m.pl, name=False) if space < 2 \
        else W.REP_SPACE_WORDS[space]
    return f"put tile {W.rep_tile(m.top['a'])} on your {N.REP_SPACES[space]} space: {gain}"


# ---------------------------------------------------------------------- chance

def _chance_visitor(m: _Move, a: int) -> str:
    c, t = a - _B["chance-visitor"], m.top
    drawn = f"{W.visitor(c)} visitor is drawn from the bag"
    if t["a"] == _CD_TILE:
        return f"{drawn} onto the new {N.FORMS[t['b']]} work"
    pl = m.raw["players"][t["b"]]
    room = c != 2 or pl["gallery"][2] < 1 + sum(pl["sold"])
    if room and (t["a"] == _CD_GALLERY_ANY or c != 2):
        return f"{drawn} into P{t['b']}'s gallery"
    return f"{drawn}, to the plaza (no room in P{t['b']}'s gallery)"


def _chance_tile(m: _Move, a: int) -> str:
    k = a - _B["chance-tile"]
    return (f"a new {N.FORMS[m.top['a']]} work is revealed: tile {k + 1} "
            f"(+{WORK_FAME[k]} fame, {W.TICKET_PATTERN_WORDS[WORK_TICKETS[k]]})")


def _chance_contract(m: _Move, a: int) -> str:
    card = a - _B["chance-contract"]
    return f"a contract is dealt onto pile {m.top['a'] + 1}: {W.contract(card)}"


_DESCRIBERS: dict[str, Callable[[_Move, int], str]] = {
    "T_START_LOC": _start, "T_TURN_START": _turn_start, "T_LEAVE": _leave,
    "T_LOC_ACTION": _loc_action, "T_AFTER_ACTION": _after_action, "T_KO": _kicked_out,
    "T_DISCOVER": _discover, "T_BUY": _buy, "T_PROMOTE": _promote,
    "T_FAME_BONUS": _fame_bonus, "T_PAY": _pay, "T_FAME_STEPS": _fame_steps,
    "T_TICKET_ANY": lambda m, a: _ticket(m, a - _B["ticket"]),
    "T_TICKET_OR": lambda m, a: _ticket(m, a - _B["ticket"]),
    "T_TICKET_PAIR": _ticket_pair, "T_BOX_DISCARD": _box_discard,
    "T_DISCARD_LARGEST": _box_discard, "T_VISITOR_PLAZA": _visitor, "T_LOBBY_OUT": _visitor,
    "T_GALLERY_OUT": _visitor, "T_ORIENT": _orient, "T_REP_SPACE": _rep_space,
    "T_DEAL4": _deal4, "T_PILE": _pile, "T_CONTRACT_SLOT": _contract_slot, "T_SELL": _sell,
    "T_HIRE": _hire, "T_MARKET": _market, "T_ASSIST_SRC": _assist_src,
    "T_TICKET_MOVE": _ticket_move, "T_CH_VISITOR": _chance_visitor,
    "T_CH_TILE": _chance_tile, "T_CH_CONTRACT": _chance_contract,
}


# ---------------------------------------------------------------------- public

def _options(state: GameState) -> list[int]:
    if state.is_terminal():
        return []
    if state.is_chance():
        return [a for a, _ in state.chance_outcomes()]
    return state.legal_actions()


def _sentence(text: str) -> str:
    """Sentence case, no trailing period."""
    text = text.strip().rstrip(".")
    return text[:1].upper() + text[1:]


def _describe(state: GameState, raw: dict[str, Any], action: int) -> str:
    top = raw["tasks"][-1]
    m = _Move(state, raw, top, int(state.current_player))
    return _sentence(_DESCRIBERS[_KIND_NAMES[top["kind"]]](m, action))


def describe_move(state: GameState, action: int) -> str:
    """A legal action or chance outcome of `state` in words, e.g. "Move your gallerist to
    the Artists Colony".

    Args:
        state: any position (a player's view too: only what it holds is read).
        action: an action legal in `state`, or one of its chance outcomes.

    Returns:
        One line of plain words in sentence case, without a trailing period.

    Raises:
        IllegalActionError: `action` is not an action id, or not legal in `state`.
    """
    name = action_to_string(action)   # raises for an id out of range
    if action not in _options(state):
        raise IllegalActionError(f"{name} is not legal here: {describe_decision(state)}")
    return _describe(state, state._raw(), action)


def describe_moves(state: GameState) -> dict[int, str]:
    """Every legal action (at a chance point, every outcome) of `state` in words, by
    action id in ascending order; empty at the end of the game."""
    options = _options(state)
    if not options:
        return {}
    raw = state._raw()
    return {a: _describe(state, raw, a) for a in options}


def seat_words(text: str, mover: int | None, person: int) -> str:
    """A move's words (said to its mover) as the person reads them: another seat's
    "your" becomes "their", and the person's own pieces ("P1's") become "your"."""
    if mover is not None and mover != person:
        for old, new in (("your", "their"), ("Your", "Their"), ("you", "they"), ("You", "They")):
            text = re.sub(rf"\b{old}\b", new, text)
    return re.sub(rf"\bP{person}'s\b", "your", text)
