# engine/_rules_auto.pxi: part of engine/_core.pyx (included there; one compiled module so
# that the rules inline into each other).
#
# Automatic steps: one function per automatic task kind and the dispatch (run_auto);
# the contract reshuffle (R-CON-1).

# ---------------------------------------------------------------- automatic steps, per task kind

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
