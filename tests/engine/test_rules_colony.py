"""Artists Colony: discover an artist (RN §3.1, R-ART-2) and buy a work (R-ART-1,
R-ART-3, RN §3.2-3.5)."""
from gallerist import engine
import pytest
from helpers import (A, AC, COL, PAINTING, RS_MONEY, SCULPTURE, VIP, act, build, chance,
                     clean_raw, discover, give_visitors, give_work, legal, player, top,
                     top_player)


# ------------------------------------------------------------------ setup (R-ART-2)

@pytest.mark.parametrize("n", [2, 3, 4])
def test_R_ART_2_first_blue_artist_starts_discovered(n):
    for seed in range(20):
        raw = engine.new_game(n, seed)._raw()
        found = [a for a in range(8) if raw["ar_discovered"][a]]
        assert len(found) == 1
        a = found[0]
        assert a & 1 == 0, "the face-up artist is blue"
        assert raw["ar_tokens"][a] == 2 and raw["ar_bonus"][a] == -1
        # the other seven hold a bonus tile; reds hold a collector
        assert sorted(b for b in raw["ar_bonus"] if b >= 0) != []
        assert sum(1 for b in raw["ar_bonus"] if b >= 0) == 7
        assert raw["ar_collector"] == [0, 1, 0, 1, 0, 1, 0, 1]


# ------------------------------------------------------------------ discover

def _at_colony(raw=None):
    s = build(raw)
    act(s, "move:AC", "action:A")
    assert top(s) == "T_DISCOVER"
    return s


def test_RN_3_1_discover_red_artist_money_bonus_collector_commission():
    raw = clean_raw(2)
    give_visitors(raw, "gallery", [0, 2, 1])          # money bonus = 2*2 + 1 = 5
    s = _at_colony(raw)
    assert legal(s) == {f"artist:{x}" for x in
                        ["painting-red", "sculpture-blue", "sculpture-red", "photo-blue",
                         "photo-red", "digital-blue", "digital-red"]}
    act(s, "artist:painting-red")
    r = s._raw()
    p0 = r["players"][0]
    assert p0["money"] == 15
    assert r["ar_discovered"][A["painting-red"]] == 1
    assert r["ar_fame"][A["painting-red"]] == 7          # its initial fame (variant 0)
    assert r["ar_tokens"][A["painting-red"]] == 1        # one token on the commission space
    assert p0["commission"] == A["painting-red"]
    assert r["ar_bonus"][A["painting-red"]] == -1        # bonus tile discarded
    assert r["ar_collector"][A["painting-red"]] == 0
    assert r["plaza"] == [0, 0, 1]                       # its collector went to the plaza


def test_RN_3_1_discover_influence_bonus():
    raw = clean_raw(2)
    give_visitors(raw, "gallery", [2, 0, 1])          # influence bonus = 2*2 + 1 = 5
    s = _at_colony(raw)
    act(s, "artist:sculpture-blue")
    assert player(s, 0)["influence"] == 15
    assert s._raw()["plaza"] == [0, 0, 0]              # a blue artist holds no collector


def test_RN_3_1_discover_fame_bonus_with_influence_steps():
    raw = clean_raw(2)
    give_visitors(raw, "gallery", [0, 0, 1])          # +1 fame per collector
    s = _at_colony(raw)
    act(s, "artist:sculpture-red")
    # the only discovered non-celebrity artist is painting-blue (chosen automatically)
    assert top(s) == "T_FAME_STEPS"
    assert legal(s) == {"fame:+0", "fame:+1", "fame:+2"}   # influence 10: two fame icons below
    act(s, "fame:+1")
    r = s._raw()
    assert r["ar_fame"][A["painting-blue"]] == 3 + 1 + 1
    assert r["players"][0]["influence"] == 5
    assert r["ar_discovered"][A["sculpture-red"]] == 1


