# engine/_rules_results.pxi: part of engine/_core.pyx (included there; one compiled module so
# that the rules inline into each other).
#
# Results (R-END-2), hidden information, the invariants of docs/rules.md §4, random
# playouts and the scoring-now estimate for the search.

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

# ---------------------------------------------------------------- invariants (docs/rules.md §4)

cdef inline int _broken(int* at, int code, int a=0, int b=0, int c=0, int d=0,
                        int e=0) noexcept nogil:
    """`code`, noting in `at` (when given: CHECK_AT ints) the numbers its message names."""
    if at != NULL:
        at[0], at[1], at[2], at[3], at[4] = a, b, c, d, e
    return code


cdef int state_check_invariants(const StateC* s, int* at=NULL) noexcept nogil:
    """0 when every invariant holds, else a code naming the first broken one:
    1 visitors, 2 tickets, 3 assistants, 4 money, 5 influence, 9 Lacerda's assistants
    (solo: supply + locations + market + kicked-out space != 10), 6 fame, 7 collector
    limit, 8 signature tokens. With `at`, at[0] is the colour (1, 2), seat (3, 4, 5, 7)
    or artist (6, 8) concerned and at[1] the count found, then what the state reader's
    message names (engine/_consistency.pyx): the count expected and the player count
    (1, 2), the pieces on the board and the count expected (3, 9), the works sold (7)."""
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
            return _broken(at, 1, c, tot, VISITORS_TOTAL[n][c], n)
        tot = s.box[c] + s.discards[c]
        for p in range(n):
            tot += s.players[p].tickets[c]
        if tot != TICKETS_PER_COLOUR[n] or s.box[c] < 0 or s.discards[c] < 0:
            return _broken(at, 2, c, tot, TICKETS_PER_COLOUR[n], n)
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
            return _broken(at, 3, p, tot, tot - pl.queue - pl.desks - pl.removed,
                           ASSISTANTS_PER_PLAYER)
        if pl.money < 0:
            return _broken(at, 4, p, pl.money)
        if pl.influence < 0 or pl.influence > INFLUENCE_MAX:
            return _broken(at, 5, p, pl.influence)
        if not (pl.gallery[COLLECTOR] <= 1 + total_sold(pl)):
            return _broken(at, 7, p, pl.gallery[COLLECTOR], total_sold(pl))
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
            return _broken(at, 9, LACERDA, tot, tot - s.lac_supply, LACERDA_ASSISTANTS)
    for a in range(NUM_ARTISTS):
        if s.ar_fame[a] < 1 or s.ar_fame[a] > FAME_MAX:
            return _broken(at, 6, a, s.ar_fame[a])
        tot = s.ar_tokens[a]
        for p in range(n):
            pl = &s.players[p]
            if pl.commission == a:
                tot += 1
            for i in range(pl.nworks):
                if pl.works[i] == a:
                    tot += 1
        if tot != 2:
            return _broken(at, 8, a, tot)
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


cdef void state_scoring_now(const StateC* s, int* out) noexcept nogil:
    """Each player's final scoring if the game were scored now (RN §9.2 on a copy): for
    player p, out[9 * p + i] is the money of scoring step i (majorities, reputation,
    exhibition, auction, Curator, Art Dealer, influence), then the total and the money
    after it. A hidden Curator or Art Dealer card (-1) scores 0."""
    cdef StateC c
    cdef int p, i
    memcpy(&c, s, sizeof(StateC))
    if not c.terminal:
        final_scoring(&c)
    for p in range(s.num_players):
        for i in range(8):
            out[9 * p + i] = c.players[p].score[i]
        out[9 * p + 8] = c.players[p].money
