# cython: language_level=3
"""The compiled writer of a `gallerist.v1.GameState` (engine.serialize).

`encode(state)` writes the state's message in protobuf's wire format straight from the
engine struct, for `state_to_proto` to parse with protobuf itself (`FromString`):
building the message field by field from Python costs ~0.4 ms, this ~0.02 ms. It
writes what serialize.py's reference writer sets, field for field (tests/engine/
test_fastwrite.py checks the messages are equal on every kind of position), and returns
None for a value the schema cannot hold (a negative number in an unsigned field; the
engine never makes one), so that the reference writer raises as it would.

Wire format: https://protobuf.dev/programming-guides/encoding/ (proto3: a singular
field with no presence is left out when zero; optional fields and submessages are
written when set; repeated numbers are packed).
"""
from cpython.bytes cimport PyBytes_FromStringAndSize
from libc.stdint cimport int8_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memmove

from engine._core cimport StateC, TaskC, PlayerC, LACERDA
from engine.state cimport GameState

cdef enum:
    WT_VARINT = 0
    WT_LEN = 2
    SCHEMA_VERSION = 1        # serialize.SCHEMA_VERSION (checked by the tests)


cdef struct Buf:
    uint8_t* data
    Py_ssize_t len
    Py_ssize_t cap
    bint bad                  # a value the schema cannot hold: the caller falls back
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


cdef inline void _varint(Buf* b, uint64_t v) noexcept nogil:
    if not _room(b, 10):
        return
    while v >= 0x80:
        b.data[b.len] = <uint8_t>(v & 0x7F) | 0x80
        b.len += 1
        v >>= 7
    b.data[b.len] = <uint8_t>v
    b.len += 1


cdef inline void _tag(Buf* b, int field, int wire_type) noexcept nogil:
    _varint(b, (<uint64_t>field << 3) | wire_type)


cdef inline void _uint(Buf* b, int field, long v) noexcept nogil:
    """A uint32 or enum field without presence: left out when 0."""
    if v < 0:
        b.bad = True
    elif v:
        _tag(b, field, WT_VARINT)
        _varint(b, <uint64_t>v)


cdef inline void _int32(Buf* b, int field, long v) noexcept nogil:
    """An int32 field: negative values as 64-bit two's complement (10 bytes)."""
    if v:
        _tag(b, field, WT_VARINT)
        _varint(b, <uint64_t>(<long long>v))


cdef inline void _optional(Buf* b, int field, long v) noexcept nogil:
    """An optional uint32 where the engine's -1 means absent: written when present,
    zero included."""
    if v >= 0:
        _tag(b, field, WT_VARINT)
        _varint(b, <uint64_t>v)


cdef inline Py_ssize_t _begin(Buf* b, int field) noexcept nogil:
    """Open a length-delimited field; one byte is kept for its length."""
    _tag(b, field, WT_LEN)
    if _room(b, 1):
        b.len += 1
    return b.len


cdef inline void _end(Buf* b, Py_ssize_t start) noexcept nogil:
    """Close the field opened at `start`: write its length, moving the body along
    when the length needs more than the one byte kept."""
    cdef Py_ssize_t n = b.len - start, extra = 0, m
    cdef uint64_t v
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
    v = <uint64_t>n
    start -= 1
    while v >= 0x80:
        b.data[start] = <uint8_t>(v & 0x7F) | 0x80
        start += 1
        v >>= 7
    b.data[start] = <uint8_t>v


cdef inline void _counts3(Buf* b, int field, const int8_t* v) noexcept nogil:
    """Visitors or Tickets: vip, investor, collector."""
    cdef Py_ssize_t at = _begin(b, field)
    _uint(b, 1, v[0])
    _uint(b, 2, v[1])
    _uint(b, 3, v[2])
    _end(b, at)


cdef inline void _forms(Buf* b, int field, const int8_t* v) noexcept nogil:
    cdef Py_ssize_t at = _begin(b, field)
    cdef int f
    for f in range(4):
        _uint(b, f + 1, v[f])
    _end(b, at)


