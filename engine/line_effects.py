"""What a line of play changes for one seat, in numbers and in words: the seat's money,
influence, works, contracts, visitors, tickets, assistants, reputation tiles and places,
the artists' fame, and the final scoring as it would stand if the game ended there
(`GameState.scoring_now`).

Everything is read from the states themselves, seen from that seat (`GameState.view`), so
nothing here names a card the seat cannot see. `ai.explain` puts these changes beside the
search's numbers to say why a move is suggested.

>>> from gallerist import engine
>>> s = engine.new_game(2, seed=1)
>>> [r.words for r in line_effects(s, [s.legal_actions()[0]], s.current_player)][:1]
['Your gallerist at the Sales Office']
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from gallerist.engine import moves_words as W
from gallerist.engine import names as N
from gallerist.engine.state import GameState

__all__ = ["Reason", "SCORING_WORDS", "compare_lines", "importance", "line_effects",
           "play_line", "quantities", "scoring_changes"]

#: The final scoring steps (engine.names.SCORING_STEPS) as a person reads them.
SCORING_WORDS = {
    "majorities": "market majorities",
    "reputation": "reputation tiles",
    "exhibition": "the works in your gallery at their artists' value",
    "auction": "the auction",
    "curator": "your Curator card",
    "dealer": "your Art Dealer card",
    "influence": "influence at its end value",
}
#: The gallerist's places beyond the four locations (engine/_core.pxd GAL_HOME, GAL_KO).
GAL_HOME, GAL_KO = len(N.LOCATION_NAMES), len(N.LOCATION_NAMES) + 1
_PLACES = tuple(f"the {name}" for name in N.LOCATION_NAMES) + ("home", "the kicked-out space")


@dataclass(frozen=True)
class Reason:
    """One quantity that a line changes, or that differs between two lines.

    Attributes:
        kind: what it is: "money", "influence", "fame", "gallery", "sold", "contract",
            "visitors", "tickets", "assistants", "reputation", "place", "scoring", or
            "event" (the intermediate or the final scoring happens in the line; solo,
            Lacerda moves after the turn).
        subject: which one: the artist ("red painter"), the visitor or ticket colour,
            the scoring step ("exhibition"), the location; "" when the kind says it all.
        before: the amount before the line (in a comparison: after the other line).
        after: the amount after the line (in a comparison: after this line).
        words: the change in plain words, one short clause, sentence case.
    """

    kind: str
    subject: str
    before: float
    after: float
    words: str

    @property
    def change(self) -> float:
        return self.after - self.before


def play_line(state: GameState, line: Sequence[int]) -> GameState:
    """A copy of `state` after `line` (actions and chance outcomes, each legal in turn)."""
    walk = state.clone_position()
    for action in line:
        walk.apply(int(action))
    return walk


def quantities(state: GameState, seat: int) -> dict[tuple[str, str], float]:
    """Every quantity this module compares, for `seat`: {(kind, subject): amount}."""
    raw = state._raw()
    pl = raw["players"][seat]
    q: dict[tuple[str, str], float] = {
        ("money", ""): pl["money"],
        ("influence", ""): pl["influence"],
        ("reputation", ""): sum(1 for t in pl["rep"] if t >= 0),
        ("contract", "on your board"): sum(1 for c in pl["contract"] if c >= 0),
        ("contract", "fulfilled"): sum(1 for c, st in zip(pl["contract"], pl["contract_state"])
                                       if c >= 0 and st > 0),
        ("assistants", "hired"): 10 - pl["queue"],
        ("assistants", "on locations"): sum(1 for o, k in zip(raw["loc_owner"], raw["loc_kind"])
                                            if o == seat and k == 1),
        ("assistants", "in the market"): sum(row.count(seat) for row in raw["mk_asst"]),
        ("assistants", "on contracts"): sum(1 for c, on in zip(pl["contract"], pl["contract_asst"])
                                            if c >= 0 and on),
        ("place", ""): pl["gallerist"],
        ("event", "intermediate scoring"): raw["intermediate_done"],
        ("event", "final scoring"): raw["terminal"],
    }
    if raw["num_players"] == 1:   # solo: Lacerda's forced moves follow the player's turn
        q[("event", "Lacerda")] = raw["turn_count"]
    for c, name in enumerate(W.VISITOR_WORDS):
        q[("visitors", f"{name}s in your gallery")] = pl["gallery"][c]
        q[("visitors", f"{name}s in your lobby")] = pl["lobby"][c]
        q[("tickets", name)] = pl["tickets"][c]
    works = pl["works"][: pl["nworks"]]
    for a in range(len(N.ARTISTS)):
        q[("gallery", W.artist(a))] = works.count(a)
        q[("fame", W.artist(a))] = raw["ar_fame"][a]
    for f, form in enumerate(N.FORMS):
        q[("sold", form)] = pl["sold"][f]
    for step, amount in state.scoring_now()[seat].items():
        if step in SCORING_WORDS:
            q[("scoring", step)] = amount
    return q


def _artist(subject: str) -> int:
    return next(a for a in range(len(N.ARTISTS)) if W.artist(a) == subject)


def _money(x: float) -> str:
    return f"-${-x:,.0f}" if x < 0 else f"${x:,.0f}"


def _signed(x: float, dollars: bool = False) -> str:
    sign = "+" if x > 0 else "-"
    return f"{sign}${abs(x):,.0f}" if dollars else f"{sign}{abs(x):,.0f}"


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def importance(reason: Reason) -> float:
    """How much a change weighs when the largest are chosen for a summary (the kind's
    weight x the size of the change; an order only, never shown as an amount)."""
    if reason.kind in ("place", "event"):    # not amounts: changed or not
        return _WEIGHT[reason.kind] if reason.change else 0.0
    return abs(reason.change) * _WEIGHT[reason.kind]


def _words(kind: str, subject: str, before: float, after: float, state: GameState,
           seat: int) -> str:
    """A change of one quantity in words (`state`: where the line ends)."""
    d = after - before
    if kind == "money":
        return f"Money {_money(before)} → {_money(after)} ({_signed(d, True)})"
    if kind == "influence":
        return f"Influence {before:.0f} → {after:.0f} ({_signed(d)})"
    if kind == "fame":
        a = _artist(subject)
        return (f"The {subject}'s fame {before:.0f} → {after:.0f} (a work of theirs sells "
                f"for ${state.sale_value(a)} now)")
    if kind == "gallery":
        n = abs(d)
        what = "a work" if n == 1 else f"{n:.0f} works"
        return (f"{what} by the {subject} {'into' if d > 0 else 'out of'} your gallery "
                f"({before:.0f} → {after:.0f})").capitalize()
    if kind == "sold":
        return f"Sold {subject} works {before:.0f} → {after:.0f}"
    if kind == "contract":
        if subject == "fulfilled" and d < 0:
            return f"A new contract covers a fulfilled one (fulfilled {before:.0f} → {after:.0f})"
        return f"Contracts {subject} {before:.0f} → {after:.0f}"
    if kind == "visitors":
        return f"{_cap(subject)} {before:.0f} → {after:.0f}"
    if kind == "tickets":
        return f"{_cap(subject)} tickets {before:.0f} → {after:.0f}"
    if kind == "assistants":
        return f"Assistants {subject} {before:.0f} → {after:.0f}"
    if kind == "reputation":
        return f"Reputation tiles {before:.0f} → {after:.0f}"
    if kind == "place":
        if after == GAL_KO:
            return "Your gallerist is kicked out (it waits on the kicked-out space)"
        if after == GAL_HOME:
            return "Your gallerist goes home"
        return f"Your gallerist at {_PLACES[int(after)]}"
    if kind == "event":
        return {"intermediate scoring": "The intermediate scoring pays every player's money "
                                        "and influence bonuses",
                "final scoring": "The game ends: final scoring is done",
                "Lacerda": "Lacerda makes her moves after your turn"}[subject]
    if kind == "scoring":
        return (f"Final scoring as it stands, {SCORING_WORDS[subject]}: "
                f"{_money(before)} → {_money(after)} ({_signed(d, True)})")
    raise ValueError(f"unknown kind {kind!r}")


def _reasons(q0: dict[tuple[str, str], float], q1: dict[tuple[str, str], float],
             state: GameState, seat: int, kinds: set[str] | None, exclude: set[str]) -> list[Reason]:
    out = []
    for key, after in q1.items():
        kind, subject = key
        before = q0[key]
        if before == after or kind in exclude or (kinds is not None and kind not in kinds):
            continue
        words = _words(kind, subject, before, after, state, seat)
        if kind == "event":     # it happens in the line: 0 before, 1 after
            before, after = 0, 1
        out.append(Reason(kind, subject, float(before), float(after), words))
    return out


def line_effects(state: GameState, line: Sequence[int], seat: int) -> list[Reason]:
    """What `line` (played from `state`) changes for `seat` now, final scoring apart:
    one Reason per quantity that differs, in a fixed order (money first)."""
    view = state.view(seat)
    end = play_line(view, line)
    return _reasons(quantities(view, seat), quantities(end, seat), end, seat, None, {"scoring"})


def scoring_changes(state: GameState, line: Sequence[int], seat: int) -> list[Reason]:
    """How `line` changes `seat`'s final scoring as it would stand if the game ended
    after it, step by step (steps that do not change are left out)."""
    view = state.view(seat)
    end = play_line(view, line)
    return _reasons(quantities(view, seat), quantities(end, seat), end, seat, {"scoring"}, set())


#: How much a unit of each kind weighs when the largest differences between two lines
#: are chosen (only to order them; no weight is ever shown as an amount).
_WEIGHT = {"event": 100.0, "money": 1.0, "scoring": 1.0, "influence": 0.5, "fame": 1.0, "gallery": 6.0,
           "sold": 6.0, "contract": 4.0, "visitors": 2.0, "tickets": 1.0, "assistants": 2.0,
           "reputation": 5.0, "place": 3.0}


def compare_lines(state: GameState, line: Sequence[int], other: Sequence[int], seat: int,
                  *, top: int = 3) -> list[Reason]:
    """The `top` quantities that differ most for `seat` between the end of `line` and the
    end of `other` (both played from `state`): each Reason's `before` is the amount after
    `other`, its `after` the amount after `line`. The free locations count too: a place
    one line leaves to the next player and the other takes."""
    view = state.view(seat)
    end, alt = play_line(view, line), play_line(view, other)
    q1, q0 = quantities(end, seat), quantities(alt, seat)
    diffs = []
    for key, a in q1.items():
        kind, subject = key
        b = q0[key]
        if a == b or kind in ("fame", "event"):   # public; their money shows elsewhere
            continue
        if kind == "place":
            words = (f"Your gallerist ends at {_PLACES[int(a)]}, not {_PLACES[int(b)]}")
        else:
            words = _compare_words(kind, subject, b, a)
        reason = Reason(kind, subject, float(b), float(a), words)
        diffs.append((importance(reason), reason))
    diffs.extend(_free_places(end, alt, seat))
    diffs.sort(key=lambda x: -x[0])
    return [r for _, r in diffs[:top]]


def _compare_words(kind: str, subject: str, other: float, this: float) -> str:
    d = this - other
    if kind in ("money", "scoring"):
        what = "Money" if kind == "money" else (
            f"Final scoring as it stands, {SCORING_WORDS[subject]}")
        return f"{what}: {_money(this)} against {_money(other)} ({_signed(d, True)})"
    names = {"influence": "Influence", "gallery": f"Works by the {subject} in your gallery",
             "sold": f"Sold {subject} works", "contract": f"Contracts {subject}",
             "visitors": f"{_cap(subject)}",
             "tickets": f"{_cap(subject)} tickets", "assistants": f"Assistants {subject}",
             "reputation": "Reputation tiles"}
    return f"{names[kind]}: {this:.0f} against {other:.0f} ({_signed(d)})"


def _next_seat(state: GameState, seat: int) -> int | None:
    """The seat that plays after `seat` in turn order (None solo)."""
    n = state.num_players
    return None if n == 1 else (seat + 1) % n


def _free_places(end: GameState, alt: GameState, seat: int) -> list[tuple[float, Reason]]:
    """A location one line leaves free and the other fills, worded for the next seat."""
    free_end = {i for i, o in enumerate(end._raw()["loc_owner"]) if o < 0}
    free_alt = {i for i, o in enumerate(alt._raw()["loc_owner"]) if o < 0}
    out = []
    for loc in sorted(free_end ^ free_alt):
        leaves = loc in free_end
        nxt = _next_seat(end, seat)
        who = f"P{nxt}, who plays next" if nxt is not None else "Lacerda"
        words = (f"Leaves {W.location(loc)} free for {who}" if leaves
                 else f"Takes {W.location(loc)}, which the other move leaves free for {who}")
        out.append((_WEIGHT["place"], Reason("place", N.LOCATION_NAMES[loc],
                                             float(loc in free_alt), float(leaves), words)))
    return out

