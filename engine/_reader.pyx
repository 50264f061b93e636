# cython: language_level=3
"""The state reader: a `gallerist.v1.GameState` (proto/gallerist/v1/state.proto) checked
and read into the engine struct (the writer is engine/_writer.pyx).

`read_state(msg)` checks a message and builds the `GameState`, or raises
`InvalidStateError` whose message starts with the path of the offending field in the
schema's names (``players[1].exhibited_works[2]: 9 is outside 0..7 (artist slot)``).
Reading is the security boundary in front of the C rules, which do no bounds checks,
so every value is checked in three layers:

1. decoding: every field present, of the right shape and inside its range (both the
   engine's int8/int16 field and its meaning: an artist slot is 0..7, a seat is below
   num_players, a task argument is what that task kind's code indexes with, ...);
2. consistency: what the rules keep true between fields (pieces on locations agree with
   their owners, every contract and reputation tile is in one place, the task stack has
   the shape the engine builds, the component totals of RULES.md §4, ...);
3. the engine itself: the C invariant check, then the position must offer an action or
   a chance outcome (or be over, with no tasks).

A path or a message is only built once a check has failed, so accepting a state costs
the typed checks alone.

Enum numbers come from engine/_state_pb.pxi, which proto/generate.py makes from
state.proto at build time; component numbers from the engine (data.h, _core.pxd).
"""
from libc.stdint cimport int8_t, uint32_t, uint64_t
from libc.string cimport memset

from engine._core cimport (
    StateC, TaskC, PlayerC, action_t, MAX_LEGAL, MAX_TASKS, MAX_PILE, NUM_CONTRACTS,
    NUM_REP_TILES, NUM_ACTIONS, LACERDA, LACERDA_ASSISTANTS, GAL_HOME, GAL_KO,
    PIECE_GALLERIST, PIECE_ASSISTANT, CS_FACE_UP, COLLECTOR, PLAYER_CHANCE,
    MAX_TURNS_PER_PLAYER, CD_TILE, state_check_invariants, state_legal_actions,
    state_chance_outcomes, state_current_player,
)
from engine._core cimport (
    T_START_LOC, T_TURN_START, T_LEAVE, T_LOC_ACTION, T_AFTER_ACTION, T_KO, T_DISCOVER,
    T_BUY, T_PROMOTE, T_PAY, T_FAME_STEPS, T_FAME_BONUS, T_TICKET_PAIR, T_TICKET_OR,
    T_BOX_DISCARD, T_VISITOR_PLAZA, T_GALLERY_OUT, T_ORIENT, T_REP_SPACE, T_DEAL4,
    T_CONTRACT_SLOT, T_SELL, T_HIRE, T_MARKET, T_ASSIST_SRC, T_TICKET_MOVE,
    T_DISCARD_LARGEST, T_CH_VISITOR, T_CH_TILE, T_CH_CONTRACT, T_AUTO_FIRST, T_GAIN_TICKET,
    T_END_TURN, T_KO_DONE, T_BUY_FINISH, T_GAIN_INFLUENCE, T_MARKET_FINISH,
    T_CONTRACT_BONUS, T_REFILL_PILE, T_PROMOTE_FINISH, T_BEGIN_GAME, T_FINISH_TURN,
    T_DISCOVER_FINISH,
)
from engine.state cimport GameState

from engine.errors import InvalidStateError
from engine.state import INVARIANT_NAMES, MAX_GAME_LENGTH
from proto.gallerist.v1 import state_pb2 as _pb

include "_state_pb.pxi"

cdef extern from "data.h" nogil:
    const int8_t VISITORS_TOTAL[5][3]
    const int8_t TICKETS_PER_COLOUR[5]
    const int8_t EASELS[5]
    const int8_t ARTIST_FAME0[4][2][2]
    const int8_t ARTIST_PROMO0[4][2][2]
    const int8_t ARTIST_BONUS_COUNT[5]
    const int8_t WORK_VISITORS[8]
    const int8_t FAME_MAX, INFLUENCE_MAX, PROMO_TOKENS, NUM_DESKS, START_QUEUE

#: The version written to and required in `GameState.schema_version`.
SCHEMA_VERSION = 1
#: The owner id of Lacerda's pieces in the engine struct (solo).
LACERDA_OWNER = LACERDA

cdef enum:
    NUM_KINDS = 64             # task kinds are below this
    MAX_MONEY = 9999           # the schema's range of money and score amounts ($)
    ASSISTANTS_PER_PLAYER = 10     # RULES.md §4
    TILES_PER_FORM_IN_PLAY = 7     # C§5: 8 per form, one set aside
    MAX_PLACES = 160           # places a contract or a reputation tile can be in

# Field names of the schema's count messages, in the engine's index order.
VISITOR_FIELDS = tuple(f.name for f in _pb.Visitors.DESCRIPTOR.fields)   # vip, investor, collector
FORM_FIELDS = tuple(f.name for f in _pb.FormCounts.DESCRIPTOR.fields)    # painting .. digital
SCORE_FIELDS = tuple(f.name for f in _pb.FinalScore.DESCRIPTOR.fields)[:8]  # the steps, total
_LEVEL_FIELDS = tuple(f.name for f in _pb.PromotionTokens.DESCRIPTOR.fields)  # level_1 ..
_ARG_NAMES = ("a", "b", "c")

# Task arguments (a, b, c) by kind: the range each one's code uses (resolve, run_auto and
# state_legal_actions in _core.pyx), or None where the engine always pushes 0.
_TASK_ARGS = {
    T_LEAVE: ((0, 3), None, None),              # location left
    T_LOC_ACTION: ((0, 3), None, None),         # location
    T_PAY: ((0, 30), (0, 7), None),             # amount, fame steps to keep
    T_FAME_STEPS: ((0, 7), (0, FAME_MAX), (0, FAME_MAX)),   # artist, fame, min steps
    T_TICKET_OR: ((0, 2), (0, 2), None),        # two colours
    T_BOX_DISCARD: ((0, 2), None, None),        # colour that was short
    T_VISITOR_PLAZA: ((3, 7), None, None),      # allowed-type mask: 3 or 7 (checked apart)
    T_GALLERY_OUT: ((0, 2), None, None),        # contract slot
    T_ORIENT: ((0, 2), None, None),             # contract slot
    T_REP_SPACE: ((0, NUM_REP_TILES - 1), None, None),     # reputation tile
    T_CONTRACT_SLOT: ((0, NUM_CONTRACTS - 1), None, None),  # contract id
    T_MARKET: ((0, 1), None, None),             # 0 reputation rows, 1 auction rows
    T_ASSIST_SRC: ((0, 23), None, None),        # market space 0..20, 21 + contract slot
    T_TICKET_MOVE: ((0, 3 * TICKETS_PER_COLOUR[4]), None, None),  # moves made so far
    T_CH_VISITOR: ((0, 2), (0, 3), None),       # destination, form or seat
    T_CH_TILE: ((0, 3), None, None),            # form
    T_CH_CONTRACT: ((0, 3), None, None),        # pile
    T_GAIN_TICKET: ((0, 2), None, None),        # colour
    T_BUY_FINISH: ((0, 7), (0, 7), (0, 1)),     # artist, work tile kind, 3rd slot filled
    T_GAIN_INFLUENCE: ((0, INFLUENCE_MAX), None, None),
    T_MARKET_FINISH: ((0, 20), None, None),     # market space
    T_CONTRACT_BONUS: ((0, 2), None, None),     # contract slot
    T_REFILL_PILE: ((0, 3), None, None),        # pile
    T_PROMOTE_FINISH: ((0, 7), None, None),     # artist
    T_DISCOVER_FINISH: ((0, 7), None, None),    # artist
}
# Kinds the engine pushes without a player (-1): chance events and the setup marker.
_NO_PLAYER = (T_CH_VISITOR, T_CH_TILE, T_CH_CONTRACT, T_BEGIN_GAME)