cdef inline long _seat(int owner) noexcept nogil:
    """An owner field: a seat, or absent for none and for Lacerda (her own flag)."""
    return -1 if owner < 0 or owner == LACERDA else owner


cdef inline long _card(int card) noexcept nogil:
    """Curator/Art Dealer card 0..3 -> C1/D1.. (2..5), hidden (-1) -> HIDDEN (1)."""
    return 1 if card < 0 else card + 2


cdef void _task(Buf* b, const TaskC* t) noexcept nogil:
    cdef Py_ssize_t at = _begin(b, 6)
    _uint(b, 1, t.kind)
    _optional(b, 2, t.player)
    _int32(b, 3, t.a)
    _int32(b, 4, t.b)
    _int32(b, 5, t.c)
    _end(b, at)


cdef void _player(Buf* b, int seat, const PlayerC* p) noexcept nogil:
    cdef Py_ssize_t at = _begin(b, 7), sub
    cdef int i, k, c
    _uint(b, 1, seat)
    _uint(b, 2, p.money)
    _uint(b, 3, p.influence)
    _counts3(b, 4, p.lobby)
    _counts3(b, 5, p.gallery)
    _counts3(b, 6, p.tickets)
    sub = _begin(b, 7)
    _uint(b, 1, p.desks)
    _uint(b, 2, p.queue)
    _uint(b, 3, p.removed)
    _end(b, sub)
    _uint(b, 8, p.gallerist + 1)
    _optional(b, 9, p.commission)
    if p.nworks > 0:
        sub = _begin(b, 10)
        for i in range(p.nworks):
            _varint(b, <uint64_t>p.works[i])
        _end(b, sub)
    _optional(b, 11, p.start_tile)
    for i in range(6):
        sub = _begin(b, 12)
        _uint(b, 1, i + 1)
        _optional(b, 2, p.rep[i])
        _end(b, sub)
    _forms(b, 13, p.acquired)
    _forms(b, 14, p.sold)
    for k in range(3):
        c = p.contract[k]
        sub = _begin(b, 15)
        _optional(b, 1, c)
        _uint(b, 2, 0 if c < 0 else p.contract_state[k] + 1)
        _uint(b, 3, p.contract_asst[k] != 0)
        _end(b, sub)
    _uint(b, 16, _card(p.curator))
    _uint(b, 17, _card(p.dealer))
    sub = _begin(b, 18)
    for i in range(8):
        _uint(b, i + 1, p.score[i])
    _uint(b, 9, p.auction_work + 1)
    _uint(b, 10, 0 if p.auction_work < 0 else p.auction_as + 1)
    _end(b, sub)
    _end(b, at)


