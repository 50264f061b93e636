"""The solo game against Lacerda (docs/rules.md R-SCOPE-2, R-END-1; RN §10;
C§13-§14): setup, her moves, her market placements, kicking out in both
directions, the solo end, scoring against her, and the engine's promises (undo, copy,
invariants, serialization) across her moves."""
from __future__ import annotations

import json
import random

import pytest
from helpers import (A, AC, ASSISTANT, GALLERIST, HOME, IM, KO_SPACE, LACERDA, MC, SO,
                     act, build, clean_raw, discard_tickets, give_tickets, give_visitors,
                     legal, market_assistant, place_assistant, place_gallerist, set_tasks, task,
                     top, top_player)

from gallerist import engine
from gallerist.engine.errors import InvalidStateError
from gallerist.engine.serialize import state_from_json, state_to_dict
from gallerist.engine.state import LACERDA_MARKET_ORDER

# RN §10: her fixed International Market order, (row, column); rows 0-3 are the
# reputation rows (digital, photo, sculpture, painting), rows 4-6 the $1/$3/$6 auctions
ORDER = [tuple(space) for space in LACERDA_MARKET_ORDER]


# ------------------------------------------------------------------ construction

def put_lacerda(raw: dict, loc: int) -> None:
    """Her gallerist on `loc`."""
    assert raw["loc_owner"][loc] < 0
    raw["loc_owner"][loc] = LACERDA
    raw["loc_kind"][loc] = GALLERIST
    raw["lac_loc"] = loc


def lac_assistant(raw: dict, loc: int) -> None:
    """One of her assistants, from her supply, on location `loc`."""
    assert raw["loc_owner"][loc] < 0 and raw["lac_supply"] > 0
    raw["lac_supply"] -= 1
    raw["loc_owner"][loc] = LACERDA
    raw["loc_kind"][loc] = ASSISTANT


def lac_market(raw: dict, row: int, col: int) -> None:
    """One of her assistants, from her supply, on a market space (its tile discarded)."""
    assert raw["mk_asst"][row][col] < 0 and raw["lac_supply"] > 0
    raw["lac_supply"] -= 1
    raw["mk_asst"][row][col] = LACERDA
    if row < 4:
        raw["mk_tile"][row][col] = -1


def at_turn_end(raw: dict) -> None:
    """Player 0 has moved and acted: only the end of the turn is left."""
    set_tasks(raw, [task("T_END_TURN", 0), task("T_AFTER_ACTION", 0)])


def lac(s) -> dict:
    """Lacerda's fields and pieces, read from the state."""
    r = s._raw()
    return {
        "loc": r["lac_loc"], "supply": r["lac_supply"], "due": r["lac_turn"],
        "gallerist": [L for L in range(4) if r["loc_owner"][L] == LACERDA
                      and r["loc_kind"][L] == GALLERIST],
        "assistants": [L for L in range(4) if r["loc_owner"][L] == LACERDA
                       and r["loc_kind"][L] == ASSISTANT],
        "market": [(i, j) for i in range(7) for j in range(3) if r["mk_asst"][i][j] == LACERDA],
    }


def lacerda_assistants(r: dict) -> int:
    """Her assistants anywhere: supply, locations, market, kicked-out space."""
    return (r["lac_supply"]
            + sum(1 for L in range(4) if r["loc_owner"][L] == LACERDA
                  and r["loc_kind"][L] == ASSISTANT)
            + sum(row.count(LACERDA) for row in r["mk_asst"])
            + int(r["ko_owner"] == LACERDA and r["ko_kind"] == ASSISTANT))


def her_move(raw: dict, player_at: int | None = SO):
    """Build a position where the player's turn is over (its gallerist on `player_at`,
    None: at home), then end it: Lacerda moves."""
    if raw["players"][0]["gallerist"] == HOME and player_at is not None:
        place_gallerist(raw, 0, player_at)
    at_turn_end(raw)
    s = build(raw)
    act(s, "end-turn")
    return s


# ------------------------------------------------------------------ setup (C§13, RN §10)