def test_RN_3_1_discover_two_tickets_bonus():
    raw = clean_raw(2)
    s = _at_colony(raw)
    act(s, "artist:photo-blue")
    assert top(s) == "T_TICKET_PAIR"
    assert legal(s) == {"tickets:vip+investor", "tickets:vip+collector",
                        "tickets:investor+collector"}
    act(s, "tickets:vip+collector")
    r = s._raw()
    assert r["players"][0]["tickets"] == [1, 0, 1]
    assert r["box"] == [9, 10, 9]


def test_RN_3_1_discover_visitor_bonus_then_collector_to_plaza():
    raw = clean_raw(2)
    give_visitors(raw, "plaza", [1, 1, 0])
    s = _at_colony(raw)
    act(s, "artist:photo-red")
    assert top(s) == "T_VISITOR_PLAZA"
    # the bonus comes before the red artist's collector reaches the plaza
    assert legal(s) == {"visitor:vip", "visitor:investor"}
    act(s, "visitor:investor")
    r = s._raw()
    assert r["players"][0]["gallery"] == [0, 1, 0]
    assert r["plaza"] == [1, 0, 1]


def test_RN_3_1_discover_needs_an_empty_commission_space():
    raw = clean_raw(2)
    discover(raw, A["sculpture-blue"], commission_of=0)
    s = build(raw)
    act(s, "move:AC")                                   # only the buy: chosen automatically
    assert top(s) == "T_BUY"


def test_RN_3_1_discover_not_offered_when_every_artist_is_discovered():
    raw = clean_raw(2)
    for a in range(1, 8):
        discover(raw, a)
    raw["players"][0]["money"] = 0
    raw["players"][0]["influence"] = 0
    s = build(raw)
    assert "move:AC" not in legal(s)       # neither discover nor buy is possible there


# ------------------------------------------------------------------ buy

def _buy_position():
    raw = clean_raw(2)
    give_visitors(raw, "gallery", [0, 0, 1])          # one collector: +1 fame
    give_visitors(raw, "tile", [0, 1, 0], form=PAINTING)
    return raw


def test_R_ART_1_buy_price_influence_payment_and_fame_gain():
    s = build(_buy_position())
    act(s, "move:AC", "action:B")
    # painting-blue is the only artist to buy from: chosen automatically
    assert top(s) == "T_PAY"
    assert legal(s) == {f"pay:influence={k}" for k in range(4)}   # price 3; 4 money icons below 10
    act(s, "pay:influence=1")
    p0 = player(s, 0)
    assert p0["money"] == 8 and p0["influence"] == 8
    assert top(s) == "T_FAME_STEPS"
    assert legal(s) == {"fame:+0", "fame:+1", "fame:+2"}
    act(s, "fame:+1")
    r = s._raw()
    p0 = r["players"][0]
    # fame gain = printed 0 + 1 collector + 1 influence step
    assert r["ar_fame"][A["painting-blue"]] == 5
    assert p0["influence"] == 5
    assert p0["tickets"] == [1, 0, 0]                   # tile kind 1: one VIP ticket
    assert r["box"][VIP] == 9
    assert p0["works"][:1] == [A["painting-blue"]] and p0["nworks"] == 1
    assert p0["acquired"] == [1, 0, 0, 0]
    assert r["ar_tokens"][A["painting-blue"]] == 1
    assert r["plaza"] == [0, 1, 0]                      # the tile's visitor went to the plaza
    assert r["top_visitors"][PAINTING] == [0, 0, 0]
    # the refill: the next tile of the stack is revealed (chance, uniform)
    assert s.is_chance()
    out = chance(s)
    assert set(out) == {f"chance:tile{k}" for k in range(2, 8)}
    assert all(p == pytest.approx(1 / 6) for p in out.values())


