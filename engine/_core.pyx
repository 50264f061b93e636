# cython: language_level=3
"""The rules of The Gallerist as plain C functions on StateC.

Every rule cites RULES.md (R-...) or rules-notes.md (RN §...). A turn is a stack of
tasks (see TaskKind in _core.pxd): the top task is the current decision point, a chance
event, or an automatic step that runs at once. A decision or chance with exactly one
option is resolved automatically, so callers only ever see real choices.

Nothing here allocates or touches Python objects; the callers (state.pyx, ai/_mcts.pyx)
only pass actions that were listed by state_legal_actions / state_chance_outcomes.
"""
from libc.string cimport memset, memcpy
from libc.stdint cimport int8_t, int16_t, uint8_t, uint32_t, uint64_t

# pair index -> colours (A_TICKET_PAIR)
cdef int PAIR_A[3]
cdef int PAIR_B[3]
PAIR_A[:] = [VIP, VIP, INVESTOR]
PAIR_B[:] = [INVESTOR, COLLECTOR, COLLECTOR]

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

# ---------------------------------------------------------------- legal actions, one function per task kind
# Each takes the top task t of its kind and writes the options of its player to `out`,
# returning their count; state_legal_actions dispatches on the kind and sorts.

cdef int legal_start_loc(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """RN §1.7: a location still holding a start tile and no gallerist."""
    cdef int L, n = 0
    for L in range(NUM_LOCATIONS):
        if s.loc_tile[L] >= 0 and s.loc_owner[L] < 0:
            out[n] = A_START_LOC + L
            n += 1
    return n

cdef int legal_turn_start(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """R-EXEC-1: an executive action before the move; R-MOVE-1: the moves."""
    cdef int n = 0
    if not s.ea_used:
        n = ea_options(s, t.player, out)
    return n + legal_moves(s, t.player, out + n)

cdef int legal_leave(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """R-MOVE-3: no assistant, one from a desk, or one from another location."""
    cdef int p = t.player, L, n = 1
    cdef const PlayerC* pl = &s.players[p]
    out[0] = A_LEAVE_NONE
    if pl.desks > 0:
        out[n] = A_LEAVE_DESK
        n += 1
    for L in range(NUM_LOCATIONS):
        if s.loc_owner[L] == p and s.loc_kind[L] == PIECE_ASSISTANT:
            out[n] = A_LEAVE_LOC + L
            n += 1
    # R-MOVE-1 fix: when the destination (the T_LOC_ACTION right below) has an
    # action only because a desk assistant is left behind (a hire with four full
    # desks), that is the only choice: the others would turn the move into a pass.
    # (No choice ever removes an action: leaving a desk assistant only frees a desk,
    # and an assistant left on a location can still go to the market, R-MKT-1.)
    L = s.tasks[s.num_tasks - 2].a
    if (pl.desks > 0 and not (can_action(s, p, L, 0) or can_action(s, p, L, 1))
            and leave_keeps_action(s, p, t.a, L, A_LEAVE_DESK)):
        out[0] = A_LEAVE_DESK
        n = 1
    return n

cdef int legal_loc_action(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """R-MOVE-1: action A or B of location t.a when legal; a pass only if neither is."""
    cdef int i, n = 0
    for i in range(2):
        if can_action(s, t.player, t.a, i):
            out[n] = A_ACTION + i
            n += 1
    if n == 0:
        out[0] = A_PASS
        n = 1
    return n

cdef int legal_after_action(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """R-EXEC-1: an executive action after the location action (if none yet), or end."""
    cdef int n = 0
    if not s.ea_used:
        n = ea_options(s, t.player, out)
    out[n] = A_END_TURN
    return n + 1

cdef int legal_ko(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """R-KO-1: pass; pay influence back to the previous fame icon and take action A or
    B of the location kicked from; or an executive action."""
    cdef int p = t.player, i, k, n = 1
    cdef PlayerC* pl = &s.players[p]
    out[0] = A_KO_PASS
    if pl.influence > 0:
        k = pl.influence
        pl.influence = ((k - 1) // 5) * 5     # RN §2.4: back to the previous fame icon
        for i in range(2):
            if can_action(s, p, s.ko_loc, i):
                out[n] = A_KO_ACTION + i
                n += 1
        pl.influence = k
    return n + ea_options(s, p, out + n)

cdef int legal_discover(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """R-ART-2: any face-down artist."""
    cdef int i, n = 0
    for i in range(NUM_ARTISTS):
        if not s.ar_discovered[i]:
            out[n] = A_ARTIST + i
            n += 1
    return n

cdef int legal_buy(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """R-ART-1: an artist whose work the player can buy."""
    cdef int i, n = 0
    for i in range(NUM_ARTISTS):
        if can_buy_artist(s, t.player, i):
            out[n] = A_ARTIST + i
            n += 1
    return n

cdef int legal_promote(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """RN §5.2: an artist the player can promote."""
    cdef int i, n = 0
    for i in range(NUM_ARTISTS):
        if can_promote_artist(s, t.player, i):
            out[n] = A_ARTIST + i
            n += 1
    return n

cdef int legal_fame_bonus(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """C§7 fame bonus, R-ART-3: a discovered artist that is not a celebrity."""
    cdef int i, n = 0
    for i in range(NUM_ARTISTS):
        if s.ar_discovered[i] and s.ar_fame[i] < FAME_MAX:
            out[n] = A_ARTIST + i
            n += 1
    return n

cdef int legal_pay(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """RN §7.2, R-ART-1: the influence money-steps a payment may use."""
    cdef int k, lo, hi, n = 0
    pay_range(s, t, &lo, &hi)
    for k in range(lo, hi + 1):
        out[n] = A_PAY + k
        n += 1
    return n

cdef int legal_fame_steps(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """RN §7.3, R-ART-1: at least t.c influence fame-steps, up to the cap of 19."""
    cdef const PlayerC* pl = &s.players[t.player]
    cdef int k, n = 0
    cdef int hi = _min(fame_steps(pl.influence), _max(0, FAME_MAX - s.ar_fame[t.a] - t.b))
    if s.ar_fame[t.a] >= FAME_MAX:
        hi = 0
    for k in range(_min(t.c, hi), hi + 1):
        out[n] = A_FAME + k
        n += 1
    return n

# R-TIX-1 fix: a ticket is taken, never declined: a colour held neither by the box
# office nor by the discards is not offered (with none left the task is void)

cdef int legal_ticket_any(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """R-TIX-1: one ticket of any obtainable colour."""
    cdef int c, n = 0
    for c in range(3):
        if ticket_obtainable(s, c):
            out[n] = A_TICKET + c
            n += 1
    return n

cdef int legal_ticket_pair(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """R-TIX-1: two tickets of different colours, the pairs that give the most."""
    cdef int c, n = 0, hi = 1
    for c in range(3):
        hi = _max(hi, ticket_obtainable(s, PAIR_A[c]) + ticket_obtainable(s, PAIR_B[c]))
    for c in range(3):
        if ticket_obtainable(s, PAIR_A[c]) + ticket_obtainable(s, PAIR_B[c]) == hi:
            out[n] = A_TICKET_PAIR + c
            n += 1
    return n

cdef int legal_ticket_or(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """C§5, R-TIX-1: one ticket of colour t.a or t.b."""
    cdef int n = 0
    if ticket_obtainable(s, t.a):
        out[n] = A_TICKET + t.a
        n += 1
    if ticket_obtainable(s, t.b):
        out[n] = A_TICKET + t.b
        n += 1
    return n

cdef int legal_box_discard(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """R-TIX-1: a colour other than t.a returned from the box office."""
    cdef int c, n = 0
    for c in range(3):
        if c != t.a and s.box[c] > 0:
            out[n] = A_BOX_DISCARD + c
            n += 1
    return n

cdef int legal_visitor_plaza(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """R-VIS-1, R-VIS-2: a plaza visitor of an allowed type (mask t.a) that may enter."""
    cdef const PlayerC* pl = &s.players[t.player]
    cdef int c, n = 0
    for c in range(3):
        if (t.a >> c) & 1 and s.plaza[c] > 0 and can_enter_gallery(pl, c):
            out[n] = A_VISITOR + c
            n += 1
    return n

cdef int legal_lobby_out(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """R-VIS-3: a lobby visitor who leaves for the plaza."""
    cdef int c, n = 0
    for c in range(3):
        if s.players[t.player].lobby[c] > 0:
            out[n] = A_VISITOR + c
            n += 1
    return n

cdef int legal_gallery_out(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """R-CON-2: a gallery visitor who leaves for the plaza."""
    cdef int c, n = 0
    for c in range(3):
        if s.players[t.player].gallery[c] > 0:
            out[n] = A_VISITOR + c
            n += 1
    return n

cdef int legal_orient(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """R-CON-2: the sold contract's side, money or influence."""
    out[0] = A_ORIENT
    out[1] = A_ORIENT + 1
    return 2

cdef int legal_rep_space(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """R-VIS-3, C§7: an empty reputation space of the player board."""
    cdef int i, n = 0
    for i in range(NUM_REP_SPACES):
        if s.players[t.player].rep[i] < 0:
            out[n] = A_REP_SPACE + i
            n += 1
    return n

cdef int legal_deal4(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """R-CON-1: deal 4 new contracts (if any can be dealt) or not."""
    out[0] = A_DEAL4_NO
    if deck_dealable(s) > 0:
        out[1] = A_DEAL4_YES
        return 2
    return 1

cdef int legal_pile(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """R-CON-1: the top card of a non-empty display pile."""
    cdef int i, n = 0
    for i in range(4):
        if s.pile_len[i] > 0:
            out[n] = A_PILE + i
            n += 1
    return n

cdef int legal_contract_slot(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """R-CON-1: an empty board slot or one with a face-down contract."""
    cdef const PlayerC* pl = &s.players[t.player]
    cdef int k, n = 0
    for k in range(3):
        if pl.contract[k] < 0 or pl.contract_state[k] != CS_FACE_UP:
            out[n] = A_CSLOT + k
            n += 1
    return n

cdef int legal_sell(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """R-CON-2: an exhibited work and a face-up contract of its art form."""
    cdef const PlayerC* pl = &s.players[t.player]
    cdef int i, k, n = 0
    for i in range(pl.nworks):
        for k in range(3):
            if sell_pair_ok(s, pl, i, k):
                out[n] = A_SELL + 3 * i + k
                n += 1
    return n

cdef int legal_hire(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """R-HIRE-1: 1..k assistants, k <= empty desks and queued ones, when affordable."""
    cdef const PlayerC* pl = &s.players[t.player]
    cdef int k, n = 0, cost = 0
    for k in range(1, _min(NUM_DESKS - pl.desks, pl.queue) + 1):
        cost += HIRE_COST[START_QUEUE - pl.queue + k - 1]
        if affordable(pl, cost):
            out[n] = A_HIRE + k - 1
            n += 1
    return n

cdef int legal_market(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """R-MKT-1, C§10: a reachable space of the reputation rows (t.a = 0) or auction
    rows (t.a = 1)."""
    cdef int r, c, n = 0
    for r in range(4 * t.a, 4 + 3 * t.a):
        for c in range(3):
            if can_market_space(s, t.player, r, c):
                out[n] = A_MARKET + 3 * r + c
                n += 1
    return n

cdef int legal_assist_src(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """R-MKT-1: the assistant placed comes from a desk, a location or the kicked-out
    space."""
    cdef int p = t.player, L, n = 0
    if s.players[p].desks > 0:
        out[n] = A_SRC_DESK
        n += 1
    for L in range(NUM_LOCATIONS):
        if s.loc_owner[L] == p and s.loc_kind[L] == PIECE_ASSISTANT:
            out[n] = A_SRC_LOC + L
            n += 1
    if s.ko_active and s.ko_owner == p and s.ko_kind == PIECE_ASSISTANT:
        out[n] = A_SRC_KO
        n += 1
    return n

cdef int legal_ticket_move(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """R-EXEC-2: one visitor move per ticket; stopping only after the first (t.a > 0)."""
    cdef int c, r, n = 0
    for c in range(3):
        for r in range(5):
            if can_ticket_move(s, t.player, c, r):
                out[n] = A_TMOVE + 5 * c + r
                n += 1
    if t.a > 0:
        out[n] = A_TMOVE_DONE
        n += 1
    return n

cdef int legal_discard_largest(StateC* s, const TaskC* t, action_t* out) noexcept nogil:
    """RN §10: a ticket from a largest box-office stack, the player's choice among ties
    (none when the box office is empty)."""
    cdef int c, n = 0, k = _max(s.box[0], _max(s.box[1], s.box[2]))
    if k > 0:
        for c in range(3):
            if s.box[c] == k:
                out[n] = A_DISCARD_LARGEST + c
                n += 1
    return n

cdef inline void sort_actions(action_t* out, int n) noexcept nogil:
    """Insertion sort, ascending. Fix: GameState.legal_actions promises ascending ids,
    but T_TURN_START listed the executive actions (8..11) before the moves (4..7) and
    T_KO the kicked-out actions (22..24) before the executive actions."""
    cdef int i, j, k
    for i in range(1, n):
        k = out[i]
        j = i - 1
        while j >= 0 and out[j] > k:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = k

cdef int state_legal_actions(StateC* s, action_t* out) noexcept nogil:
    """The options of the top decision task (empty at a chance point or the end)."""
    cdef TaskC* t
    cdef int n = 0, k
    if s.terminal or s.num_tasks == 0:
        return 0
    t = &s.tasks[s.num_tasks - 1]
    k = t.kind
    if k == T_START_LOC: n = legal_start_loc(s, t, out)
    elif k == T_TURN_START: n = legal_turn_start(s, t, out)
    elif k == T_LEAVE: n = legal_leave(s, t, out)
    elif k == T_LOC_ACTION: n = legal_loc_action(s, t, out)
    elif k == T_AFTER_ACTION: n = legal_after_action(s, t, out)
    elif k == T_KO: n = legal_ko(s, t, out)
    elif k == T_DISCOVER: n = legal_discover(s, t, out)
    elif k == T_BUY: n = legal_buy(s, t, out)
    elif k == T_PROMOTE: n = legal_promote(s, t, out)
    elif k == T_PAY: n = legal_pay(s, t, out)
    elif k == T_FAME_STEPS: n = legal_fame_steps(s, t, out)
    elif k == T_FAME_BONUS: n = legal_fame_bonus(s, t, out)
    elif k == T_TICKET_ANY: n = legal_ticket_any(s, t, out)
    elif k == T_TICKET_PAIR: n = legal_ticket_pair(s, t, out)
    elif k == T_TICKET_OR: n = legal_ticket_or(s, t, out)
    elif k == T_BOX_DISCARD: n = legal_box_discard(s, t, out)
    elif k == T_VISITOR_PLAZA: n = legal_visitor_plaza(s, t, out)
    elif k == T_LOBBY_OUT: n = legal_lobby_out(s, t, out)
    elif k == T_GALLERY_OUT: n = legal_gallery_out(s, t, out)
    elif k == T_ORIENT: n = legal_orient(s, t, out)
    elif k == T_REP_SPACE: n = legal_rep_space(s, t, out)
    elif k == T_DEAL4: n = legal_deal4(s, t, out)
    elif k == T_PILE: n = legal_pile(s, t, out)
    elif k == T_CONTRACT_SLOT: n = legal_contract_slot(s, t, out)
    elif k == T_SELL: n = legal_sell(s, t, out)
    elif k == T_HIRE: n = legal_hire(s, t, out)
    elif k == T_MARKET: n = legal_market(s, t, out)
    elif k == T_ASSIST_SRC: n = legal_assist_src(s, t, out)
    elif k == T_TICKET_MOVE: n = legal_ticket_move(s, t, out)
    elif k == T_DISCARD_LARGEST: n = legal_discard_largest(s, t, out)
    sort_actions(out, n)
    return n


cdef int state_chance_outcomes(StateC* s, action_t* out, int* weights) noexcept nogil:
    """Outcomes of the top chance task, with integer weights (probability = w / sum)."""
    cdef TaskC* t
    cdef int n = 0, i
    if s.terminal or s.num_tasks == 0:
        return 0
    t = &s.tasks[s.num_tasks - 1]
    if t.kind == T_CH_VISITOR:
        for i in range(3):
            if s.bag[i] > 0:
                out[n] = C_VISITOR + i
                weights[n] = s.bag[i]
                n += 1
    elif t.kind == T_CH_TILE:
        for i in range(8):
            if (s.stack_mask[t.a] >> i) & 1:
                out[n] = C_TILE + i
                weights[n] = 1
                n += 1
    elif t.kind == T_CH_CONTRACT:
        for i in range(NUM_CONTRACTS):
            if (s.deck_mask >> i) & 1:
                out[n] = C_CONTRACT + i
                weights[n] = 1
                n += 1
    return n

cdef int state_current_player(const StateC* s) noexcept nogil:
    cdef int k
    if s.terminal or s.num_tasks == 0:
        return PLAYER_TERMINAL
    k = s.tasks[s.num_tasks - 1].kind
    if k >= T_CH_VISITOR and k < T_AUTO_FIRST:
        return PLAYER_CHANCE
    return s.tasks[s.num_tasks - 1].player

cdef bint state_is_chance(const StateC* s) noexcept nogil:
    return state_current_player(s) == PLAYER_CHANCE

cdef bint state_is_legal(StateC* s, action_t a) noexcept nogil:
    cdef action_t buf[MAX_LEGAL]
    cdef int w[MAX_LEGAL]
    cdef int n, i
    if state_is_chance(s):
        n = state_chance_outcomes(s, buf, w)
    else:
        n = state_legal_actions(s, buf)
    for i in range(n):
        if buf[i] == a:
            return True
    return False

# ---------------------------------------------------------------- effects

cdef void push_location_action(StateC* s, int p, int loc, int which) noexcept nogil:
    if loc == LOC_SALES:
        if which == 0:
            push(s, T_PILE, p, 0, 0, 0)
            push(s, T_DEAL4, p, 0, 0, 0)
        else:
            push(s, T_SELL, p, 0, 0, 0)
    elif loc == LOC_COLONY:
        push(s, T_DISCOVER if which == 0 else T_BUY, p, 0, 0, 0)
    elif loc == LOC_MEDIA:
        push(s, T_HIRE if which == 0 else T_PROMOTE, p, 0, 0, 0)
    else:
        push(s, T_MARKET, p, which, 0, 0)

cdef void push_ea(StateC* s, int p, action_t a) noexcept nogil:
    cdef int k
    if a == A_EA_TICKETS:
        push(s, T_TICKET_MOVE, p, 0, 0, 0)
    else:
        k = a - A_EA_CONTRACT
        push(s, T_CONTRACT_BONUS, p, k, 0, 0)
        push(s, T_ASSIST_SRC, p, NUM_MARKET_SPACES + k, 0, 0)

cdef void push_ticket_pattern(StateC* s, int p, int pattern) noexcept nogil:
    """C§5 ticket icons of a work tile (R-TIX-1: two tickets are two colours)."""
    if pattern == TKP_VIP:
        push(s, T_GAIN_TICKET, p, VIP, 0, 0)
    elif pattern == TKP_INV:
        push(s, T_GAIN_TICKET, p, INVESTOR, 0, 0)
    elif pattern == TKP_ANY:
        push(s, T_TICKET_ANY, p, 0, 0, 0)
    elif pattern == TKP_VIP_PLUS:
        push(s, T_TICKET_OR, p, INVESTOR, COLLECTOR, 0)
        push(s, T_GAIN_TICKET, p, VIP, 0, 0)
    elif pattern == TKP_INV_PLUS:
        push(s, T_TICKET_OR, p, VIP, COLLECTOR, 0)
        push(s, T_GAIN_TICKET, p, INVESTOR, 0, 0)
    else:
        push(s, T_TICKET_PAIR, p, 0, 0, 0)

cdef void push_rep_tile(StateC* s, int p, int tile) noexcept nogil:
    """R-VIS-3: the tile goes to a board space (bonus), then a lobby visitor leaves."""
    push(s, T_LOBBY_OUT, p, 0, 0, 0)
    push(s, T_REP_SPACE, p, tile, 0, 0)

cdef inline bint start_tile_waiting(const StateC* s, int p) noexcept nogil:
    """A work fills the 3rd slot while the start reputation tile is still on it."""
    return s.players[p].nworks >= 3 and s.players[p].start_tile >= 0

cdef void push_start_tile(StateC* s, int p) noexcept nogil:
    """Seed 001 fix (the seeds outrank RN §3.2): the start tile lies on the work placed
    in the 3rd slot until the player's turn ends (for a kicked-out action: until that
    action ends); then it goes to a reputation space (bonus) and a lobby visitor leaves
    (R-VIS-3). It used to move at once, before the purchase's tickets were even used."""
    cdef int k = s.players[p].start_tile
    s.players[p].start_tile = -1
    push_rep_tile(s, p, k)

cdef void push_space_bonus(StateC* s, int p, int space) noexcept nogil:
    """C§7 player-board reputation space bonuses."""
    if space == RS_INFLUENCE:
        influence_bonus(&s.players[p])
    elif space == RS_MONEY:
        money_bonus(&s.players[p])
    elif space == RS_FAME:
        push(s, T_FAME_BONUS, p, 0, 0, 0)
    elif space == RS_VISITOR:
        push(s, T_VISITOR_PLAZA, p, 7, 0, 0)
    elif space == RS_TWO_TICKETS:
        push(s, T_TICKET_PAIR, p, 0, 0, 0)
    else:
        push(s, T_FREE_HIRE, p, 0, 0, 0)

cdef void push_hire_bonus(StateC* s, int p, int idx) noexcept nogil:
    """C§9 printed bonus of hire number idx + 1."""
    cdef int b = HIRE_BONUS[idx]
    if b == HB_INV_TICKET:
        push(s, T_GAIN_TICKET, p, INVESTOR, 0, 0)
    elif b == HB_VIP_TICKET:
        push(s, T_GAIN_TICKET, p, VIP, 0, 0)
    elif b == HB_INFLUENCE:
        push(s, T_INFLUENCE_BONUS, p, 0, 0, 0)
    elif b == HB_ANY_TICKET:
        push(s, T_TICKET_ANY, p, 0, 0, 0)
    elif b == HB_MONEY:
        push(s, T_MONEY_BONUS, p, 0, 0, 0)

cdef void gain_ticket(StateC* s, int p, int c) noexcept nogil:
    """R-TIX-1: take a ticket of colour c, with the shortage rules."""
    cdef PlayerC* pl = &s.players[p]
    cdef int o, others = 0, last = -1
    if s.box[c] > 0:
        box_take(s, c)
        pl.tickets[c] += 1
        return
    if s.discards[c] == 0:
        return
    s.discards[c] -= 1
    pl.tickets[c] += 1
    for o in range(3):
        if o != c and s.box[o] > 0:
            others += 1
            last = o
    if others == 2:
        push(s, T_BOX_DISCARD, p, c, 0, 0)
    elif others == 1:
        box_take(s, last)
        s.discards[last] += 1

cdef void start_turn(StateC* s, int p) noexcept nogil:
    s.turn_player = p
    s.ea_used = 0
    s.turn_count += 1
    if s.num_players == 1:
        # solo: Lacerda moves after each of the player's turns but the final one (R-END-1)
        s.lac_turn = 0 if s.end_triggered else 1
    push(s, T_END_TURN, p, 0, 0, 0)
    push(s, T_AFTER_ACTION, p, 0, 0, 0)
    push(s, T_TURN_START, p, 0, 0, 0)

# ---------------------------------------------------------------- Lacerda (solo)
# RULES.md R-SCOPE-2, rules-notes §10, components §14: the engine moves her; her only
# decision-like step, the colour of the ticket discarded when she is kicked out among tied
# largest stacks, is the player's (T_DISCARD_LARGEST). Her turn follows each of the
# player's turns (finish_turn), so the turn counter counts the player's turns only.
#
# Readings where the sources leave it open (SOLO = the SliceOfBread/Soloist code that
# rules-notes §10 rests on):
# - She first appears at her first turn, opposite the player's gallerist as it stands
#   then (SOLO). That arrival is an arrival like any other: it kicks out a piece there
#   and, at the market, places an assistant (SOLO skips the placement on this first
#   arrival; RN §10 "entering the IM" does not). She leaves nothing behind then.
# - Her steps run in SOLO's order: market placement, then the piece on the destination,
#   then the assistant left behind; with one assistant in supply the market gets it.
# - With an empty supply, the market assistant comes from the first location, in the
#   order SO, AC, MC, IM, holding one of hers (SOLO); with none, she places nothing.
# - The piece the player kicks out stays on the kicked-out space until the end of the
#   player's turn, like any kicked-out piece; then it goes to her supply, her market
#   placement follows (kicked out of the market) and then the discard. This also happens
#   in the final turn (SOLO); the box office is empty then, so nothing is discarded.
# - A discard that empties a colour is the first emptying of R-INT-1 like any other.
# - Auction (R-AUC-1): she bids with her offer and comes after the player in turn order.

cdef inline bint lac_on_board(const StateC* s) noexcept nogil:
    """Her gallerist stands on lac_loc (not yet placed, or kicked out, otherwise)."""
    return (s.lac_loc >= 0 and s.loc_owner[s.lac_loc] == LACERDA
            and s.loc_kind[s.lac_loc] == PIECE_GALLERIST)

cdef void lacerda_market(StateC* s) noexcept nogil:
    """RN §10: she places an assistant on the first International Market space of her
    fixed order that holds no assistant; a reputation tile there is discarded. The
    assistant comes from her supply or, when it is empty, from the first location (SO,
    AC, MC, IM) holding one of hers (SOLO's lacerdaIM order); with neither, nothing."""
    cdef int i, r = -1, c = -1, L
    for i in range(14):
        if s.mk_asst[LACERDA_MARKET_ORDER[i][0]][LACERDA_MARKET_ORDER[i][1]] < 0:
            r = LACERDA_MARKET_ORDER[i][0]
            c = LACERDA_MARKET_ORDER[i][1]
            break
    if r < 0:
        return
    if s.lac_supply > 0:
        s.lac_supply -= 1
    else:
        L = 0
        while L < NUM_LOCATIONS and not (s.loc_owner[L] == LACERDA
                                         and s.loc_kind[L] == PIECE_ASSISTANT):
            L += 1
        if L == NUM_LOCATIONS:
            return
        s.loc_owner[L] = -1
    if r < 4:
        s.mk_tile[r][c] = -1
    s.mk_asst[r][c] = LACERDA

cdef bint lacerda_move(StateC* s) noexcept nogil:
    """Her turn (RN §10): the first time she appears opposite the player's gallerist (two
    steps round); later she moves one location clockwise. Entering the market she places
    an assistant there; she sends her own assistant on the destination back to her supply
    and kicks out the player's piece there; then, if she left a location (not when coming
    back after being kicked out), she leaves an assistant from her supply on it. The
    steps run in SOLO's order. Returns whether the player's piece was kicked out."""
    cdef int frm = s.lac_loc, to, q, g
    cdef bint on_board = lac_on_board(s), kicked = False
    if frm < 0:
        g = s.players[0].gallerist
        to = ((g if g < NUM_LOCATIONS else LOC_SALES) + 2) % NUM_LOCATIONS
    else:
        to = (frm + 1) % NUM_LOCATIONS
    if to == LOC_MARKET:
        lacerda_market(s)
    q = s.loc_owner[to]
    if q == LACERDA:                  # her own assistant returns to her supply
        s.lac_supply += 1
    elif q >= 0:                      # the player's piece: a kicked-out action follows
        s.ko_owner = q
        s.ko_kind = s.loc_kind[to]
        s.ko_loc = to
        if s.loc_kind[to] == PIECE_GALLERIST:
            s.players[q].gallerist = GAL_KO
        kicked = True
    if on_board:
        s.loc_owner[frm] = -1
    s.loc_owner[to] = LACERDA
    s.loc_kind[to] = PIECE_GALLERIST
    s.lac_loc = to
    if on_board and s.lac_supply > 0:
        s.lac_supply -= 1
        s.loc_owner[frm] = LACERDA
        s.loc_kind[frm] = PIECE_ASSISTANT
    return kicked

cdef void lacerda_kicked(StateC* s) noexcept nogil:
    """End of the player's turn after kicking her piece out (RN §10): it returns to her
    supply (a gallerist simply leaves the board) and she never takes a kicked-out action;
    kicked out of the market she places a market assistant. The ticket discard follows
    (T_DISCARD_LARGEST)."""
    cdef int L = s.ko_loc
    if s.ko_kind == PIECE_ASSISTANT:
        s.lac_supply += 1
    s.ko_owner = -1
    s.ko_loc = -1
    if L == LOC_MARKET:
        lacerda_market(s)

# ---------------------------------------------------------------- final scoring

cdef int goals_score(const int8_t* goals, const int8_t* pay, int num_goals,
                     const int* counts) noexcept nogil:
    """The pay of every goal met: goal g needs counts[f] >= goals[4 * g + f] of each form."""
    cdef int g, f, total = 0
    cdef bint ok
    for g in range(num_goals):
        ok = True
        for f in range(4):
            if counts[f] < goals[4 * g + f]:
                ok = False
        if ok:
            total += pay[g]
    return total

cdef inline int curator_score(int card, const int* counts) noexcept nogil:
    """A Curator card's goals (2) on the exhibited counts; 0 for a hidden card."""
    return 0 if card < 0 else goals_score(&CURATOR_GOALS[card][0][0], CURATOR_PAY, 2, counts)

cdef inline int dealer_score(int card, const int* counts) noexcept nogil:
    """An Art Dealer card's goals (3) on the sold counts; 0 for a hidden card."""
    return 0 if card < 0 else goals_score(&DEALER_GOALS[card][0][0], DEALER_PAY, 3, counts)

cdef int renowned_value(const StateC* s, int form) noexcept nogil:
    """R-AUC-1: value of the more famous discovered artist of the form, else of the
    artist with the higher initial fame."""
    cdef int a0 = 2 * form, a1 = 2 * form + 1, best = -1
    if s.ar_discovered[a0] and s.ar_discovered[a1]:
        best = a0 if s.ar_fame[a0] >= s.ar_fame[a1] else a1
    elif s.ar_discovered[a0]:
        best = a0
    elif s.ar_discovered[a1]:
        best = a1
    if best >= 0:
        return fame_value(s, best, s.ar_fame[best])
    best = a0 if artist_fame0(s, a0) >= artist_fame0(s, a1) else a1
    return fame_value(s, best, artist_fame0(s, best))

cdef void exhibited_counts(const StateC* s, const PlayerC* pl, int* out) noexcept nogil:
    cdef int i
    for i in range(4):
        out[i] = 0
    for i in range(pl.nworks):
        out[pl.works[i] >> 1] += 1

cdef int auction_bidders(const StateC* s, int* order, int* offer) noexcept nogil:
    """R-AUC-1: each bidder's offer (total, then column III, II, I) and the bidders in
    turn order (solo: Lacerda as index 1, after the player, RN §10); returns how many."""
    cdef int n = s.num_players, p, r, c, i, owner, nb = 0
    cdef int m = n + 1 if n == 1 else n
    for p in range(m):
        owner = p if p < n else LACERDA
        for i in range(4):
            offer[4 * p + i] = 0
        for r in range(4, 7):
            for c in range(3):
                if s.mk_asst[r][c] == owner:
                    offer[4 * p] += AUCTION_COST[r - 4]
                    offer[4 * p + 3 - c] += AUCTION_COST[r - 4]
        if offer[4 * p] > 0:
            order[nb] = p
            nb += 1
    return nb

cdef void auction_sort(int* order, int nb, int* offer) noexcept nogil:
    """R-AUC-1: stable insertion sort by total, then column III, II, I; turn order
    breaks the rest."""
    cdef int i, e, p, q, r, cmp
    for i in range(1, nb):
        e = i
        while e > 0:
            p = order[e - 1]
            q = order[e]
            cmp = 0
            for r in range(4):
                if offer[4 * q + r] != offer[4 * p + r]:
                    cmp = 1 if offer[4 * q + r] > offer[4 * p + r] else -1
                    break
            if cmp <= 0:
                break
            order[e - 1] = q
            order[e] = p
            e -= 1

cdef int auction_choice(const StateC* s, const PlayerC* pl, const int* taken,
                        int* best_as) noexcept nogil:
    """R-AUC-1: the free easel, counted as exhibited (0) or sold (1), that maximises the
    player's final money (ties: the lower easel, then Curator); -1 if none is left."""
    cdef int ex[4]
    cdef int sd[4]
    cdef int e, r, v, gain, best = -1, best_e = -1
    exhibited_counts(s, pl, ex)
    for r in range(4):
        sd[r] = pl.sold[r]
    best_as[0] = 0
    for e in range(MAX_EASELS):
        if s.easel[e] < 0 or taken[e]:
            continue
        v = renowned_value(s, s.easel[e])
        ex[s.easel[e]] += 1
        gain = curator_score(pl.curator, ex)
        ex[s.easel[e]] -= 1
        gain -= curator_score(pl.curator, ex)
        if v + gain > best:
            best = v + gain
            best_e = e
            best_as[0] = 0
        sd[s.easel[e]] += 1
        gain = dealer_score(pl.dealer, sd)
        sd[s.easel[e]] -= 1
        gain -= dealer_score(pl.dealer, sd)
        if v + gain > best:
            best = v + gain
            best_e = e
            best_as[0] = 1
    return best_e

cdef void score_auction(StateC* s) noexcept nogil:
    """R-AUC-1: renowned works to the highest offers, each choosing for its owner. Solo:
    Lacerda bids too (index 1, after the player in turn order, RN §10); if she comes
    first she takes the work and the player gets none."""
    cdef int order[MAX_PLAYERS]
    cdef int offer[4 * MAX_PLAYERS]   # per bidder: total, column III, II, I
    cdef int taken[MAX_EASELS]
    cdef int i, e, p, v, best_e, best_as, nb
    cdef PlayerC* pl
    for i in range(MAX_EASELS):
        taken[i] = 0
    nb = auction_bidders(s, order, offer)
    auction_sort(order, nb, offer)
    for i in range(nb):
        p = order[i]
        if p >= s.num_players:        # Lacerda takes a work for nobody's score
            for e in range(MAX_EASELS):
                if s.easel[e] >= 0 and not taken[e]:
                    taken[e] = 1
                    break
            continue
        pl = &s.players[p]
        best_e = auction_choice(s, pl, taken, &best_as)
        if best_e < 0:
            break
        taken[best_e] = 1
        pl.auction_work = s.easel[best_e]
        pl.auction_as = best_as
        v = renowned_value(s, s.easel[best_e])
        pl.score[3] = v
        pl.money += v

cdef void score_majorities(StateC* s) noexcept nogil:
    """R-DATA-1: market column majorities. Solo (RN §10, C§14): against Lacerda's count,
    the 1st amount if ahead, floor((1st + 2nd) / 2) if tied, the 2nd if behind, which is
    the two-player rule with her as the other player (index 1)."""
    cdef int n = s.num_players, p, q, c, r, j, k, cnt, tot
    cdef int m = n + 1 if n == 1 else n
    cdef int places = 2 if n <= 2 else 3
    cdef int counts[MAX_PLAYERS]
    for c in range(3):
        if not market_cols_used(s, c):
            continue
        for p in range(m):
            counts[p] = 0
            for r in range(7):
                if s.mk_asst[r][c] == (p if p < n else LACERDA):
                    counts[p] += 1
        for p in range(n):
            if counts[p] == 0:
                continue
            # place of p = players with more; tied players share the places they span
            k = 0
            cnt = 0
            for q in range(m):
                if counts[q] > counts[p]:
                    k += 1
                elif counts[q] == counts[p]:
                    cnt += 1
            tot = 0
            for j in range(k, k + cnt):
                if j < places:
                    tot += MAJORITY[c][j]
            s.players[p].score[0] += tot // cnt

cdef int count_matching(const int8_t* v, int n, int threshold) noexcept nogil:
    """How many of the n entries of v are >= threshold."""
    cdef int i, cnt = 0
    for i in range(n):
        if v[i] >= threshold:
            cnt += 1
    return cnt

cdef int rep_tile_count(const StateC* s, int p, int tile) noexcept nogil:
    """C§7: what reputation tile `tile` (other than tile 1) counts for player p."""
    cdef const PlayerC* pl = &s.players[p]
    cdef int r, c, a, j, cnt = 0
    if tile == RT_COLLECTOR: return pl.gallery[COLLECTOR]
    if tile == RT_VIP: return pl.gallery[VIP]
    if tile == RT_INVESTOR: return pl.gallery[INVESTOR]
    if tile == RT_VISITOR: return vsum(pl.gallery)
    if tile == RT_SET: return _min(pl.gallery[0], _min(pl.gallery[1], pl.gallery[2]))
    if tile == RT_REP_TILE: return count_matching(pl.rep, NUM_REP_SPACES, 0)
    if tile == RT_ASSISTANT_IN_PLAY: return assistants_in_play(pl)
    if tile == RT_PROMO4_ARTIST: return count_matching(s.ar_promo, NUM_ARTISTS, 4)
    if tile == RT_ACQUIRED: return total_acquired(pl)
    if tile == RT_SOLD: return total_sold(pl)
    if tile == RT_EXHIBITED: return pl.nworks
    if tile == RT_ART_FORMS: return count_matching(pl.acquired, 4, 1)     # R-DATA-5
    if tile == RT_PHOTO: return pl.acquired[2]
    if tile == RT_PAINTING: return pl.acquired[0]
    if tile == RT_DIGITAL: return pl.acquired[3]
    if tile == RT_SCULPTURE: return pl.acquired[1]
    if tile == RT_AUCTION_ASSISTANT:
        for r in range(4, 7):
            for c in range(3):
                if s.mk_asst[r][c] == p:
                    cnt += 1
    elif tile == RT_FAME15_ARTIST:
        for a in range(NUM_ARTISTS):
            if s.ar_discovered[a] and s.ar_fame[a] >= 15:
                cnt += 1
    elif tile == RT_MASTERPIECE:
        for j in range(pl.nworks):
            if s.ar_fame[pl.works[j]] >= FAME_MAX:
                cnt += 1
    return cnt

cdef void score_reputation(StateC* s) noexcept nogil:
    """C§7: reputation tiles, tile 1 first, before any tile adds influence."""
    cdef int p, i, tile, cnt
    cdef PlayerC* pl
    for p in range(s.num_players):
        pl = &s.players[p]
        for i in range(NUM_REP_SPACES):
            if pl.rep[i] == RT_PER_3_INFLUENCE:
                pl.score[1] += pl.influence // 3
        for i in range(NUM_REP_SPACES):
            tile = pl.rep[i]
            if tile < 0 or tile == RT_PER_3_INFLUENCE:
                continue
            cnt = rep_tile_count(s, p, tile)
            pl.score[1] += cnt * REP_TILE_MONEY[tile]
            gain_influence(pl, cnt * REP_TILE_INFL[tile])

cdef void score_cards_and_influence(StateC* s) noexcept nogil:
    """RN §9.2 steps 5-7: Curator (exhibited works, the auction work if counted so),
    Art Dealer (sold works, likewise) and the influence end value (R-DATA-2)."""
    cdef int p, i, amount
    cdef int ex[4]
    cdef int sd[4]
    cdef PlayerC* pl
    for p in range(s.num_players):
        pl = &s.players[p]
        exhibited_counts(s, pl, ex)
        for i in range(4):
            sd[i] = pl.sold[i]
        if pl.auction_work >= 0:
            if pl.auction_as == 0:
                ex[pl.auction_work] += 1
            else:
                sd[pl.auction_work] += 1
        pl.score[4] = curator_score(pl.curator, ex)
        pl.score[5] = dealer_score(pl.dealer, sd)
        pl.score[6] = influence_end_value(pl.influence)
        pl.money += pl.score[4] + pl.score[5] + pl.score[6]
        amount = 0
        for i in range(7):
            amount += pl.score[i]
        pl.score[7] = amount

cdef void final_scoring(StateC* s) noexcept nogil:
    """RN §9.2: majorities, reputation, exhibition, auction, curator, dealer, influence."""
    cdef int p, i
    cdef PlayerC* pl
    for p in range(s.num_players):
        pl = &s.players[p]
        for i in range(8):
            pl.score[i] = 0
        pl.auction_work = -1
        pl.auction_as = 0
        pl.start_tile = -1     # RN §9.4: a tile left on the 3rd slot is discarded
    score_majorities(s)
    score_reputation(s)
    for p in range(s.num_players):     # exhibited works at their value (C§4)
        pl = &s.players[p]
        for i in range(pl.nworks):
            pl.score[2] += state_sale_value(s, pl.works[i])
        pl.money += pl.score[0] + pl.score[1] + pl.score[2]
    score_auction(s)                   # adds score[3] and the money itself
    score_cards_and_influence(s)
    s.terminal = 1
    s.num_tasks = 0


cdef void finish_turn(StateC* s) noexcept nogil:
    """R-INT-1 intermediate scoring, R-END-1 end trigger and final round, next turn.
    Solo: Lacerda's move when it is due (see lacerda_move); when it kicks out the
    player's piece, her turn ends with the player's kicked-out step and this runs again
    (T_FINISH_TURN) for the end-of-turn bookkeeping."""
    cdef int p, n = s.num_players, conds
    if s.intermediate_pending and not s.intermediate_done:
        for p in range(n):
            money_bonus(&s.players[p])
            influence_bonus(&s.players[p])
        s.intermediate_done = 1
        s.intermediate_pending = 0
    if s.end_triggered:
        s.turns_left -= 1
        if s.turns_left <= 0:
            final_scoring(s)
            return
    else:
        if n == 1:   # R-END-1 solo: the empty box office alone ends the game
            conds = 2 * box_empty(s)
        else:
            conds = box_empty(s) + (count_celebrities(s) >= 2) + (vsum(s.bag) == 0)
        # Safety net where RULES.md is silent: a game in which nobody can act any more
        # (two whole rounds of passes), or one past MAX_TURNS_PER_PLAYER turns each, ends
        # as if two conditions held, so every game ends.
        if (conds >= 2 or s.passes >= 2 * n
                or s.turn_count >= MAX_TURNS_PER_PLAYER * n):
            s.end_triggered = 1
            # solo: the player takes exactly one more turn, Lacerda none
            s.turns_left = 1 if n == 1 else (n - 1 - s.turn_player) + n
    if n == 1:
        if s.lac_turn and not s.end_triggered:
            s.lac_turn = 0
            if lacerda_move(s):       # R-KO-1 for the player, then her turn ends
                s.ko_active = 1
                push(s, T_FINISH_TURN, 0, 0, 0, 0)
                push(s, T_KO_DONE, 0, 0, 0, 0)
                push(s, T_KO, 0, 0, 0, 0)
                return
        start_turn(s, 0)
        return
    start_turn(s, (s.turn_player + 1) % n)

# ---------------------------------------------------------------- automatic steps, one function per task kind

cdef void auto_end_turn(StateC* s, const TaskC* t) noexcept nogil:
    """R-KO-1 after the active player's whole turn: a start tile waiting on the 3rd slot
    first (seed 001), then the kicked-out owner's action (none in the final round, RN
    §2.7; solo: Lacerda takes none and a ticket is discarded, RN §10), then the end."""
    cdef int p = t.player
    if start_tile_waiting(s, p):
        push(s, T_END_TURN, p, 0, 0, 0)      # then the kicked-out phase
        push_start_tile(s, p)
    elif s.ko_owner == LACERDA:
        lacerda_kicked(s)
        push(s, T_FINISH_TURN, p, 0, 0, 0)
        push(s, T_DISCARD_LARGEST, p, 0, 0, 0)
    elif s.ko_owner >= 0:
        push(s, T_FINISH_TURN, p, 0, 0, 0)
        push(s, T_KO_DONE, p, 0, 0, 0)
        if not in_final_round(s):
            s.ko_active = 1
            push(s, T_KO, s.ko_owner, 0, 0, 0)
    else:
        finish_turn(s)

cdef void auto_ko_done(StateC* s, const TaskC* t) noexcept nogil:
    """R-KO-1: the kicked-out piece goes home unless the KO action used it."""
    s.ko_active = 0
    if s.ko_owner >= 0:
        if s.ko_kind == PIECE_GALLERIST:
            s.players[s.ko_owner].gallerist = GAL_HOME
        else:
            assist_home(s, s.ko_owner)
        s.ko_owner = -1
        s.ko_loc = -1

cdef void auto_finish_turn(StateC* s, const TaskC* t) noexcept nogil:
    """Seed 001 timing: a kicked-out action may have filled its owner's 3rd slot; its
    start tile moves first (R-VIS-3). Then finish_turn (R-INT-1, R-END-1)."""
    cdef int k
    for k in range(s.num_players):
        if start_tile_waiting(s, k):
            push(s, T_FINISH_TURN, t.player, 0, 0, 0)
            push_start_tile(s, k)
            return
    finish_turn(s)

cdef void auto_begin_game(StateC* s, const TaskC* t) noexcept nogil:
    """RN §1.7: leftover start tiles are removed; the first turn begins."""
    cdef int L
    for L in range(NUM_LOCATIONS):
        s.loc_tile[L] = -1
    start_turn(s, 0)

cdef void auto_free_hire(StateC* s, const TaskC* t) noexcept nogil:
    """R-HIRE-1: the next queued assistant, free, with its printed bonus (lost without
    an empty desk or a queued assistant)."""
    cdef PlayerC* pl = &s.players[t.player]
    cdef int k
    if pl.queue > 0 and pl.desks < NUM_DESKS:
        k = START_QUEUE - pl.queue
        pl.queue -= 1
        pl.desks += 1
        push_hire_bonus(s, t.player, k)

cdef void auto_market_finish(StateC* s, const TaskC* t) noexcept nogil:
    """C§10, RN §6.4-6.5: the column's influence, then the reputation tile (R-VIS-3) or
    the auction space's bonus."""
    cdef PlayerC* pl = &s.players[t.player]
    cdef int p = t.player, row = t.a // 3, col = t.a % 3, k
    gain_influence(pl, MARKET_COLUMN_INFLUENCE[col])
    if row < 4:
        k = s.mk_tile[row][col]
        s.mk_tile[row][col] = -1
        push_rep_tile(s, p, k)
        return
    k = AUCTION_BONUS[row - 4][col]
    if k == AB_ANY_TICKET:
        push(s, T_TICKET_ANY, p, 0, 0, 0)
    elif k == AB_ASSISTANT:
        push(s, T_FREE_HIRE, p, 0, 0, 0)
    elif k == AB_TWO_TICKETS:
        push(s, T_TICKET_PAIR, p, 0, 0, 0)
    elif k == AB_INFLUENCE:
        influence_bonus(pl)
    elif k == AB_MONEY:
        money_bonus(pl)
    else:
        push(s, T_VISITOR_PLAZA, p, 7, 0, 0)

cdef void auto_contract_bonus(StateC* s, const TaskC* t) noexcept nogil:
    """C§6, R-CON-1/2: the bonus of contract slot t.a: its side when face down, else
    the card's printed bonus."""
    cdef PlayerC* pl = &s.players[t.player]
    cdef int p = t.player, card = s.players[t.player].contract[t.a], kind
    if pl.contract_state[t.a] == CS_MONEY:
        money_bonus(pl)
        return
    if pl.contract_state[t.a] == CS_INFLUENCE:
        influence_bonus(pl)
        return
    kind = card % 5
    if kind == CK_SIGN:
        # R-CON-1 fix: a face-up contract is never covered, so with no free or
        # completed slot the bonus gives nothing (a card used to be taken from
        # the display and lost); likewise when no card can be had at all
        if can_action(s, p, LOC_SALES, 0):
            push(s, T_PILE, p, 0, 0, 0)
            push(s, T_DEAL4, p, 0, 0, 0)
    elif kind == CK_ASSISTANT:
        push(s, T_FREE_HIRE, p, 0, 0, 0)
    elif kind == CK_BAG_VISITOR:
        push(s, T_CH_VISITOR, -1, CD_GALLERY_ANY, p, 0)
    elif kind == CK_PLAZA_VIP_INV:
        push(s, T_VISITOR_PLAZA, p, 3, 0, 0)
    elif CONTRACT_BONUS_IS_MONEY[card // 5]:
        money_bonus(pl)
    else:
        influence_bonus(pl)

cdef void auto_discover_finish(StateC* s, const TaskC* t) noexcept nogil:
    """RN §3.1: a red artist's collector goes to the plaza; the artist is flipped at its
    initial fame and its signature token goes to the commission space."""
    cdef int k = t.a
    if s.ar_collector[k]:
        s.ar_collector[k] = 0
        s.plaza[COLLECTOR] += 1
    s.ar_discovered[k] = 1
    s.ar_fame[k] = artist_fame0(s, k)
    s.ar_tokens[k] -= 1
    s.players[t.player].commission = k

cdef void run_auto(StateC* s, TaskC t) noexcept nogil:
    """Automatic steps (TaskKind > T_AUTO_FIRST)."""
    cdef int k = t.kind
    cdef PlayerC* pl = &s.players[t.player] if t.player >= 0 else NULL
    if k == T_GAIN_TICKET: gain_ticket(s, t.player, t.a)                # R-TIX-1
    elif k == T_END_TURN: auto_end_turn(s, &t)
    elif k == T_KO_DONE: auto_ko_done(s, &t)
    elif k == T_FINISH_TURN: auto_finish_turn(s, &t)
    elif k == T_BEGIN_GAME: auto_begin_game(s, &t)
    # C§5: the tickets. (A start tile on the 3rd slot waits for the end of the turn.)
    elif k == T_BUY_FINISH: push_ticket_pattern(s, t.player, WORK_TICKETS[t.b])
    elif k == T_FREE_HIRE: auto_free_hire(s, &t)
    elif k == T_MONEY_BONUS: money_bonus(pl)                            # R-DATA-3
    elif k == T_INFLUENCE_BONUS: influence_bonus(pl)                    # R-DATA-3
    elif k == T_GAIN_INFLUENCE: gain_influence(pl, t.a)
    elif k == T_MARKET_FINISH: auto_market_finish(s, &t)
    elif k == T_CONTRACT_BONUS: auto_contract_bonus(s, &t)
    elif k == T_REFILL_PILE:                                            # R-CON-1
        if s.pile_len[t.a] == 0:
            push(s, T_CH_CONTRACT, -1, t.a, 0, 0)
    elif k == T_PROMOTE_FINISH:                                         # R-ART-3
        if s.ar_fame[t.a] < FAME_MAX:    # a celebrity gains no fame
            push(s, T_FAME_STEPS, t.player, t.a, 1 + pl.gallery[COLLECTOR], 0)
    elif k == T_DISCOVER_FINISH: auto_discover_finish(s, &t)


cdef void reshuffle_contracts(StateC* s) noexcept nogil:
    """R-CON-1: every contract neither on a player board nor on top of a pile
    (nor held by a pending placement) becomes the new deck."""
    cdef uint32_t used = 0
    cdef int p, k, i
    for p in range(s.num_players):
        for k in range(3):
            if s.players[p].contract[k] >= 0:
                used |= (<uint32_t>1) << s.players[p].contract[k]
    for i in range(4):
        if s.pile_len[i] > 0:
            s.pile[i][0] = s.pile[i][s.pile_len[i] - 1]
            for k in range(1, s.pile_len[i]):
                s.pile[i][k] = -1
            s.pile_len[i] = 1
            used |= (<uint32_t>1) << s.pile[i][0]
    for i in range(s.num_tasks):
        if s.tasks[i].kind == T_CONTRACT_SLOT:
            used |= (<uint32_t>1) << s.tasks[i].a
    s.deck_mask = ((<uint32_t>1) << NUM_CONTRACTS) - 1
    s.deck_mask &= ~used

# ---------------------------------------------------------------- decisions, one function per task kind
# Each applies action `a` of its kind; t is the task, already popped from the stack
# (except for the two kinds that stay on it: see resolve).

cdef void resolve_start_loc(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """RN §1.7: the gallerist takes the location and its start reputation tile."""
    cdef int L = a - A_START_LOC
    s.loc_owner[L] = t.player
    s.loc_kind[L] = PIECE_GALLERIST
    s.players[t.player].gallerist = L
    s.players[t.player].start_tile = s.loc_tile[L]
    s.loc_tile[L] = -1

cdef void resolve_move(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """R-MOVE-1/2/3: move, then the location action; leaving a location, first the
    choice of an assistant left behind."""
    cdef int p = t.player, frm = s.players[t.player].gallerist, L = a - A_MOVE
    do_move(s, p, L)
    push(s, T_LOC_ACTION, p, L, 0, 0)
    if frm < NUM_LOCATIONS:
        push(s, T_LEAVE, p, frm, 0, 0)

cdef void resolve_leave(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """R-MOVE-3: an assistant (or none) stays on the location left, t.a."""
    apply_leave(s, t.player, t.a, a)

cdef void resolve_loc_action(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """R-MOVE-1: the location action, or a pass (counted for the game-length net)."""
    if a == A_PASS:
        s.passes += 1
    else:
        s.passes = 0
        push_location_action(s, t.player, t.a, a - A_ACTION)

cdef void resolve_after_action(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """R-EXEC-1: an executive action after the location action, or the end of the turn."""
    if a != A_END_TURN:
        s.ea_used = 1
        push_ea(s, t.player, a)

cdef void resolve_ko(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """R-KO-1: the kicked-out owner's action A or B, an executive action, or a pass."""
    cdef PlayerC* pl = &s.players[t.player]
    if A_KO_ACTION <= a < A_KO_ACTION + 2:
        pl.influence = ((pl.influence - 1) // 5) * 5    # RN §2.4
        push_location_action(s, t.player, s.ko_loc, a - A_KO_ACTION)
    elif a != A_KO_PASS:
        push_ea(s, t.player, a)

cdef void resolve_discover(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """R-ART-2, RN §3.1: the artist's bonus tile first, then the flip."""
    cdef int p = t.player, k = a - A_ARTIST, bonus = s.ar_bonus[a - A_ARTIST]
    cdef PlayerC* pl = &s.players[p]
    s.ar_bonus[k] = -1
    push(s, T_DISCOVER_FINISH, p, k, 0, 0)
    if bonus == BONUS_MONEY:
        money_bonus(pl)
    elif bonus == BONUS_INFLUENCE:
        influence_bonus(pl)
    elif bonus == BONUS_FAME:
        push(s, T_FAME_BONUS, p, 0, 0, 0)
    elif bonus == BONUS_TWO_TICKETS:
        push(s, T_TICKET_PAIR, p, 0, 0, 0)
    elif bonus == BONUS_VISITOR:
        push(s, T_VISITOR_PLAZA, p, 7, 0, 0)

cdef void resolve_buy(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """R-ART-1, RN §3.2: pay, gain fame, take the work and its tickets, reveal the next
    tile. A 4th work needs the fame steps that make the artist a celebrity (`need`)."""
    cdef int p = t.player, k = a - A_ARTIST, f = (a - A_ARTIST) >> 1, c, price, base
    cdef int need = 0, tile = s.stack_top[(a - A_ARTIST) >> 1]
    cdef PlayerC* pl = &s.players[p]
    if pl.commission == k:
        price = artist_fame0(s, k)
        pl.commission = -1
    else:
        price = s.ar_fame[k]
        s.ar_tokens[k] -= 1
    base = WORK_FAME[tile] + pl.gallery[COLLECTOR]
    if pl.nworks == 3 and not has_masterpiece(s, pl) and s.ar_fame[k] < FAME_MAX:
        need = _max(0, FAME_MAX - s.ar_fame[k] - base)
    for c in range(3):            # the visitors on the tile go to the plaza
        s.plaza[c] += s.top_visitors[f][c]
        s.top_visitors[f][c] = 0
    s.stack_top[f] = -1
    pl.works[pl.nworks] = k
    pl.nworks += 1
    pl.acquired[f] += 1
    push(s, T_CH_TILE, -1, f, 0, 0)
    push(s, T_BUY_FINISH, p, k, tile, 1 if pl.nworks == 3 else 0)
    if s.ar_fame[k] < FAME_MAX:
        push(s, T_FAME_STEPS, p, k, base, need)
    push(s, T_PAY, p, price, need, 0)

cdef void resolve_promote(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """RN §5.2, C§8: pay influence, swap the promotion token, take the level's bonus."""
    cdef int p = t.player, k = a - A_ARTIST, level = s.ar_promo[a - A_ARTIST] + 1, bonus
    cdef PlayerC* pl = &s.players[p]
    pl.influence -= level
    if s.ar_promo[k] > artist_promo0(s, k):
        s.promo_stock[s.ar_promo[k]] += 1
    s.promo_stock[level] -= 1
    s.ar_promo[k] = level
    push(s, T_PROMOTE_FINISH, p, k, 0, 0)
    bonus = PROMO_BONUS[level]
    if bonus == PB_ANY_TICKET:
        push(s, T_TICKET_ANY, p, 0, 0, 0)
    elif bonus == PB_INFLUENCE:
        influence_bonus(pl)
    elif bonus == PB_TWO_TICKETS:
        push(s, T_TICKET_PAIR, p, 0, 0, 0)
    elif bonus == PB_MONEY:
        money_bonus(pl)
    else:
        push(s, T_VISITOR_PLAZA, p, 7, 0, 0)

cdef void resolve_fame_bonus(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """C§7 fame bonus: 1 fame per gallery collector, plus influence fame-steps."""
    push(s, T_FAME_STEPS, t.player, a - A_ARTIST, s.players[t.player].gallery[COLLECTOR], 0)

cdef void resolve_pay(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """RN §7.2: k money-steps of influence, the rest of t.a in money."""
    cdef PlayerC* pl = &s.players[t.player]
    cdef int k = a - A_PAY
    pl.influence = infl_after_money(pl.influence, k)
    pl.money -= t.a - k

cdef void resolve_fame_steps(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """RN §7.3, R-ART-3: t.b fame plus k influence fame-steps; $5 for a new celebrity."""
    cdef PlayerC* pl = &s.players[t.player]
    cdef int k = a - A_FAME, before = s.ar_fame[t.a]
    pl.influence = infl_after_fame(pl.influence, k)
    s.ar_fame[t.a] = _min(FAME_MAX, before + t.b + k)
    if before < FAME_MAX and s.ar_fame[t.a] >= FAME_MAX:
        pl.money += CELEBRITY_MONEY

cdef void resolve_ticket(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """R-TIX-1: T_TICKET_ANY and T_TICKET_OR, one ticket of the colour chosen."""
    gain_ticket(s, t.player, a - A_TICKET)

cdef void resolve_ticket_pair(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """R-TIX-1: the two colours of the pair, one after the other."""
    cdef int k = a - A_TICKET_PAIR
    push(s, T_GAIN_TICKET, t.player, PAIR_B[k], 0, 0)
    push(s, T_GAIN_TICKET, t.player, PAIR_A[k], 0, 0)

cdef void resolve_box_discard(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """R-TIX-1 (T_BOX_DISCARD), RN §10 (T_DISCARD_LARGEST): a box-office ticket to the
    discards; it can empty a colour: R-INT-1 as for any ticket."""
    cdef int c = a - (A_BOX_DISCARD if t.kind == T_BOX_DISCARD else A_DISCARD_LARGEST)
    box_take(s, c)
    s.discards[c] += 1

cdef void resolve_visitor_plaza(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """R-VIS-1: the chosen plaza visitor enters the gallery."""
    cdef int c = a - A_VISITOR
    s.plaza[c] -= 1
    s.players[t.player].gallery[c] += 1

cdef void resolve_lobby_out(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """R-VIS-3: the chosen lobby visitor leaves for the plaza."""
    cdef int c = a - A_VISITOR
    s.players[t.player].lobby[c] -= 1
    s.plaza[c] += 1

cdef void resolve_gallery_out(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """R-CON-2: the visitor leaving the gallery sets the side of contract slot t.a."""
    cdef PlayerC* pl = &s.players[t.player]
    cdef int c = a - A_VISITOR
    pl.gallery[c] -= 1
    s.plaza[c] += 1
    if c == VIP:
        pl.contract_state[t.a] = CS_INFLUENCE
    elif c == INVESTOR:
        pl.contract_state[t.a] = CS_MONEY
    else:
        push(s, T_ORIENT, t.player, t.a, 0, 0)

cdef void resolve_orient(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """R-CON-2: the player's choice of side."""
    s.players[t.player].contract_state[t.a] = CS_MONEY if a == A_ORIENT else CS_INFLUENCE

cdef void resolve_rep_space(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """R-VIS-3, C§7: tile t.a on the chosen space, whose bonus follows."""
    cdef int k = a - A_REP_SPACE
    s.players[t.player].rep[k] = t.a
    push_space_bonus(s, t.player, k)

cdef void resolve_deal4(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """R-CON-1: one new card on top of each pile."""
    cdef int i
    if a == A_DEAL4_YES:
        for i in range(3, -1, -1):
            push(s, T_CH_CONTRACT, -1, i, 0, 0)

cdef void resolve_pile(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """R-CON-1: take the top card of a pile; an emptied pile is refilled."""
    cdef int i = a - A_PILE, card
    s.pile_len[i] -= 1
    card = s.pile[i][s.pile_len[i]]
    s.pile[i][s.pile_len[i]] = -1
    push(s, T_REFILL_PILE, t.player, i, 0, 0)
    push(s, T_CONTRACT_SLOT, t.player, card, 0, 0)

cdef void resolve_contract_slot(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """R-CON-1: an empty slot gives its ticket; a covered face-down card is discarded
    (its assistant goes home)."""
    cdef PlayerC* pl = &s.players[t.player]
    cdef int k = a - A_CSLOT, c
    if pl.contract[k] >= 0:
        if pl.contract_asst[k]:
            assist_home(s, t.player)
    else:
        c = CONTRACT_SLOT_TICKET[k]
        if c == 3:
            push(s, T_TICKET_ANY, t.player, 0, 0, 0)
        else:
            push(s, T_GAIN_TICKET, t.player, c, 0, 0)
    pl.contract[k] = t.a
    pl.contract_state[k] = CS_FACE_UP
    pl.contract_asst[k] = 0

cdef void resolve_sell(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """R-CON-2, RN §4.2: the work's value in money, its signature token back to the
    artist, the contract turned; a gallery visitor leaves and sets the side."""
    cdef PlayerC* pl = &s.players[t.player]
    cdef int w = (a - A_SELL) // 3, c = (a - A_SELL) % 3, k, artist
    artist = pl.works[w]
    pl.money += state_sale_value(s, artist)
    for k in range(w, pl.nworks - 1):
        pl.works[k] = pl.works[k + 1]
    pl.nworks -= 1
    pl.works[pl.nworks] = -1
    s.ar_tokens[artist] += 1
    pl.sold[artist >> 1] += 1
    if pl.contract_asst[c]:
        pl.contract_asst[c] = 0
        assist_home(s, t.player)
    pl.contract_state[c] = CS_MONEY
    if vsum(pl.gallery) > 0:
        push(s, T_GALLERY_OUT, t.player, c, 0, 0)
    else:
        push(s, T_ORIENT, t.player, c, 0, 0)

cdef void resolve_hire(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """R-HIRE-1, C§9: k assistants to the desks, their printed bonuses, one payment."""
    cdef PlayerC* pl = &s.players[t.player]
    cdef int k = a - A_HIRE + 1, i, price = 0
    for i in range(k):
        price += HIRE_COST[START_QUEUE - pl.queue + i]
    for i in range(k - 1, -1, -1):
        push_hire_bonus(s, t.player, START_QUEUE - pl.queue + i)
    pl.queue -= k
    pl.desks += k
    push(s, T_PAY, t.player, price, 0, 0)

cdef void resolve_market(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """R-MKT-1, RN §6.4-6.5: place an assistant, pay an auction offer, then the space's
    influence and bonus."""
    cdef int k = a - A_MARKET
    push(s, T_MARKET_FINISH, t.player, k, 0, 0)
    if k // 3 >= 4:
        push(s, T_PAY, t.player, AUCTION_COST[k // 3 - 4], 0, 0)
    push(s, T_ASSIST_SRC, t.player, k, 0, 0)

cdef void resolve_assist_src(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """R-MKT-1, R-KO-1: the assistant comes from a desk, a location or the kicked-out
    space and goes to market space t.a or onto contract slot t.a - NUM_MARKET_SPACES."""
    if a == A_SRC_DESK:
        s.players[t.player].desks -= 1
    elif a == A_SRC_KO:
        s.ko_owner = -1
        s.ko_loc = -1
    else:
        s.loc_owner[a - A_SRC_LOC] = -1
    if t.a < NUM_MARKET_SPACES:
        s.mk_asst[t.a // 3][t.a % 3] = t.player
    else:
        s.players[t.player].contract_asst[t.a - NUM_MARKET_SPACES] = 1

cdef void resolve_ticket_move(StateC* s, TaskC* t, action_t a) noexcept nogil:
    """R-EXEC-2: one ticket spent to move one visitor; the task stays on the stack and
    counts the moves made (t.a)."""
    cdef PlayerC* pl = &s.players[t.player]
    cdef int c = (a - A_TMOVE) // 5, route = (a - A_TMOVE) % 5
    pl.tickets[c] -= 1
    s.discards[c] += 1
    if route == 0:
        s.plaza[c] -= 1
        pl.lobby[c] += 1
    elif route == 1:
        pl.lobby[c] -= 1
        pl.gallery[c] += 1
    else:
        s.players[(t.player + route - 1) % s.num_players].lobby[c] -= 1
        s.plaza[c] += 1
    t.a += 1

cdef void resolve_ch_visitor(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """R-VIS-1/2: a visitor drawn from the bag goes onto a work tile (CD_TILE) or into
    player t.b's gallery, else to the plaza."""
    cdef int c = a - C_VISITOR
    cdef PlayerC* other
    s.bag[c] -= 1
    if t.a == CD_TILE:
        s.top_visitors[t.b][c] += 1
    else:
        other = &s.players[t.b]
        if can_enter_gallery(other, c) and (t.a == CD_GALLERY_ANY or c != COLLECTOR):
            other.gallery[c] += 1
        else:
            s.plaza[c] += 1

cdef void resolve_ch_tile(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """C§5, RN §3.2: the next work of form t.a is revealed; visitors from the bag on it."""
    cdef int k = a - C_TILE, i
    s.stack_mask[t.a] &= ~(1 << k)
    s.stack_top[t.a] = k
    for i in range(WORK_VISITORS[k]):
        push(s, T_CH_VISITOR, -1, CD_TILE, t.a, 0)

cdef void resolve_ch_contract(StateC* s, const TaskC* t, action_t a) noexcept nogil:
    """R-CON-1: a contract from the deck onto pile t.a."""
    cdef int k = a - C_CONTRACT
    s.deck_mask &= ~((<uint32_t>1) << k)
    s.pile[t.a][s.pile_len[t.a]] = k
    s.pile_len[t.a] += 1

cdef inline bint is_ea_action(action_t a) noexcept nogil:
    return a == A_EA_TICKETS or (A_EA_CONTRACT <= a < A_EA_CONTRACT + 3)

cdef void resolve(StateC* s, action_t a) noexcept nogil:
    """Apply action `a` (legal at the top task) without advancing. Two kinds stay on
    the stack: the turn start after an executive action (R-EXEC-1) and the ticket
    moves until they stop."""
    cdef TaskC t = s.tasks[s.num_tasks - 1]
    cdef int k = t.kind
    if k == T_TURN_START and is_ea_action(a):
        s.ea_used = 1
        push_ea(s, t.player, a)
        return
    if k == T_TICKET_MOVE and a != A_TMOVE_DONE:
        resolve_ticket_move(s, &s.tasks[s.num_tasks - 1], a)
        return
    s.num_tasks -= 1
    if k == T_START_LOC: resolve_start_loc(s, &t, a)
    elif k == T_TURN_START: resolve_move(s, &t, a)
    elif k == T_LEAVE: resolve_leave(s, &t, a)
    elif k == T_LOC_ACTION: resolve_loc_action(s, &t, a)
    elif k == T_AFTER_ACTION: resolve_after_action(s, &t, a)
    elif k == T_KO: resolve_ko(s, &t, a)
    elif k == T_DISCOVER: resolve_discover(s, &t, a)
    elif k == T_BUY: resolve_buy(s, &t, a)
    elif k == T_PROMOTE: resolve_promote(s, &t, a)
    elif k == T_FAME_BONUS: resolve_fame_bonus(s, &t, a)
    elif k == T_PAY: resolve_pay(s, &t, a)
    elif k == T_FAME_STEPS: resolve_fame_steps(s, &t, a)
    elif k == T_TICKET_ANY or k == T_TICKET_OR: resolve_ticket(s, &t, a)
    elif k == T_TICKET_PAIR: resolve_ticket_pair(s, &t, a)
    elif k == T_BOX_DISCARD or k == T_DISCARD_LARGEST: resolve_box_discard(s, &t, a)
    elif k == T_VISITOR_PLAZA: resolve_visitor_plaza(s, &t, a)
    elif k == T_LOBBY_OUT: resolve_lobby_out(s, &t, a)
    elif k == T_GALLERY_OUT: resolve_gallery_out(s, &t, a)
    elif k == T_ORIENT: resolve_orient(s, &t, a)
    elif k == T_REP_SPACE: resolve_rep_space(s, &t, a)
    elif k == T_DEAL4: resolve_deal4(s, &t, a)
    elif k == T_PILE: resolve_pile(s, &t, a)
    elif k == T_CONTRACT_SLOT: resolve_contract_slot(s, &t, a)
    elif k == T_SELL: resolve_sell(s, &t, a)
    elif k == T_HIRE: resolve_hire(s, &t, a)
    elif k == T_MARKET: resolve_market(s, &t, a)
    elif k == T_ASSIST_SRC: resolve_assist_src(s, &t, a)
    elif k == T_CH_VISITOR: resolve_ch_visitor(s, &t, a)
    elif k == T_CH_TILE: resolve_ch_tile(s, &t, a)
    elif k == T_CH_CONTRACT: resolve_ch_contract(s, &t, a)


cdef void advance(StateC* s) noexcept nogil:
    """Run automatic steps and forced choices until a real decision, chance or the end."""
    cdef action_t buf[MAX_LEGAL]
    cdef int w[MAX_LEGAL]
    cdef TaskC* t
    cdef TaskC tc
    cdef int n
    while not s.terminal and s.num_tasks > 0:
        t = &s.tasks[s.num_tasks - 1]
        if t.kind > T_AUTO_FIRST:
            tc = t[0]
            s.num_tasks -= 1
            run_auto(s, tc)
            continue
        if t.kind >= T_CH_VISITOR:
            if t.kind == T_CH_CONTRACT and s.deck_mask == 0:
                reshuffle_contracts(s)
            if t.kind == T_CH_TILE and s.stack_mask[t.a] == 0:
                s.num_tasks -= 1      # the stack is used up (RN §3.2)
                continue
            n = state_chance_outcomes(s, buf, w)
        else:
            n = state_legal_actions(s, buf)
            if n == 0 and t.kind == T_VISITOR_PLAZA:
                # R-VIS-1: nothing suitable in the plaza: draw from the bag instead
                t.b = t.player
                t.a = CD_GALLERY_ANY if t.a == 7 else CD_GALLERY_VI
                t.kind = T_CH_VISITOR
                t.player = -1
                continue
        if n == 0:
            s.num_tasks -= 1
            continue
        if n == 1:
            resolve(s, buf[0])
            continue
        return

cdef void state_apply(StateC* s, action_t a) noexcept nogil:
    resolve(s, a)
    advance(s)

cdef int state_sample_chance(StateC* s, RngC* rng) noexcept nogil:
    cdef action_t buf[MAX_LEGAL]
    cdef int w[MAX_LEGAL]
    cdef int n = state_chance_outcomes(s, buf, w), i, total = 0, r
    for i in range(n):
        total += w[i]
    r = rng_below(rng, total)
    for i in range(n):
        if r < w[i]:
            return buf[i]
        r -= w[i]
    return buf[n - 1]

# ---------------------------------------------------------------- setup

cdef void shuffle_ints(int* arr, int n, RngC* rng) noexcept nogil:
    cdef int i, j, tmp
    for i in range(n - 1, 0, -1):
        j = rng_below(rng, i + 1)
        tmp = arr[i]
        arr[i] = arr[j]
        arr[j] = tmp

cdef int draw_bag(StateC* s, RngC* rng) noexcept nogil:
    cdef int total = vsum(s.bag), r, c
    if total == 0:
        return -1
    r = rng_below(rng, total)
    for c in range(3):
        if r < s.bag[c]:
            s.bag[c] -= 1
            return c
        r -= s.bag[c]
    return -1

cdef void init_board(StateC* s, int n) noexcept nogil:
    """C§1: empty spaces, the bag and the box office for n players; Lacerda's supply."""
    cdef int i, j, c
    s.num_players = n
    s.ko_owner = -1
    s.ko_loc = -1
    s.lac_loc = -1
    if n == 1:      # RN §10: her 10 assistants in a supply; she has no office or cards
        s.lac_supply = LACERDA_ASSISTANTS
    for i in range(NUM_LOCATIONS):
        s.loc_owner[i] = -1
        s.loc_tile[i] = -1
        s.pile_len[i] = 0
        for j in range(MAX_PILE):
            s.pile[i][j] = -1
    for i in range(4):
        for j in range(MARKET_COLS):
            s.mk_tile[i][j] = -1
    for i in range(MARKET_ROWS):
        for j in range(MARKET_COLS):
            s.mk_asst[i][j] = -1
    for c in range(NUM_VTYPES):
        s.bag[c] = VISITORS_TOTAL[n][c]
        s.box[c] = TICKETS_PER_COLOUR[n]

cdef void init_artists(StateC* s, RngC* rng) noexcept nogil:
    """C§3, R-ART-2: one of two tiles per artist slot, the bonus tiles shuffled onto
    them; the first blue artist drawn starts discovered; a collector on each red one."""
    cdef int bonus[10]
    cdef int a, i, j = 0, k
    cdef int first_blue = rng_below(rng, 4)
    for k in range(NUM_ARTIST_BONUS_KINDS):
        for i in range(ARTIST_BONUS_COUNT[k]):
            bonus[j] = k
            j += 1
    shuffle_ints(bonus, 10, rng)
    j = 0
    for a in range(NUM_ARTISTS):
        s.ar_variant[a] = rng_below(rng, 2)
        s.ar_fame[a] = artist_fame0(s, a)
        s.ar_promo[a] = artist_promo0(s, a)
        s.ar_tokens[a] = 2
        if a == 2 * first_blue:
            s.ar_discovered[a] = 1
            s.ar_bonus[a] = -1
        else:
            s.ar_bonus[a] = bonus[j]
            j += 1
        if a & 1:
            s.ar_collector[a] = 1
            s.bag[COLLECTOR] -= 1
    for i in range(1, 6):
        s.promo_stock[i] = PROMO_TOKENS

cdef void init_works(StateC* s, RngC* rng) noexcept nogil:
    """C§5, C§13: per form one tile set aside and the top tile face up with visitors
    from the bag; the easels' forms."""
    cdef int forms[4]
    cdef int f, i, k, c, aside
    for f in range(NUM_FORMS):
        aside = rng_below(rng, 8)
        s.stack_mask[f] = 0xFF & ~(1 << aside)
        k = rng_below(rng, 7)
        for i in range(8):
            if (s.stack_mask[f] >> i) & 1:
                if k == 0:
                    s.stack_top[f] = i
                    s.stack_mask[f] &= ~(1 << i)
                    break
                k -= 1
        for i in range(WORK_VISITORS[s.stack_top[f]]):
            c = draw_bag(s, rng)
            if c >= 0:
                s.top_visitors[f][c] += 1
    for f in range(NUM_FORMS):
        forms[f] = f
    shuffle_ints(forms, 4, rng)
    for i in range(MAX_EASELS):
        s.easel[i] = forms[i] if i < EASELS[s.num_players] else -1

cdef void init_contracts(StateC* s, RngC* rng) noexcept nogil:
    """C§6: four contracts dealt face up, one per pile; the rest is the deck."""
    cdef int i, j, k
    s.deck_mask = ((<uint32_t>1) << NUM_CONTRACTS) - 1
    for i in range(4):
        k = rng_below(rng, NUM_CONTRACTS - i)
        for j in range(NUM_CONTRACTS):
            if (s.deck_mask >> j) & 1:
                if k == 0:
                    s.deck_mask &= ~((<uint32_t>1) << j)
                    s.pile[i][0] = j
                    s.pile_len[i] = 1
                    break
                k -= 1

cdef void init_rep_tiles(StateC* s, RngC* rng) noexcept nogil:
    """C§7, R-MKT-1: 12 reputation tiles (8 with <= 2 players) in the market, 4 by the
    locations (the start tiles)."""
    cdef int tiles[NUM_REP_TILES]
    cdef int i, j, k = 0
    for i in range(NUM_REP_TILES):
        tiles[i] = i
    shuffle_ints(tiles, NUM_REP_TILES, rng)
    for i in range(4):
        for j in range(MARKET_COLS):
            if market_cols_used(s, j):
                s.mk_tile[i][j] = tiles[k]
                k += 1
    for i in range(NUM_LOCATIONS):
        s.loc_tile[i] = tiles[k]
        k += 1

cdef void init_players(StateC* s, RngC* rng) noexcept nogil:
    """C§1, C§11: four plaza visitors; each player's start supplies, a visitor in the
    lobby, a Curator and an Art Dealer card."""
    cdef int cards[4]
    cdef int p, i, c
    cdef PlayerC* pl
    for i in range(4):
        c = draw_bag(s, rng)
        if c >= 0:
            s.plaza[c] += 1
    for c in range(4):
        cards[c] = c
    shuffle_ints(cards, 4, rng)
    for p in range(s.num_players):
        pl = &s.players[p]
        pl.money = START_MONEY
        pl.influence = START_INFLUENCE
        pl.desks = START_DESKS
        pl.queue = START_QUEUE
        pl.gallerist = GAL_HOME
        pl.commission = -1
        pl.start_tile = -1
        pl.auction_work = -1
        for i in range(MAX_WORKS):
            pl.works[i] = -1
        for i in range(NUM_REP_SPACES):
            pl.rep[i] = -1
        for i in range(3):
            pl.contract[i] = -1
        pl.curator = cards[p]
        c = draw_bag(s, rng)
        if c >= 0:
            pl.lobby[c] += 1
    shuffle_ints(cards, 4, rng)
    for p in range(s.num_players):
        s.players[p].dealer = cards[p]

cdef void state_init(StateC* s, int num_players, uint64_t seed) noexcept nogil:
    """Setup (RN §1.7, seed 000/001): every shuffle is resolved from `seed`, in this
    order (the recorded games depend on it)."""
    cdef RngC rng
    cdef int p
    memset(s, 0, sizeof(StateC))
    rng.s = seed
    init_board(s, num_players)
    init_artists(s, &rng)
    init_works(s, &rng)
    init_contracts(s, &rng)
    init_rep_tiles(s, &rng)
    init_players(s, &rng)
    # start locations, in reverse turn order (RN §1.7)
    push(s, T_BEGIN_GAME, -1, 0, 0, 0)
    for p in range(num_players):
        push(s, T_START_LOC, p, 0, 0, 0)
    advance(s)


# ---------------------------------------------------------------- results

cdef void state_final_money(const StateC* s, int* out) noexcept nogil:
    cdef int p
    for p in range(s.num_players):
        out[p] = s.players[p].money

cdef inline int assistants_in_play(const PlayerC* p) noexcept nogil:
    return ASSISTANTS_PER_PLAYER - p.queue - p.removed

cdef int compare_players(const StateC* s, int a, int b) noexcept nogil:
    """R-END-2: money, then works acquired, gallery visitors, assistants in play."""
    cdef const PlayerC* x = &s.players[a]
    cdef const PlayerC* y = &s.players[b]
    if x.money != y.money:
        return 1 if x.money > y.money else -1
    if total_acquired(x) != total_acquired(y):
        return 1 if total_acquired(x) > total_acquired(y) else -1
    if vsum(x.gallery) != vsum(y.gallery):
        return 1 if vsum(x.gallery) > vsum(y.gallery) else -1
    if assistants_in_play(x) != assistants_in_play(y):
        return 1 if assistants_in_play(x) > assistants_in_play(y) else -1
    return 0

cdef void state_returns(const StateC* s, double* out) noexcept nogil:
    """At the end: 1 shared equally among the winners, 0 to the others; 0 before.
    Solo (R-SCOPE-2: no rating titles, the result is the score): the final money m as
    m / (m + SOLO_RETURN_SCALE), in [0, 1), 0.5 at $100 and increasing in m."""
    cdef int p, q, nwin = 0
    cdef int win[MAX_PLAYERS]
    for p in range(s.num_players):
        out[p] = 0.0
        win[p] = 0
    if not s.terminal:
        return
    if s.num_players == 1:
        out[0] = solo_return(s.players[0].money)
        return
    for p in range(s.num_players):
        win[p] = 1
        for q in range(s.num_players):
            if compare_players(s, q, p) > 0:
                win[p] = 0
        nwin += win[p]
    for p in range(s.num_players):
        if win[p]:
            out[p] = 1.0 / nwin

cdef void state_resample_hidden(StateC* s, int player, RngC* rng) noexcept nogil:
    """Deal the Curator and Art Dealer cards `player` cannot see from those it has not
    seen (its own are the only ones it knows)."""
    cdef int cur[4]
    cdef int dea[4]
    cdef int nc = 0, nd = 0, c, p, known_c, known_d
    known_c = s.players[player].curator if player >= 0 else -1
    known_d = s.players[player].dealer if player >= 0 else -1
    for c in range(4):
        if c != known_c:
            cur[nc] = c
            nc += 1
        if c != known_d:
            dea[nd] = c
            nd += 1
    shuffle_ints(cur, nc, rng)
    shuffle_ints(dea, nd, rng)
    nc = 0
    nd = 0
    for p in range(s.num_players):
        if p == player:
            continue
        s.players[p].curator = cur[nc]
        s.players[p].dealer = dea[nd]
        nc += 1
        nd += 1

# ---------------------------------------------------------------- invariants (RULES.md §4)

cdef int state_check_invariants(const StateC* s) noexcept nogil:
    """0 when every invariant holds, else a code naming the first broken one:
    1 visitors, 2 tickets, 3 assistants, 4 money, 5 influence, 6 fame, 7 collector limit,
    8 signature tokens, 9 Lacerda's assistants (solo: supply + locations + market +
    kicked-out space != 10)."""
    cdef int n = s.num_players, c, p, L, r, k, a, tot, i
    cdef const PlayerC* pl
    for c in range(3):
        tot = s.bag[c] + s.plaza[c]
        for p in range(n):
            tot += s.players[p].lobby[c] + s.players[p].gallery[c]
        for k in range(4):
            tot += s.top_visitors[k][c]
        if c == COLLECTOR:
            for a in range(NUM_ARTISTS):
                tot += s.ar_collector[a]
        if tot != VISITORS_TOTAL[n][c]:
            return 1
        tot = s.box[c] + s.discards[c]
        for p in range(n):
            tot += s.players[p].tickets[c]
        if tot != TICKETS_PER_COLOUR[n] or s.box[c] < 0 or s.discards[c] < 0:
            return 2
    for p in range(n):
        pl = &s.players[p]
        tot = pl.queue + pl.desks + pl.removed
        for L in range(NUM_LOCATIONS):
            if s.loc_owner[L] == p and s.loc_kind[L] == PIECE_ASSISTANT:
                tot += 1
        for r in range(7):
            for c in range(3):
                if s.mk_asst[r][c] == p:
                    tot += 1
        for k in range(3):
            tot += pl.contract_asst[k]
        if s.ko_owner == p and s.ko_kind == PIECE_ASSISTANT:
            tot += 1
        if tot != ASSISTANTS_PER_PLAYER or pl.desks < 0 or pl.desks > NUM_DESKS or pl.queue < 0:
            return 3
        if pl.money < 0:
            return 4
        if pl.influence < 0 or pl.influence > INFLUENCE_MAX:
            return 5
        if not (pl.gallery[COLLECTOR] <= 1 + total_sold(pl)):
            return 7
    for a in range(NUM_ARTISTS):
        if s.ar_fame[a] < 1 or s.ar_fame[a] > FAME_MAX:
            return 6
        tot = s.ar_tokens[a]
        for p in range(n):
            pl = &s.players[p]
            if pl.commission == a:
                tot += 1
            for i in range(pl.nworks):
                if pl.works[i] == a:
                    tot += 1
        if tot != 2:
            return 8
    if n == 1:
        tot = s.lac_supply
        for L in range(NUM_LOCATIONS):
            if s.loc_owner[L] == LACERDA and s.loc_kind[L] == PIECE_ASSISTANT:
                tot += 1
        for r in range(7):
            for c in range(3):
                if s.mk_asst[r][c] == LACERDA:
                    tot += 1
        if s.ko_owner == LACERDA and s.ko_kind == PIECE_ASSISTANT:
            tot += 1
        if tot != LACERDA_ASSISTANTS or s.lac_supply < 0:
            return 9
    return 0

# ---------------------------------------------------------------- playouts

cdef long playout_random(StateC* s, RngC* rng, int max_decisions) noexcept nogil:
    """Uniform random play to the end (or max_decisions); returns decisions made."""
    cdef action_t buf[MAX_LEGAL]
    cdef long d = 0
    cdef int n
    while not s.terminal and s.num_tasks > 0 and d < max_decisions:
        if state_is_chance(s):
            state_apply(s, <action_t>state_sample_chance(s, rng))
        else:
            n = state_legal_actions(s, buf)
            state_apply(s, buf[rng_below(rng, n)])
            d += 1
    return d

# ---------------------------------------------------------------- evaluation support

cdef void state_score_now(const StateC* s, double* out) noexcept nogil:
    """Each player's money if the game were scored now (RN §9.2 on a copy). A hidden
    Curator or Art Dealer card (-1) counts as the mean over the four cards."""
    cdef StateC c
    cdef int p, card, i
    cdef int ex[4]
    cdef int sd[4]
    cdef double mean
    cdef PlayerC* pl
    memcpy(&c, s, sizeof(StateC))
    final_scoring(&c)
    for p in range(s.num_players):
        pl = &c.players[p]
        out[p] = pl.money
        if s.players[p].curator < 0 or s.players[p].dealer < 0:
            exhibited_counts(&c, pl, ex)
            for i in range(4):
                sd[i] = pl.sold[i]
            if pl.auction_work >= 0:
                if pl.auction_as == 0:
                    ex[pl.auction_work] += 1
                else:
                    sd[pl.auction_work] += 1
            if s.players[p].curator < 0:
                mean = 0
                for card in range(4):
                    mean += curator_score(card, ex)
                out[p] += mean / 4
            if s.players[p].dealer < 0:
                mean = 0
                for card in range(4):
                    mean += dealer_score(card, sd)
                out[p] += mean / 4
