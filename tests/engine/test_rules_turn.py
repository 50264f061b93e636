"""Turn structure: moving (R-MOVE-1/2/3), executive actions (R-EXEC-1/2) and kicked-out
actions (R-KO-1)."""
import pytest
from helpers import (A, AC, ASSISTANT, CK_BAG_VISITOR, CK_BONUS, CK_PLAZA_VIP_INV,
                     CS_INFLUENCE, CS_MONEY, GALLERIST, HOME, IM, KO_SPACE, MC, SO, act,
                     build, chance, clean_raw, discover, give_contract, contracts_accounted,
                     give_tickets, give_visitors, give_work, legal, set_piles,
                     place_assistant, place_gallerist, player, top, top_player)


# ------------------------------------------------------------------ R-MOVE-1

def test_R_MOVE_1_must_move_to_a_location_with_an_action():
    raw = clean_raw(2)
    place_gallerist(raw, 0, SO)
    s = build(raw)
    # AC: discover/buy; MC: hire/promote; IM: no lobby visitor, so no access
    assert legal(s) == {"move:AC", "move:MC"}


def test_R_MOVE_1_from_home_any_location_including_the_last_one():
    raw = clean_raw(2)
    give_visitors(raw, "lobby", [1, 0, 0])
    s = build(raw)
    assert legal(s) == {"move:SO", "move:AC", "move:MC", "move:IM"}


def _stuck(raw, p=0):
    """Player p can take no location action anywhere."""
    pl = raw["players"][p]
    pl.update(money=0, influence=0)
    discover(raw, A["sculpture-blue"], commission_of=p)
    for k, card in enumerate((1, 2, 3)):               # painting contracts, no painting
        give_contract(raw, p, k, card)


def test_R_MOVE_1_pass_only_when_no_location_has_an_action():
    raw = clean_raw(2)
    _stuck(raw)
    place_gallerist(raw, 0, MC)
    s = build(raw)
    assert {x for x in legal(s) if x.startswith("move:")} == {"move:SO", "move:AC", "move:IM"}
    act(s, "move:AC")
    assert legal(s) == {"leave:none", "leave:desk"}
    act(s, "leave:none")                                # the pass itself is forced
    r = s._raw()
    assert r["passes"] == 1 and top(s) == "T_AFTER_ACTION"
    assert "end-turn" in legal(s)
    act(s, "end-turn")
    assert s.turn_player == 1


def test_R_MOVE_1_destination_legal_through_leaving_a_desk_assistant():
    """Four desks full: hiring becomes possible once one desk assistant is left behind."""
    raw = clean_raw(2)
    raw["players"][0].update(desks=4, queue=6)
    raw["promo_stock"][1] = 0                           # no promotion possible
    place_gallerist(raw, 0, SO)
    s = build(raw)
    assert "move:MC" in legal(s)
    act(s, "move:MC")
    # leaving nobody would leave no action: leave:desk is forced, then hire 1 (forced)
    r = s._raw()
    assert r["loc_owner"][SO] == 0 and r["loc_kind"][SO] == ASSISTANT
    assert r["players"][0]["desks"] == 4 and r["players"][0]["queue"] == 5
    assert top(s) == "T_PAY" and s._raw()["tasks"][-1]["a"] == 2   # the 3rd hire costs $2


def test_R_MOVE_1_leaving_the_last_assistant_keeps_the_market_action():
    """The assistant left behind can still be placed in the market (R-MKT-1), so no
    leave choice turns an action into a pass."""
    raw = clean_raw(2)
    raw["players"][0].update(desks=1, queue=8, removed=1)
    give_visitors(raw, "lobby", [1, 0, 0])
    place_gallerist(raw, 0, SO)
    raw["players"][0]["money"] = 0
    raw["players"][0]["influence"] = 1                  # $1 auction via influence
    s = build(raw)
    act(s, "move:IM")
    assert legal(s) == {"leave:none", "leave:desk"}
    act(s, "leave:desk")                                # then auction $1-I is forced ...
    assert top(s) == "T_TICKET_ANY"
    r = s._raw()
    assert r["passes"] == 0 and r["mk_asst"][4][0] == 0
    assert r["loc_owner"][SO] == -1                     # ... with the assistant from SO
    assert r["players"][0]["influence"] == 0 + 3


# ------------------------------------------------------------------ R-MOVE-2