def test_RN_3_2_refill_draws_visitors_from_the_bag_onto_the_new_top_tile():
    s = build(_buy_position())
    act(s, "move:AC", "action:B", "pay:influence=0", "fame:+0")
    act(s, "chance:tile5")                              # kind 5: two visitors drawn onto it
    r = s._raw()
    assert r["stack_top"][PAINTING] == 4
    assert r["stack_mask"][PAINTING] == 0b01101110
    bag = r["bag"]
    out = chance(s)
    total = sum(bag)
    assert out == pytest.approx({f"chance:visitor:{x}": bag[i] / total
                                 for i, x in enumerate(["vip", "investor", "collector"])})
    act(s, "chance:visitor:vip", "chance:visitor:collector")
    r = s._raw()
    assert r["top_visitors"][PAINTING] == [1, 0, 1]
    assert r["bag"] == [bag[0] - 1, bag[1], bag[2] - 1]


def test_RN_3_2_last_tile_of_a_stack_leaves_it_empty():
    raw = _buy_position()
    raw["stack_mask"][PAINTING] = 0
    s = build(raw)
    act(s, "move:AC", "action:B", "pay:influence=0", "fame:+0")
    r = s._raw()
    assert r["stack_top"][PAINTING] == -1
    assert not s.is_chance()


def test_R_ART_1_commission_buys_at_initial_fame_with_the_commission_token():
    raw = clean_raw(2)
    discover(raw, A["painting-red"], fame=12, commission_of=0)
    raw["players"][0]["influence"] = 0
    s = build(raw)
    act(s, "move:AC")                                   # commission held: buy only
    assert legal(s) == {"artist:painting-blue", "artist:painting-red"}
    act(s, "artist:painting-red")                       # price 7 (initial), not 12
    r = s._raw()
    p0 = r["players"][0]
    assert p0["money"] == 3
    assert p0["commission"] == -1
    assert r["ar_tokens"][A["painting-red"]] == 1       # the commission token is the work's
    assert r["ar_fame"][A["painting-red"]] == 12        # printed 0, no collector, no influence


def test_R_ART_1_price_is_current_fame_and_unaffordable_artists_are_not_offered():
    raw = clean_raw(2)
    discover(raw, A["sculpture-red"], fame=13)
    raw["players"][0]["money"] = 9                      # 9 + 4 influence money steps = 13
    s = build(raw)
    act(s, "move:AC", "action:B")
    assert legal(s) == {"artist:painting-blue", "artist:sculpture-red"}
    raw["players"][0]["money"] = 8
    s = build(raw)
    act(s, "move:AC", "action:B")
    assert top(s) == "T_PAY"                            # only painting-blue is affordable


def test_R_ART_1_no_token_or_empty_stack_blocks_the_artist():
    raw = clean_raw(3)
    give_work(raw, 1, A["painting-blue"])
    give_work(raw, 2, A["painting-blue"])               # both tokens in galleries
    discover(raw, A["sculpture-blue"])
    raw["stack_top"][SCULPTURE] = -1
    raw["stack_mask"][SCULPTURE] = 0
    s = build(raw)
    act(s, "move:AC")                                   # only discover is left
    assert top(s) == "T_DISCOVER"


def test_R_ART_3_celebrity_gives_5_and_masterpieces_capped_at_19():
    raw = clean_raw(2)
    discover(raw, A["painting-red"], fame=18)
    give_work(raw, 1, A["painting-red"])                # player 1 exhibits one
    raw["stack_top"][PAINTING] = 7                      # printed fame 2, two tickets
    raw["players"][0]["money"] = 20
    s = build(raw)
    act(s, "move:AC", "action:B", "artist:painting-red", "pay:influence=0")
    r = s._raw()
    assert r["ar_fame"][A["painting-red"]] == 19        # 18 + 2, capped
    assert r["players"][0]["money"] == 20 - 18 + 5
    assert top(s) == "T_TICKET_PAIR"                    # no fame step decision was left
    act(s, "tickets:vip+investor")
    assert s.sale_value(A["painting-red"]) == 20        # masterpieces, also player 1's


