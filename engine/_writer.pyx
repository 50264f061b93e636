# cython: language_level=3
"""The state writer: a `gallerist.v1.GameState` (proto/gallerist/v1/state.proto) in
protobuf's wire format, straight from the engine struct (the reader is engine/_reader.pyx).

`write_state(state)` returns the message's bytes, for `engine.serialize` to parse with
protobuf itself (`FromString`, ~0.02 ms where building the message field by field from
Python costs ~0.4 ms). Every tag (field number and wire type) and enum number comes
from engine/_state_pb.pxi, which proto/generate.py makes from state.proto at build time.

Wire format: https://protobuf.dev/programming-guides/encoding/ (proto3: a singular
field with no presence is left out when zero; optional fields and submessages are
written when set; repeated numbers are packed).
"""
from cpython.bytes cimport PyBytes_FromStringAndSize
from libc.stdint cimport int8_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memmove

from engine._core cimport StateC, TaskC, PlayerC, LACERDA, NUM_CONTRACTS
from engine.state cimport GameState

from engine._reader import SCHEMA_VERSION

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


cdef inline void _varint(Buf* b, uint64_t v) noexcept nogil:
    if not _room(b, 10):
        return
    while v >= 0x80:
        b.data[b.len] = <uint8_t>(v & 0x7F) | 0x80
        b.len += 1
        v >>= 7
    b.data[b.len] = <uint8_t>v
    b.len += 1


cdef inline void _uint(Buf* b, int tag, long v) noexcept nogil:
    """A uint32, bool or enum field without presence: left out when 0."""
    if v < 0:
        b.bad = True
    elif v:
        _varint(b, tag)
        _varint(b, <uint64_t>v)


cdef inline void _int32(Buf* b, int tag, long v) noexcept nogil:
    """An int32 field: negative values as 64-bit two's complement (10 bytes)."""
    if v:
        _varint(b, tag)
        _varint(b, <uint64_t>(<long long>v))


cdef inline void _optional(Buf* b, int tag, long v) noexcept nogil:
    """An optional uint32 where the engine's -1 means absent: written when present,
    zero included."""
    if v >= 0:
        _varint(b, tag)
        _varint(b, <uint64_t>v)


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


cdef inline void _counts(Buf* b, int tag, const int* tags, int n, const int8_t* v) noexcept nogil:
    """A message of n counts (Visitors, Tickets, FormCounts, PromotionTokens): v[k] in
    its k-th field."""
    cdef Py_ssize_t at = _begin(b, tag)
    cdef int k
    for k in range(n):
        _uint(b, tags[k], v[k])
    _end(b, at)


cdef inline void _counts3(Buf* b, int tag, const int8_t* v) noexcept nogil:
    """Visitors or Tickets: vip, investor, collector (the same field numbers)."""
    _counts(b, tag, TAGS_Visitors, 3, v)


cdef inline long _seat(int owner) noexcept nogil:
    """An owner field: a seat, or absent for none and for Lacerda (her own flag)."""
    return -1 if owner < 0 or owner == LACERDA else owner


cdef void _task(Buf* b, const TaskC* t) noexcept nogil:
    cdef Py_ssize_t at = _begin(b, TAG_GameState_tasks)
    _uint(b, TAG_PendingTask_kind, t.kind)
    _optional(b, TAG_PendingTask_player, t.player)
    _int32(b, TAG_PendingTask_a, t.a)
    _int32(b, TAG_PendingTask_b, t.b)
    _int32(b, TAG_PendingTask_c, t.c)
    _end(b, at)