def test_setup_uses_the_one_and_two_player_settings():
    s = engine.new_game(num_players=1, seed=5)
    r = s._raw()
    assert s.num_players == 1 and len(r["players"]) == 1
    assert r["box"] == [10, 10, 10]
    visitors = [r["bag"][c] + r["plaza"][c] + r["players"][0]["lobby"][c]
                + sum(t[c] for t in r["top_visitors"]) for c in range(3)]
    visitors[2] += sum(r["ar_collector"])
    assert visitors == [10, 10, 8]
    assert [e for e in r["easel"] if e >= 0] and r["easel"][1:] == [-1, -1]      # 1 easel
    assert all(r["mk_tile"][i][1] == -1 for i in range(4))                    # column II unused
    assert sum(t >= 0 for row in r["mk_tile"] for t in row) == 8
    assert r["lac_loc"] == -1 and r["lac_supply"] == 10 and r["lac_turn"] == 0
    assert LACERDA not in r["loc_owner"]
    assert legal(s) == {"start:SO", "start:AC", "start:MC", "start:IM"}   # the player picks
    act(s, "start:MC")
    r = s._raw()
    assert r["players"][0]["gallerist"] == MC and r["players"][0]["start_tile"] >= 0
    assert r["loc_tile"] == [-1] * 4 and r["turn_count"] == 1
    assert r["lac_turn"] == 1 and top(s) == "T_TURN_START"


def test_new_game_accepts_one_player_and_random_playouts_finish():
    with pytest.raises(ValueError, match="1 \\(solo\\)"):
        engine.new_game(num_players=0)
    stats = engine.random_playouts(1, games=200, seed=3)
    assert stats["games"] == 200 and stats["unfinished"] == 0
    assert len(stats["mean_money"]) == 1 and stats["mean_money"][0] > 0


# ------------------------------------------------------------------ her moves

@pytest.mark.parametrize("player_at,expected", [(SO, MC), (AC, IM), (MC, SO), (IM, AC)])
def test_first_move_appears_opposite_the_player(player_at, expected):
    """RN §10: her first turn puts her gallerist two steps round from the player's
    gallerist; she leaves no assistant (she left no location)."""
    s = her_move(clean_raw(1), player_at)
    L = lac(s)
    assert L["loc"] == expected and L["gallerist"] == [expected]
    assert s._raw()["loc_owner"][expected] == engine.serialize.LACERDA
    assert L["assistants"] == []
    assert L["supply"] == (9 if expected == IM else 10)   # the market takes one (below)
    assert top(s) == "T_TURN_START" and L["due"] == 1


def test_clockwise_move_leaves_an_assistant_from_her_supply():
    raw = clean_raw(1)
    put_lacerda(raw, SO)
    s = her_move(raw, MC)
    L = lac(s)
    assert L["gallerist"] == [AC] and L["assistants"] == [SO] and L["supply"] == 9
    r = s._raw()
    assert r["turn_count"] == 2 and top(s) == "T_TURN_START" and top_player(s) == 0


def test_clockwise_order_wraps_from_the_market_to_the_sales_office():
    raw = clean_raw(1)
    put_lacerda(raw, IM)
    s = her_move(raw, AC)
    assert lac(s)["gallerist"] == [SO] and lac(s)["assistants"] == [IM]


def test_no_assistant_left_when_her_supply_is_empty():
    raw = clean_raw(1)
    put_lacerda(raw, SO)
    for row, col in ORDER[4:14]:
        lac_market(raw, row, col)
    assert raw["lac_supply"] == 0
    s = her_move(raw, MC)
    L = lac(s)
    assert L["gallerist"] == [AC] and L["assistants"] == [] and L["supply"] == 0


def test_moving_onto_her_own_assistant_returns_it_to_her_supply():
    raw = clean_raw(1)
    put_lacerda(raw, SO)
    lac_assistant(raw, AC)
    s = her_move(raw, MC)
    L = lac(s)
    # back to the supply (10), then one is left on SO (9); no kicked-out step
    assert L["gallerist"] == [AC] and L["assistants"] == [SO] and L["supply"] == 9
    assert top(s) == "T_TURN_START"


def test_own_assistant_back_with_an_empty_supply_is_the_one_left_behind():
    raw = clean_raw(1)
    put_lacerda(raw, SO)
    lac_assistant(raw, AC)
    for row, col in ORDER[:9]:
        lac_market(raw, row, col)
    assert raw["lac_supply"] == 0
    s = her_move(raw, MC)
    L = lac(s)
    assert L["gallerist"] == [AC] and L["assistants"] == [SO] and L["supply"] == 0


# ------------------------------------------------------------------ her market order