def test_R_ART_1_celebrity_only_with_commission():
    raw = clean_raw(2)
    discover(raw, A["painting-red"], fame=19)
    raw["players"][0]["money"] = 30
    s = build(raw)
    act(s, "move:AC", "action:B")
    assert top(s) == "T_PAY" and s._raw()["tasks"][-1]["a"] == 3   # painting-blue only
    raw = clean_raw(2)
    discover(raw, A["painting-red"], fame=19, commission_of=0)
    s = build(raw)
    act(s, "move:AC")                                   # commission held: buy only
    assert legal(s) == {"artist:painting-blue", "artist:painting-red"}
    act(s, "artist:painting-red", "pay:influence=0")
    r = s._raw()
    assert r["players"][0]["money"] == 3                # initial fame 7
    assert r["ar_fame"][A["painting-red"]] == 19


def _three_works(raw, p=0):
    for a in (A["sculpture-blue"], A["photo-blue"]):
        discover(raw, a)
    give_work(raw, p, A["sculpture-blue"])
    give_work(raw, p, A["photo-blue"])
    give_work(raw, p, A["sculpture-blue"])


def test_R_ART_1_fourth_work_needs_a_masterpiece():
    raw = clean_raw(2)
    _three_works(raw)
    s = build(raw)
    act(s, "move:AC")                                   # discover only: no 4th work
    assert top(s) == "T_DISCOVER"
    raw2 = clean_raw(2)
    _three_works(raw2)
    raw2["ar_fame"][A["photo-blue"]] = 19               # a masterpiece on exhibit
    s = build(raw2)
    act(s, "move:AC")
    assert legal(s) == {"action:A", "action:B"}
    act(s, "action:B")                                  # painting-blue is the only one
    assert top(s) == "T_PAY" and s._raw()["tasks"][-1]["a"] == 3


def test_R_ART_1_fourth_slot_blocked_at_four_works():
    raw = clean_raw(2)
    _three_works(raw)
    raw["ar_fame"][A["photo-blue"]] = 19
    give_work(raw, 0, A["painting-blue"])
    s = build(raw)
    act(s, "move:AC")                                   # discover only
    assert top(s) == "T_DISCOVER"


def test_R_ART_1_fourth_work_when_this_purchase_makes_a_masterpiece():
    raw = clean_raw(2)
    raw["ar_discovered"][A["painting-blue"]] = 0
    _three_works(raw)
    discover(raw, A["painting-red"], fame=15)
    raw["stack_top"][PAINTING] = 7                      # printed fame 2
    give_visitors(raw, "gallery", [0, 0, 1])            # +1: 15 + 3 = 18, one step short
    raw["players"][0]["money"] = 15
    s = build(raw)
    act(s, "move:AC", "action:B")
    # the influence kept for the fame step limits the payment: 10 -> 1 keeps one fame icon
    assert top(s) == "T_PAY"
    assert legal(s) == {f"pay:influence={k}" for k in range(4)}
    act(s, "pay:influence=0")
    r = s._raw()
    assert r["ar_fame"][A["painting-red"]] == 19        # the single step was forced
    assert r["players"][0]["influence"] == 5
    assert r["players"][0]["nworks"] == 4
    assert r["players"][0]["money"] == 5                # 15 - 15 + 5 celebrity


def test_R_ART_1_fourth_work_impossible_without_enough_influence():
    raw = clean_raw(2)
    raw["ar_discovered"][A["painting-blue"]] = 0
    _three_works(raw)
    discover(raw, A["painting-red"], fame=15)
    raw["stack_top"][PAINTING] = 7
    give_visitors(raw, "gallery", [0, 0, 1])
    raw["players"][0]["money"] = 15
    raw["players"][0]["influence"] = 0
    s = build(raw)
    act(s, "move:AC")                                   # discover only
    assert top(s) == "T_DISCOVER"


def _third_slot_position():
    raw = clean_raw(2)
    raw["stack_mask"][PAINTING] = 0                     # no refill chance
    discover(raw, A["sculpture-blue"])
    give_work(raw, 0, A["sculpture-blue"])
    give_work(raw, 0, A["sculpture-blue"])
    raw["players"][0]["start_tile"] = 7
    give_visitors(raw, "gallery", [0, 2, 0])
    give_visitors(raw, "lobby", [1, 0, 1])
    return raw


