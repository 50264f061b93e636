"""Intermediate scoring (R-INT-1), the end (R-END-1), final scoring (RN §9, R-DATA-1/2,
R-AUC-1) and the winner (R-END-2)."""
import random

import pytest
from helpers import (A, COL, MC, PAINTING, PHOTO, SCULPTURE, SO, VIP, act, build, clean_raw,
                     discard_tickets, discover, empty_bag_to_plaza, give_tickets,
                     give_visitors, give_work, market_assistant, place_gallerist, player,
                     set_tasks, task, top)

from gallerist.engine.names import SCORING_STEPS

STEPS = SCORING_STEPS + ("total",)


def score_now(raw, last=None):
    """Put the game at the last turn's end (final round, last player) and score it."""
    n = raw["num_players"]
    last = n - 1 if last is None else last
    raw["end_triggered"] = 1
    raw["turns_left"] = 1
    raw["turn_player"] = last
    set_tasks(raw, [task("T_END_TURN", last), task("T_AFTER_ACTION", last)])
    s = build(raw)
    act(s, "end-turn")
    assert s.is_terminal()
    return s


def scores(s, p):
    return dict(zip(STEPS, s._raw()["players"][p]["score"]))


# ------------------------------------------------------------------ R-INT-1

def _int_position():
    raw = clean_raw(2)
    give_tickets(raw, 1, [9, 0, 0])                     # one VIP ticket left in the box
    give_visitors(raw, "gallery", [1, 1, 0], player=0)
    give_visitors(raw, "gallery", [0, 2, 1], player=1)
    return raw


def test_R_INT_1_once_at_end_of_the_turn_money_and_influence_bonus():
    s = build(_int_position())
    act(s, "move:MC", "action:B", "ticket:vip")          # promote: the last VIP ticket
    r = s._raw()
    assert r["box"][VIP] == 0
    assert r["players"][0]["money"] == 10 and r["players"][1]["money"] == 10   # not yet
    act(s, "fame:+0")                                    # the turn ends
    r = s._raw()
    assert r["intermediate_done"] == 1
    p0, p1 = r["players"]
    assert (p0["money"], p0["influence"]) == (10 + 2, 9 + 2)
    assert (p1["money"], p1["influence"]) == (10 + 5, 10 + 1)


def test_R_INT_1_only_once():
    raw = _int_position()
    raw["intermediate_done"] = 1
    s = build(raw)
    act(s, "move:MC", "action:B", "ticket:vip", "fame:+0")
    r = s._raw()
    assert r["players"][0]["money"] == 10 and r["players"][1]["money"] == 10


def test_R_INT_1_after_the_kicked_out_action():
    raw = _int_position()
    place_gallerist(raw, 0, SO)
    place_gallerist(raw, 1, MC)
    give_visitors(raw, "lobby", [1, 0, 0], player=1)
    s = build(raw)
    act(s, "move:MC", "leave:none", "action:B", "ticket:vip", "fame:+0", "end-turn")
    assert top(s) == "T_KO" and s._raw()["intermediate_done"] == 0
    act(s, "ea:tickets")                                 # VIP lobby -> gallery (forced)
    r = s._raw()
    assert r["intermediate_done"] == 1
    assert r["players"][1]["gallery"] == [1, 2, 1]
    assert r["players"][1]["influence"] == 10 + 2 + 1    # the VIP moved in counts
    assert r["players"][1]["money"] == 10 + 4 + 1


# ------------------------------------------------------------------ R-END-1

def _turn_starts_until_end(s, seed=0):
    rng = random.Random(seed)
    seen = [s.turn_player]
    last = s._raw()["turn_count"]
    while not s.is_terminal():
        if s.is_chance():
            s.apply_random_chance(rng.getrandbits(63))
        else:
            s.apply(rng.choice(s.legal_actions()))
        assert s._invariant_code() == 0
        r = s._raw()
        if not s.is_terminal() and r["turn_count"] != last:
            last = r["turn_count"]
            seen.append(r["turn_player"])
        if s._raw()["end_triggered"]:
            # R-KO-1: no kicked-out action in the final round
            if top(s) == "T_KO":
                assert r["turns_left"] > r["num_players"]
    return seen