@pytest.mark.parametrize("k", range(14))
def test_market_placement_follows_her_fixed_order(k):
    """The first k spaces of her order are taken (by either side): she takes space k
    when she enters the market, and a reputation tile there is discarded."""
    raw = clean_raw(1)
    for i, (row, col) in enumerate(ORDER[:k]):
        if i % 2:
            lac_market(raw, row, col)
        else:
            market_assistant(raw, 0, row, col)
    put_lacerda(raw, MC)
    tile = raw["mk_tile"][ORDER[k][0]][ORDER[k][1]] if ORDER[k][0] < 4 else -1
    s = her_move(raw, SO)
    r = s._raw()
    row, col = ORDER[k]
    assert r["mk_asst"][row][col] == LACERDA
    if row < 4:
        assert tile >= 0 and r["mk_tile"][row][col] == -1
        placed = [t for rr in r["mk_tile"] for t in rr] + [p["start_tile"] for p in r["players"]]
        assert tile not in placed                      # discarded, nobody has it
    assert lac(s)["gallerist"] == [IM]
    assert lacerda_assistants(r) == 10


@pytest.mark.parametrize("taken,expected", [
    ([(4, 0)], (0, 0)),                    # a later space taken does not matter
    ([(0, 0)], (4, 0)),                    # the first taken (here by the player): skipped
    ([(0, 0), (4, 0), (4, 2)], (0, 2)),    # skips only spaces holding an assistant
    ([(0, 0), (4, 0), (0, 2), (4, 2), (5, 0)], (1, 0)),
])
def test_market_placement_skips_spaces_holding_an_assistant(taken, expected):
    raw = clean_raw(1)
    for row, col in taken:
        market_assistant(raw, 0, row, col)
    put_lacerda(raw, MC)
    s = her_move(raw, SO)
    assert lac(s)["market"] == [expected]
    assert lac(s)["assistants"] == [MC] and lac(s)["supply"] == 8


def test_market_placement_takes_an_assistant_from_a_location_when_her_supply_is_empty():
    """SOLO's lacerdaIM: the first location (SO, AC, MC) holding one of hers."""
    raw = clean_raw(1)
    put_lacerda(raw, MC)
    lac_assistant(raw, AC)
    lac_assistant(raw, SO)
    for row, col in ORDER[6:14]:
        lac_market(raw, row, col)
    assert raw["lac_supply"] == 0
    s = her_move(raw, None)
    L = lac(s)
    assert (0, 0) in L["market"]
    assert L["assistants"] == [AC]          # SO's went to the market; none left on MC
    assert L["gallerist"] == [IM] and L["supply"] == 0


def test_no_placement_when_every_space_of_her_order_is_taken():
    raw = clean_raw(1)
    for i, (row, col) in enumerate(ORDER):
        if i < 9:
            lac_market(raw, row, col)
        else:
            market_assistant(raw, 0, row, col)
    put_lacerda(raw, MC)
    s = her_move(raw, SO)
    L = lac(s)
    assert len(L["market"]) == 9 and L["supply"] == 0 and L["assistants"] == [MC]


# ------------------------------------------------------------------ she kicks the player out

def test_her_move_onto_the_players_gallerist_gives_a_kicked_out_action():
    raw = clean_raw(1)
    put_lacerda(raw, SO)
    s = her_move(raw, AC)
    r = s._raw()
    assert (r["ko_owner"], r["ko_kind"], r["ko_loc"]) == (0, GALLERIST, AC)
    assert r["players"][0]["gallerist"] == KO_SPACE and r["ko_active"] == 1
    assert top(s) == "T_KO" and top_player(s) == 0
    assert r["lac_turn"] == 0 and r["turn_count"] == 1            # still her turn
    assert lac(s)["gallerist"] == [AC] and lac(s)["assistants"] == [SO]
    assert {"ko:pass", "ko:A", "ko:B"} <= legal(s)
    act(s, "ko:pass")
    r = s._raw()
    assert r["players"][0]["gallerist"] == HOME and r["ko_owner"] == -1
    assert top(s) == "T_TURN_START" and r["turn_count"] == 2 and r["lac_turn"] == 1
    # from home the player may go anywhere, Lacerda's location included
    assert "move:AC" in legal(s)


