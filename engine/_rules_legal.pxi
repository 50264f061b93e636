# engine/_rules_legal.pxi: part of engine/_core.pyx (included there; one compiled module so
# that the rules inline into each other).
#
# The legal actions: one function per decision task kind, the dispatch
# (state_legal_actions), chance outcomes, the current player.

# ---------------------------------------------------------------- legal actions, per task kind
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