cdef void _player(Buf* b, int seat, const PlayerC* p) noexcept nogil:
    cdef Py_ssize_t at = _begin(b, TAG_GameState_players), sub
    cdef int i, k, c
    _uint(b, TAG_Player_seat, seat)
    _uint(b, TAG_Player_money, p.money)
    _uint(b, TAG_Player_influence, p.influence)
    _counts3(b, TAG_Player_lobby, p.lobby)
    _counts3(b, TAG_Player_gallery, p.gallery)
    _counts3(b, TAG_Player_tickets, p.tickets)
    sub = _begin(b, TAG_Player_assistants)
    _uint(b, TAG_Assistants_desks, p.desks)
    _uint(b, TAG_Assistants_queue, p.queue)
    _uint(b, TAG_Assistants_removed, p.removed)
    _end(b, sub)
    _uint(b, TAG_Player_gallerist, p.gallerist + GALLERIST_PLACE_SALES_OFFICE)
    _optional(b, TAG_Player_commission_artist, p.commission)
    if p.nworks > 0:
        sub = _begin(b, TAG_Player_exhibited_works)
        for i in range(p.nworks):
            _varint(b, <uint64_t>p.works[i])
        _end(b, sub)
    _optional(b, TAG_Player_start_tile, p.start_tile)
    for i in range(6):
        sub = _begin(b, TAG_Player_reputation)
        _uint(b, TAG_ReputationSpace_bonus, i + REPUTATION_BONUS_INFLUENCE)
        _optional(b, TAG_ReputationSpace_tile, p.rep[i])
        _end(b, sub)
    _counts(b, TAG_Player_works_acquired, TAGS_FormCounts, 4, p.acquired)
    _counts(b, TAG_Player_works_sold, TAGS_FormCounts, 4, p.sold)
    for k in range(3):
        c = p.contract[k]
        sub = _begin(b, TAG_Player_contracts)
        _optional(b, TAG_ContractSlot_contract, c)
        _uint(b, TAG_ContractSlot_side,
              CONTRACT_SIDE_UNSPECIFIED if c < 0 else p.contract_state[k] + CONTRACT_SIDE_FACE_UP)
        _uint(b, TAG_ContractSlot_assistant, p.contract_asst[k] != 0)
        _end(b, sub)
    _uint(b, TAG_Player_curator,
          CURATOR_CARD_HIDDEN if p.curator < 0 else p.curator + CURATOR_CARD_C1)
    _uint(b, TAG_Player_dealer, DEALER_CARD_HIDDEN if p.dealer < 0 else p.dealer + DEALER_CARD_D1)
    sub = _begin(b, TAG_Player_final_score)
    for i in range(8):              # the steps, then the total
        _uint(b, TAGS_FinalScore[i], p.score[i])
    _uint(b, TAG_FinalScore_auction_work, p.auction_work + ART_FORM_PAINTING)
    _uint(b, TAG_FinalScore_auction_use, AUCTION_USE_UNSPECIFIED if p.auction_work < 0
          else p.auction_as + AUCTION_USE_EXHIBITED)
    _end(b, sub)
    _end(b, at)