def test_R_MOVE_2_kick_out_another_players_gallerist():
    raw = clean_raw(2)
    place_gallerist(raw, 0, SO)
    place_gallerist(raw, 1, AC)
    s = build(raw)
    act(s, "move:AC", "leave:none")
    r = s._raw()
    assert r["ko_owner"] == 1 and r["ko_kind"] == GALLERIST and r["ko_loc"] == AC
    assert r["players"][1]["gallerist"] == KO_SPACE
    assert r["loc_owner"][AC] == 0 and r["loc_owner"][SO] == -1


def test_R_MOVE_2_kick_out_another_players_assistant():
    raw = clean_raw(2)
    place_assistant(raw, 1, AC)
    s = build(raw)
    act(s, "move:AC")
    r = s._raw()
    assert r["ko_owner"] == 1 and r["ko_kind"] == ASSISTANT and r["ko_loc"] == AC


@pytest.mark.parametrize("desks,expect_desks,expect_removed", [(1, 2, 0), (4, 4, 1)])
def test_R_MOVE_2_own_assistant_goes_home_without_KO(desks, expect_desks, expect_removed):
    raw = clean_raw(2)
    raw["players"][0].update(desks=desks + 1, queue=8 - (desks - 1))
    place_assistant(raw, 0, AC)
    s = build(raw)
    act(s, "move:AC")
    r = s._raw()
    p0 = r["players"][0]
    assert p0["desks"] == expect_desks and p0["removed"] == expect_removed
    assert r["ko_owner"] == -1
    assert r["loc_owner"][AC] == 0 and r["loc_kind"][AC] == GALLERIST


# ------------------------------------------------------------------ R-MOVE-3

def test_R_MOVE_3_leave_options_desk_or_another_location():
    raw = clean_raw(2)
    place_gallerist(raw, 0, SO)
    place_assistant(raw, 0, MC)
    s = build(raw)
    act(s, "move:AC")
    assert legal(s) == {"leave:none", "leave:desk", "leave:from-MC"}
    act(s, "leave:from-MC")
    r = s._raw()
    assert r["loc_owner"][SO] == 0 and r["loc_kind"][SO] == ASSISTANT
    assert r["loc_owner"][MC] == -1
    assert r["players"][0]["desks"] == 1
    assert top(s) == "T_LOC_ACTION"


def test_R_MOVE_3_leave_from_desk():
    raw = clean_raw(2)
    place_gallerist(raw, 0, SO)
    s = build(raw)
    act(s, "move:AC", "leave:desk")
    r = s._raw()
    assert r["loc_owner"][SO] == 0 and r["loc_kind"][SO] == ASSISTANT
    assert r["players"][0]["desks"] == 1


def test_R_MOVE_3_no_leave_decision_when_coming_from_home():
    raw = clean_raw(2)
    s = build(raw)
    act(s, "move:AC")
    assert top(s) == "T_LOC_ACTION"


# ------------------------------------------------------------------ R-EXEC-1/2

def _with_tickets(raw, counts=(1, 1, 0)):
    give_tickets(raw, 0, counts)
    give_visitors(raw, "plaza", [1, 1, 0])


def test_R_EXEC_1_executive_action_before_the_move_then_none_after():
    raw = clean_raw(2)
    _with_tickets(raw)
    s = build(raw)
    assert "ea:tickets" in legal(s)
    act(s, "ea:tickets", "tmove:vip:plaza>lobby", "tickets:done")
    assert top(s) == "T_TURN_START"
    assert legal(s) == {"move:SO", "move:AC", "move:MC", "move:IM"}   # moves only
    act(s, "move:MC", "action:A", "hire:1", "pay:influence=0")
    # after the action: no second executive action, the turn ended by itself
    assert s.turn_player == 1


def test_R_EXEC_1_executive_action_after_the_action():
    raw = clean_raw(2)
    _with_tickets(raw)
    s = build(raw)
    act(s, "move:MC", "action:A", "hire:1", "pay:influence=0")
    assert top(s) == "T_AFTER_ACTION"
    assert legal(s) == {"ea:tickets", "end-turn"}
    act(s, "ea:tickets", "tmove:investor:plaza>lobby", "tickets:done")
    assert s.turn_player == 1