def test_kicked_out_action_at_her_location_costs_influence():
    raw = clean_raw(1)
    put_lacerda(raw, SO)
    s = her_move(raw, AC)
    act(s, "ko:A")                                    # discover an artist at AC
    assert s._raw()["players"][0]["influence"] == 5    # RN §2.4: back to the fame icon
    assert top(s) == "T_DISCOVER"
    act(s, "artist:sculpture-blue")                   # influence bonus (no visitors: +0)
    r = s._raw()
    assert r["players"][0]["commission"] == A["sculpture-blue"]
    assert r["players"][0]["gallerist"] == HOME and top(s) == "T_TURN_START"


def test_her_move_onto_the_players_assistant():
    raw = clean_raw(1)
    put_lacerda(raw, SO)
    place_assistant(raw, 0, AC)
    s = her_move(raw, MC)
    r = s._raw()
    assert (r["ko_owner"], r["ko_kind"], r["ko_loc"]) == (0, ASSISTANT, AC)
    desks = r["players"][0]["desks"]
    act(s, "ko:pass")
    assert s._raw()["players"][0]["desks"] == desks + 1        # the assistant goes home


# ------------------------------------------------------------------ the player kicks her out

def _kick_her_gallerist(box=None):
    """The player moves SO -> AC onto her gallerist; `discover` then ends the turn."""
    raw = clean_raw(1)
    if box is not None:
        discard_tickets(raw, [10 - b for b in box])
    place_gallerist(raw, 0, SO)
    put_lacerda(raw, AC)
    s = build(raw)
    act(s, "move:AC", "leave:none")
    r = s._raw()
    assert (r["ko_owner"], r["ko_kind"], r["ko_loc"]) == (LACERDA, GALLERIST, AC)
    assert r["loc_owner"][AC] == 0 and lac(s)["gallerist"] == []
    return s


def discover(s):
    """Discover sculpture-blue (influence bonus, +0 with an empty gallery): with nothing
    else to do the turn then ends by itself."""
    act(s, "action:A", "artist:sculpture-blue")


def test_player_kicks_her_gallerist_out_largest_stack_discarded():
    s = _kick_her_gallerist(box=[9, 10, 8])
    discover(s)
    r = s._raw()
    assert r["box"] == [9, 9, 8] and r["discards"] == [1, 1, 2]   # the largest: investor
    assert r["ko_owner"] == -1 and top(s) == "T_TURN_START"
    # her turn came: from AC (where she was kicked from) to MC, leaving no assistant
    L = lac(s)
    assert L["gallerist"] == [MC] and L["assistants"] == [] and L["supply"] == 10


def test_tied_largest_stacks_the_player_chooses():
    s = _kick_her_gallerist(box=[9, 9, 8])
    discover(s)
    assert top(s) == "T_DISCARD_LARGEST" and top_player(s) == 0
    assert legal(s) == {"solo-discard:vip", "solo-discard:investor"}
    assert lac(s)["gallerist"] == []                  # her move waits for the choice
    act(s, "solo-discard:vip")
    r = s._raw()
    assert r["box"] == [8, 9, 8] and top(s) == "T_TURN_START"
    assert lac(s)["gallerist"] == [MC]


def test_player_kicks_her_assistant_out_it_returns_to_her_supply():
    raw = clean_raw(1)
    place_gallerist(raw, 0, SO)
    put_lacerda(raw, MC)
    lac_assistant(raw, AC)
    s = build(raw)
    act(s, "move:AC", "leave:none")
    r = s._raw()
    assert (r["ko_owner"], r["ko_kind"]) == (LACERDA, ASSISTANT)
    assert lacerda_assistants(r) == 10 and s._invariant_code() == 0
    discover(s)
    assert legal(s) == {"solo-discard:vip", "solo-discard:investor", "solo-discard:collector"}
    act(s, "solo-discard:collector")
    r = s._raw()
    assert r["box"] == [10, 10, 9] and r["discards"] == [0, 0, 1]
    # back in her supply (10), then she moves MC -> IM: one to the market, one left on MC
    L = lac(s)
    assert L["gallerist"] == [IM] and L["assistants"] == [MC] and L["supply"] == 8
    assert L["market"] == [(0, 0)]


