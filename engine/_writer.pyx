# cython: language_level=3
"""The state writer: a `gallerist.v1.GameState` (proto/gallerist/v1/state.proto) in
protobuf's wire format, straight from the engine struct (the reader is engine/_reader.pyx).

`write_state(state)` returns the message's bytes, for `engine.serialize` to parse with
protobuf itself (`FromString`, ~0.02 ms where building the message field by field from
Python costs ~0.4 ms). Every tag (field number and wire type), field encoding and enum
number comes from engine/_state_pb.pxi, which proto/generate.py makes from state.proto at
build time; a message of scalars is written from an array of its values in field order.

Wire format: https://protobuf.dev/programming-guides/encoding/ (proto3: a singular
field with no presence is left out when zero; optional fields and submessages are
written when set; repeated numbers are packed).
"""
from cpython.bytes cimport PyBytes_FromStringAndSize
from libc.stdint cimport int8_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memmove

from gallerist.engine._core cimport StateC, TaskC, PlayerC, LACERDA, NUM_CONTRACTS
from gallerist.engine.state cimport GameState

from gallerist.engine._reader import SCHEMA_VERSION

include "_state_pb.pxi"

cdef long _SCHEMA_VERSION = SCHEMA_VERSION


cdef struct Buf:
    uint8_t* data
    Py_ssize_t len
    Py_ssize_t cap
    bint bad                  # a value the schema cannot hold (negative and unsigned)
    bint oom


