"""Construction helpers for the rules tests.

A test builds a position as a raw dict (the StateC as plain dicts/lists, see
``GameState._raw``), edits it, rebuilds it with ``GameState._from_raw`` and then plays
actions by their notation. ``clean_raw`` gives a fully controlled starting point: every
visitor in the bag (except the collectors on the red artists), every ticket in the box
office, every player with $10, influence 10, 2 desk assistants and 8 in the queue, every
gallerist at home, and player 0 about to start a turn (solo, ``clean_raw(1)``: Lacerda
not yet on the board, her 10 assistants in her supply). The ``give_*`` / ``put_*`` helpers
move components from their supply so that the invariants of docs/rules.md §4 keep holding;
``build`` checks them.
"""
from __future__ import annotations

import random
from typing import Iterable

from gallerist import engine
import gallerist.engine._core as C
from gallerist.engine.actions import action_to_string, describe_decision, string_to_action
from gallerist.engine.names import ARTISTS, FORMS
from gallerist.engine.state import (ACTION_BASES, ARTIST_FAME0, ARTIST_PROMO0, EASELS, MARKET_ROW_FORM,
                          START_DESKS, START_INFLUENCE, START_MONEY, START_QUEUE, TASK_KINDS,
                          TICKETS_PER_COLOUR, VISITORS_TOTAL, GameState)

TK = TASK_KINDS

# index conventions (engine/data.h, engine/_core.pxd): the engine's own constants
VIP, INV, COL = C.VIP, C.INVESTOR, C.COLLECTOR
PAINTING, SCULPTURE, PHOTO, DIGITAL = (FORMS.index(f) for f in
                                       ("painting", "sculpture", "photo", "digital"))
SO, AC, MC, IM = C.LOC_SALES, C.LOC_COLONY, C.LOC_MEDIA, C.LOC_MARKET
HOME, KO_SPACE = C.GAL_HOME, C.GAL_KO
GALLERIST, ASSISTANT = C.PIECE_GALLERIST, C.PIECE_ASSISTANT
CS_FACE_UP, CS_MONEY, CS_INFLUENCE = C.CS_FACE_UP, C.CS_MONEY, C.CS_INFLUENCE
A = {name: i for i, name in enumerate(ARTISTS)}   # "painting-blue" -> 0, ...
# reputation spaces on the player board
RS_INFLUENCE, RS_MONEY, RS_FAME, RS_VISITOR, RS_TICKETS, RS_ASSISTANT = (
    C.RS_INFLUENCE, C.RS_MONEY, C.RS_FAME, C.RS_VISITOR, C.RS_TWO_TICKETS, C.RS_ASSISTANT)
# artist bonus tiles
B_MONEY, B_INFLUENCE, B_FAME, B_TWO_TICKETS, B_VISITOR = (
    C.BONUS_MONEY, C.BONUS_INFLUENCE, C.BONUS_FAME, C.BONUS_TWO_TICKETS, C.BONUS_VISITOR)
# contract kinds (id = 5 * form + kind)
CK_SIGN, CK_ASSISTANT, CK_BAG_VISITOR, CK_PLAZA_VIP_INV, CK_BONUS = (
    C.CK_SIGN, C.CK_ASSISTANT, C.CK_BAG_VISITOR, C.CK_PLAZA_VIP_INV, C.CK_BONUS)
# market rows: 0-3 reputation (digital, photo, sculpture, painting), 4-6 auction $1/$3/$6
ROW_FORM = MARKET_ROW_FORM

TICKETS = TICKETS_PER_COLOUR      # by player count
LACERDA = C.LACERDA               # owner id of Lacerda's pieces (solo)
FAME0 = ARTIST_FAME0              # C§3 initial fame [form][colour][variant]


def task(kind: str, player: int = -1, a: int = 0, b: int = 0, c: int = 0) -> dict:
    return {"kind": TK[kind], "player": player, "a": a, "b": b, "c": c}