# Where kinds sit in the stack the engine builds: setup [BEGIN_GAME, START_LOC...], a turn
# [END_TURN, AFTER_ACTION, TURN_START, ...], the kicked-out step [FINISH_TURN, KO_DONE, KO
# or DISCARD_LARGEST, ...]. Top-only decisions are pushed last and resolved before anything
# else runs, so their preconditions (checked by the action that pushed them) are never
# re-checked; deeper down they could act on a changed position.
_BOTTOM_KINDS = (T_BEGIN_GAME, T_END_TURN, T_FINISH_TURN)
_TOP_ONLY_KINDS = (T_DISCOVER, T_BUY, T_PROMOTE, T_SELL, T_HIRE, T_MARKET, T_ASSIST_SRC, T_KO,
                   T_DEAL4, T_CONTRACT_SLOT, T_GALLERY_OUT, T_ORIENT, T_TICKET_MOVE,
                   T_BOX_DISCARD, T_LEAVE, T_FAME_BONUS, T_TICKET_PAIR, T_VISITOR_PLAZA,
                   T_DISCARD_LARGEST)
_TURN_PLAYER_KINDS = (T_END_TURN, T_AFTER_ACTION, T_TURN_START, T_LOC_ACTION, T_LEAVE)
_FIXED_BELOW = {T_AFTER_ACTION: T_END_TURN, T_TURN_START: T_AFTER_ACTION,   # kind: the one
                T_KO_DONE: T_FINISH_TURN, T_DISCARD_LARGEST: T_FINISH_TURN,  # right below
                T_KO: T_KO_DONE}

cdef bint _accepted[NUM_KINDS]
cdef bint _has_player[NUM_KINDS]
cdef bint _arg_used[NUM_KINDS][3]
cdef long _arg_lo[NUM_KINDS][3]
cdef long _arg_hi[NUM_KINDS][3]
cdef int _below[NUM_KINDS]
cdef uint64_t _bottom = 0, _top_only = 0, _turn_player = 0
cdef long _max_history = MAX_GAME_LENGTH


def task_rules():
    """{kind: (has_player, (a, b, c))} for every task kind a state may hold, each
    argument a (lo, hi) range or None (must be 0). DISCARD_LARGEST is solo only."""
    return {k: (k not in _NO_PLAYER, _TASK_ARGS.get(k, (None, None, None)))
            for k in _pb.TaskKind.values() if k}


def _init_tables():
    global _bottom, _top_only, _turn_player
    cdef int kind, j
    _bottom = sum(1 << k for k in _BOTTOM_KINDS)
    _top_only = sum(1 << k for k in _TOP_ONLY_KINDS)
    _turn_player = sum(1 << k for k in _TURN_PLAYER_KINDS)
    for kind_obj, below in _FIXED_BELOW.items():
        _below[<int>kind_obj] = below
    for kind_obj, (player, ranges) in task_rules().items():
        kind = kind_obj
        _accepted[kind] = True
        _has_player[kind] = player
        for j in range(3):
            if ranges[j] is not None:
                _arg_used[kind][j] = True
                _arg_lo[kind][j], _arg_hi[kind][j] = ranges[j]


_init_tables()


# ================================================================ errors (the cold path)


cdef str _path(str fmt, long i, long j, str field):
    """A field's path: `fmt` with the indices filled in, then `.field`."""
    cdef str p = fmt.format(i, j)
    if not field:
        return p
    return p + "." + field if p else field


cdef int _fail(str path, str problem) except -1:
    raise InvalidStateError(f"{path}: {problem}")


cdef int _range_fail(str path, long v, long lo, long hi, str what) except -1:
    return _fail(path, f"{v} is outside {lo}..{hi}" + (f" ({what})" if what else ""))


cdef str _enum_name(enum, long v):
    return enum.values_by_number[v].name if v in enum.values_by_number else str(v)


cdef str _kind_name(long kind):
    return _enum_name(_pb.TaskKind.DESCRIPTOR, kind)


cdef int _enum_fail(enum, long v, long lo, long hi, str path) except -1:
    allowed = ", ".join([_enum_name(enum, k) for k in range(lo, hi + 1)])
    return _fail(path, f"{_enum_name(enum, v)} is not allowed here (expected one of {allowed})")


# ================================================================ decoding helpers


cdef inline long _rng(long v, long lo, long hi, str fmt, long i, long j, str field,
                      str what) except? -9:
    if lo <= v <= hi:
        return v
    _range_fail(_path(fmt, i, j, field), v, lo, hi, what)


cdef inline long _num(m, str field, long lo, long hi, str fmt, long i=0, long j=0,
                      str what="") except? -9:
    """A scalar field, checked against lo..hi."""
    return _rng(getattr(m, field), lo, hi, fmt, i, j, field, what)


cdef inline long _opt(m, str field, long lo, long hi, str fmt, long i=0, long j=0,
                      str what="") except? -9:
    """An optional scalar: -1 when absent, else checked against lo..hi."""
    if not m.HasField(field):
        return -1
    return _rng(getattr(m, field), lo, hi, fmt, i, j, field, what)


cdef long _enum(m, str field, long lo, long hi, str fmt, long i=0, long j=0) except? -9:
    """An enum field, allowed in lo..hi (by number)."""
    cdef long v = getattr(m, field)
    if lo <= v <= hi:
        return v
    _enum_fail(m.DESCRIPTOR.fields_by_name[field].enum_type, v, lo, hi, _path(fmt, i, j, field))


cdef inline object _need(m, str field, str fmt, long i=0, long j=0):
    """A singular message field, which the complete form always holds."""
    if not m.HasField(field):
        _fail(_path(fmt, i, j, field), "missing")
    return getattr(m, field)


cdef inline int _len(long n, long lo, long hi, str fmt, long i=0, long j=0,
                     str field="") except -1:
    if not lo <= n <= hi:
        want = str(lo) if lo == hi else f"{lo}..{hi}"
        _fail(_path(fmt, i, j, field), f"has {n} entries, expected {want}")


cdef int _counts(m, str field, tuple names, const int8_t* his, int8_t* out, str fmt,
                 long i=0, long j=0) except -1:
    """A Visitors, Tickets or FormCounts field, each count checked against his[k]."""
    cdef object sub = _need(m, field, fmt, i, j)
    cdef long k, v
    for k in range(len(names)):
        v = getattr(sub, names[k])
        if not 0 <= v <= his[k]:
            _range_fail(_path(fmt, i, j, field) + "." + names[k], v, 0, his[k], "")
        out[k] = v


cdef long _owner(m, str field, str fmt, long i, long n) except? -9:
    """An owner: a seat (optional `field`), or LACERDA when the message's `lacerda` flag
    is set (solo only, `field` then absent), or -1."""
    cdef long owner = _opt(m, field, 0, n - 1, fmt, i, 0, "seat")
    if not m.lacerda:
        return owner
    if n != 1:
        _fail(_path(fmt, i, 0, "lacerda"), "Lacerda's pieces exist in the solo game only")
    if owner >= 0:
        _fail(_path(fmt, i, 0, field), "must be absent on Lacerda's piece")
    return LACERDA