def test_RN_3_2_third_slot_start_tile_moves_at_end_of_turn_and_a_lobby_visitor_leaves():
    """Seed 001: the tile lies on the new work until the turn ends, then goes to a
    reputation space (bonus) and one lobby visitor leaves (R-VIS-3)."""
    s = build(_third_slot_position())
    act(s, "move:AC", "action:B", "pay:influence=0", "fame:+0")
    # the VIP ticket (tile kind 1) is taken; the executive action comes before the tile
    assert top(s) == "T_AFTER_ACTION"
    assert player(s, 0)["start_tile"] == 7
    act(s, "ea:tickets")                                # VIP lobby -> gallery (forced)
    assert player(s, 0)["gallery"] == [1, 2, 0]
    assert top(s) == "T_REP_SPACE" and top_player(s) == 0
    assert legal(s) == {f"rep-space:{x}" for x in
                        ["influence", "money", "fame", "visitor", "tickets", "assistant"]}
    act(s, "rep-space:money")
    p0 = player(s, 0)
    assert p0["rep"][RS_MONEY] == 7 and p0["start_tile"] == -1
    assert p0["money"] == 10 - 3 + 4                    # money bonus: 2 per investor
    # R-VIS-3: the collector is the only lobby visitor left: it leaves by itself
    r = s._raw()
    assert r["players"][0]["lobby"] == [0, 0, 0]
    assert r["plaza"][COL] == 1
    assert r["turn_player"] == 1                        # then the turn ended


def test_RN_3_2_third_slot_filled_in_a_kicked_out_action():
    from helpers import SO, place_gallerist, set_tasks, turn_tasks
    raw = _third_slot_position()
    place_gallerist(raw, 0, AC)
    place_gallerist(raw, 1, SO)
    raw["turn_player"] = 1
    set_tasks(raw, turn_tasks(1))
    s = build(raw)
    act(s, "move:AC", "leave:none", "action:A", "artist:photo-blue",
        "tickets:vip+investor", "end-turn")             # player 1 discovers, kicks player 0
    assert top(s) == "T_KO" and top_player(s) == 0
    act(s, "ko:B", "artist:painting-blue", "pay:influence=0", "fame:+0")
    assert top(s) == "T_REP_SPACE" and top_player(s) == 0   # the KO action is over
    act(s, "rep-space:influence", "visitor:collector")
    r = s._raw()
    assert r["players"][0]["rep"][0] == 7 and r["players"][0]["lobby"] == [1, 0, 0]
    assert r["players"][0]["influence"] == 5            # 10 -> 5 for the KO, bonus 0
    assert r["turn_player"] == 0 and top(s) == "T_TURN_START"


def test_RN_3_2_ticket_patterns_vip_plus_investor_or_collector():
    raw = clean_raw(2)
    raw["stack_top"][PAINTING] = 4                      # VIP + (investor or collector), fame 1
    s = build(raw)
    act(s, "move:AC", "action:B", "pay:influence=0", "fame:+0")
    assert top(s) == "T_TICKET_OR"
    assert legal(s) == {"ticket:investor", "ticket:collector"}
    act(s, "ticket:collector")
    r = s._raw()
    assert r["players"][0]["tickets"] == [1, 0, 1]
    assert r["ar_fame"][A["painting-blue"]] == 4        # printed fame 1


def test_R_ART_1_fame_gain_counts_collectors_in_gallery_not_lobby():
    raw = clean_raw(3)
    give_visitors(raw, "gallery", [1, 1, 1])
    give_visitors(raw, "lobby", [0, 0, 3])
    raw["stack_top"][PAINTING] = 6                      # printed fame 1
    s = build(raw)
    act(s, "move:AC", "action:B", "pay:influence=0", "fame:+0")
    assert s._raw()["ar_fame"][A["painting-blue"]] == 3 + 1 + 1
