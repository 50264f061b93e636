# engine/_rules_checks.pxi: part of engine/_core.pyx (included there; one compiled module so
# that the rules inline into each other).
#
# Whether an action is possible: buying, promoting, the market, selling, the location
# actions, ticket moves and executive actions, moves (R-MOVE-1/2/3) and payments.

# ---------------------------------------------------------------- legality of actions

cdef bint assistant_available(const StateC* s, int p) noexcept nogil:
    cdef int L
    if s.players[p].desks > 0:
        return True
    for L in range(NUM_LOCATIONS):
        if s.loc_owner[L] == p and s.loc_kind[L] == PIECE_ASSISTANT:
            return True
    return s.ko_active and s.ko_owner == p and s.ko_kind == PIECE_ASSISTANT

cdef bint can_buy_artist(const StateC* s, int p, int a) noexcept nogil:
    """R-ART-1 / RN §3.2-3.3."""
    cdef const PlayerC* pl = &s.players[p]
    cdef int f = a >> 1, price, base, k0, need
    cdef bint commission = pl.commission == a
    if not s.ar_discovered[a] or s.stack_top[f] < 0:
        return False
    if not commission and (s.ar_tokens[a] == 0 or s.ar_fame[a] >= FAME_MAX):
        return False
    price = artist_fame0(s, a) if commission else s.ar_fame[a]
    if not affordable(pl, price):
        return False
    if pl.nworks < 3:
        return True
    if pl.nworks >= MAX_WORKS:
        return False
    if has_masterpiece(s, pl) or s.ar_fame[a] >= FAME_MAX:
        return True
    # the 4th slot opens if this very purchase makes the artist a celebrity
    base = WORK_FAME[s.stack_top[f]] + pl.gallery[COLLECTOR]
    need = FAME_MAX - s.ar_fame[a] - base
    if need <= 0:
        return True
    k0 = _max(0, price - pl.money)
    return fame_steps(infl_after_money(pl.influence, k0)) >= need

cdef bint can_promote_artist(const StateC* s, int p, int a) noexcept nogil:
    """RN §5.2: discovered, below level 5, a token of the next level, influence = level."""
    cdef int nxt = s.ar_promo[a] + 1
    return (s.ar_discovered[a] and nxt <= 5 and s.promo_stock[nxt] > 0
            and s.players[p].influence >= nxt)

cdef bint market_access(const StateC* s, int p, int col) noexcept nogil:
    """C§10: visitors needed in the lobby, by column."""
    cdef const int8_t* lob = s.players[p].lobby
    if not market_cols_used(s, col):
        return False
    if col == 0:
        return vsum(lob) >= 1
    if col == 1:
        return lob[VIP] >= 1 and lob[INVESTOR] >= 1
    return lob[COLLECTOR] >= 1 and (lob[VIP] + lob[INVESTOR]) >= 1

cdef inline bint has_empty_rep_space(const PlayerC* pl) noexcept nogil:
    cdef int i
    for i in range(NUM_REP_SPACES):
        if pl.rep[i] < 0:
            return True
    return False

cdef bint can_market_space(const StateC* s, int p, int row, int col) noexcept nogil:
    cdef const PlayerC* pl = &s.players[p]
    if s.mk_asst[row][col] >= 0 or not market_access(s, p, col):
        return False
    if row < 4:
        return (s.mk_tile[row][col] >= 0 and pl.acquired[MARKET_ROW_FORM[row]] > 0
                and has_empty_rep_space(pl))
    return affordable(pl, AUCTION_COST[row - 4])

