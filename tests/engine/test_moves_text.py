"""engine.describe_move / describe_moves: every legal move (and chance outcome) in words,
over seeded random games of 1 to 4 players, and a few positions built by hand."""
from __future__ import annotations

import random
import re
from collections.abc import Callable

import pytest
from helpers import (A, AC, ASSISTANT, MC, SO, act, build, clean_raw, discover, give_contract,
                     give_visitors, give_work, place_assistant, place_gallerist, play_random,
                     set_tasks, task)

from gallerist import engine
from gallerist.engine import moves_words as W
from gallerist.engine import names as N
from gallerist.engine.actions import (_DECISION_TEXT, NOTATION, action_to_string,
                                      decision_kind)
from gallerist.engine.state import ACTION_BASES, AUCTION_COST, MARKET_ROW_FORM

B = ACTION_BASES
KINDS = {name[2:].lower().replace("_", "-") for name in _DECISION_TEXT}
#: Notation prefixes ("ko:", "tmove:", "move:"...) that a description must never contain.
CODES = sorted({n.split(":")[0] + ":" for n in NOTATION if ":" in n})


def _walk(check: Callable[[engine.GameState], None], games: int = 3) -> set[str]:
    """Random games of 1 to 4 players (random moves and chance outcomes, seeded), calling
    `check` at every position before the end; returns the decision kinds met."""
    seen = set()
    for n in (1, 2, 3, 4):
        for g in range(games):
            rng = random.Random(1000 * n + g)
            s = engine.new_game(n, seed=1000 * n + g)
            while not s.is_terminal():
                seen.add(decision_kind(s))
                check(s)
                if s.is_chance():
                    s.apply_random_chance(rng.getrandbits(63))
                else:
                    s.apply(rng.choice(s.legal_actions()))
    return seen


