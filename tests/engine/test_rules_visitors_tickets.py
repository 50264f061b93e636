"""Visitors (R-VIS-1/2/3) and tickets (R-TIX-1)."""
import pytest
from helpers import (A, CK_PLAZA_VIP_INV, act, build, chance, clean_raw, discard_tickets,
                     discover, empty_bag_to_plaza, give_contract, give_tickets,
                     give_visitors, give_work, legal, player, top)


def _visitor_bonus(raw):
    """Discover photo-red, whose bonus tile is 'a visitor from the plaza'."""
    s = build(raw)
    act(s, "move:AC", "action:A", "artist:photo-red")
    return s


# ------------------------------------------------------------------ R-VIS-1

def test_R_VIS_1_choose_among_types_present_in_the_plaza():
    raw = clean_raw(2)
    give_visitors(raw, "plaza", [2, 0, 1])
    s = _visitor_bonus(raw)
    assert not s.is_chance()
    assert legal(s) == {"visitor:vip", "visitor:collector"}


def test_R_VIS_1_bag_draw_when_the_plaza_is_empty():
    raw = clean_raw(2)
    s = _visitor_bonus(raw)
    assert s.is_chance()
    bag = s._raw()["bag"]                               # 10 VIP, 10 investors, 4 collectors
    assert bag == [10, 10, 4]
    assert chance(s) == pytest.approx({"chance:visitor:vip": 10 / 24,
                                       "chance:visitor:investor": 10 / 24,
                                       "chance:visitor:collector": 4 / 24})
    act(s, "chance:visitor:collector")
    r = s._raw()
    assert r["players"][0]["gallery"] == [0, 0, 1] and r["bag"] == [10, 10, 3]
    assert r["plaza"] == [0, 0, 1]                      # photo-red's own collector


def test_R_VIS_1_plaza_collector_at_limit_counts_as_absent():
    raw = clean_raw(2)
    give_visitors(raw, "plaza", [0, 0, 1])
    give_visitors(raw, "gallery", [0, 0, 1])            # at the collector limit
    s = _visitor_bonus(raw)
    assert s.is_chance()                                # drawn from the bag instead
    act(s, "chance:visitor:collector")                  # R-VIS-2: over the limit -> plaza
    r = s._raw()
    assert r["players"][0]["gallery"] == [0, 0, 1]
    assert r["plaza"] == [0, 0, 3]


def test_R_VIS_1_vip_or_investor_from_plaza_falls_back_to_the_bag():
    raw = clean_raw(2)
    give_contract(raw, 0, 0, 5 * 0 + CK_PLAZA_VIP_INV)
    give_visitors(raw, "plaza", [0, 0, 2])
    s = build(raw)
    act(s, "ea:contract1")
    assert s.is_chance()
    act(s, "chance:visitor:collector")                  # not a VIP or investor -> plaza
    r = s._raw()
    assert r["players"][0]["gallery"] == [0, 0, 0] and r["plaza"] == [0, 0, 3]
    s = build(raw)
    act(s, "ea:contract1", "chance:visitor:investor")
    assert player(s, 0)["gallery"] == [0, 1, 0]


def test_R_VIS_1_empty_plaza_and_empty_bag_gives_nothing():
    raw = clean_raw(2)
    empty_bag_to_plaza(raw)
    raw["players"][0]["lobby"] = list(raw["plaza"])
    raw["plaza"] = [0, 0, 0]
    s = _visitor_bonus(raw)
    r = s._raw()
    assert r["players"][0]["gallery"] == [0, 0, 0]
    assert r["plaza"] == [0, 0, 1] and not s.is_chance()


# ------------------------------------------------------------------ R-VIS-2

def test_R_VIS_2_collector_limit_blocks_ticket_move():
    raw = clean_raw(2)
    give_visitors(raw, "gallery", [0, 0, 1])
    give_visitors(raw, "lobby", [1, 0, 1])
    give_tickets(raw, 0, [1, 0, 1])
    s = build(raw)
    act(s, "ea:tickets")                                # only the VIP can go: forced
    r = s._raw()
    assert r["players"][0]["gallery"] == [1, 0, 1] and r["players"][0]["lobby"] == [0, 0, 1]
    assert r["players"][0]["tickets"] == [0, 0, 1]


def test_R_VIS_2_limit_grows_with_works_sold():
    raw = clean_raw(2)
    give_work(raw, 0, A["painting-blue"], sold=True)
    give_work(raw, 0, A["painting-blue"], sold=True)
    give_visitors(raw, "gallery", [0, 0, 2])
    give_visitors(raw, "plaza", [0, 0, 1])
    s = _visitor_bonus(raw)                             # limit 3: the collector may come
    assert not s.is_chance()
    assert player(s, 0)["gallery"] == [0, 0, 3]


