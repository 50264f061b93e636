# cython: language_level=3
"""The state reader: a `gallerist.v1.GameState` (proto/gallerist/v1/state.proto) checked
and read into the engine struct (the writer is engine/_writer.pyx).

`read_state(msg)` checks a message and builds the `GameState`, or raises
`InvalidStateError` whose message starts with the path of the offending field in the
schema's names (``players[1].exhibited_works[2]: 9 is outside 0..7 (artist slot)``).
Reading is the security boundary in front of the C rules, which do no bounds checks,
so every value is checked in three layers:

1. decoding (this module): every field present, of the right shape and inside its range
   (both the engine's int8/int16 field and its meaning: an artist slot is 0..7, a seat
   is below num_players, a task argument is what that task kind's code indexes with);
2. consistency: what the rules keep true between fields and the invariants of
   docs/rules.md §4, both checked by the engine (engine/_rules_consistency.pxi,
   state_check_consistency) and named field by field by engine/_consistency.pyx;
3. the engine's play: the position must offer an action or a chance outcome (or be
   over, with no tasks).

A path or a message is only built once a check has failed, so accepting a state costs
the typed checks alone. Enum numbers come from engine/_state_pb.pxi, which
proto/generate.py makes from state.proto at build time; component numbers from the
engine (data.h, _core.pxd).
"""
from libc.stdint cimport int8_t, uint32_t
from libc.string cimport memset

from gallerist.engine._core cimport (
    StateC, TaskC, PlayerC, MAX_TASKS, MAX_PILE, NUM_CONTRACTS, NUM_REP_TILES, NUM_ACTIONS,
    LACERDA, LACERDA_ASSISTANTS, CS_FACE_UP, MAX_TURNS_PER_PLAYER, CD_TILE,
    ASSISTANTS_PER_PLAYER, VISITORS_TOTAL, TICKETS_PER_COLOUR, EASELS, FAME_MAX, INFLUENCE_MAX,
    PROMO_TOKENS, NUM_DESKS, START_QUEUE, TILES_PER_FORM_IN_PLAY,
)
from gallerist.engine._core cimport (
    T_LEAVE, T_LOC_ACTION, T_PAY, T_FAME_STEPS, T_TICKET_OR, T_BOX_DISCARD, T_VISITOR_PLAZA,
    T_GALLERY_OUT, T_ORIENT, T_REP_SPACE, T_CONTRACT_SLOT, T_MARKET, T_ASSIST_SRC,
    T_TICKET_MOVE, T_DISCARD_LARGEST, T_CH_VISITOR, T_CH_TILE, T_CH_CONTRACT, T_GAIN_TICKET,
    T_BUY_FINISH, T_GAIN_INFLUENCE, T_MARKET_FINISH, T_CONTRACT_BONUS, T_REFILL_PILE,
    T_PROMOTE_FINISH, T_BEGIN_GAME, T_DISCOVER_FINISH,
)
from gallerist.engine._consistency cimport (
    NUM_KINDS, check_consistency, check_engine as _engine, check_playable,
    enum_name as _enum_name, fail as _fail, kind_name as _kind_name, path as _path,
)
from gallerist.engine.state cimport GameState

from gallerist.engine._consistency import FORM_FIELDS, VISITOR_FIELDS
from gallerist.engine.state import MAX_GAME_LENGTH
from gallerist.v1 import state_pb2 as _pb

include "_state_pb.pxi"

#: The version written to and required in `GameState.schema_version`.
SCHEMA_VERSION = 1

cdef enum:
    MAX_MONEY = 9999           # the schema's range of money and score amounts ($)

SCORE_FIELDS = tuple(f.name for f in _pb.FinalScore.DESCRIPTOR.fields)[:8]  # the steps, total
_LEVEL_FIELDS = tuple(f.name for f in _pb.PromotionTokens.DESCRIPTOR.fields)  # level1 ..
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

cdef bint _accepted[NUM_KINDS]
cdef bint _has_player[NUM_KINDS]
cdef bint _arg_used[NUM_KINDS][3]
cdef long _arg_lo[NUM_KINDS][3]
cdef long _arg_hi[NUM_KINDS][3]
cdef long _max_history = MAX_GAME_LENGTH