def test_kicked_out_of_the_market_she_places_a_market_assistant():
    raw = clean_raw(1)
    place_gallerist(raw, 0, SO)
    give_visitors(raw, "lobby", [1, 0, 0])
    put_lacerda(raw, IM)
    s = build(raw)
    act(s, "move:IM", "leave:none", "market:auction-$1-I", "pay:influence=0", "ticket:vip")
    assert lac(s)["market"] == []
    act(s, "end-turn", "solo-discard:investor")      # box office 9/10/10: a tie
    r = s._raw()
    # her first market space (digital row, I) holds the kicked-out gallerist's replacement
    assert r["mk_asst"][0][0] == LACERDA and r["mk_asst"][4][0] == 0
    assert sum(r["box"]) == 30 - 1 - 1                 # the player's ticket + the discard
    # then her move: from IM to SO, leaving nothing behind (her gallerist was off the board)
    L = lac(s)
    assert L["gallerist"] == [SO] and L["assistants"] == [] and L["supply"] == 9


def test_discard_with_an_empty_box_office_does_nothing():
    raw = clean_raw(1)
    discard_tickets(raw, [10, 10, 10])
    raw["intermediate_done"] = 1
    raw["end_triggered"], raw["turns_left"], raw["lac_turn"] = 1, 1, 0   # the final turn
    place_gallerist(raw, 0, SO)
    put_lacerda(raw, AC)
    s = build(raw)
    act(s, "move:AC", "leave:none", "action:A", "artist:sculpture-blue")
    r = s._raw()
    assert r["discards"] == [10, 10, 10] and s.is_terminal()


def test_discard_that_empties_a_colour_triggers_intermediate_scoring_for_the_player():
    s = _kick_her_gallerist(box=[1, 1, 0])
    raw = s._raw()
    assert raw["intermediate_done"] == 0
    money, infl = raw["players"][0]["money"], raw["players"][0]["influence"]
    discover(s)
    act(s, "solo-discard:vip")
    r = s._raw()
    assert r["box"] == [0, 1, 0] and r["intermediate_done"] == 1
    # the player's gallery is empty: both bonuses are 0, but they were paid exactly once
    assert (r["players"][0]["money"], r["players"][0]["influence"]) == (money, infl)


def test_intermediate_scoring_pays_the_player_only():
    raw = clean_raw(1)
    give_tickets(raw, 0, [9, 0, 0])                    # one VIP ticket left in the box
    give_visitors(raw, "gallery", [1, 2, 1], player=0)
    raw["players"][0]["sold"][0] = 1                   # room for the collector (R-VIS-2)
    raw["players"][0]["acquired"][0] = 1
    put_lacerda(raw, SO)
    s = build(raw)
    act(s, "move:MC", "action:B", "ticket:vip", "fame:+0")   # promote painting-blue
    r = s._raw()
    assert r["intermediate_done"] == 1
    p0 = r["players"][0]
    assert p0["money"] == 10 + 2 * 2 + 1
    assert p0["influence"] == 10 - 1 + 2 * 1 + 1


# ------------------------------------------------------------------ the solo end (R-END-1)

def test_box_office_empty_ends_the_game_after_one_more_player_turn():
    s = _kick_her_gallerist(box=[1, 0, 0])
    discover(s)                                       # the discard empties the box office
    r = s._raw()
    assert r["box"] == [0, 0, 0] and r["end_triggered"] == 1 and r["turns_left"] == 1
    # Lacerda does not move any more: her gallerist stays off the board
    assert lac(s)["gallerist"] == [] and r["lac_turn"] == 0
    assert top(s) == "T_TURN_START" and r["turn_count"] == 2 and not s.is_terminal()
    before = lac(s)
    act(s, "move:MC", "leave:none", "action:A")        # the final turn: hire one
    while not s.is_terminal():
        act(s, sorted(legal(s))[0] if "end-turn" not in legal(s) else "end-turn")
    r = s._raw()
    assert r["turn_count"] == 2 and lac(s) == before and s.final_scores()[0]["money"] >= 0


def test_box_emptied_by_the_kicked_out_action_during_her_turn():
    raw = clean_raw(1)
    discard_tickets(raw, [10, 9, 10])                  # one investor ticket left
    raw["intermediate_done"] = 1
    put_lacerda(raw, IM)
    s = her_move(raw, SO)                              # she moves IM -> SO onto the player
    assert top(s) == "T_KO"
    act(s, "ko:A", "deal4:no", "pile:1", "contract-slot:1")   # slot 1: an investor ticket
    while s.is_chance():
        s.apply(s.chance_outcomes()[0][0])
    r = s._raw()
    assert r["box"] == [0, 0, 0] and r["end_triggered"] == 1
    assert top(s) == "T_TURN_START" and r["turn_count"] == 2 and r["lac_turn"] == 0
    where = lac(s)
    rng = random.Random(1)
    while not s.is_terminal():
        assert s._raw()["turn_count"] == 2            # exactly one more turn
        if s.is_chance():
            s.apply_random_chance(rng.getrandbits(32))
        else:
            s.apply(rng.choice(s.legal_actions()))
    assert lac(s)["gallerist"] == where["gallerist"]