cdef inline bint sell_pair_ok(const StateC* s, const PlayerC* pl, int w, int c) noexcept nogil:
    return (w < pl.nworks and pl.contract[c] >= 0 and pl.contract_state[c] == CS_FACE_UP
            and pl.contract[c] // 5 == (pl.works[w] >> 1))

cdef inline int deck_dealable(const StateC* s) noexcept nogil:
    """Contracts a deal could draw: the deck, or what a reshuffle would make of it."""
    cdef uint32_t used
    cdef int i, p, k
    if s.deck_mask:
        return popcount32(s.deck_mask)
    used = 0
    for p in range(s.num_players):
        for k in range(3):
            if s.players[p].contract[k] >= 0:
                used |= (<uint32_t>1) << s.players[p].contract[k]
    for i in range(4):
        if s.pile_len[i] > 0:
            used |= (<uint32_t>1) << s.pile[i][s.pile_len[i] - 1]
    # cards held inside pending tasks are never dealt
    for i in range(s.num_tasks):
        if s.tasks[i].kind == T_CONTRACT_SLOT:
            used |= (<uint32_t>1) << s.tasks[i].a
    return NUM_CONTRACTS - popcount32(used)

cdef bint can_action(const StateC* s, int p, int loc, int which) noexcept nogil:
    """Whether location action `which` (0 = A, 1 = B) of `loc` is legal for player p."""
    cdef const PlayerC* pl = &s.players[p]
    cdef int a, k, w, c, r, i
    if loc == LOC_SALES:
        if which == 0:   # sign a contract: a free or completed slot, and a card to take
            for k in range(3):
                if pl.contract[k] < 0 or pl.contract_state[k] != CS_FACE_UP:
                    for i in range(4):
                        if s.pile_len[i] > 0:
                            return True
                    return deck_dealable(s) > 0
            return False
        for w in range(pl.nworks):
            for c in range(3):
                if sell_pair_ok(s, pl, w, c):
                    return True
        return False
    if loc == LOC_COLONY:
        if which == 0:
            if pl.commission >= 0:
                return False
            for a in range(NUM_ARTISTS):
                if not s.ar_discovered[a]:
                    return True
            return False
        for a in range(NUM_ARTISTS):
            if can_buy_artist(s, p, a):
                return True
        return False
    if loc == LOC_MEDIA:
        if which == 0:
            return (pl.queue > 0 and pl.desks < NUM_DESKS
                    and affordable(pl, HIRE_COST[START_QUEUE - pl.queue]))
        for a in range(NUM_ARTISTS):
            if can_promote_artist(s, p, a):
                return True
        return False
    # International Market
    if not assistant_available(s, p):
        return False
    for r in range(4 * which, 4 + 3 * which):
        for c in range(3):
            if can_market_space(s, p, r, c):
                return True
    return False

cdef bint can_ticket_move(const StateC* s, int p, int col, int route) noexcept nogil:
    """R-EXEC-2: plaza -> own lobby (0), own lobby -> gallery (1), lobby of the player
    `route - 1` seats to the left -> plaza (2..4)."""
    cdef const PlayerC* pl = &s.players[p]
    cdef int q
    if pl.tickets[col] <= 0:
        return False
    if route == 0:
        return s.plaza[col] > 0
    if route == 1:
        return pl.lobby[col] > 0 and can_enter_gallery(pl, col)
    if route - 1 >= s.num_players:
        return False
    q = (p + route - 1) % s.num_players
    return s.players[q].lobby[col] > 0

cdef bint can_ea_tickets(const StateC* s, int p) noexcept nogil:
    cdef int c, r
    for c in range(3):
        for r in range(5):
            if can_ticket_move(s, p, c, r):
                return True
    return False

cdef inline bint can_ea_contract(const StateC* s, int p, int k) noexcept nogil:
    cdef const PlayerC* pl = &s.players[p]
    return pl.contract[k] >= 0 and not pl.contract_asst[k] and assistant_available(s, p)

cdef void do_move(StateC* s, int p, int L) noexcept nogil:
    """R-MOVE-1/2: move the gallerist to L, kicking out what stands there."""
    cdef PlayerC* pl = &s.players[p]
    cdef int q
    if pl.gallerist < NUM_LOCATIONS:
        s.loc_owner[pl.gallerist] = -1
    q = s.loc_owner[L]
    if q >= 0:
        if q == p:       # own assistant: home, no kicked-out action
            assist_home(s, p)
        else:            # another seat's piece, or Lacerda's (solo: see lacerda_kicked)
            s.ko_owner = q
            s.ko_kind = s.loc_kind[L]
            s.ko_loc = L
            if s.loc_kind[L] == PIECE_GALLERIST and q != LACERDA:
                s.players[q].gallerist = GAL_KO
    s.loc_owner[L] = p
    s.loc_kind[L] = PIECE_GALLERIST
    pl.gallerist = L

cdef void apply_leave(StateC* s, int p, int left, int a) noexcept nogil:
    """R-MOVE-3: leave an assistant (from a desk or another location) on `left`."""
    if a == A_LEAVE_DESK:
        s.players[p].desks -= 1
    elif a != A_LEAVE_NONE:
        s.loc_owner[a - A_LEAVE_LOC] = -1
    if a != A_LEAVE_NONE:
        s.loc_owner[left] = p
        s.loc_kind[left] = PIECE_ASSISTANT

cdef bint leave_keeps_action(const StateC* s, int p, int left, int dest,
                             int a) noexcept nogil:
    """Whether an action of `dest` is legal after leave choice `a` at `left`."""
    cdef StateC tmp
    memcpy(&tmp, s, sizeof(StateC))
    apply_leave(&tmp, p, left, a)
    return can_action(&tmp, p, dest, 0) or can_action(&tmp, p, dest, 1)

cdef bint move_has_action(const StateC* s, int p, int L) noexcept nogil:
    """R-MOVE-1: an action of L is legal after the move and some choice of assistant
    left behind (R-MOVE-3). Fix: the leave choice was ignored, so with four full desks
    the Media Center was refused although leaving a desk assistant frees the desk a
    hire needs. (Leaving one from another location never enables an action.)"""
    cdef StateC tmp
    cdef int here = s.players[p].gallerist
    # A move onto a space that is empty or holds another owner's piece changes only
    # fields no can_action reads (the two spaces then hold no assistant of p; gallerist
    # places; a kicked-out piece that is not p's): its one read of them,
    # assistant_available, counts p's assistants on locations and p's own kicked-out
    # assistant. So the position itself answers, without a copy. Onto p's own
    # assistant the move sends it home (desks change): that case plays the move.
    cdef bint unchanged = s.ko_owner < 0 and s.loc_owner[L] != p
    if unchanged:
        if can_action(s, p, L, 0) or can_action(s, p, L, 1):
            return True
        if here >= NUM_LOCATIONS or s.players[p].desks == 0:
            return False     # no desk assistant to leave behind
    memcpy(&tmp, s, sizeof(StateC))
    do_move(&tmp, p, L)
    if not unchanged and (can_action(&tmp, p, L, 0) or can_action(&tmp, p, L, 1)):
        return True
    if here >= NUM_LOCATIONS or tmp.players[p].desks == 0:
        return False
    apply_leave(&tmp, p, here, A_LEAVE_DESK)   # tmp is ours: leave on it, no 2nd copy
    return can_action(&tmp, p, L, 0) or can_action(&tmp, p, L, 1)

cdef int legal_moves(const StateC* s, int p, action_t* out) noexcept nogil:
    """R-MOVE-1: locations with a legal action; if none, any other location (to pass)."""
    cdef int L, n = 0, here = s.players[p].gallerist
    for L in range(NUM_LOCATIONS):
        if L != here and move_has_action(s, p, L):
            out[n] = A_MOVE + L
            n += 1
    if n == 0:
        for L in range(NUM_LOCATIONS):
            if L != here:
                out[n] = A_MOVE + L
                n += 1
    return n

cdef int ea_options(const StateC* s, int p, action_t* out) noexcept nogil:
    cdef int n = 0, k
    if can_ea_tickets(s, p):
        out[n] = A_EA_TICKETS
        n += 1
    for k in range(3):
        if can_ea_contract(s, p, k):
            out[n] = A_EA_CONTRACT + k
            n += 1
    return n

cdef int pay_range(const StateC* s, const TaskC* t, int* lo, int* hi) noexcept nogil:
    """Influence money-steps allowed for a payment of t.a keeping t.b fame-steps."""
    cdef const PlayerC* pl = &s.players[t.player]
    lo[0] = _max(0, t.a - pl.money)
    hi[0] = _min(t.a, money_steps(pl.influence))
    while hi[0] >= lo[0] and fame_steps(infl_after_money(pl.influence, hi[0])) < t.b:
        hi[0] -= 1
    return hi[0] - lo[0] + 1

cdef inline int in_final_round(const StateC* s) noexcept nogil:
    return s.end_triggered and s.turns_left <= s.num_players
