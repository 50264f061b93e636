# engine/_rules_consistency.pxi: part of engine/_core.pyx (included there).
#
# What the rules keep true between the fields of a state, beyond the component totals of
# docs/rules.md §4 (state_check_invariants): pieces on locations agree with their owners,
# every contract and reputation tile is in one place, the task stack has the shape the
# engine builds, each task's arguments point at what it acts on. Every state the engine
# makes keeps them; the state reader (engine/_reader.pyx) relies on them to accept a
# state from outside, and names the fields of each code's finding (engine/_consistency.pyx).

cdef enum:
    MAX_PLACES = 160           # places a contract or a reputation tile can be in


cdef int state_check_consistency(const StateC* s, int* at) noexcept nogil:
    """0 when the state keeps every rule between its fields, then every invariant of
    state_check_invariants; else the first broken rule's code (StateRule, or 1..9), with
    in at[0..CHECK_AT) the indices and counts its message names. Expects the ranges the
    state reader checks (indices in bounds) to hold."""
    cdef int code = _stack_shape(s, at)
    if not code:
        code = _pieces(s, at)
    if not code:
        code = _kicked_out_rules(s, at)
    if not code:
        code = _lacerda_rules(s, at)
    if not code:
        code = _components_unique(s, at)
    if not code:
        code = _artist_rules(s, at)
    if not code:
        code = _player_rules(s, at)
    if not code:
        code = _board_rules(s, at)
    if not code:
        code = _task_targets(s, at)
    return code if code else state_check_invariants(s, at)


cdef inline bint _has_task(const StateC* s, int kind) noexcept nogil:
    cdef int i
    for i in range(s.num_tasks):
        if s.tasks[i].kind == kind:
            return True
    return False


cdef inline int _fixed_below(int kind) noexcept nogil:
    """The kind that sits right below `kind` in every stack the engine builds, or 0."""
    if kind == T_AFTER_ACTION:
        return T_END_TURN
    if kind == T_TURN_START:
        return T_AFTER_ACTION
    if kind == T_KO_DONE or kind == T_DISCARD_LARGEST:
        return T_FINISH_TURN
    return T_KO_DONE if kind == T_KO else 0


cdef int _stack_shape(const StateC* s, int* at) noexcept nogil:
    """The task stack has the shape the engine builds, so play goes on from it: setup
    [BEGIN_GAME, START_LOC...], a turn [END_TURN, AFTER_ACTION, TURN_START, ...], the
    kicked-out step [FINISH_TURN, KO_DONE, KO or DISCARD_LARGEST, ...]; a decision or
    chance event on top; no tasks exactly when the game is over. Top-only decisions are
    pushed last and resolved before anything else runs, so their preconditions (checked
    by the action that pushed them) are never re-checked; deeper down they could act on
    a changed position."""
    cdef uint64_t one = 1
    cdef uint64_t bottom = one << T_BEGIN_GAME | one << T_END_TURN | one << T_FINISH_TURN
    cdef uint64_t turn_player = (one << T_END_TURN | one << T_AFTER_ACTION | one << T_TURN_START
                                 | one << T_LOC_ACTION | one << T_LEAVE)
    cdef uint64_t top_only = (
        one << T_DISCOVER | one << T_BUY | one << T_PROMOTE | one << T_SELL | one << T_HIRE
        | one << T_MARKET | one << T_ASSIST_SRC | one << T_KO | one << T_DEAL4
        | one << T_CONTRACT_SLOT | one << T_GALLERY_OUT | one << T_ORIENT | one << T_TICKET_MOVE
        | one << T_BOX_DISCARD | one << T_LEAVE | one << T_FAME_BONUS | one << T_TICKET_PAIR
        | one << T_VISITOR_PLAZA | one << T_DISCARD_LARGEST)
    cdef int nt = s.num_tasks, i, kind, below, height, p, starters = 0
    cdef bint setup
    if s.terminal:
        return _broken(at, SR_TASKS_OVER) if nt else 0
    if not nt:
        return _broken(at, SR_TASKS_EMPTY)
    if not bottom >> s.tasks[0].kind & 1:
        return _broken(at, SR_BOTTOM)
    if s.tasks[nt - 1].kind >= T_AUTO_FIRST:
        return _broken(at, SR_TOP_AUTO, nt - 1)
    setup = s.tasks[0].kind == T_BEGIN_GAME
    for i in range(nt):
        kind = s.tasks[i].kind
        if i > 0 and bottom >> kind & 1:
            return _broken(at, SR_BOTTOM_ONLY, i, kind)
        if i != nt - 1 and top_only >> kind & 1:
            return _broken(at, SR_TOP_ONLY, i, kind)
        below = _fixed_below(kind)
        height = 1 if below == T_END_TURN or below == T_FINISH_TURN else 2
        if below and not (i == height and s.tasks[i - 1].kind == below):
            return _broken(at, SR_HEIGHT, i, kind, height, below)
        if (kind == T_START_LOC) != (setup and i > 0):
            return _broken(at, SR_SETUP, i)
        if kind == T_START_LOC:
            p = s.tasks[i].player
            if starters >> p & 1:
                return _broken(at, SR_START_TWICE, i)
            if s.players[p].gallerist != GAL_HOME:
                return _broken(at, SR_START_HOME, i)
            starters |= 1 << p
        if turn_player >> kind & 1 and s.tasks[i].player != s.turn_player:
            return _broken(at, SR_TURN_PLAYER, i, kind, s.turn_player)
    return _broken(at, SR_SETUP_TURN) if setup and s.turn_count else 0


