"""Media Center (R-HIRE-1, RN §5) and International Market (R-MKT-1, R-VIS-3, RN §6)."""
import pytest
from helpers import (A, CK_ASSISTANT, RS_TICKETS, SO, act, build, clean_raw, discover,
                     give_contract, give_visitors, give_work, legal, market_assistant,
                     place_assistant, player, top)


# ------------------------------------------------------------------ hire (R-HIRE-1)

def test_R_HIRE_1_hire_two_costs_and_bonuses():
    s = build(clean_raw(2))
    act(s, "move:MC")
    assert legal(s) == {"action:A", "action:B"}
    act(s, "action:A")
    assert legal(s) == {"hire:1", "hire:2"}             # two empty desks
    act(s, "hire:2")
    assert legal(s) == {f"pay:influence={k}" for k in range(4)}   # $1 + $2
    act(s, "pay:influence=0")
    p0 = player(s, 0)
    assert p0["money"] == 7
    assert p0["desks"] == 4 and p0["queue"] == 6
    assert p0["tickets"] == [0, 1, 0]                   # 2nd hire: investor ticket


def test_R_HIRE_1_hire_three_later_in_the_queue():
    raw = clean_raw(2)
    p0 = raw["players"][0]
    p0.update(queue=5, desks=1, removed=4)
    give_visitors(raw, "gallery", [1, 0, 1])
    s = build(raw)
    act(s, "move:MC", "action:A")
    # hires 4, 5, 6 cost 3, 3, 4; $10 + 4 influence money steps
    assert legal(s) == {"hire:1", "hire:2", "hire:3"}
    act(s, "hire:3")
    assert legal(s) == {f"pay:influence={k}" for k in range(5)}
    act(s, "pay:influence=2")                           # 10 -> 8 -> 4
    assert top(s) == "T_TICKET_ANY"                     # 6th hire: any ticket
    act(s, "ticket:investor")
    p0 = player(s, 0)
    assert p0["money"] == 10 - 8
    assert p0["influence"] == 4 + 3                     # 4th hire: influence bonus 2*1 + 1
    assert p0["tickets"] == [0, 1, 0]
    assert p0["desks"] == 4 and p0["queue"] == 2


def test_R_HIRE_1_hire_limited_by_money():
    raw = clean_raw(2)
    raw["players"][0].update(money=2, influence=0)
    s = build(raw)
    act(s, "move:MC")                  # hire only; 1 + 2 = 3 > 2: one hire, all forced
    p0 = player(s, 0)
    assert p0["money"] == 1 and p0["desks"] == 3 and p0["queue"] == 7
    assert s.turn_player == 1


def test_R_HIRE_1_free_hire_lost_without_an_empty_desk():
    raw = clean_raw(2)
    raw["players"][0].update(desks=4, queue=6)
    place_assistant(raw, 0, SO)                         # from a desk
    raw["players"][0].update(desks=4, queue=5)          # 4 desks full again
    give_contract(raw, 0, 0, 5 * 0 + CK_ASSISTANT)
    s = build(raw)
    act(s, "ea:contract1")
    assert legal(s) == {"from:desk", "from:SO"}
    act(s, "from:SO")
    p0 = player(s, 0)
    assert p0["contract_asst"] == [1, 0, 0]
    assert p0["desks"] == 4 and p0["queue"] == 5        # no desk: the free assistant is lost
    assert p0["tickets"] == [0, 0, 0]


def test_R_HIRE_1_free_hire_takes_next_queue_assistant_with_its_bonus():
    raw = clean_raw(2)
    raw["players"][0].update(queue=6, desks=2, removed=2)   # next: the 3rd hire (VIP ticket)
    give_contract(raw, 0, 0, 5 * 1 + CK_ASSISTANT)
    s = build(raw)
    act(s, "ea:contract1")                              # from a desk: the only source
    p0 = player(s, 0)
    assert p0["queue"] == 5 and p0["desks"] == 2        # one to the card, one hired
    assert p0["money"] == 10                            # no cost
    assert p0["tickets"] == [1, 0, 0]


# ------------------------------------------------------------------ promote (RN §5.2)

