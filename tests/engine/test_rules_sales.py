"""Sales Office: sign a contract (R-CON-1, RN §4.1) and sell a work (R-CON-2, RN §4.2)."""
import pytest
from helpers import (A, COL, CS_FACE_UP, CS_INFLUENCE, CS_MONEY, VIP, act, build, chance,
                     clean_raw, discover, give_contract, give_visitors, give_work, legal,
                     player, set_piles, top)

# contract ids: 5 * form + kind (kind 0 sign, 1 assistant, 2 bag visitor, 3 plaza VIP/inv,
# 4 money (painting, photo) / influence (sculpture, digital))


def _sign(raw):
    s = build(raw)
    act(s, "move:SO")
    assert top(s) == "T_DEAL4"          # sign is the only action: chosen automatically
    return s


# ------------------------------------------------------------------ sign

def test_R_CON_1_sign_into_empty_slot_gives_slot_ticket_and_refills_pile():
    raw = clean_raw(2)
    s = _sign(raw)
    assert legal(s) == {"deal4:no", "deal4:yes"}
    act(s, "deal4:no")
    assert legal(s) == {"pile:1", "pile:2", "pile:3", "pile:4"}
    act(s, "pile:2")                                    # card 5: sculpture-sign
    assert legal(s) == {"contract-slot:1", "contract-slot:2", "contract-slot:3"}
    act(s, "contract-slot:1")                           # slot 1: investor ticket
    r = s._raw()
    assert r["players"][0]["contract"] == [5, -1, -1]
    assert r["players"][0]["contract_state"][0] == CS_FACE_UP
    assert r["players"][0]["tickets"] == [0, 1, 0]
    assert r["box"] == [10, 9, 10]
    # the emptied pile is refilled from the deck (16 cards, uniform)
    out = chance(s)
    assert len(out) == 16 and all(p == pytest.approx(1 / 16) for p in out.values())
    assert "chance:contract:painting-assistant" in out
    act(s, "chance:contract:painting-assistant")
    r = s._raw()
    assert r["pile_len"] == [1, 1, 1, 1] and r["pile"][1][0] == 1
    assert not r["deck_mask"] >> 1 & 1


@pytest.mark.parametrize("slot,ticket", [(2, [1, 0, 0]), (3, None)])
def test_R_CON_1_slot_tickets(slot, ticket):
    raw = clean_raw(2)
    s = _sign(raw)
    act(s, "deal4:no", "pile:1", f"contract-slot:{slot}")
    if ticket is None:                                  # slot 3: a ticket of any colour
        assert legal(s) == {"ticket:vip", "ticket:investor", "ticket:collector"}
        act(s, "ticket:collector")
        ticket = [0, 0, 1]
    assert player(s, 0)["tickets"] == ticket


def test_R_CON_1_cover_face_down_contract_no_ticket_assistant_home():
    raw = clean_raw(2)
    give_contract(raw, 0, 0, 2, state=CS_MONEY, assistant=True)
    give_contract(raw, 0, 1, 3)                         # face up: never covered
    give_contract(raw, 0, 2, 4)
    assert raw["players"][0]["desks"] == 1
    s = _sign(raw)
    act(s, "deal4:no", "pile:3")                        # card 10
    r = s._raw()
    # slot 1 was the only one allowed: taken automatically
    assert r["players"][0]["contract"] == [10, 3, 4]
    assert r["players"][0]["contract_state"] == [CS_FACE_UP] * 3
    assert r["players"][0]["contract_asst"] == [0, 0, 0]
    assert r["players"][0]["desks"] == 2                # the assistant went home
    assert r["players"][0]["tickets"] == [0, 0, 0]      # covering gives nothing


def test_R_CON_1_sign_needs_a_free_or_completed_slot():
    raw = clean_raw(2)
    for k, card in enumerate((2, 3, 4)):
        give_contract(raw, 0, k, card)
    s = build(raw)
    assert "move:SO" not in legal(s)                    # no slot, no sale: nothing to do


def test_R_CON_1_deal4_puts_one_card_on_each_pile():
    raw = clean_raw(2)
    s = _sign(raw)
    act(s, "deal4:yes")
    for pile, card in enumerate(["painting-assistant", "sculpture-assistant",
                                 "photo-assistant", "digital-assistant"]):
        assert s.is_chance()
        assert len(chance(s)) == 16 - pile
        act(s, f"chance:contract:{card}")
    r = s._raw()
    assert r["pile_len"] == [2, 2, 2, 2]
    assert [r["pile"][i][:2] for i in range(4)] == [[0, 1], [5, 6], [10, 11], [15, 16]]
    assert legal(s) == {"pile:1", "pile:2", "pile:3", "pile:4"}
    act(s, "pile:1", "contract-slot:3", "ticket:vip")
    r = s._raw()
    assert r["players"][0]["contract"][2] == 1
    assert r["pile_len"][0] == 1 and r["pile"][0][0] == 0   # the old card shows again
    assert not s.is_chance()                                # no refill needed


def test_R_CON_1_deck_reshuffle_when_empty():
    raw = clean_raw(2)
    give_contract(raw, 1, 0, 3)
    give_contract(raw, 1, 1, 4)
    set_piles(raw, [[0], [5], [10], [15]], deck=[1, 2])  # everything else was discarded
    s = _sign(raw)
    act(s, "deal4:yes")
    assert set(chance(s)) == {"chance:contract:painting-assistant",
                              "chance:contract:painting-bag-visitor"}
    act(s, "chance:contract:painting-assistant")        # the last card is dealt by itself
    # the deck is empty: every contract neither on a board nor on top of a pile
    out = chance(s)
    expect = sorted(set(range(20)) - {1, 2, 10, 15, 3, 4})
    from gallerist.engine.names import contract_name
    assert set(out) == {f"chance:contract:{contract_name(c)}" for c in expect}
    assert all(p == pytest.approx(1 / 14) for p in out.values())
    r = s._raw()
    assert r["pile_len"] == [1, 1, 1, 1]                # piles reduced to their top cards
    assert [r["pile"][i][0] for i in range(4)] == [1, 2, 10, 15]


