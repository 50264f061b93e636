# engine/_rules_scoring.pxi: part of engine/_core.pyx (included there; one compiled module so
# that the rules inline into each other).
#
# Final scoring (RN §9.2: majorities, reputation, exhibition, auction, Curator, Art
# Dealer, influence) and the end of a turn (R-INT-1, R-END-1).

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
        # Safety net where the rules are silent (docs/rules.md §5.1): a game in which nobody can act any more
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