def test_other_end_conditions_do_not_end_a_solo_game():
    raw = clean_raw(1)
    for a in (0, 2):
        raw["ar_discovered"][a] = 1
        raw["ar_bonus"][a] = -1
        raw["ar_fame"][a] = 19                          # two celebrities
    raw["ar_collector"][1] = 0
    raw["plaza"] = [raw["bag"][c] for c in range(3)]
    raw["plaza"][2] += 1
    raw["bag"] = [0, 0, 0]                             # and an empty bag
    put_lacerda(raw, SO)
    s = her_move(raw, MC)
    assert s._raw()["end_triggered"] == 0 and lac(s)["gallerist"] == [AC]


# ------------------------------------------------------------------ scoring against her

def score_now(raw):
    raw["end_triggered"], raw["turns_left"], raw["lac_turn"] = 1, 1, 0
    raw["intermediate_done"] = 1
    place_gallerist(raw, 0, SO)
    at_turn_end(raw)
    s = build(raw)
    act(s, "end-turn")
    assert s.is_terminal()
    return s


REP_ROWS = {0: [0, 1, 2, 3], 2: [0, 1, 2, 3]}


@pytest.mark.parametrize("col,mine,hers,amount", [
    (0, 1, 0, 6), (0, 2, 1, 6), (0, 1, 1, 4), (0, 2, 2, 4), (0, 1, 2, 3), (0, 0, 2, 0),
    (2, 1, 0, 15), (2, 2, 2, 12), (2, 1, 3, 10), (2, 0, 1, 0),
])
def test_majorities_against_her(col, mine, hers, amount):
    """C§14: the 1st amount if ahead, floor((1st + 2nd) / 2) if tied, the 2nd if behind."""
    raw = clean_raw(1)
    rows = [0, 1, 2, 3]          # reputation rows only: no auction offers involved
    for row in rows[:mine]:
        market_assistant(raw, 0, row, col)
    for row in rows[mine:mine + hers]:
        lac_market(raw, row, col)
    s = score_now(raw)
    assert s.final_scores()[0]["majorities"] == amount


@pytest.mark.parametrize("mine,hers,wins", [
    ([(4, 0)], [], True),                   # only the player bids
    ([(4, 0)], [(5, 0)], False),            # $1 against $3
    ([(6, 0)], [(4, 2), (5, 2)], True),     # $6 against $4
    ([(4, 2), (5, 0)], [(5, 2), (4, 0)], False),   # $4 each: her $3 in column III wins
    ([(5, 2), (4, 0)], [(4, 2), (5, 0)], True),    # $4 each: the player's $3 in III wins
])
def test_auction_against_her_offer(mine, hers, wins):
    raw = clean_raw(1)
    for row, col in mine:
        market_assistant(raw, 0, row, col)
    for row, col in hers:
        lac_market(raw, row, col)
    s = score_now(raw)
    sc = s.final_scores()[0]
    p0 = s._raw()["players"][0]
    if wins:
        # the renowned painting at the value of the discovered painting-blue (fame 3: $5)
        assert sc["auction"] == 5 and p0["auction_work"] == 0
    else:
        assert sc["auction"] == 0 and p0["auction_work"] == -1


def test_solo_result_returns_and_render():
    raw = clean_raw(1)
    market_assistant(raw, 0, 4, 0)
    lac_market(raw, 0, 0)
    s = score_now(raw)
    money = s.money()[0]
    assert s.returns() == [pytest.approx(money / (money + engine.state.SOLO_RETURN_SCALE))]
    assert s.winners() == [0]
    text = s.render()
    assert f"Solo score (against Lacerda): ${money}" in text
    assert "solo against Lacerda" in text.splitlines()[0]