# ================================================================ decoding


def read_state(msg):
    """The validated `GameState` of a `gallerist.v1.GameState` message (history
    included). Raises InvalidStateError naming the field at the first check that fails."""
    cdef GameState g = GameState.__new__(GameState)
    cdef list history = _decode(msg, &g.s)
    _check_consistency(&g.s)
    _check_engine(&g.s)
    if history:
        g._history = history
    return g


def check_engine(GameState state):
    """The engine's word on a decoded state: the C invariants of RULES.md §4, then a
    live position offers an action or a chance outcome."""
    _check_engine(&state.s)


cdef list _decode(msg, StateC* s):
    """Every field checked for shape and range, and written into `s`."""
    cdef long n, i, v
    cdef int8_t tickets[3]
    memset(s, 0, sizeof(StateC))
    v = msg.schema_version
    if v != SCHEMA_VERSION:
        _fail("schema_version", f"{v} is not a supported version (expected {SCHEMA_VERSION})")
    n = s.num_players = _num(msg, "num_players", 1, 4, "")
    turn, end = _need(msg, "turn", ""), _need(msg, "game_end", "")
    inter, ko = _need(msg, "intermediate_scoring", ""), _need(msg, "kicked_out", "")
    lac = _need(msg, "lacerda", "")
    tasks, players = msg.tasks, msg.players
    _len(len(tasks), 0, MAX_TASKS, "tasks")
    _len(len(players), n, n, "players")
    s.turn_player = _num(turn, "player", 0, n - 1, "turn", 0, 0, "seat")
    s.ea_used = turn.executive_action_used
    s.end_triggered = end.triggered
    s.turns_left = _num(end, "turns_left", 0, 2 * n - 1, "game_end")
    s.intermediate_pending, s.intermediate_done = inter.pending, inter.done
    s.terminal, s.ko_active = end.over, ko.acting
    s.passes = _num(turn, "consecutive_passes", 0, 4 * n, "turn")
    s.turn_count = _num(turn, "number", 0, (MAX_TURNS_PER_PLAYER + 2) * n, "turn")
    s.num_tasks = len(tasks)
    for i in range(s.num_tasks):
        _task(tasks[i], i, n, &s.tasks[i])
    for i in range(n):
        _player(players[i], i, n, &s.players[i])
    tickets[0] = tickets[1] = tickets[2] = TICKETS_PER_COLOUR[n]
    _counts(msg, "bag", VISITOR_FIELDS, VISITORS_TOTAL[n], s.bag, "")
    _counts(msg, "plaza", VISITOR_FIELDS, VISITORS_TOTAL[n], s.plaza, "")
    _counts(msg, "box_office", VISITOR_FIELDS, tickets, s.box, "")
    _counts(msg, "ticket_discards", VISITOR_FIELDS, tickets, s.discards, "")
    _locations(msg.locations, s, n)
    _kicked_out(ko, s, n)
    _market(msg.market, s, n)
    _artists(msg, s)
    _stacks(msg.work_stacks, s, n)
    _contracts(msg, s)
    _easels(msg.renowned_works, s, n)
    _lacerda(lac, s, n)
    history = list(msg.history)
    _len(len(history), 0, _max_history, "history")
    for i in range(len(history)):
        _rng(history[i], 0, NUM_ACTIONS - 1, "history[{0}]", i, 0, "", "action")
    return history


cdef int _task(t, long i, long n, TaskC* out) except -1:
    cdef long kind = t.kind, j, player = -1
    cdef long args[3]
    if not (0 < kind < NUM_KINDS and _accepted[kind]) or (kind == T_DISCARD_LARGEST and n != 1):
        why = "is for the solo game" if kind == T_DISCARD_LARGEST else "is not a task kind"
        _fail(f"tasks[{i}].kind", f"{_kind_name(kind)} {why}")
    if not _has_player[kind]:
        if t.HasField("player"):
            _fail(f"tasks[{i}].player", f"{_kind_name(kind)} has no player")
    elif not t.HasField("player"):
        _fail(f"tasks[{i}].player", f"{_kind_name(kind)} needs a player")
    else:
        player = _num(t, "player", 0, n - 1, "tasks[{0}]", i, 0, "seat")
    args[0], args[1], args[2] = t.a, t.b, t.c
    for j in range(3):
        if _arg_used[kind][j]:
            _rng(args[j], _arg_lo[kind][j], _arg_hi[kind][j], "tasks[{0}]", i, 0, _ARG_NAMES[j],
                 "")
        elif args[j] != 0:
            _fail(f"tasks[{i}].{_ARG_NAMES[j]}",
                  f"{args[j]} must be 0 (unused by {_kind_name(kind)})")
    if kind == T_VISITOR_PLAZA and args[0] != 3 and args[0] != 7:
        _fail(f"tasks[{i}].a", f"{args[0]} is not 3 (VIP or investor) or 7 (any)")
    elif kind == T_TICKET_OR and args[0] == args[1]:
        _fail(f"tasks[{i}].b", "the two colours must differ")
    elif kind == T_CH_VISITOR and args[0] != CD_TILE:
        _rng(args[1], 0, n - 1, "tasks[{0}]", i, 0, "b", "seat receiving the visitor")
    out.kind, out.player, out.a, out.b, out.c = kind, player, args[0], args[1], args[2]