def task_rules():
    """{kind: (has_player, (a, b, c))} for every task kind a state may hold, each
    argument a (lo, hi) range or None (must be 0). DISCARD_LARGEST is solo only."""
    return {k: (k not in _NO_PLAYER, _TASK_ARGS.get(k, (None, None, None)))
            for k in _pb.TaskKind.values() if k}


for _kind, (_player_kind, _ranges) in task_rules().items():
    _accepted[<int>_kind], _has_player[<int>_kind] = True, _player_kind
    for _j, _range in enumerate(_ranges):
        if _range is not None:
            _arg_used[<int>_kind][_j] = True
            _arg_lo[<int>_kind][_j], _arg_hi[<int>_kind][_j] = _range


# ================================================================ errors (the cold path)


cdef int _range_fail(str path, long v, long lo, long hi, str what) except -1:
    return _fail(path, f"{v} is outside {lo}..{hi}" + (f" ({what})" if what else ""))


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
    return _num(m, field, lo, hi, fmt, i, j, what) if m.HasField(field) else -1


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


cdef inline object _many(m, str field, long lo, long hi, str fmt="", long i=0):
    """A repeated field of lo..hi entries."""
    cdef object items = getattr(m, field)
    _len(len(items), lo, hi, fmt, i, 0, field)
    return items


cdef int _numbers(values, long lo, long hi, str fmt, long i, str what, int8_t* out,
                  long size) except -1:
    """A repeated field of numbers, each checked against lo..hi (its path: `fmt` with
    index i and the entry's), into out[0..size) padded with -1 (out may be NULL)."""
    cdef long k, v, n = len(values)
    for k in range(n):
        v = _rng(values[k], lo, hi, fmt, i, k, "", what)
        if out != NULL:
            out[k] = v
    for k in range(n, size):
        out[k] = -1


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


cdef uint32_t _ascending(values, long hi, str fmt, long i, str what) except? 0:
    """A repeated field of numbers in 0..hi, strictly ascending, as a bit set (`fmt` with
    index i is the field's path)."""
    cdef long k, v, prev = -1
    cdef uint32_t mask = 0
    for k in range(len(values)):
        v = values[k]
        if not 0 <= v <= hi:
            _range_fail(_path(fmt + "[{1}]", i, k, ""), v, 0, hi, what)
        if v <= prev:
            _fail(_path(fmt, i, 0, ""), "must be strictly ascending")
        mask |= (<uint32_t>1) << v
        prev = v
    return mask


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
    check_consistency(&g.s)
    check_playable(&g.s)
    if history:
        g._history = history
    return g


def check_engine(GameState state):
    """The engine's word on a decoded state: the C invariants of docs/rules.md §4, then a
    live position offers an action or a chance outcome."""
    _engine(&state.s)


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
    tasks, players = _many(msg, "tasks", 0, MAX_TASKS), _many(msg, "players", n, n)
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
    _locations(_many(msg, "locations", 4, 4), s, n)
    _kicked_out(ko, s, n)
    _market(_many(msg, "market", 21, 21), s, n)
    _artists(msg, s)
    _stacks(_many(msg, "work_stacks", 4, 4), s, n)
    _contracts(msg, s)
    _easels(msg.renowned_works, s, n)
    _lacerda(lac, s, n)
    history = list(_many(msg, "history", 0, _max_history))
    _numbers(history, 0, NUM_ACTIONS - 1, "history[{1}]", 0, "action", NULL, 0)
    return history