def set_tasks(raw: dict, tasks: list[dict]) -> None:
    raw["tasks"] = tasks
    raw["num_tasks"] = len(tasks)


def turn_tasks(p: int) -> list[dict]:
    """The task stack at the start of player p's turn."""
    return [task("T_END_TURN", p), task("T_AFTER_ACTION", p), task("T_TURN_START", p)]


def clean_raw(n: int = 2, seed: int = 0) -> dict:
    """A controlled position: see the module docstring. Player 0 starts a turn."""
    raw = engine.new_game(n, seed)._raw()
    raw["bag"] = list(VISITORS_TOTAL[n])
    raw["bag"][COL] -= 4                      # four collectors wait on the red artists
    raw["plaza"] = [0, 0, 0]
    raw["box"] = [TICKETS[n]] * 3
    raw["discards"] = [0, 0, 0]
    raw["top_visitors"] = [[0, 0, 0] for _ in range(4)]
    raw["loc_owner"] = [-1] * 4
    raw["loc_kind"] = [0] * 4
    raw["loc_tile"] = [-1] * 4
    raw["ko_owner"], raw["ko_kind"], raw["ko_loc"] = -1, 0, -1
    raw["mk_asst"] = [[-1] * 3 for _ in range(7)]
    tiles = iter(range(20))
    raw["mk_tile"] = [[(next(tiles) if (n > 2 or c != 1) else -1) for c in range(3)]
                      for _ in range(4)]
    # artists: every tile variant 0; only the painting-blue artist discovered (R-ART-2)
    raw["ar_variant"] = [0] * 8
    raw["ar_discovered"] = [1, 0, 0, 0, 0, 0, 0, 0]
    raw["ar_fame"] = [FAME0[a >> 1][a & 1][0] for a in range(8)]
    raw["ar_promo"] = [ARTIST_PROMO0[a >> 1][a & 1][0] for a in range(8)]
    raw["ar_tokens"] = [2] * 8
    raw["ar_bonus"] = [-1, B_MONEY, B_INFLUENCE, B_FAME, B_TWO_TICKETS, B_VISITOR, B_MONEY,
                       B_INFLUENCE]
    raw["ar_collector"] = [a & 1 for a in range(8)]
    raw["promo_stock"] = [0, 4, 4, 4, 4, 4]
    # works: tile kind 0 on top of every stack, kinds 1..6 below, kind 7 set aside
    raw["stack_top"] = [0, 0, 0, 0]
    raw["stack_mask"] = [0b01111110] * 4
    raw["easel"] = list(range(EASELS[n])) + [-1] * (3 - EASELS[n])
    # contracts: piles hold cards 0, 5, 10, 15 (the "sign" card of each form)
    raw["pile"] = [[5 * i] + [-1] * 19 for i in range(4)]
    raw["pile_len"] = [1, 1, 1, 1]
    raw["deck_mask"] = ((1 << 20) - 1) & ~sum(1 << (5 * i) for i in range(4))
    for p, pl in enumerate(raw["players"]):
        pl.update(money=START_MONEY, influence=START_INFLUENCE, lobby=[0, 0, 0],
                  gallery=[0, 0, 0], tickets=[0, 0, 0], desks=START_DESKS,
                  queue=START_QUEUE, removed=0, gallerist=HOME,
                  commission=-1, nworks=0, works=[-1] * 4, start_tile=-1, rep=[-1] * 6,
                  acquired=[0] * 4, sold=[0] * 4, contract=[-1] * 3,
                  contract_state=[0] * 3, contract_asst=[0] * 3, curator=p, dealer=p,
                  auction_work=-1, auction_as=0, score=[0] * 8)
    raw.update(turn_player=0, ea_used=0, end_triggered=0, turns_left=0,
               intermediate_pending=0, intermediate_done=0, terminal=0, ko_active=0,
               passes=0, turn_count=1)
    # solo: Lacerda has not moved yet, all 10 assistants in her supply, her move is due
    raw.update(lac_loc=-1, lac_supply=10 if n == 1 else 0, lac_turn=int(n == 1))
    set_tasks(raw, turn_tasks(0))
    return raw