def test_render_shows_her_pieces():
    raw = clean_raw(1)
    put_lacerda(raw, SO)
    lac_assistant(raw, MC)
    lac_market(raw, 0, 0)
    place_gallerist(raw, 0, AC)
    s = build(raw)
    text = s.render()
    assert "SO Lac gallerist" in text and "MC Lac assistant" in text
    assert "rep-digital   Lac" in text
    assert "Lacerda: gallerist SO | supply 8" in text and "moves after this turn" in text


# ------------------------------------------------------------------ engine promises

def _random_solo_game(seed: int, visit) -> engine.GameState:
    rng = random.Random(seed)
    s = engine.new_game(1, seed)
    for _ in range(engine.MAX_GAME_LENGTH):
        if s.is_terminal():
            return s
        if s.is_chance():
            a = rng.choice([a for a, _ in s.chance_outcomes()])
        else:
            a = rng.choice(s.legal_actions())
        visit(s, a)
        s.apply(a)
    raise AssertionError("a solo game did not end")


def test_undo_and_copy_across_her_moves():
    moves = 0
    for seed in range(6):
        def visit(s, a):
            nonlocal moves
            before = s.state_bytes()
            lac_before = s._raw()["lac_loc"]
            c = s.copy()
            s.apply(a)
            if s._raw()["lac_loc"] != lac_before:
                moves += 1
            assert c.state_bytes() == before            # the copy is untouched
            c.apply(a)
            assert c.state_bytes() == s.state_bytes()   # and replays the same way
            assert s.undo() == a
            assert s.state_bytes() == before
        _random_solo_game(seed, visit)
    assert moves > 50


def test_invariants_hold_in_random_solo_games():
    """docs/rules.md §4 (with her 10 assistants) and every rule between fields that the
    state reader requires (engine/_rules_consistency.pxi) after every action; every game
    ends."""
    ends = {"box": 0}
    for seed in range(40):
        def visit(s, a):
            assert s._invariant_code() == 0 and s._consistency_code() == 0
            r = s._raw()
            assert lacerda_assistants(r) == 10 and 0 <= r["lac_supply"] <= 10
            assert sum(1 for L in range(4) if r["loc_owner"][L] == LACERDA
                       and r["loc_kind"][L] == GALLERIST) <= 1
            assert all(r["mk_asst"][i][1] == -1 for i in range(7))
        s = _random_solo_game(seed, visit)
        assert s.is_terminal() and s._invariant_code() == 0
        if sum(s._raw()["box"]) == 0:
            ends["box"] += 1
    assert ends["box"] > 0


def test_serialization_round_trip_of_solo_states():
    seen = {"her_turn": 0, "discard": 0}
    for seed in range(12):
        def visit(s, a):
            text = s.to_json()
            t = state_from_json(text)
            assert t.state_bytes() == s.state_bytes()
            assert t.to_json() == text
            r = s._raw()
            seen["her_turn"] += bool(r["ko_active"])
            seen["discard"] += top(s) == "T_DISCARD_LARGEST"
        final = _random_solo_game(seed, visit)
        assert state_from_json(final.to_json()).state_bytes() == final.state_bytes()
    assert seen["her_turn"] > 0


def _solo_json() -> dict:
    raw = clean_raw(1)
    place_gallerist(raw, 0, SO)
    put_lacerda(raw, MC)
    lac_assistant(raw, AC)
    lac_market(raw, 0, 0)
    return state_to_dict(build(raw))


def _mut(fn):
    def apply(d):
        fn(d)
        return d
    return apply


@pytest.mark.parametrize("name,mutate,message", [
    ("supply off by one", _mut(lambda d: d["lacerda"].update(supply=7)), "lacerda.supply"),
    ("supply above 10", _mut(lambda d: d["lacerda"].update(supply=11)),
     "lacerda.supply: 11 is outside 0..10"),
    ("move not due on the player's turn", _mut(lambda d: d["lacerda"].update(moveDue=False)),
     "lacerda.move_due"),
    ("her gallerist elsewhere", _mut(lambda d: d["lacerda"].update(
        location="LOCATION_SALES_OFFICE")), "locations[2].lacerda"),
    ("owner and lacerda flag", _mut(lambda d: d["locations"][1].update(owner=0)),
     "locations[1].owner: must be absent"),
    ("market flag and owner", _mut(lambda d: d["market"][0].update(assistantOwner=0)),
     "market[0].assistant_owner: must be absent"),
    ("tile under her assistant", _mut(lambda d: d["market"][0].update(reputationTile=19)),
     "market[0].reputation_tile"),
    ("pieces before her first move", _mut(lambda d: d["lacerda"].update(
        location="LOCATION_UNSPECIFIED")), "locations"),
])
def test_invalid_solo_states_are_rejected(name, mutate, message):
    text = json.dumps(mutate(_solo_json()))
    with pytest.raises(InvalidStateError) as err:
        state_from_json(text)
    assert message in str(err.value), (name, str(err.value))