cdef int _player(p, long seat, long n, PlayerC* pl) except -1:
    cdef long k, v, card
    cdef int8_t his[4]
    cdef str fmt = "players[{0}]"
    if p.seat != seat:
        _fail(f"players[{seat}].seat", f"{p.seat} differs from its index {seat}")
    assistants = _need(p, "assistants", fmt, seat)
    works = p.exhibited_works
    _len(len(works), 0, 4, fmt, seat, 0, "exhibited_works")
    for k in range(4):
        pl.works[k] = _rng(works[k], 0, 7, "players[{0}].exhibited_works[{1}]", seat, k, "",
                           "artist slot") if k < len(works) else -1
    pl.nworks = len(works)
    spaces = p.reputation
    _len(len(spaces), 6, 6, fmt, seat, 0, "reputation")
    for k in range(6):
        _enum(spaces[k], "bonus", k + 1, k + 1, "players[{0}].reputation[{1}]", seat, k)
        pl.rep[k] = _opt(spaces[k], "tile", 0, NUM_REP_TILES - 1, "players[{0}].reputation[{1}]",
                         seat, k, "reputation tile")
    slots = p.contracts
    _len(len(slots), 3, 3, fmt, seat, 0, "contracts")
    for k in range(3):
        slot = slots[k]
        card = _opt(slot, "contract", 0, NUM_CONTRACTS - 1, "players[{0}].contracts[{1}]",
                    seat, k, "contract id")
        if card < 0:   # never filled: the engine still has its zeroed fields
            _enum(slot, "side", 0, 0, "players[{0}].contracts[{1}]", seat, k)
            if slot.assistant:
                _fail(f"players[{seat}].contracts[{k}].assistant",
                      "an empty slot has no assistant")
            pl.contract_state[k] = CS_FACE_UP
        else:
            pl.contract_state[k] = _enum(slot, "side", CONTRACT_SIDE_FACE_UP, CONTRACT_SIDE_INFLUENCE,
                                         "players[{0}].contracts[{1}]", seat, k) - CONTRACT_SIDE_FACE_UP
        pl.contract[k] = card
        pl.contract_asst[k] = slot.assistant
    his[0] = his[1] = his[2] = his[3] = TILES_PER_FORM_IN_PLAY
    _counts(p, "works_acquired", FORM_FIELDS, his, pl.acquired, fmt, seat)
    _counts(p, "works_sold", FORM_FIELDS, his, pl.sold, fmt, seat)
    _final_score(_need(p, "final_score", fmt, seat), seat, pl)
    pl.money = _num(p, "money", 0, MAX_MONEY, fmt, seat, 0, "$")
    pl.influence = _num(p, "influence", 0, INFLUENCE_MAX, fmt, seat)
    _counts(p, "lobby", VISITOR_FIELDS, VISITORS_TOTAL[n], pl.lobby, fmt, seat)
    _counts(p, "gallery", VISITOR_FIELDS, VISITORS_TOTAL[n], pl.gallery, fmt, seat)
    his[0] = his[1] = his[2] = TICKETS_PER_COLOUR[n]
    _counts(p, "tickets", VISITOR_FIELDS, his, pl.tickets, fmt, seat)
    pl.desks = _num(assistants, "desks", 0, NUM_DESKS, "players[{0}].assistants", seat)
    pl.queue = _num(assistants, "queue", 0, START_QUEUE, "players[{0}].assistants", seat)
    pl.removed = _num(assistants, "removed", 0, ASSISTANTS_PER_PLAYER, "players[{0}].assistants",
                      seat)
    pl.gallerist = _enum(p, "gallerist", GALLERIST_PLACE_SALES_OFFICE, GALLERIST_PLACE_KICKED_OUT,
                         fmt, seat) - GALLERIST_PLACE_SALES_OFFICE
    pl.commission = _opt(p, "commission_artist", 0, 7, fmt, seat, 0, "artist slot")
    pl.start_tile = _opt(p, "start_tile", 0, NUM_REP_TILES - 1, fmt, seat, 0, "reputation tile")
    v = _enum(p, "curator", CURATOR_CARD_HIDDEN, CURATOR_CARD_C4, fmt, seat)
    pl.curator = -1 if v == CURATOR_CARD_HIDDEN else v - CURATOR_CARD_C1
    v = _enum(p, "dealer", DEALER_CARD_HIDDEN, DEALER_CARD_D4, fmt, seat)
    pl.dealer = -1 if v == DEALER_CARD_HIDDEN else v - DEALER_CARD_D1


cdef int _final_score(sc, long seat, PlayerC* pl) except -1:
    cdef str fmt = "players[{0}].final_score"
    cdef long k
    for k in range(8):
        pl.score[k] = _num(sc, SCORE_FIELDS[k], 0, MAX_MONEY, fmt, seat, 0, "$")
    pl.auction_work = _enum(sc, "auction_work", ART_FORM_UNSPECIFIED, ART_FORM_DIGITAL, fmt,
                            seat) - ART_FORM_PAINTING
    if pl.auction_work < 0:
        _enum(sc, "auction_use", 0, 0, fmt, seat)
        pl.auction_as = 0
    else:
        pl.auction_as = _enum(sc, "auction_use", AUCTION_USE_EXHIBITED, AUCTION_USE_SOLD, fmt,
                              seat) - AUCTION_USE_EXHIBITED


cdef int _locations(spaces, StateC* s, long n) except -1:
    cdef long L
    _len(len(spaces), 4, 4, "locations")
    for L in range(4):
        loc = spaces[L]
        _enum(loc, "location", L + 1, L + 1, "locations[{0}]", L)
        s.loc_owner[L] = _owner(loc, "owner", "locations[{0}]", L, n)
        s.loc_kind[L] = _enum(loc, "piece", PIECE_KIND_GALLERIST, PIECE_KIND_ASSISTANT,
                              "locations[{0}]", L) - PIECE_KIND_GALLERIST
        s.loc_tile[L] = _opt(loc, "start_tile", 0, NUM_REP_TILES - 1, "locations[{0}]", L, 0,
                             "reputation tile")


cdef int _kicked_out(ko, StateC* s, long n) except -1:
    s.ko_owner = _owner(ko, "owner", "kicked_out", 0, n)
    s.ko_kind = _enum(ko, "piece", PIECE_KIND_GALLERIST, PIECE_KIND_ASSISTANT,
                      "kicked_out") - PIECE_KIND_GALLERIST
    if s.ko_owner < 0:
        _enum(ko, "location", 0, 0, "kicked_out")
    else:
        _enum(ko, "location", LOCATION_SALES_OFFICE, LOCATION_INTERNATIONAL_MARKET, "kicked_out")
    s.ko_loc = ko.location - LOCATION_SALES_OFFICE


cdef int _market(spaces, StateC* s, long n) except -1:
    cdef long i, r, c, tile, owner
    _len(len(spaces), 21, 21, "market")
    for i in range(21):
        space = spaces[i]
        r, c = i // 3, i % 3
        _enum(space, "row", r + 1, r + 1, "market[{0}]", i)
        _enum(space, "column", c + 1, c + 1, "market[{0}]", i)
        tile = _opt(space, "reputation_tile", 0, NUM_REP_TILES - 1, "market[{0}]", i, 0,
                    "reputation tile")
        if r >= 4 and tile >= 0:
            _fail(f"market[{i}].reputation_tile", "auction rows hold no tile")
        if r < 4:
            s.mk_tile[r][c] = tile
        owner = s.mk_asst[r][c] = _owner(space, "assistant_owner", "market[{0}]", i, n)
        if owner == LACERDA and tile >= 0:
            _fail(f"market[{i}].reputation_tile",
                  "Lacerda's assistant discarded the tile of its space (RN §10)")
        if n <= 2 and c == 1 and (tile >= 0 or owner >= 0):   # R-MKT-1: column II unused
            _fail(f"market[{i}]", "column II is unused with 2 players and must be empty")


cdef int _artists(msg, StateC* s) except -1:
    cdef long a
    artists = msg.artists
    _len(len(artists), 8, 8, "artists")
    for a in range(8):
        art = artists[a]
        if art.slot != a:
            _fail(f"artists[{a}].slot", f"{art.slot} differs from its index {a}")
        _enum(art, "form", (a >> 1) + 1, (a >> 1) + 1, "artists[{0}]", a)
        _enum(art, "colour", (a & 1) + 1, (a & 1) + 1, "artists[{0}]", a)
        s.ar_variant[a] = _num(art, "variant", 0, 1, "artists[{0}]", a)
        s.ar_discovered[a] = art.discovered
        s.ar_fame[a] = _num(art, "fame", 1, FAME_MAX, "artists[{0}]", a)
        s.ar_promo[a] = _num(art, "promotion", 0, 5, "artists[{0}]", a)
        s.ar_tokens[a] = _num(art, "signature_tokens", 0, 2, "artists[{0}]", a)
        s.ar_bonus[a] = _enum(art, "bonus", ARTIST_BONUS_UNSPECIFIED, ARTIST_BONUS_VISITOR,
                              "artists[{0}]", a) - ARTIST_BONUS_MONEY
        s.ar_collector[a] = art.collector
    tokens = _need(msg, "promotion_tokens", "")
    for a in range(1, 6):
        s.promo_stock[a] = _num(tokens, _LEVEL_FIELDS[a - 1], 0, PROMO_TOKENS, "promotion_tokens")