# ------------------------------------------------------------------ moving components

def give_visitors(raw: dict, where: str, counts: Iterable[int], player: int = 0,
                  form: int = 0) -> None:
    """Move visitors from the bag to 'plaza', 'lobby', 'gallery' (of player) or 'tile'
    (the top work of `form`)."""
    for t, k in enumerate(counts):
        assert raw["bag"][t] >= k, "not enough visitors in the bag"
        raw["bag"][t] -= k
        if where == "plaza":
            raw["plaza"][t] += k
        elif where == "tile":
            raw["top_visitors"][form][t] += k
        else:
            raw["players"][player][where][t] += k


def empty_bag_to_plaza(raw: dict, keep: Iterable[int] = (0, 0, 0)) -> None:
    keep = list(keep)
    for t in range(3):
        raw["plaza"][t] += raw["bag"][t] - keep[t]
        raw["bag"][t] = keep[t]


def give_tickets(raw: dict, p: int, counts: Iterable[int]) -> None:
    for c, k in enumerate(counts):
        raw["box"][c] -= k
        raw["players"][p]["tickets"][c] += k


def discard_tickets(raw: dict, counts: Iterable[int]) -> None:
    """Move tickets from the box office to the discard pile."""
    for c, k in enumerate(counts):
        raw["box"][c] -= k
        raw["discards"][c] += k


def place_gallerist(raw: dict, p: int, loc: int) -> None:
    pl = raw["players"][p]
    if pl["gallerist"] < 4:
        raw["loc_owner"][pl["gallerist"]] = -1
    pl["gallerist"] = loc
    if loc < 4:
        assert raw["loc_owner"][loc] < 0
        raw["loc_owner"][loc] = p
        raw["loc_kind"][loc] = GALLERIST


def _take_desk(raw: dict, p: int) -> None:
    pl = raw["players"][p]
    if pl["desks"] > 0:
        pl["desks"] -= 1
    else:
        assert pl["queue"] > 0
        pl["queue"] -= 1


def place_assistant(raw: dict, p: int, loc: int) -> None:
    """An assistant of p (from a desk, else the queue) on location loc."""
    assert raw["loc_owner"][loc] < 0
    _take_desk(raw, p)
    raw["loc_owner"][loc] = p
    raw["loc_kind"][loc] = ASSISTANT


def market_assistant(raw: dict, p: int, row: int, col: int) -> None:
    _take_desk(raw, p)
    raw["mk_asst"][row][col] = p
    if row < 4:
        raw["mk_tile"][row][col] = -1


def discover(raw: dict, artist: int, fame: int | None = None, variant: int = 0,
             commission_of: int | None = None) -> None:
    raw["ar_variant"][artist] = variant
    raw["ar_discovered"][artist] = 1
    raw["ar_bonus"][artist] = -1
    raw["ar_promo"][artist] = ARTIST_PROMO0[artist >> 1][artist & 1][variant]
    if raw["ar_collector"][artist]:
        raw["ar_collector"][artist] = 0
        raw["plaza"][COL] += 1
    raw["ar_fame"][artist] = FAME0[artist >> 1][artist & 1][variant] if fame is None else fame
    if commission_of is not None:
        raw["ar_tokens"][artist] -= 1
        raw["players"][commission_of]["commission"] = artist


def give_work(raw: dict, p: int, artist: int, sold: bool = False) -> None:
    """Player p bought a work of `artist` earlier (exhibited, or sold if `sold`)."""
    pl = raw["players"][p]
    pl["acquired"][artist >> 1] += 1
    if sold:
        pl["sold"][artist >> 1] += 1
        return
    assert raw["ar_tokens"][artist] > 0
    raw["ar_tokens"][artist] -= 1
    pl["works"][pl["nworks"]] = artist
    pl["nworks"] += 1


