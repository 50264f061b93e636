# engine/_rules_resolve.pxi: part of engine/_core.pyx (included there; one compiled module so
# that the rules inline into each other).
#
# Decisions and chance outcomes: one function per task kind, the dispatch (resolve),
# and advance / state_apply, which run the automatic steps up to the next real choice.

# ---------------------------------------------------------------- decisions, per task kind
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