cdef void _board(Buf* b, const StateC* s) noexcept nogil:
    cdef Py_ssize_t at, sub
    cdef int L, r, c, a, f, k, i, owner, tile
    _counts3(b, 8, s.bag)
    _counts3(b, 9, s.plaza)
    _counts3(b, 10, s.box)
    _counts3(b, 11, s.discards)
    for L in range(4):
        at = _begin(b, 12)
        owner = s.loc_owner[L]
        _uint(b, 1, L + 1)
        _optional(b, 2, _seat(owner))
        _uint(b, 3, s.loc_kind[L] + 1)
        _optional(b, 4, s.loc_tile[L])
        _uint(b, 5, owner == LACERDA)
        _end(b, at)
    at = _begin(b, 13)
    _optional(b, 1, _seat(s.ko_owner))
    _uint(b, 2, s.ko_kind + 1)
    _uint(b, 3, s.ko_loc + 1)
    _uint(b, 4, s.ko_active != 0)
    _uint(b, 5, s.ko_owner == LACERDA)
    _end(b, at)
    for r in range(7):
        for c in range(3):
            at = _begin(b, 14)
            owner = s.mk_asst[r][c]
            tile = s.mk_tile[r][c] if r < 4 else -1
            _uint(b, 1, r + 1)
            _uint(b, 2, c + 1)
            _optional(b, 3, tile)
            _optional(b, 4, _seat(owner))
            _uint(b, 5, owner == LACERDA)
            _end(b, at)
    for a in range(8):
        at = _begin(b, 15)
        _uint(b, 1, a)
        _uint(b, 2, (a >> 1) + 1)
        _uint(b, 3, (a & 1) + 1)
        _uint(b, 4, s.ar_variant[a])
        _uint(b, 5, s.ar_discovered[a] != 0)
        _uint(b, 6, s.ar_fame[a])
        _uint(b, 7, s.ar_promo[a])
        _uint(b, 8, s.ar_tokens[a])
        _uint(b, 9, s.ar_bonus[a] + 1)
        _uint(b, 10, s.ar_collector[a] != 0)
        _end(b, at)
    at = _begin(b, 16)
    for i in range(1, 6):
        _uint(b, i, s.promo_stock[i])
    _end(b, at)
    for f in range(4):
        at = _begin(b, 17)
        _uint(b, 1, f + 1)
        if s.stack_mask[f]:
            sub = _begin(b, 2)
            for k in range(8):
                if s.stack_mask[f] >> k & 1:
                    _varint(b, <uint64_t>k)
            _end(b, sub)
        _optional(b, 3, s.stack_top[f])
        _counts3(b, 4, s.top_visitors[f])
        _end(b, at)
    if s.easel[0] >= 0 or s.easel[1] >= 0 or s.easel[2] >= 0:
        at = _begin(b, 18)
        for i in range(3):
            if s.easel[i] >= 0:
                _varint(b, <uint64_t>(s.easel[i] + 1))
        _end(b, at)
    if s.deck_mask:
        at = _begin(b, 19)
        for c in range(20):
            if s.deck_mask >> c & 1:
                _varint(b, <uint64_t>c)
        _end(b, at)
    for i in range(4):
        at = _begin(b, 20)
        if s.pile_len[i] > 0:
            sub = _begin(b, 1)
            for k in range(s.pile_len[i]):
                _varint(b, <uint64_t>s.pile[i][k])
            _end(b, sub)
        _end(b, at)
    at = _begin(b, 21)
    _uint(b, 1, s.lac_loc + 1)
    _uint(b, 2, s.lac_supply)
    _uint(b, 3, s.lac_turn != 0)
    _end(b, at)


def encode(GameState state):
    """The serialized `gallerist.v1.GameState` of `state` (history included), or None
    if a field holds a value the schema cannot (the reference writer then raises)."""
    cdef const StateC* s = &state.s
    cdef list history = state._history
    cdef Buf b
    cdef Py_ssize_t at
    cdef int i
    cdef long a
    b.len, b.bad, b.oom = 0, False, False
    b.cap = 4096 + 3 * len(history)
    b.data = <uint8_t*>malloc(b.cap)
    if b.data == NULL:
        raise MemoryError("encoding a state")
    try:
        _uint(&b, 1, SCHEMA_VERSION)
        _uint(&b, 2, s.num_players)
        at = _begin(&b, 3)
        _uint(&b, 1, s.turn_player)
        _uint(&b, 2, s.turn_count)
        _uint(&b, 3, s.ea_used != 0)
        _uint(&b, 4, s.passes)
        _end(&b, at)
        at = _begin(&b, 4)
        _uint(&b, 1, s.end_triggered != 0)
        _uint(&b, 2, s.turns_left)
        _uint(&b, 3, s.terminal != 0)
        _end(&b, at)
        at = _begin(&b, 5)
        _uint(&b, 1, s.intermediate_pending != 0)
        _uint(&b, 2, s.intermediate_done != 0)
        _end(&b, at)
        for i in range(s.num_tasks):
            _task(&b, &s.tasks[i])
        for i in range(s.num_players):
            _player(&b, i, &s.players[i])
        _board(&b, s)
        if history:
            at = _begin(&b, 22)
            for x in history:
                a = x
                if a < 0:
                    b.bad = True
                    break
                _varint(&b, <uint64_t>a)
            _end(&b, at)
        if b.oom:
            raise MemoryError("encoding a state")
        if b.bad:
            return None
        return PyBytes_FromStringAndSize(<char*>b.data, b.len)
    finally:
        free(b.data)