cdef int _pieces(const StateC* s, int* at) noexcept nogil:
    """Pieces on the locations and the kicked-out space agree with the players' gallerist
    fields (so each player has at most one gallerist on the board)."""
    cdef int p, g, L, q
    for p in range(s.num_players):
        g = s.players[p].gallerist
        if g < 4 and not (s.loc_owner[g] == p and s.loc_kind[g] == PIECE_GALLERIST):
            return _broken(at, SR_GALLERIST_LOC, p, g)
        if (g == GAL_KO) != (s.ko_owner == p and s.ko_kind == PIECE_GALLERIST):
            return _broken(at, SR_GALLERIST_KO, p)
    for L in range(4):
        q = s.loc_owner[L]
        if s.loc_kind[L] != PIECE_GALLERIST or q < 0:
            continue
        if q == LACERDA and s.lac_loc != L:
            return _broken(at, SR_LOC_LACERDA, L)
        if q != LACERDA and s.players[q].gallerist != L:
            return _broken(at, SR_LOC_OWNER, L, q)
    return 0


cdef int _kicked_out_rules(const StateC* s, int* at) noexcept nogil:
    """The kicked-out space (R-KO-1): filled only by the turn player's move this turn, so
    that gallerist stands where the piece came from and the turn has no move to come;
    `acting` exactly while its KO_DONE step is pending (at index 1)."""
    cdef int nt = s.num_tasks, owner = s.ko_owner, tp = s.turn_player, L = s.ko_loc
    cdef bint turn_gallerist
    if (s.ko_active != 0) != (nt > 1 and s.tasks[1].kind == T_KO_DONE):
        return _broken(at, SR_KO_ACTING)
    if owner < 0:
        return _broken(at, SR_KO_NOBODY) if _has_task(s, T_KO) else 0
    turn_gallerist = s.loc_owner[L] == tp and s.loc_kind[L] == PIECE_GALLERIST
    if owner == LACERDA:
        # solo: the player moved onto her piece this turn; it leaves at the turn's end
        if not (nt and s.tasks[0].kind == T_END_TURN):
            return _broken(at, SR_KO_LACERDA_TURN)
        if not turn_gallerist:
            return _broken(at, SR_KO_TURN_GALLERIST, tp)
        if not (s.ko_kind == PIECE_ASSISTANT or s.lac_loc == L):
            return _broken(at, SR_KO_LACERDA_FROM)
    elif s.num_players == 1:
        # solo: her move kicked out the player's piece, whose kicked-out step is under way
        if not (s.loc_owner[L] == LACERDA and s.loc_kind[L] == PIECE_GALLERIST
                and s.lac_loc == L and s.ko_active):
            return _broken(at, SR_KO_SOLO)
    elif owner == tp or not turn_gallerist:
        return _broken(at, SR_KO_TURN_GALLERIST, tp)
    return _broken(at, SR_KO_BEFORE_MOVE) if _has_task(s, T_TURN_START) else 0