def _two_conditions(raw):
    """Bag empty and box office empty."""
    empty_bag_to_plaza(raw)
    discard_tickets(raw, list(raw["box"]))


@pytest.mark.parametrize("n,trigger,after", [(2, 0, [1, 0, 1]), (2, 1, [0, 1]),
                                             (3, 1, [2, 0, 1, 2]), (4, 0, [1, 2, 3, 0, 1, 2, 3]),
                                             (4, 3, [0, 1, 2, 3])])
def test_R_END_1_finish_the_round_then_one_more_turn_each(n, trigger, after):
    raw = clean_raw(n)
    _two_conditions(raw)
    raw["turn_player"] = trigger
    set_tasks(raw, [task("T_END_TURN", trigger), task("T_AFTER_ACTION", trigger)])
    s = build(raw)
    act(s, "end-turn")
    r = s._raw()
    assert r["end_triggered"] == 1
    assert r["turns_left"] == len(after)
    for seed in range(3):
        assert _turn_starts_until_end(s.copy(), seed) == after


def test_R_END_1_two_celebrities_and_empty_bag():
    raw = clean_raw(2)
    empty_bag_to_plaza(raw)
    discover(raw, A["painting-red"], fame=19)
    raw["ar_fame"][A["painting-blue"]] = 19
    s = build(raw)
    act(s, "move:MC", "action:A", "hire:1", "pay:influence=0")
    assert s._raw()["end_triggered"] == 1


def test_R_END_1_one_condition_is_not_enough():
    raw = clean_raw(2)
    empty_bag_to_plaza(raw)
    s = build(raw)
    act(s, "move:MC", "action:A", "hire:1", "pay:influence=0")
    assert s._raw()["end_triggered"] == 0


# ------------------------------------------------------------------ final scoring

def _full_position():
    raw = clean_raw(3)
    for p in range(3):
        raw["players"][p]["money"] = 0
    # market: p0 2 in column I, 1 in III; p1 2 in I, 1 in II, 1 in III; p2 1 in I, 1 in III
    for p, row, col in [(0, 4, 0), (0, 0, 0), (0, 6, 2), (1, 5, 0), (1, 1, 0), (1, 2, 1),
                        (1, 4, 2), (2, 6, 0), (2, 3, 2)]:
        market_assistant(raw, p, row, col)
    raw["easel"] = [PAINTING, PHOTO, -1]
    discover(raw, A["painting-red"], fame=12)           # H: $14
    discover(raw, A["sculpture-blue"])                  # fame 3, L: $5
    discover(raw, A["sculpture-red"])                   # fame 7, H: $8
    discover(raw, A["photo-blue"], fame=4)              # L: $5
    discover(raw, A["digital-red"], fame=19)            # celebrity: $20
    give_work(raw, 0, A["sculpture-blue"])
    give_work(raw, 0, A["photo-blue"])
    give_work(raw, 0, A["sculpture-blue"], sold=True)
    give_work(raw, 1, A["painting-red"])
    give_work(raw, 1, A["painting-blue"])
    give_work(raw, 1, A["sculpture-red"])
    give_work(raw, 1, A["painting-blue"], sold=True)
    give_work(raw, 2, A["digital-red"])
    give_work(raw, 2, A["digital-red"], sold=True)
    give_visitors(raw, "gallery", [2, 1, 1], player=2)
    p0, p1, p2 = raw["players"]
    p0.update(influence=20, rep=[0, 12, 6, -1, -1, -1], start_tile=5)   # tiles 1, 13, 7
    p1.update(influence=33, rep=[8, 7, -1, -1, -1, -1])                 # tiles 9, 8
    p2.update(influence=5, rep=[4, 19, 5, -1, -1, -1])                  # tiles 5, 20, 6
    return raw


