# engine/_rules_helpers.pxi: part of engine/_core.pyx (included there; one compiled module so
# that the rules inline into each other).
#
# Small helpers of the rules: money and fame steps of influence (C§2, RN §7), artist
# and work values (C§3-§4), visitor and bonus arithmetic (R-DATA-3), the task stack's push.

# ---------------------------------------------------------------- small helpers

cdef inline int _min(int a, int b) noexcept nogil:
    return a if a < b else b

cdef inline int _max(int a, int b) noexcept nogil:
    return a if a > b else b

cdef inline int popcount32(uint32_t x) noexcept nogil:
    cdef int n = 0
    while x:
        x &= x - 1
        n += 1
    return n

cdef inline int infl_after_money(int infl, int k) noexcept nogil:
    if k <= 0:
        return infl
    return MONEY_ICONS[money_steps(infl) - k]

cdef inline int fame_steps(int infl) noexcept nogil:
    """Fame icons (multiples of 5) strictly below `infl` (RN §7.3)."""
    return (infl + 4) // 5

cdef inline int infl_after_fame(int infl, int k) noexcept nogil:
    if k <= 0:
        return infl
    return ((infl - 1) // 5) * 5 - 5 * (k - 1)

cdef inline int influence_end_value(int infl) noexcept nogil:
    """R-DATA-2: the money icon at or nearest below the marker."""
    cdef int i, v = 0
    for i in range(NUM_MONEY_ICONS):
        if MONEY_ICONS[i] <= infl:
            v = MONEY_ICON_VALUE[i]
    return v

cdef inline int artist_form(int a) noexcept nogil:
    return a >> 1

cdef inline int artist_colour(int a) noexcept nogil:
    return a & 1

cdef inline int artist_fame0(const StateC* s, int a) noexcept nogil:
    return ARTIST_FAME0[a >> 1][a & 1][s.ar_variant[a]]

cdef inline int artist_promo0(const StateC* s, int a) noexcept nogil:
    return ARTIST_PROMO0[a >> 1][a & 1][s.ar_variant[a]]

cdef int fame_value(const StateC* s, int a, int fame) noexcept nogil:
    """C§4 sale value of a work by artist `a` at `fame`."""
    cdef int t = ARTIST_TEMPLATE[a >> 1][a & 1][s.ar_variant[a]]
    cdef int lvl = 0, i
    for i in range(6):
        if fame >= STAR_THRESHOLDS[t][i]:
            lvl = i + 1
    return STAR_VALUE[lvl]

cdef int state_sale_value(const StateC* s, int a) noexcept nogil:
    return fame_value(s, a, s.ar_fame[a])

cdef inline int vsum(const int8_t* v) noexcept nogil:
    return v[0] + v[1] + v[2]

cdef inline int total_sold(const PlayerC* p) noexcept nogil:
    return p.sold[0] + p.sold[1] + p.sold[2] + p.sold[3]

cdef inline int total_acquired(const PlayerC* p) noexcept nogil:
    return p.acquired[0] + p.acquired[1] + p.acquired[2] + p.acquired[3]

cdef inline bint collector_room(const PlayerC* p) noexcept nogil:
    """R-VIS-2: collectors in a gallery <= 1 + works sold."""
    return p.gallery[COLLECTOR] < 1 + total_sold(p)

cdef inline bint can_enter_gallery(const PlayerC* p, int t) noexcept nogil:
    return t != COLLECTOR or collector_room(p)

cdef inline bint has_masterpiece(const StateC* s, const PlayerC* p) noexcept nogil:
    cdef int i
    for i in range(p.nworks):
        if s.ar_fame[p.works[i]] >= FAME_MAX:
            return True
    return False

cdef inline bint affordable(const PlayerC* p, int cost) noexcept nogil:
    return p.money + money_steps(p.influence) >= cost

cdef inline void gain_influence(PlayerC* p, int n) noexcept nogil:
    cdef int v = p.influence + n
    p.influence = INFLUENCE_MAX if v > INFLUENCE_MAX else v

cdef inline void money_bonus(PlayerC* p) noexcept nogil:
    """R-DATA-3: $2 per investor + $1 per collector in the gallery."""
    p.money += 2 * p.gallery[INVESTOR] + p.gallery[COLLECTOR]

cdef inline void influence_bonus(PlayerC* p) noexcept nogil:
    """R-DATA-3: 2 per VIP + 1 per collector in the gallery."""
    gain_influence(p, 2 * p.gallery[VIP] + p.gallery[COLLECTOR])

cdef inline void push(StateC* s, int kind, int player, int a, int b, int c) noexcept nogil:
    cdef TaskC* t
    if s.num_tasks >= MAX_TASKS:   # cannot happen with the rules' nesting depth
        return
    t = &s.tasks[s.num_tasks]
    t.kind = kind
    t.player = player
    t.a = a
    t.b = b
    t.c = c
    s.num_tasks += 1

cdef inline void assist_home(StateC* s, int p) noexcept nogil:
    """RN §2.6: an assistant going home takes a free desk, or leaves the game."""
    cdef PlayerC* pl = &s.players[p]
    if pl.desks < NUM_DESKS:
        pl.desks += 1
    else:
        pl.removed += 1

cdef inline bint box_empty(const StateC* s) noexcept nogil:
    return s.box[0] + s.box[1] + s.box[2] == 0

cdef inline bint ticket_obtainable(const StateC* s, int c) noexcept nogil:
    """R-TIX-1: a ticket of colour c comes from the box office, else the discards."""
    return s.box[c] > 0 or s.discards[c] > 0

cdef inline void box_take(StateC* s, int c) noexcept nogil:
    s.box[c] -= 1
    if s.box[c] == 0 and not s.intermediate_done:
        s.intermediate_pending = 1   # R-INT-1

cdef inline int market_cols_used(const StateC* s, int col) noexcept nogil:
    # R-MKT-1: with 1-2 players the middle column is unused
    return not (s.num_players <= 2 and col == 1)

cdef inline int count_celebrities(const StateC* s) noexcept nogil:
    cdef int a, n = 0
    for a in range(NUM_ARTISTS):
        if s.ar_discovered[a] and s.ar_fame[a] >= FAME_MAX:
            n += 1
    return n