cdef inline bint _room(Buf* b, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t cap
    cdef uint8_t* grown
    if b.len + n <= b.cap:
        return True
    cap = 2 * b.cap if 2 * b.cap >= b.len + n else b.len + n + 256
    grown = <uint8_t*>realloc(b.data, cap)
    if grown == NULL:
        b.oom = True
        return False
    b.data, b.cap = grown, cap
    return True


cdef inline int _encode(uint8_t* at, uint64_t v) noexcept nogil:
    """v as a varint at `at`; returns its length in bytes."""
    cdef int k = 0
    while v >= 0x80:
        at[k] = <uint8_t>(v & 0x7F) | 0x80
        k += 1
        v >>= 7
    at[k] = <uint8_t>v
    return k + 1


cdef inline void _varint(Buf* b, uint64_t v) noexcept nogil:
    if _room(b, 10):
        b.len += _encode(b.data + b.len, v)


cdef inline Py_ssize_t _begin(Buf* b, int tag) noexcept nogil:
    """Open a length-delimited field; one byte is kept for its length."""
    _varint(b, tag)
    if _room(b, 1):
        b.len += 1
    return b.len


cdef inline void _end(Buf* b, Py_ssize_t start) noexcept nogil:
    """Close the field opened at `start`: write its length, moving the body along
    when the length needs more than the one byte kept."""
    cdef Py_ssize_t n = b.len - start, extra = 0, m
    if b.oom:
        return
    m = n >> 7
    while m:
        extra += 1
        m >>= 7
    if extra:
        if not _room(b, extra):
            return
        memmove(b.data + start + extra, b.data + start, n)
        b.len += extra
    _encode(b.data + start - 1, <uint64_t>n)


cdef inline void _scalar(Buf* b, int tag, int enc, long v) noexcept nogil:
    """One scalar field, written as its ENC_ code says: ENC_PLAIN (uint32, bool, enum) is
    left out when 0 and never negative; ENC_OPTIONAL is written when present (the engine's
    -1 is absent), zero included; ENC_SIGNED (int32) as 64-bit two's complement."""
    if enc == ENC_OPTIONAL:
        if v < 0:
            return
    elif v == 0:
        return
    elif v < 0 and enc == ENC_PLAIN:
        b.bad = True
        return
    _varint(b, tag)
    _varint(b, <uint64_t>(<long long>v))


cdef inline void _message(Buf* b, int tag, const int* tags, const int* enc, int n,
                          const long* v) noexcept nogil:
    """A message of n scalar fields (TAGS_ and ENC_<Message>), v[k] in its k-th field."""
    cdef Py_ssize_t at = _begin(b, tag)
    cdef int k
    for k in range(n):
        _scalar(b, tags[k], enc[k], v[k])
    _end(b, at)


cdef inline void _counts(Buf* b, int tag, const int* tags, int n, const int8_t* v) noexcept nogil:
    """A message of n counts (Visitors, Tickets, FormCounts, PromotionTokens): v[k] in
    its k-th field."""
    cdef Py_ssize_t at = _begin(b, tag)
    cdef int k
    for k in range(n):
        _scalar(b, tags[k], ENC_PLAIN, v[k])
    _end(b, at)


cdef inline void _packed(Buf* b, int tag, const int8_t* v, int n, int offset) noexcept nogil:
    """A packed repeated field of v[k] + offset for each v[k] >= 0; left out when empty."""
    cdef Py_ssize_t at
    cdef int k
    for k in range(n):
        if v[k] >= 0:
            break
    else:
        return
    at = _begin(b, tag)
    for k in range(n):
        if v[k] >= 0:
            _varint(b, <uint64_t>(v[k] + offset))
    _end(b, at)


cdef inline void _bits(Buf* b, int tag, uint64_t mask, int n) noexcept nogil:
    """A packed repeated field of the set bits k < n (<= 64) of `mask`, ascending."""
    cdef int8_t v[64]
    cdef int k
    for k in range(n):
        v[k] = k if mask >> k & 1 else -1
    _packed(b, tag, v, n, 0)


cdef inline long _seat(int owner) noexcept nogil:
    """An owner field: a seat, or absent for none and for Lacerda (her own flag)."""
    return -1 if owner < 0 or owner == LACERDA else owner


cdef void _player(Buf* b, int seat, const PlayerC* p) noexcept nogil:
    cdef Py_ssize_t at = _begin(b, TAG_GameState_players), sub
    cdef long v[10]
    cdef int k, c
    v[:3] = [seat, p.money, p.influence]
    for k in range(3):
        _scalar(b, TAGS_Player[k], ENC_Player[k], v[k])
    _counts(b, TAG_Player_lobby, TAGS_Visitors, 3, p.lobby)
    _counts(b, TAG_Player_gallery, TAGS_Visitors, 3, p.gallery)
    _counts(b, TAG_Player_tickets, TAGS_Tickets, 3, p.tickets)
    v[:3] = [p.desks, p.queue, p.removed]
    _message(b, TAG_Player_assistants, TAGS_Assistants, ENC_Assistants, 3, v)
    _scalar(b, TAG_Player_gallerist, ENC_PLAIN, p.gallerist + GALLERIST_PLACE_SALES_OFFICE)
    _scalar(b, TAG_Player_commission_artist, ENC_OPTIONAL, p.commission)
    _packed(b, TAG_Player_exhibited_works, p.works, p.nworks, 0)
    _scalar(b, TAG_Player_start_tile, ENC_OPTIONAL, p.start_tile)
    for k in range(6):
        v[:2] = [k + REPUTATION_BONUS_INFLUENCE, p.rep[k]]
        _message(b, TAG_Player_reputation, TAGS_ReputationSpace, ENC_ReputationSpace, 2, v)
    _counts(b, TAG_Player_works_acquired, TAGS_FormCounts, 4, p.acquired)
    _counts(b, TAG_Player_works_sold, TAGS_FormCounts, 4, p.sold)
    for k in range(3):
        c = p.contract[k]
        v[:3] = [c, CONTRACT_SIDE_UNSPECIFIED if c < 0 else p.contract_state[k]
                 + CONTRACT_SIDE_FACE_UP, p.contract_asst[k] != 0]
        _message(b, TAG_Player_contracts, TAGS_ContractSlot, ENC_ContractSlot, 3, v)
    _scalar(b, TAG_Player_curator, ENC_PLAIN,
            CURATOR_CARD_HIDDEN if p.curator < 0 else p.curator + CURATOR_CARD_C1)
    _scalar(b, TAG_Player_dealer, ENC_PLAIN,
            DEALER_CARD_HIDDEN if p.dealer < 0 else p.dealer + DEALER_CARD_D1)
    for k in range(8):              # the steps, then the total
        v[k] = p.score[k]
    v[8] = p.auction_work + ART_FORM_PAINTING
    v[9] = AUCTION_USE_UNSPECIFIED if p.auction_work < 0 else p.auction_as + AUCTION_USE_EXHIBITED
    _message(b, TAG_Player_final_score, TAGS_FinalScore, ENC_FinalScore, 10, v)
    _end(b, at)


cdef void _board(Buf* b, const StateC* s) noexcept nogil:
    cdef long v[10]
    cdef int L, i, r, c, owner
    _counts(b, TAG_GameState_bag, TAGS_Visitors, 3, s.bag)
    _counts(b, TAG_GameState_plaza, TAGS_Visitors, 3, s.plaza)
    _counts(b, TAG_GameState_box_office, TAGS_Tickets, 3, s.box)
    _counts(b, TAG_GameState_ticket_discards, TAGS_Tickets, 3, s.discards)
    for L in range(4):
        owner = s.loc_owner[L]
        v[:5] = [L + LOCATION_SALES_OFFICE, _seat(owner), s.loc_kind[L] + PIECE_KIND_GALLERIST,
                 s.loc_tile[L], owner == LACERDA]
        _message(b, TAG_GameState_locations, TAGS_LocationSpace, ENC_LocationSpace, 5, v)
    v[:5] = [_seat(s.ko_owner), s.ko_kind + PIECE_KIND_GALLERIST, s.ko_loc + LOCATION_SALES_OFFICE,
             s.ko_active != 0, s.ko_owner == LACERDA]
    _message(b, TAG_GameState_kicked_out, TAGS_KickedOut, ENC_KickedOut, 5, v)
    for i in range(21):
        r, c = i // 3, i % 3
        owner = s.mk_asst[r][c]
        v[:5] = [r + MARKET_ROW_REPUTATION_DIGITAL, c + MARKET_COLUMN_I,
                 s.mk_tile[r][c] if r < 4 else -1, _seat(owner), owner == LACERDA]
        _message(b, TAG_GameState_market, TAGS_MarketSpace, ENC_MarketSpace, 5, v)
    for i in range(8):
        v[:10] = [i, (i >> 1) + ART_FORM_PAINTING, (i & 1) + ARTIST_COLOUR_BLUE, s.ar_variant[i],
                  s.ar_discovered[i] != 0, s.ar_fame[i], s.ar_promo[i], s.ar_tokens[i],
                  s.ar_bonus[i] + ARTIST_BONUS_MONEY, s.ar_collector[i] != 0]
        _message(b, TAG_GameState_artists, TAGS_Artist, ENC_Artist, 10, v)
    _counts(b, TAG_GameState_promotion_tokens, TAGS_PromotionTokens, 5, &s.promo_stock[1])
    _stacks_and_contracts(b, s)
    v[:3] = [s.lac_loc + LOCATION_SALES_OFFICE, s.lac_supply, s.lac_turn != 0]
    _message(b, TAG_GameState_lacerda, TAGS_Lacerda, ENC_Lacerda, 3, v)


cdef void _stacks_and_contracts(Buf* b, const StateC* s) noexcept nogil:
    cdef Py_ssize_t at
    cdef int f, i
    for f in range(4):
        at = _begin(b, TAG_GameState_work_stacks)
        _scalar(b, TAG_WorkStack_form, ENC_PLAIN, f + ART_FORM_PAINTING)
        _bits(b, TAG_WorkStack_tiles_below, s.stack_mask[f], 8)
        _scalar(b, TAG_WorkStack_top_tile, ENC_OPTIONAL, s.stack_top[f])
        _counts(b, TAG_WorkStack_top_visitors, TAGS_Visitors, 3, s.top_visitors[f])
        _end(b, at)
    _packed(b, TAG_GameState_renowned_works, s.easel, 3, ART_FORM_PAINTING)
    _bits(b, TAG_GameState_contract_deck, s.deck_mask, NUM_CONTRACTS)
    for i in range(4):
        at = _begin(b, TAG_GameState_contract_piles)
        _packed(b, TAG_ContractPile_cards, s.pile[i], s.pile_len[i], 0)
        _end(b, at)


cdef void _state(Buf* b, const StateC* s) noexcept nogil:
    cdef long v[5]
    cdef const TaskC* t
    cdef int i
    _scalar(b, TAG_GameState_schema_version, ENC_PLAIN, _SCHEMA_VERSION)
    _scalar(b, TAG_GameState_num_players, ENC_PLAIN, s.num_players)
    v[:4] = [s.turn_player, s.turn_count, s.ea_used != 0, s.passes]
    _message(b, TAG_GameState_turn, TAGS_Turn, ENC_Turn, 4, v)
    v[:3] = [s.end_triggered != 0, s.turns_left, s.terminal != 0]
    _message(b, TAG_GameState_game_end, TAGS_GameEnd, ENC_GameEnd, 3, v)
    v[:2] = [s.intermediate_pending != 0, s.intermediate_done != 0]
    _message(b, TAG_GameState_intermediate_scoring, TAGS_IntermediateScoring,
             ENC_IntermediateScoring, 2, v)
    for i in range(s.num_tasks):
        t = &s.tasks[i]
        v[:5] = [t.kind, t.player, t.a, t.b, t.c]
        _message(b, TAG_GameState_tasks, TAGS_PendingTask, ENC_PendingTask, 5, v)
    for i in range(s.num_players):
        _player(b, i, &s.players[i])
    _board(b, s)


def write_state(GameState state):
    """The serialized `gallerist.v1.GameState` of `state` (history included). Raises
    ValueError for a negative number in an unsigned field (the engine never makes one)."""
    cdef list history = state._history
    cdef Buf b
    cdef Py_ssize_t at
    cdef long a
    b.len, b.bad, b.oom = 0, False, False
    b.cap = 4096 + 3 * len(history)
    b.data = <uint8_t*>malloc(b.cap)
    if b.data == NULL:
        raise MemoryError("writing a state")
    try:
        _state(&b, &state.s)
        if history:
            at = _begin(&b, TAG_GameState_history)
            for x in history:
                a = x
                if a < 0:
                    b.bad = True
                    break
                _varint(&b, <uint64_t>a)
            _end(&b, at)
        if b.oom:
            raise MemoryError("writing a state")
        if b.bad:
            raise ValueError("the state holds a negative number where the schema's field is "
                             "unsigned")
        return PyBytes_FromStringAndSize(<char*>b.data, b.len)
    finally:
        free(b.data)