def test_RN_9_final_scoring_every_step_by_hand():
    s = score_now(_full_position())
    assert scores(s, 0) == dict(majorities=14, reputation=18, exhibition=10, auction=14,
                                curator=10, dealer=0, influence=9, total=75)
    assert scores(s, 1) == dict(majorities=24, reputation=10, exhibition=27, auction=0,
                                curator=0, dealer=5, influence=20, total=86)
    assert scores(s, 2) == dict(majorities=11, reputation=12, exhibition=20, auction=5,
                                curator=0, dealer=10, influence=2, total=60)
    assert s.money() == [75, 86, 60]
    r = s._raw()
    assert [pl["influence"] for pl in r["players"]] == [25, 35, 7]
    assert [(pl["auction_work"], pl["auction_as"]) for pl in r["players"]] == \
        [(PAINTING, 0), (-1, 0), (PHOTO, 1)]
    assert s.returns() == [0.0, 1.0, 0.0]
    assert s.final_scores()[1]["total"] == 86


@pytest.mark.parametrize("n,placements,expect", [
    # 2 players: only 1st and 2nd place are paid; a tie shares them
    (2, [(0, 4, 0), (1, 5, 0), (0, 4, 2), (0, 5, 2), (1, 6, 2)], [4 + 15, 4 + 10]),
    (2, [(0, 4, 0), (0, 5, 0)], [6, 0]),
    # 4 players: [2,1,1,1] in I; all tied in II; [0,2,2,0] in III
    (4, [(0, 4, 0), (0, 5, 0), (1, 6, 0), (2, 0, 0), (3, 1, 0),
         (0, 4, 1), (1, 5, 1), (2, 6, 1), (3, 0, 1),
         (1, 4, 2), (1, 5, 2), (2, 6, 2), (2, 0, 2)], [6 + 4, 1 + 4 + 12, 1 + 4 + 12, 1 + 4]),
    # 3 players: II 10/5/3 (R-DATA-1), two tied for 2nd
    (3, [(0, 4, 1), (0, 5, 1), (1, 6, 1), (2, 0, 1)], [10, 4, 4]),
])
def test_R_DATA_1_market_majorities(n, placements, expect):
    raw = clean_raw(n)
    for p, row, col in placements:
        market_assistant(raw, p, row, col)
    for pl in raw["players"]:
        pl["money"] = 0
    s = score_now(raw)
    assert [scores(s, p)["majorities"] for p in range(n)] == expect


def _rep_position(tile):
    raw = clean_raw(2)
    raw["ar_fame"][A["painting-blue"]] = 19             # masterpiece, fame >= 15
    discover(raw, A["photo-blue"], fame=16)             # fame >= 15
    discover(raw, A["painting-red"])
    raw["ar_promo"][A["painting-red"]] = 4
    give_work(raw, 0, A["painting-blue"])
    give_work(raw, 0, A["photo-blue"])
    give_work(raw, 0, A["painting-blue"], sold=True)
    give_visitors(raw, "gallery", [2, 1, 1])
    market_assistant(raw, 0, 4, 0)                      # one auction assistant
    raw["players"][0]["rep"][0] = tile - 1
    return raw


@pytest.mark.parametrize("tile,money,infl", [
    (1, 3, 0), (2, 3, 1), (3, 4, 2), (4, 2, 1), (5, 4, 0), (6, 4, 0), (7, 2, 1), (8, 3, 1),
    (9, 2, 2), (10, 2, 0), (11, 6, 0), (12, 3, 1), (13, 6, 2), (14, 4, 2), (15, 3, 1),
    (16, 6, 2), (17, 0, 0), (18, 0, 0), (19, 4, 2), (20, 4, 2)])
def test_RN_9_4_reputation_tiles(tile, money, infl):
    s = score_now(_rep_position(tile))
    assert scores(s, 0)["reputation"] == money
    assert player(s, 0)["influence"] == 10 + infl


def test_RN_9_4_tile_1_counts_influence_before_other_tiles_add_any():
    raw = _rep_position(1)
    raw["players"][0]["rep"][1] = 19                    # tile 20: +2 influence
    raw["players"][0]["influence"] = 11                 # 11 // 3 = 3; (11 + 2) // 3 = 4
    s = score_now(raw)
    assert scores(s, 0)["reputation"] == 3 + 4