def test_R_CON_1_pile_refill_reshuffles_an_empty_deck():
    raw = clean_raw(2)
    set_piles(raw, [[0], [5], [10], [15]], deck=[])
    s = _sign(raw)
    act(s, "deal4:no", "pile:1", "contract-slot:1")
    out = chance(s)
    assert len(out) == 16                               # 20 - 3 tops - the card taken
    assert "chance:contract:painting-sign" not in out


# ------------------------------------------------------------------ sell

def _sell_position(gallery=(1, 1, 1)):
    raw = clean_raw(2)
    discover(raw, A["photo-blue"], fame=9)              # L template: fame 8-10 -> $11
    give_work(raw, 0, A["photo-blue"])
    give_contract(raw, 0, 1, 10, assistant=True)        # photo-sign, assistant on it
    give_visitors(raw, "gallery", gallery)
    return raw


@pytest.mark.parametrize("visitor,side", [("vip", CS_INFLUENCE), ("investor", CS_MONEY)])
def test_R_CON_2_sell_value_token_visitor_and_side(visitor, side):
    s = build(_sell_position())
    act(s, "move:SO", "action:B")                       # one pair: chosen automatically
    assert top(s) == "T_GALLERY_OUT"
    assert legal(s) == {"visitor:vip", "visitor:investor", "visitor:collector"}
    act(s, f"visitor:{visitor}")
    r = s._raw()
    p0 = r["players"][0]
    assert p0["money"] == 10 + 11
    assert p0["nworks"] == 0 and p0["works"] == [-1] * 4
    assert p0["sold"] == [0, 0, 1, 0] and p0["acquired"] == [0, 0, 1, 0]
    assert r["ar_tokens"][A["photo-blue"]] == 2         # the token went back
    assert p0["contract_state"][1] == side
    assert p0["contract_asst"] == [0, 0, 0] and p0["desks"] == 2   # assistant home
    i = ["vip", "investor", "collector"].index(visitor)
    assert r["plaza"][i] == 1 and p0["gallery"][i] == 0


@pytest.mark.parametrize("gallery", [(0, 0, 1), (0, 0, 0)])
def test_R_CON_2_collector_or_no_visitor_lets_the_player_choose_the_side(gallery):
    s = build(_sell_position(gallery))
    act(s, "move:SO", "action:B")
    assert top(s) == "T_ORIENT"                         # the collector left automatically
    assert legal(s) == {"orient:money", "orient:influence"}
    act(s, "orient:influence")
    r = s._raw()
    assert r["players"][0]["contract_state"][1] == CS_INFLUENCE
    assert r["players"][0]["gallery"] == [0, 0, 0]
    assert r["plaza"][COL] == gallery[COL]


def test_RN_4_2_works_slide_left_and_choice_of_work_and_contract():
    raw = clean_raw(2)
    for a in (A["sculpture-blue"], A["photo-blue"]):
        discover(raw, a)
    give_work(raw, 0, A["painting-blue"])
    give_work(raw, 0, A["photo-blue"])
    give_work(raw, 0, A["sculpture-blue"])
    give_contract(raw, 0, 0, 14)                        # photo-money
    give_contract(raw, 0, 2, 12)                        # photo-bag-visitor
    give_contract(raw, 0, 1, 3, state=CS_MONEY)         # face down: not usable
    s = build(raw)
    act(s, "move:SO", "action:B")
    assert legal(s) == {"sell:work2/contract1", "sell:work2/contract3"}
    act(s, "sell:work2/contract3", "orient:money")
    p0 = player(s, 0)
    assert p0["works"] == [A["painting-blue"], A["sculpture-blue"], -1, -1]
    assert p0["contract_state"] == [CS_FACE_UP, CS_MONEY, CS_MONEY]
    assert p0["money"] == 10 + 0                         # photo-blue at fame 1: $0


def test_RN_4_2_sale_raises_the_collector_limit():
    raw = _sell_position((1, 0, 1))
    give_visitors(raw, "lobby", [0, 0, 1])
    give_visitors(raw, "plaza", [1, 0, 1])
    raw["box"][COL] -= 2
    raw["players"][0]["tickets"][COL] = 2
    raw["box"][VIP] -= 1
    raw["players"][0]["tickets"][VIP] = 1
    s = build(raw)
    act(s, "ea:tickets")
    assert legal(s) == {"tmove:collector:plaza>lobby", "tmove:vip:plaza>lobby"}   # 1 = 1 + 0
    assert s.undo() == s.string_to_action("ea:tickets")
    act(s, "move:SO", "action:B", "visitor:vip")
    act(s, "ea:tickets")
    assert "tmove:collector:lobby>gallery" in legal(s)       # limit now 2
    act(s, "tmove:collector:lobby>gallery")
    assert player(s, 0)["gallery"] == [0, 0, 2]


def test_R_CON_2_masterpiece_sells_for_20():
    raw = _sell_position()
    raw["ar_fame"][A["photo-blue"]] = 19
    s = build(raw)
    act(s, "move:SO", "action:B", "visitor:vip")
    assert player(s, 0)["money"] == 30