cdef int _lacerda_rules(const StateC* s, int* at) noexcept nogil:
    """Solo: Lacerda's gallerist, pieces and move flag as her moves leave them (RN §10);
    her assistant total is invariant 9."""
    cdef int loc = s.lac_loc, nt = s.num_tasks, L, i
    cdef bint due
    if s.num_players != 1:
        return 0
    if loc < 0:
        for L in range(4):
            if s.loc_owner[L] == LACERDA:
                return _broken(at, SR_EARLY_LOCATION, L)
        for i in range(NUM_MARKET_SPACES):
            if s.mk_asst[i // 3][i % 3] == LACERDA:
                return _broken(at, SR_EARLY_MARKET, i)
        if s.ko_owner == LACERDA:
            return _broken(at, SR_EARLY_KICKED_OUT)
    elif s.loc_owner[loc] == LACERDA and s.loc_kind[loc] != PIECE_GALLERIST:
        # kicked out by the player: her next move leaves from here without an assistant
        return _broken(at, SR_LACERDA_ASSISTANT, loc)
    if nt == 0 or s.tasks[0].kind == T_BEGIN_GAME or s.end_triggered:
        due = False                   # setup, the final turn and the end: no more moves
    else:                             # the player's turn: she moves after it (else her turn)
        due = s.tasks[0].kind == T_END_TURN or (nt > 1 and s.tasks[1].kind == T_DISCARD_LARGEST)
    return _broken(at, SR_MOVE_DUE, due) if (s.lac_turn != 0) != due else 0


cdef inline int _places(int* items, int* places, int n, const int8_t* v, int count, int kind,
                        int i) noexcept nogil:
    """Adds each v[j] >= 0 (j < count) as an item found at place (kind, i, j)."""
    cdef int j
    for j in range(count):
        if v[j] >= 0:
            items[n] = v[j]
            places[n] = (kind * 64 + i) * 64 + j
            n += 1
    return n


cdef inline int _task_places(const StateC* s, int* items, int* places, int n,
                             int task_kind) noexcept nogil:
    """Adds argument a of each pending task of `task_kind` (a contract or tile it holds)."""
    cdef int i
    for i in range(s.num_tasks):
        if s.tasks[i].kind == task_kind:
            n = _places(items, places, n, &s.tasks[i].a, 1, PL_TASK, i)
    return n


cdef int _unique(const int* items, const int* places, int n, int code, int* at) noexcept nogil:
    """`code` with (place, item, its first place) when an item is in two places."""
    cdef int first[32]
    cdef int k
    for k in range(32):
        first[k] = -1
    for k in range(n):
        if first[items[k]] >= 0:
            return _broken(at, code, places[k], items[k], places[first[items[k]]])
        first[items[k]] = k
    return 0


cdef int _components_unique(const StateC* s, int* at) noexcept nogil:
    """Every contract card and reputation tile is in at most one place (deck, piles,
    boards, market, pending tasks)."""
    cdef int items[MAX_PLACES]
    cdef int places[MAX_PLACES]
    cdef int8_t deck[NUM_CONTRACTS]
    cdef int n, i, p, code
    for i in range(NUM_CONTRACTS):
        deck[i] = i if s.deck_mask >> i & 1 else -1
    n = _places(items, places, 0, deck, NUM_CONTRACTS, PL_DECK, 0)
    for i in range(4):
        n = _places(items, places, n, s.pile[i], s.pile_len[i], PL_PILE, i)
    for p in range(s.num_players):
        n = _places(items, places, n, s.players[p].contract, 3, PL_BOARD, p)
    n = _task_places(s, items, places, n, T_CONTRACT_SLOT)
    code = _unique(items, places, n, SR_CONTRACT_TWICE, at)
    if code:
        return code
    n = _places(items, places, 0, &s.mk_tile[0][0], 12, PL_MARKET, 0)
    n = _places(items, places, n, s.loc_tile, 4, PL_LOCATION, 0)
    for p in range(s.num_players):
        n = _places(items, places, n, &s.players[p].start_tile, 1, PL_START, p)
        n = _places(items, places, n, s.players[p].rep, 6, PL_REP, p)
    n = _task_places(s, items, places, n, T_REP_SPACE)
    return _unique(items, places, n, SR_TILE_TWICE, at)


cdef int _artist_rules(const StateC* s, int* at) noexcept nogil:
    """Each artist as the rules leave it; bonus tiles: ARTIST_BONUS_COUNT of each kind
    (C§3); promotion tokens: 4 per level between the supply and the promoted artists (C§8)."""
    cdef int held[6]
    cdef int bonus_count[5]
    cdef int a, level, bonus, code
    memset(held, 0, sizeof(held))
    memset(bonus_count, 0, sizeof(bonus_count))
    for a in range(NUM_ARTISTS):
        code = _artist(s, a, at)
        if code:
            return code
        bonus = s.ar_bonus[a]
        if bonus >= 0:
            bonus_count[bonus] += 1
            if bonus_count[bonus] > ARTIST_BONUS_COUNT[bonus]:
                return _broken(at, SR_BONUS_COUNT, a, ARTIST_BONUS_COUNT[bonus])
        if s.ar_promo[a] > ARTIST_PROMO0[a >> 1][a & 1][s.ar_variant[a]]:
            held[s.ar_promo[a]] += 1      # it holds a token of its level
    for level in range(1, 6):
        if s.promo_stock[level] + held[level] != PROMO_TOKENS:
            return _broken(at, SR_PROMO_TOKENS, level, s.promo_stock[level], held[level],
                           PROMO_TOKENS)
    return 0


cdef int _artist(const StateC* s, int a, int* at) noexcept nogil:
    """Fame and promotion never below the printed values (fame never drops); a face-down
    artist is as set up; bonus tiles and collectors only on face-down artists, and
    collectors only on red ones."""
    cdef int fame0 = ARTIST_FAME0[a >> 1][a & 1][s.ar_variant[a]]
    cdef int promo0 = ARTIST_PROMO0[a >> 1][a & 1][s.ar_variant[a]]
    cdef bint up = s.ar_discovered[a]
    if s.ar_fame[a] < fame0 or s.ar_fame[a] != fame0 and not up:
        return _broken(at, SR_FAME_BELOW if up else SR_FAME_FACE_DOWN, a, s.ar_fame[a], fame0)
    if s.ar_promo[a] < promo0 or s.ar_promo[a] != promo0 and not up:
        return _broken(at, SR_PROMO_BELOW if up else SR_PROMO_FACE_DOWN, a, s.ar_promo[a],
                       promo0)
    if up and s.ar_bonus[a] >= 0:
        return _broken(at, SR_BONUS_DISCOVERED, a)
    if up and s.ar_collector[a]:
        return _broken(at, SR_COLLECTOR_DISCOVERED, a)
    if not up and s.ar_tokens[a] != 2:
        return _broken(at, SR_TOKENS_FACE_DOWN, a)
    return _broken(at, SR_COLLECTOR_BLUE, a) if s.ar_collector[a] and not a & 1 else 0


cdef int _player_rules(const StateC* s, int* at) noexcept nogil:
    """Works, commissions, cards and scores of each player (the collector limit is
    invariant 7)."""
    cdef int commission_of[8]
    cdef int curator_of[4]
    cdef int dealer_of[4]
    cdef int by_form[4]
    cdef int p, i, f, a, c, code
    cdef const PlayerC* pl
    for i in range(8):
        commission_of[i] = -1
    for i in range(4):
        curator_of[i] = dealer_of[i] = -1
    for p in range(s.num_players):
        pl = &s.players[p]
        memset(by_form, 0, sizeof(by_form))
        for i in range(pl.nworks):
            a = pl.works[i]
            by_form[a >> 1] += 1
            if not s.ar_discovered[a]:
                return _broken(at, SR_WORK_FACE_DOWN, p, i, a)
        for f in range(4):
            if pl.acquired[f] != pl.sold[f] + by_form[f]:
                return _broken(at, SR_ACQUIRED, p, f, pl.acquired[f], pl.sold[f], by_form[f])
        c = pl.commission
        if c >= 0 and not s.ar_discovered[c]:
            return _broken(at, SR_COMMISSION_FACE_DOWN, p, c)
        if c >= 0 and commission_of[c] >= 0:
            return _broken(at, SR_COMMISSION_TWICE, p, c, commission_of[c])
        if c >= 0:
            commission_of[c] = p
        code = _card(curator_of, pl.curator, p, SR_CURATOR_TWICE, at)
        if not code:
            code = _card(dealer_of, pl.dealer, p, SR_DEALER_TWICE, at)
        if not code:
            code = _score_rules(s, pl, p, at)
        if code:
            return code
    return 0


cdef inline int _card(int* owner_of, int card, int p, int code, int* at) noexcept nogil:
    """`code` when a Curator or Art Dealer card is also an earlier seat's."""
    if card < 0:
        return 0
    if owner_of[card] >= 0:
        return _broken(at, code, p, owner_of[card])
    owner_of[card] = p
    return 0


cdef int _score_rules(const StateC* s, const PlayerC* pl, int p, int* at) noexcept nogil:
    """A final score only once the game is over, its total the sum of its steps, its
    auction work one of the renowned works."""
    cdef int i, total = 0, nonzero = pl.score[7]      # scores are never negative
    cdef int w = pl.auction_work
    for i in range(7):
        total += pl.score[i]
        nonzero |= pl.score[i]
    if not s.terminal:
        return _broken(at, SR_SCORE_EARLY, p) if nonzero or w >= 0 else 0
    if pl.score[7] != total:
        return _broken(at, SR_SCORE_TOTAL, p, pl.score[7], total)
    if w >= 0 and not (s.easel[0] == w or s.easel[1] == w or s.easel[2] == w):
        return _broken(at, SR_AUCTION_WORK, p)
    return 0


cdef int _board_rules(const StateC* s, int* at) noexcept nogil:
    """Work stacks (TILES_PER_FORM_IN_PLAY tiles per form), easels, game flags."""
    cdef int f, p, top, below, bought, total, on_top
    for f in range(4):
        top = s.stack_top[f]
        below = popcount32(s.stack_mask[f])
        bought = 0
        for p in range(s.num_players):
            bought += s.players[p].acquired[f]
        if top >= 0 and s.stack_mask[f] >> top & 1:
            return _broken(at, SR_TOP_ALSO_BELOW, f, top)
        total = below + (top >= 0) + bought
        if total != TILES_PER_FORM_IN_PLAY:
            return _broken(at, SR_STACK_TOTAL, f, below, top >= 0, bought, total)
        on_top = s.top_visitors[f][0] + s.top_visitors[f][1] + s.top_visitors[f][2]
        if on_top > (WORK_VISITORS[top] if top >= 0 else 0):
            return _broken(at, SR_TOP_VISITORS, f, on_top)
    if ((s.easel[0] >= 0 and (s.easel[0] == s.easel[1] or s.easel[0] == s.easel[2]))
            or (s.easel[1] >= 0 and s.easel[1] == s.easel[2])):
        return _broken(at, SR_EASELS)
    if s.intermediate_pending and s.intermediate_done:
        return _broken(at, SR_INTERMEDIATE)
    if not s.end_triggered and s.turns_left:
        return _broken(at, SR_TURNS_LEFT)
    # R-END-1: once triggered, the turns still to play, the current one included; the turn
    # that takes it to 0 scores the game, so a live game always has one left
    if s.end_triggered and not s.terminal and not s.turns_left:
        return _broken(at, SR_TURNS_DONE)
    return 0


cdef int _task_targets(const StateC* s, int* at) noexcept nogil:
    """What each task's arguments point at exists and is in the state the engine leaves
    it in when it pushes that task."""
    cdef int i, code, finishing = 0, revealing = 0
    for i in range(s.num_tasks):
        code = _task_target(s, i, &finishing, &revealing, at)
        if code:
            return code
    return 0


cdef int _task_target(const StateC* s, int i, int* finishing, int* revealing,
                      int* at) noexcept nogil:
    cdef int kind = s.tasks[i].kind, p = s.tasks[i].player, a = s.tasks[i].a, b = s.tasks[i].b
    cdef const PlayerC* pl = &s.players[p if p >= 0 else 0]
    if kind == T_LOC_ACTION and pl.gallerist != a:
        return _broken(at, SR_LOC_ACTION_ELSEWHERE, i)
    elif kind == T_LEAVE:
        if s.loc_owner[a] >= 0:
            return _broken(at, SR_LEAVE_EMPTY, i)
        # its legality reads the destination from the LOC_ACTION right below it
        if not (i > 0 and s.tasks[i - 1].kind == T_LOC_ACTION and s.tasks[i - 1].player == p):
            return _broken(at, SR_LEAVE_ABOVE, i)
    elif kind == T_KO and s.ko_owner != p:
        return _broken(at, SR_KO_OWNER, i)
    elif kind == T_GALLERY_OUT or kind == T_ORIENT or kind == T_CONTRACT_BONUS:
        if pl.contract[a] < 0:
            return _broken(at, SR_SLOT_EMPTY, i, a)
    elif ((kind == T_MARKET_FINISH or kind == T_ASSIST_SRC and a < NUM_MARKET_SPACES)
          and s.num_players <= 2 and a % 3 == 1):
        return _broken(at, SR_COLUMN_II, i)      # R-MKT-1
    elif kind == T_ASSIST_SRC and a < NUM_MARKET_SPACES:
        if s.mk_asst[a // 3][a % 3] >= 0:
            return _broken(at, SR_MARKET_TAKEN, i, a)
    elif kind == T_ASSIST_SRC and (pl.contract[a - NUM_MARKET_SPACES] < 0
                                   or pl.contract_asst[a - NUM_MARKET_SPACES]):
        return _broken(at, SR_SLOT_FOR_ASSISTANT, i, a - NUM_MARKET_SPACES)
    elif (kind == T_FAME_STEPS or kind == T_PROMOTE_FINISH) and not s.ar_discovered[a]:
        return _broken(at, SR_ARTIST_FACE_DOWN, i, a)
    elif kind == T_DISCOVER_FINISH:
        finishing[0] += 1
        if finishing[0] > 1:
            return _broken(at, SR_DISCOVERY_TWICE, i)
        if s.ar_discovered[a]:
            return _broken(at, SR_ALREADY_DISCOVERED, i, a)
        if pl.commission >= 0:
            return _broken(at, SR_HAS_COMMISSION, i)
    elif kind == T_DISCOVER and (pl.commission >= 0 or _has_task(s, T_DISCOVER_FINISH)):
        return _broken(at, SR_DISCOVER_SPACE, i)
    elif kind == T_CH_TILE:
        if s.stack_top[a] >= 0:
            return _broken(at, SR_TILE_SHOWN, i, a)
        if revealing[0] >> a & 1:
            return _broken(at, SR_TILE_REVEALING, i, a)
        revealing[0] |= 1 << a
    elif kind == T_CH_VISITOR and a == CD_TILE and s.stack_top[b] < 0:
        return _broken(at, SR_NO_TOP_TILE, i, b)
    return 0