def test_lacerda_assistant_total_names_the_count_found():
    """docs/rules.md §4, Lacerda's assistants: the reader names her supply and the engine's
    count of her pieces on the board (2 here: location and market)."""
    d = _solo_json()
    d["lacerda"]["supply"] = 7
    with pytest.raises(InvalidStateError) as err:
        state_from_json(json.dumps(d))
    assert str(err.value) == ("lacerda.supply: supply + 2 on the board = 9, expected 10 "
                              "(Lacerda's assistants, docs/rules.md §4)")


def test_lacerda_assistant_total_is_checked_before_the_artists():
    """The engine's invariant check reports Lacerda's assistants (9) before an artist's
    signature tokens (8), the order in which the reader names the component totals."""
    from gallerist.engine.state import INVARIANT_NAMES
    s = state_from_json(json.dumps(_solo_json()))
    raw = s._raw()
    raw["lac_supply"] -= 1
    raw["ar_tokens"][0] -= 1
    broken = engine.GameState._from_raw(raw)
    with pytest.raises(InvalidStateError) as err:
        broken.check_invariants()
    assert str(err.value) == INVARIANT_NAMES[9]


def test_valid_solo_state_reads_back():
    d = _solo_json()
    s = state_from_json(json.dumps(d))
    assert lac(s)["gallerist"] == [MC] and lac(s)["supply"] == 8


def test_lacerda_pieces_are_rejected_with_more_players():
    d = state_to_dict(engine.new_game(2, 1))
    d["locations"][0]["lacerda"] = True
    with pytest.raises(InvalidStateError, match="locations\\[0\\].lacerda: Lacerda's pieces exist"):
        state_from_json(json.dumps(d))
    d = state_to_dict(engine.new_game(2, 1))
    d["kickedOut"]["lacerda"] = True
    with pytest.raises(InvalidStateError, match="kicked_out.lacerda"):
        state_from_json(json.dumps(d))


def test_fuzzed_solo_states_are_rejected_or_play_on():
    """The serialization fuzzers of test_serialize on solo positions (her turn, the
    discard choice, the final turn, the end included): a mutated state is either
    rejected with InvalidStateError naming a field or accepted and playable."""
    from test_serialize import (_accepted_and_plays_on, _json_mutants, _mutate_proto,
                                _plays_on, _random_task)

    from gallerist.v1 import state_pb2 as pb

    pool: list[str] = []
    for seed in range(4):
        states: list[engine.GameState] = []
        _random_solo_game(seed, lambda s, a: states.append(s.copy()))
        pool += [s.to_json() for s in states[::9]]
        pool += [s.to_json() for s in states if s._raw()["ko_active"]
                 or top(s) == "T_DISCARD_LARGEST"][:4]
    rng = random.Random(7)
    short = []
    for text in pool:   # the history only slows the parser down and is never checked
        d = json.loads(text)
        d["history"] = d["history"][-3:]
        short.append(json.dumps(d))
    accepted = sum(_accepted_and_plays_on(d, rng, case)
                   for case, d in _json_mutants(rng, 600, [1, 1, 2], tuple(short)))
    rejected = 600 - accepted
    assert rejected > 300 and accepted > 20, (accepted, rejected)
    protos = [state_from_json(t).to_proto() for t in pool]
    ints = [0, 1, 2, 3, 4, 5, 7, 9, 10, 11, 14, 20, 21, 35, 36, 255, 2 ** 31 - 1]
    for case in range(1000):
        msg = pb.GameState()
        msg.CopyFrom(rng.choice(protos))
        if rng.random() < 0.3 and msg.tasks:
            msg.tasks[-1].CopyFrom(_random_task(rng, 1))
        else:
            _mutate_proto(msg, rng, ints)
        try:
            state = engine.GameState.from_proto(msg)
        except InvalidStateError as exc:
            assert not str(exc).startswith("state could not be validated"), (case, exc)
            continue
        _plays_on(state, rng, 20)