def test_RN_5_2_promote_cost_token_bonus_fame():
    raw = clean_raw(2)
    give_visitors(raw, "gallery", [0, 0, 1])
    s = build(raw)
    act(s, "move:MC", "action:B")                       # painting-blue: the only artist
    assert top(s) == "T_TICKET_ANY"                     # level 1 bonus: one ticket
    r = s._raw()
    assert r["players"][0]["influence"] == 9            # cost = new level
    assert r["ar_promo"][A["painting-blue"]] == 1
    assert r["promo_stock"][1] == 3
    act(s, "ticket:vip")
    assert legal(s) == {"fame:+0", "fame:+1", "fame:+2"}
    act(s, "fame:+1")
    r = s._raw()
    assert r["ar_fame"][A["painting-blue"]] == 3 + 1 + 1 + 1
    assert r["players"][0]["influence"] == 5
    assert r["players"][0]["tickets"] == [1, 0, 0]


def test_RN_5_2_promote_returns_old_token_and_pays_money_bonus():
    raw = clean_raw(2)
    raw["ar_discovered"][A["painting-blue"]] = 0
    discover(raw, A["painting-red"])                    # printed level 2
    raw["ar_promo"][A["painting-red"]] = 3              # promoted once: a level-3 token
    raw["promo_stock"][3] = 3
    give_visitors(raw, "gallery", [0, 2, 1])
    s = build(raw)
    act(s, "move:MC", "action:B", "fame:+0")
    r = s._raw()
    assert r["promo_stock"][3] == 4 and r["promo_stock"][4] == 3
    assert r["ar_promo"][A["painting-red"]] == 4
    assert r["players"][0]["influence"] == 6
    assert r["players"][0]["money"] == 10 + 5
    assert r["ar_fame"][A["painting-red"]] == 7 + 1 + 1


def test_RN_5_2_printed_level_has_no_token_to_return():
    raw = clean_raw(2)
    raw["ar_discovered"][A["painting-blue"]] = 0
    discover(raw, A["painting-red"])                    # printed level 2
    s = build(raw)
    act(s, "move:MC", "action:B", "tickets:vip+investor", "fame:+0")
    r = s._raw()
    assert r["promo_stock"] == [0, 4, 4, 3, 4, 4]


@pytest.mark.parametrize("change", ["no token", "no influence", "level 5"])
def test_RN_5_2_promote_not_possible(change):
    raw = clean_raw(2)
    if change == "no token":
        raw["promo_stock"][1] = 0
    elif change == "no influence":
        raw["players"][0]["influence"] = 0
    else:
        raw["ar_promo"][A["painting-blue"]] = 5
        raw["promo_stock"][5] = 3
    s = build(raw)
    act(s, "move:MC")                                   # hire only
    assert top(s) == "T_HIRE"


def test_R_ART_3_celebrity_promoted_bonus_but_no_fame():
    raw = clean_raw(2)
    raw["ar_fame"][A["painting-blue"]] = 19
    raw["ar_promo"][A["painting-blue"]] = 1
    raw["promo_stock"][1] = 3
    give_visitors(raw, "gallery", [2, 0, 0])
    s = build(raw)
    act(s, "move:MC", "action:B")
    r = s._raw()
    assert r["ar_fame"][A["painting-blue"]] == 19
    assert r["players"][0]["influence"] == 10 - 2 + 4    # cost 2, influence bonus 2*2
    assert r["players"][0]["money"] == 10                # no second celebrity $5
    assert r["turn_player"] == 1                         # nothing else to decide


def test_RN_5_2_level_5_visitor_bonus():
    raw = clean_raw(2)
    raw["ar_promo"][A["painting-blue"]] = 4
    raw["promo_stock"][4] = 3
    give_visitors(raw, "plaza", [0, 1, 0])
    s = build(raw)
    act(s, "move:MC", "action:B", "fame:+0")
    r = s._raw()
    assert r["players"][0]["gallery"] == [0, 1, 0]
    assert r["players"][0]["influence"] == 5
    assert r["promo_stock"][4:] == [4, 3]


# ------------------------------------------------------------------ market: reputation

def _market(n=2, lobby=(1, 0, 0), acquired=True):
    raw = clean_raw(n)
    give_visitors(raw, "lobby", lobby)
    if acquired:
        give_work(raw, 0, A["painting-blue"], sold=True)
    return raw