cdef int _stacks(stacks, StateC* s, long n) except -1:
    cdef long f, i, k, prev
    _len(len(stacks), 4, 4, "work_stacks")
    for f in range(4):
        stack = stacks[f]
        _enum(stack, "form", f + 1, f + 1, "work_stacks[{0}]", f)
        prev = -1
        below = stack.tiles_below
        for i in range(len(below)):
            k = _rng(below[i], 0, 7, "work_stacks[{0}].tiles_below[{1}]", f, i, "",
                     "work tile kind")
            if k <= prev:
                _fail(f"work_stacks[{f}].tiles_below", "must be strictly ascending")
            s.stack_mask[f] |= 1 << k
            prev = k
        s.stack_top[f] = _opt(stack, "top_tile", 0, 7, "work_stacks[{0}]", f, 0, "work tile kind")
        _counts(stack, "top_visitors", VISITOR_FIELDS, VISITORS_TOTAL[n], s.top_visitors[f],
                "work_stacks[{0}]", f)


cdef int _contracts(msg, StateC* s) except -1:
    cdef long i, j, c, nc, prev = -1
    deck = msg.contract_deck
    for i in range(len(deck)):
        c = _rng(deck[i], 0, NUM_CONTRACTS - 1, "contract_deck[{0}]", i, 0, "", "contract id")
        if c <= prev:
            _fail("contract_deck", "must be strictly ascending")
        s.deck_mask |= (<uint32_t>1) << c
        prev = c
    piles = msg.contract_piles
    _len(len(piles), 4, 4, "contract_piles")
    for i in range(4):
        cards = piles[i].cards
        nc = len(cards)
        _len(nc, 0, MAX_PILE, "contract_piles[{0}].cards", i)
        for j in range(MAX_PILE):
            s.pile[i][j] = -1 if j >= nc else _rng(
                cards[j], 0, NUM_CONTRACTS - 1, "contract_piles[{0}].cards[{1}]", i, j, "",
                "contract id")
        s.pile_len[i] = nc


cdef int _easels(works, StateC* s, long n) except -1:
    cdef long i, v
    for i in range(len(works)):
        v = works[i]
        if not ART_FORM_PAINTING <= v <= ART_FORM_DIGITAL:
            _enum_fail(_pb.ArtForm.DESCRIPTOR, v, ART_FORM_PAINTING, ART_FORM_DIGITAL,
                       f"renowned_works[{i}]")
    _len(len(works), EASELS[n], EASELS[n], "renowned_works")
    for i in range(3):
        s.easel[i] = works[i] - ART_FORM_PAINTING if i < len(works) else -1


cdef int _lacerda(lac, StateC* s, long n) except -1:
    if n > 1:
        if lac.location or lac.supply or lac.move_due:
            _fail("lacerda", "Lacerda's fields are for the solo game and must be empty with "
                  "2..4 players")
        s.lac_loc, s.lac_supply, s.lac_turn = -1, 0, 0
        return 0
    s.lac_loc = _enum(lac, "location", LOCATION_UNSPECIFIED, LOCATION_INTERNATIONAL_MARKET,
                      "lacerda") - LOCATION_SALES_OFFICE
    s.lac_supply = _num(lac, "supply", 0, LACERDA_ASSISTANTS, "lacerda")
    s.lac_turn = lac.move_due




# ================================================================ consistency
# Cross-field rules on the decoded struct, each failing with the path of a field involved.


cdef int _check_consistency(const StateC* s) except -1:
    _stack_shape(s)
    _pieces(s)
    _kicked_out_rules(s)
    _lacerda_rules(s)
    _components_unique(s)
    _artist_rules(s)
    _player_rules(s)
    _board_rules(s)
    _task_targets(s)
    _totals(s)


cdef inline bint _has_task(const StateC* s, int kind) noexcept nogil:
    cdef int i
    for i in range(s.num_tasks):
        if s.tasks[i].kind == kind:
            return True
    return False


cdef int _stack_shape(const StateC* s) except -1:
    """The task stack has the shape the engine builds, so play goes on from it: a bottom
    task that finishes the turn, fixed-height steps in place, a decision or chance event
    on top, and no tasks exactly when the game is over."""
    cdef int nt = s.num_tasks, i, kind, below, height, p, starters = 0
    cdef bint setup
    if s.terminal:
        if nt:
            _fail("tasks", "must be empty when the game is over")
        return 0
    if not nt:
        _fail("tasks", "must not be empty before the game is over")
    if not _bottom >> s.tasks[0].kind & 1:
        _fail("tasks[0].kind", "the bottom task must be BEGIN_GAME, END_TURN or FINISH_TURN")
    if s.tasks[nt - 1].kind >= T_AUTO_FIRST:
        _fail(f"tasks[{nt - 1}].kind",
              "the top task must be a decision or a chance event (automatic steps never wait)")
    setup = s.tasks[0].kind == T_BEGIN_GAME
    for i in range(nt):
        kind = s.tasks[i].kind
        if i > 0 and _bottom >> kind & 1:
            _fail(f"tasks[{i}].kind", f"{_kind_name(kind)} only at the bottom")
        if i != nt - 1 and _top_only >> kind & 1:
            _fail(f"tasks[{i}].kind", f"{_kind_name(kind)} only on top of the stack")
        below = _below[kind]
        height = 1 if below == T_END_TURN or below == T_FINISH_TURN else 2
        if below and not (i == height and s.tasks[i - 1].kind == below):
            _fail(f"tasks[{i}].kind",
                  f"{_kind_name(kind)} only at height {height}, above {_kind_name(below)}")
        if (kind == T_START_LOC) != (setup and i > 0):
            _fail(f"tasks[{i}].kind", "setup is BEGIN_GAME with START_LOC tasks only")
        if kind == T_START_LOC:
            p = s.tasks[i].player
            if starters >> p & 1:
                _fail(f"tasks[{i}].player", "chooses a start twice")
            if s.players[p].gallerist != GAL_HOME:
                _fail(f"tasks[{i}].player",
                      "a player choosing a start location has its gallerist at home")
            starters |= 1 << p
        if _turn_player >> kind & 1 and s.tasks[i].player != s.turn_player:
            _fail(f"tasks[{i}].player",
                  f"{_kind_name(kind)} belongs to the turn player {s.turn_player}")
    if setup and s.turn_count:
        _fail("turn.number", "must be 0 during setup")


cdef int _pieces(const StateC* s) except -1:
    """Pieces on the locations and the kicked-out space agree with the players' gallerist
    fields (so each player has at most one gallerist on the board)."""
    cdef int p, g, L, q
    for p in range(s.num_players):
        g = s.players[p].gallerist
        if g < 4 and not (s.loc_owner[g] == p and s.loc_kind[g] == PIECE_GALLERIST):
            _fail(f"players[{p}].gallerist",
                  f"says location {g} but locations[{g}] does not hold this gallerist")
        if (g == GAL_KO) != (s.ko_owner == p and s.ko_kind == PIECE_GALLERIST):
            _fail(f"players[{p}].gallerist",
                  "KICKED_OUT must match kicked_out.owner with a GALLERIST piece")
    for L in range(4):
        q = s.loc_owner[L]
        if s.loc_kind[L] != PIECE_GALLERIST or q < 0:
            continue
        if q == LACERDA and s.lac_loc != L:
            _fail(f"locations[{L}].lacerda",
                  "holds Lacerda's gallerist, but lacerda.location is elsewhere")
        if q != LACERDA and s.players[q].gallerist != L:
            _fail(f"locations[{L}].owner",
                  f"holds the gallerist of seat {q}, whose gallerist is elsewhere")