def test_RN_9_4_start_tile_left_on_the_third_slot_is_discarded():
    raw = _rep_position(1)
    raw["players"][0]["rep"][0] = -1
    raw["players"][0]["start_tile"] = 10                # tile 11 would pay $6
    s = score_now(raw)
    assert scores(s, 0)["reputation"] == 0
    assert player(s, 0)["start_tile"] == -1


@pytest.mark.parametrize("influence,money", [
    (0, 0), (1, 1), (3, 1), (4, 2), (7, 2), (8, 3), (11, 3), (12, 4), (14, 4), (15, 5),
    (17, 5), (18, 6), (19, 6), (20, 7), (21, 7), (22, 8), (24, 9), (25, 9), (26, 10),
    (27, 11), (28, 12), (29, 13), (30, 14), (31, 15), (32, 16), (33, 17), (34, 18), (35, 20)])
def test_R_DATA_2_influence_end_value(influence, money):
    raw = clean_raw(2)
    raw["players"][0]["influence"] = influence
    s = score_now(raw)
    assert scores(s, 0)["influence"] == money


@pytest.mark.parametrize("artist,fames,values", [
    ("painting-blue", [1, 2, 4, 5, 7, 8, 10, 11, 14, 15, 18, 19],
     [0, 5, 5, 8, 8, 11, 11, 14, 14, 17, 17, 20]),            # template L
    ("painting-red", [7, 8, 9, 11, 12, 14, 15, 18, 19], [8, 8, 11, 11, 14, 14, 17, 17, 20]),
    ("photo-red", [5, 6, 8, 9], [5, 8, 8, 11]),                # template H
])
def test_C4_sale_values_by_fame(artist, fames, values):
    raw = clean_raw(2)
    a = A[artist]
    raw["ar_discovered"][a] = 1
    got = []
    for f in fames:
        raw["ar_fame"][a] = f
        got.append(build(raw).sale_value(a))
    assert got == values


def test_RN_9_5_exhibition_pays_sale_values():
    raw = clean_raw(2)
    discover(raw, A["photo-red"], fame=9)               # H 9 -> $11
    give_work(raw, 1, A["photo-red"])
    give_work(raw, 1, A["painting-blue"])               # L 3 -> $5
    s = score_now(raw)
    assert scores(s, 1)["exhibition"] == 16 and scores(s, 0)["exhibition"] == 0


# ------------------------------------------------------------------ R-AUC-1

@pytest.mark.parametrize("placements,winner", [
    ([(0, 6, 0), (0, 4, 2), (1, 4, 0), (1, 6, 2)], 1),  # 7 each: more in column III wins
    ([(0, 5, 0), (1, 5, 2)], 1),                        # 3 each: column III
    ([(0, 6, 0), (1, 5, 2)], 0),                        # highest total first
    ([(0, 5, 2), (1, 6, 0)], 1),
])
def test_R_AUC_1_order_and_ties_two_players(placements, winner):
    raw = clean_raw(2)
    for p, row, col in placements:
        market_assistant(raw, p, row, col)
    s = score_now(raw)
    r = s._raw()
    assert [pl["auction_work"] >= 0 for pl in r["players"]] == [winner == 0, winner == 1]


def test_R_AUC_1_choice_order_and_value_four_players():
    raw = clean_raw(4)
    for p, row, col in [(0, 6, 0), (1, 6, 2), (2, 6, 1), (3, 4, 0)]:
        market_assistant(raw, p, row, col)
    raw["easel"] = [PAINTING, SCULPTURE, PHOTO]
    for pl in raw["players"]:
        pl["money"] = 0
    s = score_now(raw)
    r = s._raw()
    # p1 (column III) chooses first: painting $5 + Dealer D2 "1 painting" $5
    # p2 (column II): sculpture $8 (red, not discovered: initial fame 7) + D3 $5
    # p0: the photo ($5, red at initial fame 5), no card gain: counted as Curator
    # p3 ($1) gets nothing: three easels, four bidders
    got = [(pl["auction_work"], pl["auction_as"], pl["score"][3]) for pl in r["players"]]
    assert got == [(PHOTO, 0, 5), (PAINTING, 1, 5), (SCULPTURE, 1, 8), (-1, 0, 0)]
    assert [pl["score"][5] for pl in r["players"]] == [0, 5, 5, 0]


