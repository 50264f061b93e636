# engine/_rules_setup.pxi: part of engine/_core.pyx (included there; one compiled module so
# that the rules inline into each other).
#
# Setup (RN §1.7, C§1-§14): the board, artists, works, contracts, reputation tiles and
# players, every shuffle resolved from the seed in a fixed order.

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