def take_card(raw: dict, card: int) -> None:
    """Remove a contract from the deck (or from the top of a pile)."""
    if raw["deck_mask"] >> card & 1:
        raw["deck_mask"] &= ~(1 << card)
        return
    for i in range(4):
        n = raw["pile_len"][i]
        if n and raw["pile"][i][n - 1] == card:
            raw["pile"][i][n - 1] = -1
            raw["pile_len"][i] = n - 1
            return
    raise AssertionError(f"contract {card} is not available")


def give_contract(raw: dict, p: int, slot: int, card: int, state: int = CS_FACE_UP,
                  assistant: bool = False) -> None:
    take_card(raw, card)
    pl = raw["players"][p]
    pl["contract"][slot] = card
    pl["contract_state"][slot] = state
    if assistant:
        _take_desk(raw, p)
        pl["contract_asst"][slot] = 1


def set_piles(raw: dict, piles: list[list[int]], deck: Iterable[int] | None = None) -> None:
    """Set the display piles (bottom first); every other contract not on a board goes
    to the deck unless `deck` lists the deck explicitly."""
    held = {c for pl in raw["players"] for c in pl["contract"] if c >= 0}
    raw["pile"] = [list(pile) + [-1] * (20 - len(pile)) for pile in piles]
    raw["pile_len"] = [len(pile) for pile in piles]
    on_piles = {c for pile in piles for c in pile}
    if deck is None:
        deck = [c for c in range(20) if c not in held and c not in on_piles]
    raw["deck_mask"] = sum(1 << c for c in deck)


def contracts_accounted(raw: dict) -> int:
    """Contracts in the deck + in the display piles + on player boards (+ discarded ones
    are not tracked: use this where none was discarded)."""
    n = bin(raw["deck_mask"]).count("1")
    n += sum(raw["pile_len"])
    n += sum(1 for pl in raw["players"] for c in pl["contract"] if c >= 0)
    return n


# ------------------------------------------------------------------ playing

def build(raw: dict, check: bool = True) -> GameState:
    s = GameState._from_raw(raw)
    if check:
        code = s._invariant_code()
        assert code == 0, f"constructed position breaks invariant {code}"
    return s


def act(s: GameState, *notations: str) -> GameState:
    """Apply actions (or chance outcomes) by notation; returns the state."""
    for text in notations:
        a = string_to_action(text)
        s.apply(a)
        assert s._invariant_code() == 0, f"invariant {s._invariant_code()} after {text}"
    return s


def legal(s: GameState) -> set[str]:
    if s.is_chance():
        return {action_to_string(a) for a, _ in s.chance_outcomes()}
    return {action_to_string(a) for a in s.legal_actions()}


def chance(s: GameState) -> dict[str, float]:
    return {action_to_string(a): p for a, p in s.chance_outcomes()}


def top(s: GameState) -> str:
    """Name of the top task, e.g. 'T_TURN_START'."""
    tasks = s._raw()["tasks"]
    if not tasks:
        return "END"
    names = {v: k for k, v in TK.items()}
    return names[tasks[-1]["kind"]]


def top_player(s: GameState) -> int:
    return s._raw()["tasks"][-1]["player"]


def player(s: GameState, p: int) -> dict:
    return s._raw()["players"][p]


def play_random(s: GameState, rng: random.Random, until=None, max_steps: int = 100000) -> GameState:
    """Random legal play until `until(s)` holds or the game ends."""
    for _ in range(max_steps):
        if s.is_terminal() or (until is not None and until(s)):
            return s
        if s.is_chance():
            s.apply_random_chance(rng.getrandbits(63))
        else:
            s.apply(rng.choice(s.legal_actions()))
    raise AssertionError("play_random did not stop")


def end_turn_passing(s: GameState) -> None:
    """Finish the current turn: end it if that is offered, pass KO actions."""
    if "end-turn" in legal(s):
        act(s, "end-turn")


__all__ = [name for name in dir() if not name.startswith("_")] + ["ACTION_BASES",
                                                                  "describe_decision"]