def test_R_EXEC_2_ticket_routes_steps_and_discards():
    raw = clean_raw(3)
    give_tickets(raw, 0, [2, 1, 0])
    give_visitors(raw, "plaza", [1, 0, 0])
    give_visitors(raw, "lobby", [0, 1, 0], player=2)
    s = build(raw)
    act(s, "ea:tickets")
    assert legal(s) == {"tmove:vip:plaza>lobby", "tmove:investor:lobby+2>plaza"}
    act(s, "tmove:vip:plaza>lobby")
    # the same visitor may go on; stopping is allowed after one move
    assert legal(s) == {"tmove:vip:lobby>gallery", "tmove:investor:lobby+2>plaza",
                        "tickets:done"}
    act(s, "tmove:vip:lobby>gallery", "tmove:investor:lobby+2>plaza")
    r = s._raw()
    assert r["players"][0]["gallery"] == [1, 0, 0]
    assert r["players"][2]["lobby"] == [0, 0, 0]
    assert r["plaza"] == [0, 1, 0]
    assert r["players"][0]["tickets"] == [0, 0, 0]
    assert r["discards"] == [2, 1, 0]
    assert r["box"] == [13, 14, 15]                     # spent tickets never go back
    assert top(s) == "T_TURN_START"                     # nothing left: stopped by itself


def test_R_EXEC_2_tickets_need_a_visitor_of_their_colour():
    raw = clean_raw(2)
    give_tickets(raw, 0, [0, 0, 2])
    give_visitors(raw, "plaza", [1, 1, 0])
    s = build(raw)
    assert "ea:tickets" not in legal(s)


@pytest.mark.parametrize("side,money,influence", [(CS_MONEY, 10 + 5, 10),
                                                  (CS_INFLUENCE, 10, 10 + 3)])
def test_R_EXEC_2_contract_bonus_face_down_side(side, money, influence):
    raw = clean_raw(2)
    give_contract(raw, 0, 1, 1, state=side)
    give_visitors(raw, "gallery", [1, 2, 1])
    s = build(raw)
    act(s, "ea:contract2")
    p0 = player(s, 0)
    assert (p0["money"], p0["influence"]) == (money, influence)
    assert p0["contract_asst"] == [0, 1, 0] and p0["desks"] == 1
    assert "ea:contract2" not in legal(s)


@pytest.mark.parametrize("card,money,influence", [(5 * 0 + CK_BONUS, 15, 10),    # painting: $
                                                   (5 * 1 + CK_BONUS, 10, 13)])  # sculpture: infl
def test_R_EXEC_2_contract_front_money_or_influence_bonus(card, money, influence):
    raw = clean_raw(2)
    give_contract(raw, 0, 0, card)
    give_visitors(raw, "gallery", [1, 2, 1])
    s = build(raw)
    act(s, "ea:contract1")
    assert (player(s, 0)["money"], player(s, 0)["influence"]) == (money, influence)


def test_R_EXEC_2_contract_bag_visitor_is_a_chance_draw_collector_limit():
    raw = clean_raw(2)
    give_contract(raw, 0, 0, 5 * 2 + CK_BAG_VISITOR)
    give_visitors(raw, "gallery", [0, 0, 1])            # at the collector limit
    s = build(raw)
    act(s, "ea:contract1")
    bag = s._raw()["bag"]
    assert chance(s) == pytest.approx({"chance:visitor:vip": bag[0] / sum(bag),
                                       "chance:visitor:investor": bag[1] / sum(bag),
                                       "chance:visitor:collector": bag[2] / sum(bag)})
    act(s, "chance:visitor:collector")                  # R-VIS-2: over the limit -> plaza
    r = s._raw()
    assert r["players"][0]["gallery"] == [0, 0, 1] and r["plaza"] == [0, 0, 1]


def test_R_EXEC_2_contract_plaza_vip_or_investor():
    raw = clean_raw(2)
    give_contract(raw, 0, 0, 5 * 3 + CK_PLAZA_VIP_INV)
    give_visitors(raw, "plaza", [1, 1, 1])
    s = build(raw)
    act(s, "ea:contract1")
    assert legal(s) == {"visitor:vip", "visitor:investor"}
    act(s, "visitor:investor")
    assert player(s, 0)["gallery"] == [0, 1, 0]