def test_RN_6_4_reputation_tile_influence_space_bonus_lobby_visitor_out():
    raw = _market()
    s = build(raw)
    act(s, "move:IM")
    assert legal(s) == {"action:A", "action:B"}
    act(s, "action:A")                                  # one tile, one assistant: automatic
    r = s._raw()
    assert r["mk_asst"][3][0] == 0 and r["mk_tile"][3][0] == -1
    assert r["players"][0]["desks"] == 1
    assert r["players"][0]["influence"] == 13           # column I: +3
    assert top(s) == "T_REP_SPACE"
    act(s, "rep-space:tickets", "tickets:vip+investor")
    r = s._raw()
    p0 = r["players"][0]
    assert p0["rep"][RS_TICKETS] == 6
    assert p0["tickets"] == [1, 1, 0]
    assert p0["lobby"] == [0, 0, 0] and r["plaza"] == [1, 0, 0]   # R-VIS-3


def test_R_MKT_1_reputation_row_needs_that_art_form_acquired():
    raw = _market(acquired=False)
    raw["players"][0]["money"] = 0
    raw["players"][0]["influence"] = 0
    s = build(raw)
    assert "move:IM" not in legal(s)
    raw = _market(acquired=False)
    give_work(raw, 0, A["painting-blue"])               # exhibited painting
    discover(raw, A["photo-blue"])
    give_work(raw, 0, A["photo-blue"], sold=True)       # a photo, sold since
    s = build(raw)
    act(s, "move:IM", "action:A")
    assert legal(s) == {"market:rep-painting-I", "market:rep-photo-I"}


@pytest.mark.parametrize("n,lobby,cols", [
    (3, (1, 0, 0), {"I"}),
    (3, (1, 1, 0), {"I", "II"}),
    (3, (0, 1, 1), {"I", "III"}),
    (3, (1, 0, 1), {"I", "III"}),
    (3, (0, 0, 1), {"I"}),
    (3, (1, 1, 1), {"I", "II", "III"}),
    (2, (1, 1, 1), {"I", "III"}),                        # 2 players: middle column unused
])
def test_R_MKT_1_column_access_by_lobby_visitors(n, lobby, cols):
    raw = _market(n, lobby)
    raw["players"][0]["money"] = 20
    s = build(raw)
    act(s, "move:IM", "action:B")
    assert legal(s) == {f"market:auction-${c}-{col}" for c in (1, 3, 6) for col in cols}
    s = build(raw)
    act(s, "move:IM", "action:A")
    got = legal(s) if top(s) == "T_MARKET" else {"market:rep-painting-I"}
    assert got == {f"market:rep-painting-{col}" for col in cols}


def test_R_MKT_1_reputation_needs_an_empty_board_space():
    raw = _market()
    raw["players"][0]["rep"] = [12, 13, 14, 15, 16, 17]
    raw["mk_tile"] = [[0, -1, 1], [2, -1, 3], [4, -1, 5], [6, -1, 7]]
    s = build(raw)
    act(s, "move:IM")
    assert top(s) == "T_MARKET" and s._raw()["tasks"][-1]["a"] == 1   # auction only


def test_R_MKT_1_assistant_from_a_location():
    raw = _market()
    place_assistant(raw, 0, SO)
    s = build(raw)
    act(s, "move:IM", "action:A")
    assert legal(s) == {"from:desk", "from:SO"}
    act(s, "from:SO")
    r = s._raw()
    assert r["loc_owner"][SO] == -1 and r["players"][0]["desks"] == 1


def test_R_MKT_1_no_assistant_no_market_action():
    raw = _market()
    raw["players"][0].update(desks=0, queue=10)
    s = build(raw)
    assert "move:IM" not in legal(s)


# ------------------------------------------------------------------ market: auction

def test_RN_6_5_auction_3_column_I_cost_influence_free_assistant():
    raw = _market(3, (1, 0, 0))
    raw["players"][0].update(queue=7, desks=3)
    s = build(raw)
    act(s, "move:IM", "action:B")
    assert legal(s) == {"market:auction-$1-I", "market:auction-$3-I", "market:auction-$6-I"}
    act(s, "market:auction-$3-I", "pay:influence=0")
    r = s._raw()
    p0 = r["players"][0]
    assert r["mk_asst"][5][0] == 0
    assert p0["money"] == 7 and p0["influence"] == 13
    assert p0["queue"] == 6 and p0["desks"] == 3        # one placed, one hired free
    assert p0["tickets"] == [0, 1, 0]                   # the 2nd hire's bonus
    assert p0["lobby"] == [1, 0, 0]                     # no lobby visitor leaves