cdef int _kicked_out_rules(const StateC* s) except -1:
    """The kicked-out space (R-KO-1): filled only by the turn player's move this turn, so
    that gallerist stands where the piece came from and the turn has no move to come;
    `acting` exactly while its KO_DONE step is pending (at index 1)."""
    cdef int nt = s.num_tasks, owner = s.ko_owner, tp = s.turn_player, L = s.ko_loc
    cdef bint turn_gallerist
    if (s.ko_active != 0) != (nt > 1 and s.tasks[1].kind == T_KO_DONE):
        _fail("kicked_out.acting", "must be true exactly while a KO_DONE task is pending")
    if owner < 0:
        if _has_task(s, T_KO):
            _fail("kicked_out.owner", "a KO task is pending but nobody is kicked out")
        return 0
    turn_gallerist = s.loc_owner[L] == tp and s.loc_kind[L] == PIECE_GALLERIST
    if owner == LACERDA:
        # solo: the player moved onto her piece this turn; it leaves at the turn's end
        if not (nt and s.tasks[0].kind == T_END_TURN):
            _fail("kicked_out.lacerda",
                  "Lacerda's piece is on the kicked-out space only during the player's turn")
        if not turn_gallerist:
            _fail("kicked_out.location", f"the turn player's ({tp}) gallerist must stand "
                  "where the piece was kicked from")
        if not (s.ko_kind == PIECE_ASSISTANT or s.lac_loc == L):
            _fail("kicked_out.location", "Lacerda's gallerist was kicked from lacerda.location")
    elif s.num_players == 1:
        # solo: her move kicked out the player's piece, whose kicked-out step is under way
        if not (s.loc_owner[L] == LACERDA and s.loc_kind[L] == PIECE_GALLERIST
                and s.lac_loc == L and s.ko_active):
            _fail("kicked_out.location", "Lacerda's gallerist must stand where the player's "
                  "piece was kicked from, with the kicked-out step under way")
    elif owner == tp or not turn_gallerist:
        _fail("kicked_out.location", f"the turn player's ({tp}) gallerist must stand where "
              "the piece was kicked from")
    if _has_task(s, T_TURN_START):
        _fail("kicked_out.owner", "nothing is kicked out before the turn player has moved "
              "(at most one per turn)")