def test_R_EXEC_2_contract_sign_bonus_takes_a_contract():
    raw = clean_raw(2)
    give_contract(raw, 0, 0, 5)                         # sculpture-sign
    set_piles(raw, [[0], [6], [10], [15]])
    s = build(raw)
    act(s, "ea:contract1", "deal4:no", "pile:1")        # card 0 onto a free slot
    assert legal(s) == {"contract-slot:2", "contract-slot:3"}
    act(s, "contract-slot:2")
    assert player(s, 0)["contract"][:2] == [5, 0]
    assert player(s, 0)["tickets"] == [1, 0, 0]


def test_R_EXEC_2_contract_sign_bonus_without_a_free_slot_loses_no_card():
    raw = clean_raw(2)
    for k, card in enumerate((0, 2, 3)):                # painting-sign and two more, face up
        give_contract(raw, 0, k, card)
    set_piles(raw, [[1], [6], [11], [16]])
    s = build(raw)
    assert contracts_accounted(s._raw()) == 20
    act(s, "ea:contract1")
    # no slot can take a contract (a face-up one is never covered): the bonus is void
    while top(s) in ("T_DEAL4", "T_PILE") or s.is_chance():
        act(s, sorted(legal(s))[0])
    assert top(s) == "T_TURN_START"
    assert contracts_accounted(s._raw()) == 20           # no contract vanished


# ------------------------------------------------------------------ R-KO-1

def _ko_position(p1_influence=10, p1_money=10):
    raw = clean_raw(2)
    raw["stack_mask"] = [0, 0, 0, 0]                    # no refill chance events
    place_gallerist(raw, 0, SO)
    place_gallerist(raw, 1, AC)
    raw["players"][1].update(influence=p1_influence, money=p1_money)
    give_tickets(raw, 1, [1, 0, 0])
    give_visitors(raw, "plaza", [1, 0, 0])
    return raw


def _kick_at_colony(s, artist="sculpture-blue"):
    act(s, "move:AC", "leave:none", "action:A", f"artist:{artist}")
    assert top(s) == "T_KO" and top_player(s) == 1


def test_R_KO_1_options_and_action_at_that_location():
    s = build(_ko_position())
    _kick_at_colony(s)
    assert legal(s) == {"ko:pass", "ko:A", "ko:B", "ea:tickets"}
    act(s, "ko:B")                                      # buy: painting-blue or sculpture-blue
    assert player(s, 1)["influence"] == 5               # back to the previous fame icon
    act(s, "artist:painting-blue", "pay:influence=0", "fame:+0")
    r = s._raw()
    assert r["players"][1]["works"][0] == A["painting-blue"]
    assert r["players"][1]["gallerist"] == HOME          # then the piece goes home
    assert r["ko_owner"] == -1
    assert r["turn_player"] == 1 and top(s) == "T_TURN_START"   # the next player's turn


@pytest.mark.parametrize("influence,after", [(12, 10), (11, 10), (10, 5), (5, 0), (1, 0)])
def test_R_KO_1_influence_back_to_previous_fame_icon(influence, after):
    s = build(_ko_position(p1_influence=influence))
    _kick_at_colony(s)
    act(s, "ko:A")
    assert player(s, 1)["influence"] == after


def test_R_KO_1_no_location_action_at_influence_0():
    s = build(_ko_position(p1_influence=0))
    _kick_at_colony(s)
    assert legal(s) == {"ko:pass", "ea:tickets"}


@pytest.mark.parametrize("influence,buy_legal", [(12, True), (9, False)])
def test_R_KO_1_legality_with_reduced_influence(influence, buy_legal):
    raw = _ko_position(p1_influence=influence, p1_money=0)
    raw["ar_fame"][A["painting-blue"]] = 4              # price 4: 4 money steps needed
    discover(raw, A["painting-red"], variant=1, commission_of=1)   # price 10: out of reach
    s = build(raw)
    _kick_at_colony(s, "digital-red")                   # price 5: never affordable here
    # 12 -> 10 keeps 4 money icons below it; 9 -> 5 keeps only 3 (9 itself has 4)
    assert legal(s) == {"ko:pass", "ea:tickets"} | ({"ko:B"} if buy_legal else set())