def test_R_VIS_2_plaza_choice_excludes_collector_over_limit():
    raw = clean_raw(2)
    give_visitors(raw, "gallery", [0, 0, 1])
    give_visitors(raw, "plaza", [1, 0, 1])
    s = _visitor_bonus(raw)                             # VIP is the only allowed choice
    assert player(s, 0)["gallery"] == [1, 0, 1]


# ------------------------------------------------------------------ R-VIS-3

def test_R_VIS_3_empty_lobby_nothing_leaves():
    raw = clean_raw(2)
    discover(raw, A["sculpture-blue"])
    give_work(raw, 0, A["sculpture-blue"])
    give_work(raw, 0, A["sculpture-blue"])
    raw["players"][0]["start_tile"] = 3
    raw["stack_mask"][0] = 0                            # no refill
    s = build(raw)
    act(s, "move:AC", "action:B", "pay:influence=0", "fame:+0", "rep-space:influence")
    r = s._raw()
    assert r["players"][0]["rep"][0] == 3 and r["plaza"] == [0, 0, 0]
    assert r["turn_player"] == 1


# ------------------------------------------------------------------ R-TIX-1

def _promote_for_ticket(raw):
    """Promote painting-blue to level 1: one ticket of any colour."""
    s = build(raw)
    act(s, "move:MC", "action:B")
    assert top(s) == "T_TICKET_ANY"
    return s


def test_R_TIX_1_shortage_takes_from_discards_and_player_returns_another_colour():
    raw = clean_raw(2)
    give_tickets(raw, 1, [8, 7, 8])
    discard_tickets(raw, [2, 0, 0])                     # box [0, 3, 2], discards [2, 0, 0]
    s = _promote_for_ticket(raw)
    act(s, "ticket:vip")
    assert legal(s) == {"box-discard:investor", "box-discard:collector"}
    act(s, "box-discard:collector")
    r = s._raw()
    assert r["players"][0]["tickets"] == [1, 0, 0]
    assert r["box"] == [0, 3, 1] and r["discards"] == [1, 0, 1]


def test_R_TIX_1_shortage_one_other_colour_left_returned_automatically():
    raw = clean_raw(2)
    give_tickets(raw, 1, [8, 10, 8])
    discard_tickets(raw, [2, 0, 0])                     # box [0, 0, 2]
    s = _promote_for_ticket(raw)
    act(s, "ticket:vip")
    r = s._raw()
    assert r["players"][0]["tickets"] == [1, 0, 0]
    assert r["box"] == [0, 0, 1] and r["discards"] == [1, 0, 1]


def test_R_TIX_1_box_office_empty_takes_from_discards():
    raw = clean_raw(2)
    give_tickets(raw, 1, [8, 10, 9])
    discard_tickets(raw, [2, 0, 1])                     # box empty
    s = _promote_for_ticket(raw)
    assert legal(s) == {"ticket:vip", "ticket:collector"}   # investor is nowhere
    act(s, "ticket:collector")
    r = s._raw()
    assert r["players"][0]["tickets"] == [0, 0, 1]
    assert r["box"] == [0, 0, 0] and r["discards"] == [2, 0, 0]


def test_R_TIX_1_fixed_colour_missing_everywhere_gives_nothing():
    raw = clean_raw(2)
    give_tickets(raw, 1, [10, 0, 0])                    # no VIP anywhere
    raw["players"][0].update(queue=6, desks=2, removed=2)   # next hire: 3rd (VIP ticket)
    s = build(raw)
    act(s, "move:MC", "action:A", "hire:1", "pay:influence=0")
    r = s._raw()
    assert r["players"][0]["tickets"] == [0, 0, 0]
    assert r["box"] == [0, 10, 10]


def test_R_TIX_1_two_tickets_always_two_colours_with_shortage():
    raw = clean_raw(2)
    give_tickets(raw, 1, [8, 0, 0])
    discard_tickets(raw, [2, 0, 0])                     # VIP only in the discards
    discover(raw, A["painting-red"])
    raw["ar_promo"][A["painting-red"]] = 2              # next level 3: two tickets
    raw["ar_discovered"][A["painting-blue"]] = 0
    s = build(raw)
    act(s, "move:MC", "action:B")
    assert legal(s) == {"tickets:vip+investor", "tickets:vip+collector",
                        "tickets:investor+collector"}
    act(s, "tickets:vip+investor", "box-discard:collector")
    r = s._raw()
    assert r["players"][0]["tickets"] == [1, 1, 0]
    assert r["box"] == [0, 9, 9] and r["discards"] == [1, 0, 1]