def test_R_AUC_1_no_auction_assistant_no_work():
    raw = clean_raw(2)
    market_assistant(raw, 0, 0, 0)                      # a reputation space only
    s = score_now(raw)
    assert [pl["auction_work"] for pl in s._raw()["players"]] == [-1, -1]


@pytest.mark.parametrize("card,forms,pay", [
    (0, [1, 1, 1, 0], 10), (0, [0, 1, 1, 2], 15), (0, [1, 1, 1, 1], 10),
    (1, [0, 1, 1, 1], 10), (1, [2, 1, 0, 1], 15),
    (2, [1, 0, 1, 1], 10), (2, [1, 2, 1, 0], 15),
    (3, [1, 1, 0, 1], 10), (3, [1, 0, 2, 1], 15), (3, [0, 0, 2, 1], 0),
])
def test_C11_curator_cards(card, forms, pay):
    raw = clean_raw(2)
    for a in range(8):
        raw["ar_discovered"][a] = 1
        raw["ar_collector"][a] = 0
    raw["plaza"][COL] += 4
    raw["ar_fame"] = [19] * 8                           # masterpieces: a 4th slot
    raw["ar_tokens"] = [2] * 8
    for f, k in enumerate(forms):
        for i in range(k):
            give_work(raw, 0, 2 * f + i)
    raw["players"][0]["curator"] = card
    s = score_now(raw)
    assert scores(s, 0)["curator"] == pay


@pytest.mark.parametrize("card,forms,pay", [
    (0, [0, 0, 0, 1], 5), (0, [1, 1, 0, 0], 10), (0, [0, 0, 2, 0], 10), (0, [1, 1, 2, 1], 25),
    (1, [1, 0, 0, 0], 5), (1, [0, 1, 1, 0], 10), (1, [0, 0, 0, 2], 10),
    (2, [0, 1, 0, 0], 5), (2, [0, 0, 1, 1], 10), (2, [2, 0, 0, 0], 10),
    (3, [0, 0, 1, 0], 5), (3, [1, 0, 0, 1], 10), (3, [0, 2, 0, 0], 10), (3, [1, 1, 0, 0], 0),
])
def test_C11_art_dealer_cards(card, forms, pay):
    raw = clean_raw(2)
    for f, k in enumerate(forms):
        for i in range(k):
            give_work(raw, 0, 2 * f, sold=True)
    raw["players"][0]["dealer"] = card
    s = score_now(raw)
    assert scores(s, 0)["dealer"] == pay


# ------------------------------------------------------------------ R-END-2

def _terminal(raw):
    raw["terminal"] = 1
    set_tasks(raw, [])
    return build(raw)


@pytest.mark.parametrize("tweak,returns", [
    ("money", [1.0, 0.0]),
    ("acquired", [1.0, 0.0]),
    ("visitors", [0.0, 1.0]),
    ("assistants", [1.0, 0.0]),
    ("none", [0.5, 0.5]),
])
def test_R_END_2_tie_breakers(tweak, returns):
    raw = clean_raw(2)
    raw["players"][0]["money"] = raw["players"][1]["money"] = 50
    give_work(raw, 0, A["painting-blue"], sold=True)
    give_work(raw, 1, A["painting-blue"], sold=True)
    give_visitors(raw, "gallery", [1, 0, 0], player=0)
    give_visitors(raw, "gallery", [0, 1, 0], player=1)
    if tweak == "money":
        raw["players"][0]["money"] = 51
    elif tweak == "acquired":
        give_work(raw, 0, A["painting-blue"], sold=True)
        give_visitors(raw, "gallery", [0, 0, 1], player=1)   # later tie-breakers lose
    elif tweak == "visitors":
        give_visitors(raw, "gallery", [0, 1, 0], player=1)
        raw["players"][0].update(queue=6, desks=4)           # assistants do not matter
    elif tweak == "assistants":
        raw["players"][0].update(queue=7, desks=3)
    s = _terminal(raw)
    assert s.returns() == returns