cdef int _task(t, long i, long n, TaskC* out) except -1:
    cdef long kind = t.kind, j, player = -1
    cdef long args[3]
    if not (0 < kind < NUM_KINDS and _accepted[kind]) or (kind == T_DISCARD_LARGEST and n != 1):
        why = "is for the solo game" if kind == T_DISCARD_LARGEST else "is not a task kind"
        _fail(f"tasks[{i}].kind", f"{_kind_name(kind)} {why}")
    if t.HasField("player") != _has_player[kind]:
        _fail(f"tasks[{i}].player",
              f"{_kind_name(kind)} {'needs a' if _has_player[kind] else 'has no'} player")
    if _has_player[kind]:
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
    cdef long k, v
    cdef int8_t his[4]
    cdef str fmt = "players[{0}]", rep = "players[{0}].reputation[{1}]"
    cdef str asst = "players[{0}].assistants"
    if p.seat != seat:
        _fail(f"players[{seat}].seat", f"{p.seat} differs from its index {seat}")
    assistants = _need(p, "assistants", fmt, seat)
    works = _many(p, "exhibited_works", 0, 4, fmt, seat)
    _numbers(works, 0, 7, "players[{0}].exhibited_works[{1}]", seat, "artist slot", pl.works, 4)
    pl.nworks = len(works)
    spaces = _many(p, "reputation", 6, 6, fmt, seat)
    for k in range(6):
        _enum(spaces[k], "bonus", k + 1, k + 1, rep, seat, k)
        pl.rep[k] = _opt(spaces[k], "tile", 0, NUM_REP_TILES - 1, rep, seat, k, "reputation tile")
    slots = _many(p, "contracts", 3, 3, fmt, seat)
    for k in range(3):
        _contract_slot(slots[k], seat, k, pl)
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
    pl.desks = _num(assistants, "desks", 0, NUM_DESKS, asst, seat)
    pl.queue = _num(assistants, "queue", 0, START_QUEUE, asst, seat)
    pl.removed = _num(assistants, "removed", 0, ASSISTANTS_PER_PLAYER, asst, seat)
    pl.gallerist = _enum(p, "gallerist", GALLERIST_PLACE_SALES_OFFICE, GALLERIST_PLACE_KICKED_OUT,
                         fmt, seat) - GALLERIST_PLACE_SALES_OFFICE
    pl.commission = _opt(p, "commission_artist", 0, 7, fmt, seat, 0, "artist slot")
    pl.start_tile = _opt(p, "start_tile", 0, NUM_REP_TILES - 1, fmt, seat, 0, "reputation tile")
    v = _enum(p, "curator", CURATOR_CARD_HIDDEN, CURATOR_CARD_C4, fmt, seat)
    pl.curator = -1 if v == CURATOR_CARD_HIDDEN else v - CURATOR_CARD_C1
    v = _enum(p, "dealer", DEALER_CARD_HIDDEN, DEALER_CARD_D4, fmt, seat)
    pl.dealer = -1 if v == DEALER_CARD_HIDDEN else v - DEALER_CARD_D1


cdef int _contract_slot(slot, long seat, long k, PlayerC* pl) except -1:
    """A contract slot: a contract (with its side and assistant), or never filled, so the
    engine still has its zeroed fields."""
    cdef str fmt = "players[{0}].contracts[{1}]"
    cdef long card = _opt(slot, "contract", 0, NUM_CONTRACTS - 1, fmt, seat, k, "contract id")
    if card < 0:
        _enum(slot, "side", 0, 0, fmt, seat, k)
        if slot.assistant:
            _fail(f"players[{seat}].contracts[{k}].assistant", "an empty slot has no assistant")
        pl.contract_state[k] = CS_FACE_UP
    else:
        pl.contract_state[k] = _enum(slot, "side", CONTRACT_SIDE_FACE_UP, CONTRACT_SIDE_INFLUENCE,
                                     fmt, seat, k) - CONTRACT_SIDE_FACE_UP
    pl.contract[k] = card
    pl.contract_asst[k] = slot.assistant


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
    artists = _many(msg, "artists", 8, 8)
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
    cdef long f
    for f in range(4):
        stack = stacks[f]
        _enum(stack, "form", f + 1, f + 1, "work_stacks[{0}]", f)
        s.stack_mask[f] = _ascending(stack.tiles_below, 7, "work_stacks[{0}].tiles_below", f,
                                     "work tile kind")
        s.stack_top[f] = _opt(stack, "top_tile", 0, 7, "work_stacks[{0}]", f, 0, "work tile kind")
        _counts(stack, "top_visitors", VISITOR_FIELDS, VISITORS_TOTAL[n], s.top_visitors[f],
                "work_stacks[{0}]", f)


cdef int _contracts(msg, StateC* s) except -1:
    cdef long i
    s.deck_mask = _ascending(msg.contract_deck, NUM_CONTRACTS - 1, "contract_deck", 0,
                             "contract id")
    piles = _many(msg, "contract_piles", 4, 4)
    for i in range(4):
        cards = _many(piles[i], "cards", 0, MAX_PILE, "contract_piles[{0}]", i)
        _numbers(cards, 0, NUM_CONTRACTS - 1, "contract_piles[{0}].cards[{1}]", i, "contract id",
                 s.pile[i], MAX_PILE)
        s.pile_len[i] = len(cards)


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