def test_every_legal_move_of_every_decision_kind_has_its_own_description() -> None:
    """At every position of random games reaching every decision kind, every legal move
    and chance outcome has a description: one non-empty line in sentence case without
    a trailing period or any engine notation ("ko:", "tmove:"...), and the moves of one
    position all read differently; describe_move agrees with describe_moves."""
    def check(s: engine.GameState) -> None:
        texts = engine.describe_moves(s)
        options = ([a for a, _ in s.chance_outcomes()] if s.is_chance() else s.legal_actions())
        assert list(texts) == options
        assert len(set(texts.values())) == len(texts), texts
        for a, text in texts.items():
            assert text and "\n" not in text and text == text.strip(), (a, text)
            assert text[0] == text[0].upper() and not text.endswith("."), text
            assert not any(re.search(rf"\b{re.escape(code)}\S", text) for code in CODES), text
        a = options[len(options) // 2]
        assert engine.describe_move(s, a) == texts[a]

    assert _walk(check) >= KINDS, KINDS - _walk(check)


def _names_its_object(s: engine.GameState, a: int, text: str) -> None:
    """The thing an action acts on is named in its description."""
    r = s._raw()
    kind = decision_kind(s)
    low = text.lower()
    if B["start"] <= a < B["ea-tickets"]:
        assert N.LOCATION_NAMES[(a - B["start"]) % 4] in text
    elif B["leave"] <= a < B["action"]:
        assert N.LOCATION_NAMES[a - B["leave"]] in text
    elif B["action"] <= a < B["pass"]:
        assert N.LOCATION_ACTIONS[r["tasks"][-1]["a"]][a - B["action"]] in low
    elif B["ko-action"] <= a < B["artist"]:
        assert N.LOCATION_NAMES[r["ko_loc"]] in text
    elif B["artist"] <= a < B["pay-influence"]:
        assert W.artist(a - B["artist"]) in text   # its colour and art form
    elif B["ea-contract"] <= a < B["leave-none"] or B["contract-slot"] <= a < B["sell"]:
        slot = a - B["ea-contract"] if a < B["leave-none"] else a - B["contract-slot"]
        assert f"slot {slot + 1}" in text
    elif B["pay-influence"] <= a < B["fame"]:
        assert f"${r['tasks'][-1]['a']}" in text
    elif B["ticket"] <= a < B["rep-space"] and kind != "ticket-pair":
        assert W.VISITOR_WORDS[(a - B["ticket"]) % 3].lower() in low
    elif B["rep-space"] <= a < B["deal4-no"]:
        assert f"{N.REP_SPACES[a - B['rep-space']]} space" in text
    elif B["pile"] <= a < B["contract-slot"]:
        assert f"pile {a - B['pile'] + 1}" in text
    elif B["hire"] <= a < B["market"]:
        assert f"hire {a - B['hire'] + 1} assistant" in low
    elif B["market"] <= a < B["from-desk"]:
        row, col = divmod(a - B["market"], 3)
        assert re.search(rf"column {N.COLUMNS[col]}\b", text), text
        row_name = (N.FORMS[MARKET_ROW_FORM[row]] if row < 4
                    else f"${AUCTION_COST[row - 4]} auction")
        assert row_name in text
    elif B["from-location"] <= a < B["from-ko"]:
        assert N.LOCATION_NAMES[a - B["from-location"]] in text
    elif B["ticket-move"] <= a < B["tickets-done"]:
        assert W.VISITOR_WORDS[(a - B["ticket-move"]) // 5] in text
    elif B["chance-visitor"] <= a < B["chance-tile"]:
        assert W.VISITOR_WORDS[a - B["chance-visitor"]].lower() in low
    elif B["chance-tile"] <= a < B["chance-contract"]:
        assert f"tile {a - B['chance-tile'] + 1}" in text
        assert N.FORMS[r["tasks"][-1]["a"]] in text
    elif a >= B["chance-contract"]:
        assert f"{N.FORMS[(a - B['chance-contract']) // 5]} contract" in text


def test_each_description_names_the_thing_it_acts_on() -> None:
    """A location move names the location, an artist choice the artist's colour and art
    form, a market space its row and column, a pile or slot its number, a payment its
    amount, a ticket or visitor its colour, a revealed work its form and tile, a dealt
    contract its art form."""
    def check(s: engine.GameState) -> None:
        for a, text in engine.describe_moves(s).items():
            try:
                _names_its_object(s, a, text)
            except AssertionError as exc:
                raise AssertionError(f"{action_to_string(a)}: {text!r}") from exc

    _walk(check, games=2)


def _card_names(cards: dict) -> list[str]:
    """The ways a player's Curator and Art Dealer cards (its raw player dict) could be
    named in words."""
    c, d = cards["curator"] + 1, cards["dealer"] + 1
    return [f"Curator #{c}", f"Curator {c}", f"C{c}", f"Dealer #{d}", f"Dealer {d}", f"D{d}",
            "Curator", "Dealer"]


def test_a_view_describes_the_same_and_names_no_hidden_card() -> None:
    """A description computed on state.view(seat), which hides the other players'
    Curator and Art Dealer cards, is the description of the full state, and names no
    card at all (so none that view hides)."""
    def check(s: engine.GameState) -> None:
        if s.is_chance() or s.num_players == 1:
            return
        seat = s.current_player
        view = s.view(seat)
        texts = engine.describe_moves(view)
        assert texts == engine.describe_moves(s)
        full, seen = s._raw()["players"], view._raw()["players"]
        for q in range(s.num_players):
            if q == seat:
                continue
            assert seen[q]["curator"] < 0 and seen[q]["dealer"] < 0
            for text in texts.values():
                assert not any(re.search(rf"\b{re.escape(n)}\b", text)
                               for n in _card_names(full[q])), text

    _walk(check, games=1)


def test_an_illegal_move_is_refused_and_the_end_has_no_moves() -> None:
    """describe_move names an action that is not legal in the position (or no action at
    all) as an IllegalActionError; a finished game has no moves to describe."""
    s = engine.new_game(2, seed=4)
    with pytest.raises(engine.IllegalActionError, match="move:AC is not legal here"):
        engine.describe_move(s, s.string_to_action("move:AC"))
    with pytest.raises(engine.IllegalActionError, match="action must be an int"):
        engine.describe_move(s, 999)
    play_random(s, random.Random(4))
    assert engine.describe_moves(s) == {}


# ---------------------------------------------------------------------- positions built by hand

def test_kicked_out_at_the_sales_office() -> None:
    """The kicked-out owner's actions name the action, its location and its price in
    influence (back to the previous fame icon); a pass says where the piece goes."""
    raw = clean_raw(2)
    place_gallerist(raw, 1, SO)
    raw["players"][1]["influence"] = 12
    s = build(raw)
    act(s, "move:SO")
    assert s._raw()["ko_owner"] == 1
    play_random(s, random.Random(1), until=lambda state: decision_kind(state) == "ko")
    texts = {action_to_string(a): t for a, t in engine.describe_moves(s).items()}
    assert texts["ko:A"] == ("Kicked out: sign a contract (Sales Office, first action) "
                             "for 2 influence")
    assert texts["ko:pass"] == "Kicked out: pass, your gallerist goes home"


def test_a_move_says_whom_it_kicks_out() -> None:
    """Moving onto another player's piece names it; onto one's own assistant, it goes
    home (out of the game when every desk is taken)."""
    raw = clean_raw(3)
    place_gallerist(raw, 1, AC)
    place_assistant(raw, 2, MC)
    place_assistant(raw, 0, SO)
    texts = {action_to_string(a): t for a, t in engine.describe_moves(build(raw)).items()}
    assert texts["move:AC"] == ("Move your gallerist to the Artists Colony, kicking out "
                                "P1's gallerist")
    assert texts["move:MC"] == "Move your gallerist to the Media Center, kicking out P2's assistant"
    assert texts["move:SO"] == ("Move your gallerist to the Sales Office, your assistant "
                                "there goes home")
    assert raw["loc_kind"][MC] == ASSISTANT
    pl = raw["players"][0]
    pl["queue"], pl["desks"] = pl["queue"] - (4 - pl["desks"]), 4   # no free desk
    texts = {action_to_string(a): t for a, t in engine.describe_moves(build(raw)).items()}
    assert texts["move:SO"].endswith(", your assistant there leaves the game (desks full)")


def test_a_buy_names_the_artist_price_and_fame() -> None:
    """A buy names the artist, the price (current fame; the initial fame with the
    commission) and the fame the purchase gives (printed fame + 1 per gallery collector);
    a new celebrity is said, with its $5."""
    raw = clean_raw(2)
    discover(raw, A["sculpture-blue"], fame=5)
    discover(raw, A["photo-red"], fame=7, commission_of=0)
    discover(raw, A["digital-blue"], fame=17)
    raw["stack_top"] = [0, 4, 7, 6]   # tiles 5 (+1 fame), 8 (+2) and 7 (+1) on top
    for f in range(4):
        raw["stack_mask"][f] &= ~(1 << raw["stack_top"][f])
    give_visitors(raw, "gallery", [0, 0, 1])          # one collector: +1 fame
    give_work(raw, 0, A["painting-blue"], sold=True)  # room for that collector
    raw["players"][0]["money"] = 30
    place_gallerist(raw, 0, MC)
    s = build(raw)
    act(s, "move:AC", "leave:none")   # action:B is then the only one (a commission)
    texts = {action_to_string(a): t for a, t in engine.describe_moves(s).items()}
    assert texts["artist:sculpture-blue"] == "Buy the blue sculptor's work for $5 (fame 5 → 7)"
    assert texts["artist:photo-red"] == \
        "Buy the red photographer's work with your commission for $5 (fame 7 → 10)"
    assert texts["artist:digital-blue"] == \
        "Buy the blue digital artist's work for $17 (fame 17 → 19, a celebrity: +$5)"


def test_contracts_and_their_bonuses() -> None:
    """Piles name their top contract and its bonus, the slots their ticket, a contract's
    executive action its bonus with the amount it gives now."""
    raw = clean_raw(2)
    give_contract(raw, 0, 0, 4)                        # painting, money bonus
    give_visitors(raw, "gallery", [0, 2, 0])           # money bonus: 2 * 2 investors
    s = build(raw)
    texts = {action_to_string(a): t for a, t in engine.describe_moves(s).items()}
    assert texts["ea:contract1"] == ("Use the bonus of your painting contract in slot 1: "
                                    "money bonus, +$4")
    set_tasks(raw, raw["tasks"] + [task("T_PILE", 0)])
    texts = {action_to_string(a): t for a, t in engine.describe_moves(build(raw)).items()}
    assert texts["pile:2"] == "Take the sculpture contract (sign another contract) from pile 2"
    set_tasks(raw, raw["tasks"][:-1] + [task("T_CONTRACT_SLOT", 0, a=5)])
    texts = {action_to_string(a): t for a, t in engine.describe_moves(build(raw)).items()}
    assert texts == {"contract-slot:2": "Put the sculpture contract in slot 2 (a VIP ticket)",
                     "contract-slot:3": ("Put the sculpture contract in slot 3 (a ticket of "
                                         "any colour)")}


def test_chance_outcomes_are_described() -> None:
    """Bag draws name the visitor and where it goes; a revealed work its form, tile, fame
    and tickets; a dealt contract its pile, art form and bonus."""
    s = engine.new_game(2, seed=5)
    texts: dict[str, str] = {}

    def check(state: engine.GameState) -> None:
        if state.is_chance():
            for a, t in engine.describe_moves(state).items():
                texts.setdefault(action_to_string(a).split(":")[1].rstrip("0123456789"), t)

    rng = random.Random(5)
    while len(texts) < 3 and not s.is_terminal():
        check(s)
        if s.is_chance():
            s.apply_random_chance(rng.getrandbits(63))
        else:
            s.apply(rng.choice(s.legal_actions()))
    assert re.fullmatch(r"An? (VIP|investor|collector) visitor is drawn from the bag.*",
                        texts["visitor"]), texts
    assert re.fullmatch(r"A new \w+ work is revealed: tile \d \(\+\d fame, .*\)",
                        texts["tile"]), texts
    assert texts["contract"].startswith("A contract is dealt onto pile ")
