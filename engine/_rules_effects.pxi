# engine/_rules_effects.pxi: part of engine/_core.pyx (included there; one compiled module so
# that the rules inline into each other).
#
# Effects pushed as tasks: location actions, executive actions, ticket patterns (C§5),
# reputation tiles and spaces (C§7, R-VIS-3), hiring bonuses (C§9), tickets (R-TIX-1), the turn.

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