cdef void _board(Buf* b, const StateC* s) noexcept nogil:
    cdef Py_ssize_t at
    cdef int L, i, owner
    _counts3(b, TAG_GameState_bag, s.bag)
    _counts3(b, TAG_GameState_plaza, s.plaza)
    _counts3(b, TAG_GameState_box_office, s.box)
    _counts3(b, TAG_GameState_ticket_discards, s.discards)
    for L in range(4):
        at = _begin(b, TAG_GameState_locations)
        owner = s.loc_owner[L]
        _uint(b, TAG_LocationSpace_location, L + LOCATION_SALES_OFFICE)
        _optional(b, TAG_LocationSpace_owner, _seat(owner))
        _uint(b, TAG_LocationSpace_piece, s.loc_kind[L] + PIECE_KIND_GALLERIST)
        _optional(b, TAG_LocationSpace_start_tile, s.loc_tile[L])
        _uint(b, TAG_LocationSpace_lacerda, owner == LACERDA)
        _end(b, at)
    at = _begin(b, TAG_GameState_kicked_out)
    _optional(b, TAG_KickedOut_owner, _seat(s.ko_owner))
    _uint(b, TAG_KickedOut_piece, s.ko_kind + PIECE_KIND_GALLERIST)
    _uint(b, TAG_KickedOut_location, s.ko_loc + LOCATION_SALES_OFFICE)
    _uint(b, TAG_KickedOut_acting, s.ko_active != 0)
    _uint(b, TAG_KickedOut_lacerda, s.ko_owner == LACERDA)
    _end(b, at)
    for i in range(21):
        at = _begin(b, TAG_GameState_market)
        owner = s.mk_asst[i // 3][i % 3]
        _uint(b, TAG_MarketSpace_row, i // 3 + MARKET_ROW_REPUTATION_DIGITAL)
        _uint(b, TAG_MarketSpace_column, i % 3 + MARKET_COLUMN_I)
        _optional(b, TAG_MarketSpace_reputation_tile, s.mk_tile[i // 3][i % 3] if i < 12 else -1)
        _optional(b, TAG_MarketSpace_assistant_owner, _seat(owner))
        _uint(b, TAG_MarketSpace_lacerda, owner == LACERDA)
        _end(b, at)
    for i in range(8):
        at = _begin(b, TAG_GameState_artists)
        _uint(b, TAG_Artist_slot, i)
        _uint(b, TAG_Artist_form, (i >> 1) + ART_FORM_PAINTING)
        _uint(b, TAG_Artist_colour, (i & 1) + ARTIST_COLOUR_BLUE)
        _uint(b, TAG_Artist_variant, s.ar_variant[i])
        _uint(b, TAG_Artist_discovered, s.ar_discovered[i] != 0)
        _uint(b, TAG_Artist_fame, s.ar_fame[i])
        _uint(b, TAG_Artist_promotion, s.ar_promo[i])
        _uint(b, TAG_Artist_signature_tokens, s.ar_tokens[i])
        _uint(b, TAG_Artist_bonus, s.ar_bonus[i] + ARTIST_BONUS_MONEY)
        _uint(b, TAG_Artist_collector, s.ar_collector[i] != 0)
        _end(b, at)
    _counts(b, TAG_GameState_promotion_tokens, TAGS_PromotionTokens, 5, &s.promo_stock[1])
    _stacks_and_contracts(b, s)
    at = _begin(b, TAG_GameState_lacerda)
    _uint(b, TAG_Lacerda_location, s.lac_loc + LOCATION_SALES_OFFICE)
    _uint(b, TAG_Lacerda_supply, s.lac_supply)
    _uint(b, TAG_Lacerda_move_due, s.lac_turn != 0)
    _end(b, at)


cdef void _stacks_and_contracts(Buf* b, const StateC* s) noexcept nogil:
    cdef Py_ssize_t at, sub
    cdef int f, k, i
    for f in range(4):
        at = _begin(b, TAG_GameState_work_stacks)
        _uint(b, TAG_WorkStack_form, f + ART_FORM_PAINTING)
        if s.stack_mask[f]:
            sub = _begin(b, TAG_WorkStack_tiles_below)
            for k in range(8):
                if s.stack_mask[f] >> k & 1:
                    _varint(b, <uint64_t>k)
            _end(b, sub)
        _optional(b, TAG_WorkStack_top_tile, s.stack_top[f])
        _counts3(b, TAG_WorkStack_top_visitors, s.top_visitors[f])
        _end(b, at)
    if s.easel[0] >= 0 or s.easel[1] >= 0 or s.easel[2] >= 0:
        at = _begin(b, TAG_GameState_renowned_works)
        for i in range(3):
            if s.easel[i] >= 0:
                _varint(b, <uint64_t>(s.easel[i] + ART_FORM_PAINTING))
        _end(b, at)
    if s.deck_mask:
        at = _begin(b, TAG_GameState_contract_deck)
        for k in range(NUM_CONTRACTS):
            if s.deck_mask >> k & 1:
                _varint(b, <uint64_t>k)
        _end(b, at)
    for i in range(4):
        at = _begin(b, TAG_GameState_contract_piles)
        if s.pile_len[i] > 0:
            sub = _begin(b, TAG_ContractPile_cards)
            for k in range(s.pile_len[i]):
                _varint(b, <uint64_t>s.pile[i][k])
            _end(b, sub)
        _end(b, at)


cdef void _state(Buf* b, const StateC* s) noexcept nogil:
    cdef Py_ssize_t at
    cdef int i
    _uint(b, TAG_GameState_schema_version, _SCHEMA_VERSION)
    _uint(b, TAG_GameState_num_players, s.num_players)
    at = _begin(b, TAG_GameState_turn)
    _uint(b, TAG_Turn_player, s.turn_player)
    _uint(b, TAG_Turn_number, s.turn_count)
    _uint(b, TAG_Turn_executive_action_used, s.ea_used != 0)
    _uint(b, TAG_Turn_consecutive_passes, s.passes)
    _end(b, at)
    at = _begin(b, TAG_GameState_game_end)
    _uint(b, TAG_GameEnd_triggered, s.end_triggered != 0)
    _uint(b, TAG_GameEnd_turns_left, s.turns_left)
    _uint(b, TAG_GameEnd_over, s.terminal != 0)
    _end(b, at)
    at = _begin(b, TAG_GameState_intermediate_scoring)
    _uint(b, TAG_IntermediateScoring_pending, s.intermediate_pending != 0)
    _uint(b, TAG_IntermediateScoring_done, s.intermediate_done != 0)
    _end(b, at)
    for i in range(s.num_tasks):
        _task(b, &s.tasks[i])
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