def test_RN_6_5_auction_6_column_III_influence_bonus():
    raw = _market(3, (0, 1, 1))
    give_visitors(raw, "gallery", [1, 0, 1])
    s = build(raw)
    act(s, "move:IM", "action:B", "market:auction-$6-III", "pay:influence=1")
    p0 = player(s, 0)
    assert p0["money"] == 10 - 5
    assert p0["influence"] == 8 + 1 + 3                 # 10 -> 8, column III +1, bonus 2+1


def test_RN_6_5_auction_paid_with_influence_only():
    raw = _market(2, (1, 0, 0))
    raw["players"][0]["money"] = 0
    s = build(raw)
    act(s, "move:IM", "action:B")
    assert legal(s) == {"market:auction-$1-I", "market:auction-$3-I"}
    act(s, "market:auction-$1-I")                       # pay 1 from influence: forced
    assert top(s) == "T_TICKET_ANY"
    act(s, "ticket:collector")
    p0 = player(s, 0)
    assert p0["money"] == 0 and p0["influence"] == 8 + 3
    assert p0["tickets"] == [0, 0, 1]


def test_RN_6_5_occupied_auction_space_not_offered():
    raw = _market(2, (1, 0, 0))
    market_assistant(raw, 1, 4, 0)
    s = build(raw)
    act(s, "move:IM", "action:B")
    assert legal(s) == {"market:auction-$3-I", "market:auction-$6-I"}


# ------------------------------------------------------------------ every space's bonus

@pytest.mark.parametrize("space,extra,expect", [
    ("influence", [], dict(influence=13 + 1)),          # 2 per VIP + 1 per collector
    ("money", [], dict(money=10 + 3)),
    ("fame", ["fame:+0"], dict(fame=3 + 1)),
    ("visitor", [], dict(gallery=[0, 2, 1])),
    ("tickets", ["tickets:investor+collector"], dict(tickets=[0, 1, 1])),
    ("assistant", [], dict(desks=2, queue=7)),
])
def test_C7_reputation_space_bonuses(space, extra, expect):
    raw = _market()
    give_visitors(raw, "gallery", [0, 1, 1])
    give_visitors(raw, "plaza", [0, 1, 0])
    s = build(raw)
    act(s, "move:IM", "action:A", f"rep-space:{space}", *extra)
    r = s._raw()
    p0 = r["players"][0]
    got = dict(influence=p0["influence"], money=p0["money"], gallery=p0["gallery"],
               tickets=p0["tickets"], desks=p0["desks"], queue=p0["queue"],
               fame=r["ar_fame"][A["painting-blue"]])
    base = dict(influence=13, money=10, gallery=[0, 1, 1], tickets=[0, 0, 0], desks=1,
                queue=8, fame=3)
    base.update(expect)
    assert got == base
    assert p0["rep"][["influence", "money", "fame", "visitor", "tickets",
                      "assistant"].index(space)] == 6


@pytest.mark.parametrize("row,col,extra,expect", [
    (1, "I", ["ticket:vip"], dict(money=19, influence=13, tickets=[1, 0, 0])),
    (1, "II", [], dict(money=19, influence=12, desks=2, queue=7)),
    (1, "III", ["tickets:vip+investor"], dict(money=19, influence=11, tickets=[1, 1, 0])),
    (3, "I", [], dict(money=17, influence=13, desks=2, queue=7)),
    (3, "II", [], dict(money=17, influence=12 + 3)),
    (3, "III", [], dict(money=17 + 3, influence=11)),
    (6, "I", [], dict(money=14, influence=13, gallery=[2, 1, 1])),
    (6, "II", [], dict(money=14 + 3, influence=12)),
    (6, "III", [], dict(money=14, influence=11 + 3)),
])
def test_C10_auction_spaces_cost_influence_and_bonus(row, col, extra, expect):
    raw = _market(3, (1, 1, 1))
    raw["players"][0]["money"] = 20
    give_visitors(raw, "gallery", [1, 1, 1])
    give_visitors(raw, "plaza", [1, 0, 0])
    s = build(raw)
    act(s, "move:IM", "action:B", f"market:auction-${row}-{col}", "pay:influence=0", *extra)
    r = s._raw()
    p0 = r["players"][0]
    got = dict(influence=p0["influence"], money=p0["money"], gallery=p0["gallery"],
               tickets=p0["tickets"], desks=p0["desks"], queue=p0["queue"])
    base = dict(gallery=[1, 1, 1], tickets=[0, 0, 0], desks=1, queue=8)
    base.update(expect)
    assert got == base
    assert r["mk_asst"][4 + (1, 3, 6).index(row)][("I", "II", "III").index(col)] == 0