@pytest.mark.parametrize("influence,ok", [(5, False), (6, True)])
def test_R_KO_1_promote_needs_the_influence_left_after_the_drop(influence, ok):
    raw = clean_raw(2)
    place_gallerist(raw, 0, SO)
    place_gallerist(raw, 1, MC)
    raw["players"][1].update(influence=influence, money=0, desks=4, queue=6)
    s = build(raw)
    act(s, "move:MC", "leave:none", "action:A", "hire:1", "pay:influence=0")
    if ok:
        assert top(s) == "T_KO" and legal(s) == {"ko:pass", "ko:B"}
    else:                                               # only ko:pass: taken automatically
        r = s._raw()
        assert r["turn_player"] == 1 and r["players"][1]["influence"] == influence
        assert r["players"][1]["gallerist"] == HOME


def test_R_KO_1_kicked_out_assistant_used_in_the_market_stays():
    raw = clean_raw(2)
    place_gallerist(raw, 0, SO)
    place_assistant(raw, 1, IM)
    give_visitors(raw, "lobby", [1, 0, 0], player=0)
    give_visitors(raw, "lobby", [1, 0, 0], player=1)
    give_work(raw, 1, A["painting-blue"], sold=True)
    s = build(raw)
    act(s, "move:IM", "leave:none", "market:auction-$1-I", "pay:influence=0", "ticket:vip")
    if top(s) == "T_AFTER_ACTION":
        act(s, "end-turn")
    assert top(s) == "T_KO" and top_player(s) == 1
    act(s, "ko:A")                                      # rep-painting-I (only tile open)
    assert legal(s) == {"from:desk", "from:kicked-out"}
    act(s, "from:kicked-out", "rep-space:money")
    r = s._raw()
    assert r["mk_asst"][3][0] == 1
    assert r["players"][1]["desks"] == 1                # the kicked-out one did not go home
    assert r["players"][1]["influence"] == 5 + 3
    assert r["ko_owner"] == -1


@pytest.mark.parametrize("desks,expect_desks,expect_removed", [(1, 2, 0), (4, 4, 1)])
def test_R_KO_1_kicked_out_assistant_goes_home(desks, expect_desks, expect_removed):
    raw = clean_raw(2)
    raw["players"][1].update(desks=desks + 1, queue=8 - (desks - 1))
    place_assistant(raw, 1, AC)
    s = build(raw)
    act(s, "move:AC", "action:A", "artist:sculpture-blue")
    assert top(s) == "T_KO"
    act(s, "ko:pass")
    p1 = player(s, 1)
    assert (p1["desks"], p1["removed"]) == (expect_desks, expect_removed)


def test_R_KO_1_executive_action_as_KO_action():
    s = build(_ko_position())
    _kick_at_colony(s)
    act(s, "ea:tickets")                                # plaza -> lobby: forced, then done
    r = s._raw()
    assert r["players"][1]["lobby"] == [1, 0, 0] and r["players"][1]["influence"] == 10
    assert r["players"][1]["gallerist"] == HOME


@pytest.mark.parametrize("turns_left,ko", [(3, True), (2, False)])
def test_R_KO_1_none_in_the_final_round(turns_left, ko):
    raw = _ko_position()
    raw["end_triggered"] = 1
    raw["turns_left"] = turns_left                      # 2 players: the last 2 turns
    s = build(raw)
    act(s, "move:AC", "leave:none", "action:A", "artist:sculpture-blue")
    assert (top(s) == "T_KO") == ko
    if not ko:
        r = s._raw()
        assert r["players"][1]["gallerist"] == HOME and r["ko_owner"] == -1
        assert r["turn_player"] == 1


def test_R_KO_1_kicked_out_assistant_placed_on_a_contract_stays():
    raw = clean_raw(2)
    place_assistant(raw, 1, AC)
    give_contract(raw, 1, 0, 5 * 0 + CK_BONUS)          # painting: money bonus
    give_visitors(raw, "gallery", [0, 1, 0], player=1)
    s = build(raw)
    act(s, "move:AC", "action:A", "artist:sculpture-blue")
    assert top(s) == "T_KO"
    assert legal(s) == {"ko:pass", "ko:A", "ko:B", "ea:contract1"}
    act(s, "ea:contract1")
    assert legal(s) == {"from:desk", "from:kicked-out"}
    act(s, "from:kicked-out")
    p1 = player(s, 1)
    assert p1["contract_asst"] == [1, 0, 0]
    assert p1["desks"] == 1                             # the kicked-out one stayed on the card
    assert p1["money"] == 12 and p1["influence"] == 10  # no influence paid for an EA
    assert s._raw()["ko_owner"] == -1