cdef int _lacerda_rules(const StateC* s) except -1:
    """Solo: Lacerda's gallerist, pieces and move flag as her moves leave them (RN §10);
    her assistant total is in _totals."""
    cdef int loc = s.lac_loc, nt = s.num_tasks, L, i
    cdef bint due
    if s.num_players != 1:
        return 0
    if loc < 0:
        for L in range(4):
            if s.loc_owner[L] == LACERDA:
                _lacerda_early(f"locations[{L}]")
        for i in range(21):
            if s.mk_asst[i // 3][i % 3] == LACERDA:
                _lacerda_early(f"market[{i}]")
        if s.ko_owner == LACERDA:
            _lacerda_early("kicked_out")
    elif s.loc_owner[loc] == LACERDA and s.loc_kind[loc] != PIECE_GALLERIST:
        # kicked out by the player: her next move leaves from here without an assistant
        _fail(f"locations[{loc}].lacerda",
              "her assistant never stands where her kicked-out gallerist stood last")
    if nt == 0 or s.tasks[0].kind == T_BEGIN_GAME or s.end_triggered:
        due = False                   # setup, the final turn and the end: no more moves
    else:                             # the player's turn: she moves after it (else her turn)
        due = s.tasks[0].kind == T_END_TURN or (nt > 1 and s.tasks[1].kind == T_DISCARD_LARGEST)
    if (s.lac_turn != 0) != due:
        _fail("lacerda.move_due",
              f"must be {'true' if due else 'false'} at this point of the turn")


cdef int _lacerda_early(str path) except -1:
    return _fail(path, "Lacerda has not moved yet, so none of her pieces is on the board "
                 "(lacerda.location is UNSPECIFIED)")


# Where a contract or a reputation tile can be: (kind of place, i, j) -> its path.
cdef enum:
    PL_DECK, PL_PILE, PL_BOARD, PL_TASK, PL_MARKET, PL_LOCATION, PL_START, PL_REP
_PLACE_PATHS = ("contract_deck", "contract_piles[{0}].cards[{1}]",
                "players[{0}].contracts[{1}].contract", "tasks[{0}].a",
                "market[{1}].reputation_tile", "locations[{1}].start_tile",
                "players[{0}].start_tile", "players[{0}].reputation[{1}].tile")


cdef inline int _places(int* items, int* places, int n, const int8_t* v, int count, int kind,
                        int i) noexcept nogil:
    """Adds each v[j] >= 0 (j < count) as an item found at place (kind, i, j)."""
    cdef int j
    for j in range(count):
        if v[j] >= 0:
            items[n] = v[j]
            places[n] = (kind * 64 + i) * 64 + j
            n += 1
    return n


cdef inline int _task_places(const StateC* s, int* items, int* places, int n, int task_kind,
                             int kind) noexcept nogil:
    """Adds argument a of each pending task of `task_kind` (a contract or tile it holds)."""
    cdef int i
    for i in range(s.num_tasks):
        if s.tasks[i].kind == task_kind:
            n = _places(items, places, n, &s.tasks[i].a, 1, kind, i)
    return n


cdef str _place_path(int place):
    return _path(_PLACE_PATHS[place // 4096], place // 64 % 64, place % 64, "")


cdef int _unique(const int* items, const int* places, int n, str what) except -1:
    cdef int first[32]
    cdef int k
    for k in range(32):
        first[k] = -1
    for k in range(n):
        if first[items[k]] >= 0:
            _fail(_place_path(places[k]), f"{what} {items[k]} is also at "
                  f"{_place_path(places[first[items[k]]])}; each is in one place")
        first[items[k]] = k


cdef int _components_unique(const StateC* s) except -1:
    """Every contract card and reputation tile is in at most one place (deck, piles,
    boards, market, pending tasks)."""
    cdef int items[MAX_PLACES]
    cdef int places[MAX_PLACES]
    cdef int8_t deck[NUM_CONTRACTS]
    cdef int n, i, p
    for i in range(NUM_CONTRACTS):
        deck[i] = i if s.deck_mask >> i & 1 else -1
    n = _places(items, places, 0, deck, NUM_CONTRACTS, PL_DECK, 0)
    for i in range(4):
        n = _places(items, places, n, s.pile[i], s.pile_len[i], PL_PILE, i)
    for p in range(s.num_players):
        n = _places(items, places, n, s.players[p].contract, 3, PL_BOARD, p)
    n = _task_places(s, items, places, n, T_CONTRACT_SLOT, PL_TASK)
    _unique(items, places, n, "contract")
    n = _places(items, places, 0, &s.mk_tile[0][0], 12, PL_MARKET, 0)
    n = _places(items, places, n, s.loc_tile, 4, PL_LOCATION, 0)
    for p in range(s.num_players):
        n = _places(items, places, n, &s.players[p].start_tile, 1, PL_START, p)
        n = _places(items, places, n, s.players[p].rep, 6, PL_REP, p)
    n = _task_places(s, items, places, n, T_REP_SPACE, PL_TASK)
    _unique(items, places, n, "reputation tile")


cdef int _artist_rules(const StateC* s) except -1:
    """Each artist as the rules leave it; bonus tiles: ARTIST_BONUS_COUNT of each kind
    (C§3); promotion tokens: 4 per level between the supply and the promoted artists (C§8)."""
    cdef int held[6]
    cdef int bonus_count[5]
    cdef int a, level, bonus
    memset(held, 0, sizeof(held))
    memset(bonus_count, 0, sizeof(bonus_count))
    for a in range(8):
        _artist(s, a)
        bonus = s.ar_bonus[a]
        if bonus >= 0:
            bonus_count[bonus] += 1
            if bonus_count[bonus] > ARTIST_BONUS_COUNT[bonus]:
                _fail(f"artists[{a}].bonus",
                      f"there are only {ARTIST_BONUS_COUNT[bonus]} bonus tiles of each kind")
        if s.ar_promo[a] > ARTIST_PROMO0[a >> 1][a & 1][s.ar_variant[a]]:
            held[s.ar_promo[a]] += 1      # it holds a token of its level
    for level in range(1, 6):
        if s.promo_stock[level] + held[level] != PROMO_TOKENS:
            _fail(f"promotion_tokens.level_{level}", f"{s.promo_stock[level]} in the supply + "
                  f"{held[level]} on promoted artists != {PROMO_TOKENS}")


cdef int _artist(const StateC* s, int a) except -1:
    """Fame and promotion never below the printed values (fame never drops); a face-down
    artist is as set up; bonus tiles and collectors only on face-down artists, and
    collectors only on red ones."""
    cdef int fame = s.ar_fame[a], promo = s.ar_promo[a]
    cdef int fame0 = ARTIST_FAME0[a >> 1][a & 1][s.ar_variant[a]]
    cdef int promo0 = ARTIST_PROMO0[a >> 1][a & 1][s.ar_variant[a]]
    if s.ar_discovered[a]:
        if fame < fame0:
            _fail(f"artists[{a}].fame", f"{fame} is below the initial fame {fame0}")
        if promo < promo0:
            _fail(f"artists[{a}].promotion", f"{promo} is below the printed level {promo0}")
        if s.ar_bonus[a] >= 0:
            _fail(f"artists[{a}].bonus", "a discovered artist has no bonus tile")
        if s.ar_collector[a]:
            _fail(f"artists[{a}].collector", "a discovered artist has no collector waiting")
    else:
        if fame != fame0:
            _fail(f"artists[{a}].fame",
                  f"{fame} differs from the initial fame {fame0} of a face-down artist")
        if promo != promo0:
            _fail(f"artists[{a}].promotion",
                  f"{promo} differs from the printed level {promo0} of a face-down artist")
        if s.ar_tokens[a] != 2:
            _fail(f"artists[{a}].signature_tokens", "a face-down artist still has both tokens")
    if s.ar_collector[a] and not a & 1:
        _fail(f"artists[{a}].collector", "only red artists hold a collector")


cdef int _player_rules(const StateC* s) except -1:
    """Works, commissions, cards and scores of each player."""
    cdef int commission_of[8]
    cdef int curator_of[4]
    cdef int dealer_of[4]
    cdef int by_form[4]
    cdef int p, i, f, a, c, sold
    cdef const PlayerC* pl
    for i in range(8):
        commission_of[i] = -1
    for i in range(4):
        curator_of[i] = dealer_of[i] = -1
    for p in range(s.num_players):
        pl = &s.players[p]
        memset(by_form, 0, sizeof(by_form))
        for i in range(pl.nworks):
            a = pl.works[i]
            by_form[a >> 1] += 1
            if not s.ar_discovered[a]:
                _fail(f"players[{p}].exhibited_works[{i}]", f"artist {a} is not discovered")
        sold = 0
        for f in range(4):
            if pl.acquired[f] != pl.sold[f] + by_form[f]:
                _fail(f"players[{p}].works_acquired.{FORM_FIELDS[f]}",
                      f"{pl.acquired[f]} != {pl.sold[f]} sold + {by_form[f]} exhibited")
            sold += pl.sold[f]
        c = pl.commission
        if c >= 0:
            if not s.ar_discovered[c]:
                _fail(f"players[{p}].commission_artist", f"artist {c} is not discovered")
            if commission_of[c] >= 0:
                _fail(f"players[{p}].commission_artist",
                      f"artist {c} is also seat {commission_of[c]}'s commission")
            commission_of[c] = p
        if pl.gallery[COLLECTOR] > 1 + sold:
            _fail(f"players[{p}].gallery.collector", f"{pl.gallery[COLLECTOR]} collectors > 1 + "
                  f"{sold} works sold (R-VIS-2)")
        _card(curator_of, pl.curator, p, "curator")
        _card(dealer_of, pl.dealer, p, "dealer")
        _score_rules(s, pl, p)


cdef int _card(int* owner_of, int card, int p, str which) except -1:
    if card < 0:
        return 0
    if owner_of[card] >= 0:
        _fail(f"players[{p}].{which}", f"the same card is also seat {owner_of[card]}'s")
    owner_of[card] = p


cdef int _score_rules(const StateC* s, const PlayerC* pl, int p) except -1:
    cdef int i, total = 0
    cdef bint any_score = False
    for i in range(8):
        any_score = any_score or pl.score[i] != 0
    if not s.terminal:
        if any_score or pl.auction_work >= 0:
            _fail(f"players[{p}].final_score", "must be empty before the game is over")
        return 0
    for i in range(7):
        total += pl.score[i]
    if pl.score[7] != total:
        _fail(f"players[{p}].final_score.total",
              f"{pl.score[7]} != the sum of the steps {total}")
    if pl.auction_work >= 0 and not (s.easel[0] == pl.auction_work or s.easel[1] == pl.auction_work
                                     or s.easel[2] == pl.auction_work):
        _fail(f"players[{p}].final_score.auction_work", "is not one of the renowned works")


cdef inline int _popcount(unsigned int x) noexcept nogil:
    cdef int c = 0
    while x:
        x &= x - 1
        c += 1
    return c


cdef int _board_rules(const StateC* s) except -1:
    """Work stacks (7 tiles per form in play), easels, game flags."""
    cdef int f, p, top, below, bought, total, on_top
    for f in range(4):
        top = s.stack_top[f]
        below = _popcount(s.stack_mask[f])
        bought = 0
        for p in range(s.num_players):
            bought += s.players[p].acquired[f]
        if top >= 0 and s.stack_mask[f] >> top & 1:
            _fail(f"work_stacks[{f}].top_tile", f"tile kind {top} is also in tiles_below")
        total = below + (top >= 0) + bought
        if total != TILES_PER_FORM_IN_PLAY:
            _fail(f"work_stacks[{f}]", f"{below} below + {int(top >= 0)} on top + {bought} "
                  f"bought = {total}, expected {TILES_PER_FORM_IN_PLAY} tiles in play (C§5)")
        on_top = s.top_visitors[f][0] + s.top_visitors[f][1] + s.top_visitors[f][2]
        if on_top > (WORK_VISITORS[top] if top >= 0 else 0):
            _fail(f"work_stacks[{f}].top_visitors",
                  f"{on_top} visitors is more than the top tile takes")
    if ((s.easel[0] >= 0 and (s.easel[0] == s.easel[1] or s.easel[0] == s.easel[2]))
            or (s.easel[1] >= 0 and s.easel[1] == s.easel[2])):
        _fail("renowned_works", "the art forms must differ")
    if s.intermediate_pending and s.intermediate_done:
        _fail("intermediate_scoring.pending", "cannot be pending once done")
    if not s.end_triggered and s.turns_left:
        _fail("game_end.turns_left", "must be 0 until the end is triggered")


cdef int _task_targets(const StateC* s) except -1:
    """What each task's arguments point at exists and is in the state the engine leaves
    it in when it pushes that task."""
    cdef int i, kind, p, a, b, finishing = 0, revealing = 0
    cdef const PlayerC* pl
    for i in range(s.num_tasks):
        kind, p, a, b = s.tasks[i].kind, s.tasks[i].player, s.tasks[i].a, s.tasks[i].b
        pl = &s.players[p if p >= 0 else 0]
        if kind == T_LOC_ACTION and pl.gallerist != a:
            _fail(f"tasks[{i}].a", "is not where the player's gallerist is")
        elif kind == T_LEAVE:
            if s.loc_owner[a] >= 0:
                _fail(f"tasks[{i}].a", "the location left must be empty")
            # its legality reads the destination from the LOC_ACTION right below it
            if not (i > 0 and s.tasks[i - 1].kind == T_LOC_ACTION and s.tasks[i - 1].player == p):
                _fail(f"tasks[{i}].kind", "LEAVE sits right above the same player's LOC_ACTION")
        elif kind == T_KO and s.ko_owner != p:
            _fail(f"tasks[{i}].player", "is not the kicked-out owner")
        elif kind == T_GALLERY_OUT or kind == T_ORIENT or kind == T_CONTRACT_BONUS:
            if pl.contract[a] < 0:
                _fail(f"tasks[{i}].a", f"contract slot {a} is empty")
        elif kind == T_ASSIST_SRC:
            _assist_target(s, pl, a, i)
        elif kind == T_MARKET_FINISH and s.num_players <= 2 and a % 3 == 1:
            _fail(f"tasks[{i}].a", "column II is unused with 2 players")
        elif (kind == T_FAME_STEPS or kind == T_PROMOTE_FINISH) and not s.ar_discovered[a]:
            _fail(f"tasks[{i}].a", f"artist {a} is not discovered")
        elif kind == T_DISCOVER_FINISH:
            finishing += 1
            if finishing > 1:
                _fail(f"tasks[{i}].kind", "only one discovery at a time")
            if s.ar_discovered[a]:
                _fail(f"tasks[{i}].a", f"artist {a} is already discovered")
            if pl.commission >= 0:
                _fail(f"tasks[{i}].player", "the discoverer already has a commission")
        elif kind == T_DISCOVER and (pl.commission >= 0 or _has_task(s, T_DISCOVER_FINISH)):
            _fail(f"tasks[{i}].player", "discovering needs an empty commission space (R-ART-2)")
        elif kind == T_CH_TILE:
            if s.stack_top[a] >= 0:
                _fail(f"tasks[{i}].a", f"the stack of form {a} already shows a top tile")
            if revealing >> a & 1:
                _fail(f"tasks[{i}].a", f"form {a} is already being revealed")
            revealing |= 1 << a
        elif kind == T_CH_VISITOR and a == CD_TILE and s.stack_top[b] < 0:
            _fail(f"tasks[{i}].b", f"the stack of form {b} has no top tile")


cdef int _assist_target(const StateC* s, const PlayerC* pl, int a, int i) except -1:
    cdef int k = a - 21
    if a < 21:
        if s.num_players <= 2 and a % 3 == 1:
            _fail(f"tasks[{i}].a", "column II is unused with 2 players")
        if s.mk_asst[a // 3][a % 3] >= 0:
            _fail(f"tasks[{i}].a", f"market space {a} is taken")
    elif pl.contract[k] < 0 or pl.contract_asst[k]:
        _fail(f"tasks[{i}].a", f"contract slot {k} must hold a contract without an assistant")


cdef int _on_board(const StateC* s, int owner) noexcept nogil:
    """The assistants of `owner` (a seat or LACERDA) on locations, the market and the
    kicked-out space."""
    cdef int L, i, count = s.ko_owner == owner and s.ko_kind == PIECE_ASSISTANT
    for L in range(4):
        count += s.loc_owner[L] == owner and s.loc_kind[L] == PIECE_ASSISTANT
    for i in range(21):
        count += s.mk_asst[i // 3][i % 3] == owner
    return count


cdef int _totals(const StateC* s) except -1:
    """RULES.md §4 component totals, with field names (the C invariant check repeats them)."""
    cdef int n = s.num_players, c, p, f, a, i, total, on_board
    cdef const PlayerC* pl
    for c in range(3):
        total = s.bag[c] + s.plaza[c]
        for p in range(n):
            total += s.players[p].lobby[c] + s.players[p].gallery[c]
        for f in range(4):
            total += s.top_visitors[f][c]
        if c == COLLECTOR:
            for a in range(8):
                total += s.ar_collector[a]
        if total != VISITORS_TOTAL[n][c]:
            _fail("bag|plaza|players[].lobby|players[].gallery|work_stacks[].top_visitors."
                  + VISITOR_FIELDS[c], f"{VISITOR_FIELDS[c]} visitors total {total} (with those "
                  f"on red artists), expected {VISITORS_TOTAL[n][c]} for {n} players "
                  "(RULES.md §4)")
        total = s.box[c] + s.discards[c]
        for p in range(n):
            total += s.players[p].tickets[c]
        if total != TICKETS_PER_COLOUR[n]:
            _fail("box_office|ticket_discards|players[].tickets." + VISITOR_FIELDS[c],
                  f"{VISITOR_FIELDS[c]} tickets total {total}, expected {TICKETS_PER_COLOUR[n]} "
                  f"for {n} players (RULES.md §4)")
    for p in range(n):
        pl = &s.players[p]
        on_board = (_on_board(s, p) + pl.contract_asst[0] + pl.contract_asst[1]
                    + pl.contract_asst[2])
        total = pl.desks + pl.queue + pl.removed + on_board
        if total != ASSISTANTS_PER_PLAYER:
            _fail(f"players[{p}].assistants", f"desks + queue + removed + {on_board} on the "
                  f"board = {total}, expected {ASSISTANTS_PER_PLAYER} (RULES.md §4)")
    if n == 1:
        on_board = _on_board(s, LACERDA)
        if s.lac_supply + on_board != LACERDA_ASSISTANTS:
            _fail("lacerda.supply", f"supply + {on_board} on the board = "
                  f"{s.lac_supply + on_board}, expected {LACERDA_ASSISTANTS} (Lacerda's "
                  "assistants, RULES.md §4)")
    for a in range(8):
        total = s.ar_tokens[a]
        for p in range(n):
            total += s.players[p].commission == a
            for i in range(s.players[p].nworks):
                total += s.players[p].works[i] == a
        if total != 2:
            _fail(f"artists[{a}].signature_tokens",
                  f"on the artist + exhibited + commissions = {total}, expected 2 (RULES.md §4)")


# ================================================================ the engine's word


cdef int _check_engine(StateC* s) except -1:
    """The C invariant check, then: a live position offers something to do."""
    cdef action_t buf[MAX_LEGAL]
    cdef int w[MAX_LEGAL]
    cdef int code = state_check_invariants(s), count, i, total = 0
    if code:
        name = INVARIANT_NAMES.get(code, f"invariant {code}")
        _fail("state", f"breaks an invariant of RULES.md §4: {name}")
    if s.terminal:
        return 0
    if state_current_player(s) == PLAYER_CHANCE:
        count = state_chance_outcomes(s, buf, w)
        for i in range(count):
            total += w[i]
        if total <= 0:
            _fail(f"tasks[{s.num_tasks - 1}]", "this chance event has no possible outcome")
    elif state_legal_actions(s, buf) <= 0:
        _fail(f"tasks[{s.num_tasks - 1}]", "this decision has no legal action")
