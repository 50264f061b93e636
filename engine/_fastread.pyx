# cython: language_level=3
"""The compiled fast path of reading a `gallerist.v1.GameState` (engine.serialize).

`Reader.read(msg)` runs every check of engine/serialize.py's reading (decoding, the
consistency rules, the engine's own word) in typed code, writing straight into the
engine struct, and returns the state, or None at the first check that fails. It builds
no messages: on None, `state_from_proto` runs the reference reader in serialize.py,
which raises `InvalidStateError` naming the field. So a valid state (the common case,
and the whole of a hint service's traffic) costs one pass here, and an invalid one
gets exactly the reference's message.

The two readers must accept the same messages; tests/engine/test_fastread.py checks
that over the serialization fuzz corpus (accept/reject agree, accepted states are
byte-identical). A check added to serialize.py is added here in the same place.

Numbers come from data.h and _core.pxd (the engine's own); the task argument table is
serialize.py's, handed to `Reader` when it is built.
"""
from libc.stdint cimport int8_t, uint32_t
from libc.string cimport memset

from engine._core cimport (
    StateC, TaskC, PlayerC, action_t, MAX_LEGAL, MAX_TASKS, MAX_PILE, NUM_CONTRACTS,
    NUM_REP_TILES, LACERDA, LACERDA_ASSISTANTS, GAL_HOME, GAL_KO, PIECE_GALLERIST,
    PIECE_ASSISTANT, COLLECTOR, PLAYER_CHANCE, MAX_TURNS_PER_PLAYER,
    state_check_invariants, state_legal_actions, state_chance_outcomes, state_current_player,
)
from engine._core cimport (
    T_START_LOC, T_TURN_START, T_LEAVE, T_LOC_ACTION, T_AFTER_ACTION, T_KO, T_DISCOVER,
    T_BUY, T_PROMOTE, T_FAME_STEPS, T_FAME_BONUS, T_TICKET_PAIR, T_TICKET_OR,
    T_BOX_DISCARD, T_VISITOR_PLAZA, T_GALLERY_OUT, T_ORIENT, T_REP_SPACE, T_DEAL4,
    T_CONTRACT_SLOT, T_SELL, T_HIRE, T_MARKET, T_ASSIST_SRC, T_TICKET_MOVE,
    T_DISCARD_LARGEST, T_CH_VISITOR, T_CH_TILE, T_AUTO_FIRST, T_END_TURN, T_KO_DONE,
    T_MARKET_FINISH, T_CONTRACT_BONUS, T_PROMOTE_FINISH, T_BEGIN_GAME, T_FINISH_TURN,
    T_DISCOVER_FINISH, CD_TILE,
)
from engine.state cimport GameState

cdef extern from "data.h" nogil:
    const int8_t VISITORS_TOTAL[5][3]
    const int8_t TICKETS_PER_COLOUR[5]
    const int8_t EASELS[5]
    const int8_t ARTIST_FAME0[4][2][2]
    const int8_t ARTIST_PROMO0[4][2][2]
    const int8_t ARTIST_BONUS_COUNT[5]
    const int8_t WORK_VISITORS[8]
    const int8_t FAME_MAX, INFLUENCE_MAX, PROMO_TOKENS

cdef enum:
    NUM_KINDS = 64            # task kinds are below this
    MAX_MONEY = 9999          # serialize.MAX_MONEY / MAX_SCORE
    ASSISTANTS_PER_PLAYER = 10
    TILES_PER_FORM_IN_PLAY = 7

cdef enum:                    # what the readers return
    REJECT = 0                # a check failed (the reference reader says which)
    OK = 1


cdef inline bint _in(long v, long lo, long hi) noexcept nogil:
    return lo <= v <= hi


cdef inline bint _is_bottom(int kind) noexcept nogil:
    return kind == T_BEGIN_GAME or kind == T_END_TURN or kind == T_FINISH_TURN


cdef inline bint _is_top_only(int kind) noexcept nogil:
    return (kind == T_DISCOVER or kind == T_BUY or kind == T_PROMOTE or kind == T_SELL
            or kind == T_HIRE or kind == T_MARKET or kind == T_ASSIST_SRC or kind == T_KO
            or kind == T_DEAL4 or kind == T_CONTRACT_SLOT or kind == T_GALLERY_OUT
            or kind == T_ORIENT or kind == T_TICKET_MOVE or kind == T_BOX_DISCARD
            or kind == T_LEAVE or kind == T_FAME_BONUS or kind == T_TICKET_PAIR
            or kind == T_VISITOR_PLAZA or kind == T_DISCARD_LARGEST)


cdef inline bint _is_turn_player_kind(int kind) noexcept nogil:
    return (kind == T_END_TURN or kind == T_AFTER_ACTION or kind == T_TURN_START
            or kind == T_LOC_ACTION or kind == T_LEAVE)


cdef inline int _popcount(unsigned int x) noexcept nogil:
    cdef int c = 0
    while x:
        x &= x - 1
        c += 1
    return c


cdef class Reader:
    """The fast reader, built once with serialize.py's task table.

    Args:
        schema_version: the version a message must carry.
        max_history: the longest history accepted.
        num_actions: actions are 0..num_actions-1.
        task_table: {kind: (has_player, ((lo, hi) or None) * 3)} for every accepted
            task kind; a None argument must be 0.
    """
    cdef int schema_version
    cdef long max_history
    cdef int num_actions
    cdef bint accepted[NUM_KINDS]
    cdef bint has_player[NUM_KINDS]
    cdef bint arg_used[NUM_KINDS][3]
    cdef int arg_lo[NUM_KINDS][3]
    cdef int arg_hi[NUM_KINDS][3]

    def __init__(self, int schema_version, long max_history, int num_actions,
                 dict task_table):
        cdef int kind, j
        self.schema_version = schema_version
        self.max_history = max_history
        self.num_actions = num_actions
        memset(self.accepted, 0, sizeof(self.accepted))
        memset(self.has_player, 0, sizeof(self.has_player))
        memset(self.arg_used, 0, sizeof(self.arg_used))
        memset(self.arg_lo, 0, sizeof(self.arg_lo))
        memset(self.arg_hi, 0, sizeof(self.arg_hi))
        for kind_obj, (player, ranges) in task_table.items():
            kind = kind_obj
            if not 0 < kind < NUM_KINDS:
                raise ValueError(f"task kind {kind} is outside 1..{NUM_KINDS - 1}")
            self.accepted[kind] = True
            self.has_player[kind] = bool(player)
            for j in range(3):
                if ranges[j] is not None:
                    self.arg_used[kind][j] = True
                    self.arg_lo[kind][j] = ranges[j][0]
                    self.arg_hi[kind][j] = ranges[j][1]

    def read(self, msg):
        """The validated state of a `gallerist.v1.GameState`, or None if any check fails
        (the caller then asks the reference reader why)."""
        cdef GameState g = GameState.__new__(GameState)
        cdef list history = []
        try:
            if self._decode(msg, &g.s, history) != OK:
                return None
        except Exception:   # anything odd in the message: the reference reader decides
            return None
        if _consistent(&g.s) != OK or _engine_accepts(&g.s) != OK:
            return None
        if history:
            g._history = history
        return g

    # ------------------------------------------------------------ decoding

    cdef int _decode(self, msg, StateC* s, list history) except -1:
        cdef long n, v, i, L, nt
        cdef object turn, end, inter, ko, lac
        memset(s, 0, sizeof(StateC))
        if msg.schema_version != self.schema_version:
            return REJECT
        n = msg.num_players
        if not _in(n, 1, 4):
            return REJECT
        if not (msg.HasField("turn") and msg.HasField("game_end")
                and msg.HasField("intermediate_scoring") and msg.HasField("kicked_out")
                and msg.HasField("lacerda") and msg.HasField("bag") and msg.HasField("plaza")
                and msg.HasField("box_office") and msg.HasField("ticket_discards")
                and msg.HasField("promotion_tokens")):
            return REJECT
        turn, end, inter = msg.turn, msg.game_end, msg.intermediate_scoring
        ko, lac = msg.kicked_out, msg.lacerda
        tasks, players = msg.tasks, msg.players
        nt = len(tasks)
        if nt > MAX_TASKS or len(players) != n:
            return REJECT
        s.num_players = n
        v = turn.player
        if not _in(v, 0, n - 1):
            return REJECT
        s.turn_player = v
        s.ea_used = bool(turn.executive_action_used)
        s.end_triggered = bool(end.triggered)
        v = end.turns_left
        if not _in(v, 0, 2 * n - 1):
            return REJECT
        s.turns_left = v
        s.intermediate_pending = bool(inter.pending)
        s.intermediate_done = bool(inter.done)
        s.terminal = bool(end.over)
        s.ko_active = bool(ko.acting)
        v = turn.consecutive_passes
        if not _in(v, 0, 4 * n):
            return REJECT
        s.passes = v
        v = turn.number
        if not _in(v, 0, (MAX_TURNS_PER_PLAYER + 2) * n):
            return REJECT
        s.turn_count = v
        s.num_tasks = nt
        i = 0
        for t in tasks:
            if self._task(t, n, &s.tasks[i]) != OK:
                return REJECT
            i += 1
        i = 0
        for p in players:
            if _player(p, i, n, &s.players[i]) != OK:
                return REJECT
            i += 1
        if not (_visitors(msg.bag, s.bag, VISITORS_TOTAL[n])
                and _visitors(msg.plaza, s.plaza, VISITORS_TOTAL[n])
                and _tickets(msg.box_office, s.box, TICKETS_PER_COLOUR[n])
                and _tickets(msg.ticket_discards, s.discards, TICKETS_PER_COLOUR[n])):
            return REJECT
        if not (_locations(msg.locations, s, n) and _kicked_out(ko, s, n)
                and _market(msg.market, s, n) and _artists(msg, s) and _stacks(msg.work_stacks, s, n)
                and _contracts(msg, s) and _easels(msg.renowned_works, s, n)
                and _lacerda(lac, s, n)):
            return REJECT
        hist = msg.history
        if len(hist) > self.max_history:
            return REJECT
        for a in hist:
            v = a
            if not _in(v, 0, self.num_actions - 1):
                return REJECT
            history.append(a)
        return OK

    cdef int _task(self, t, long n, TaskC* out) except -1:
        cdef long kind = t.kind, a = t.a, b = t.b, c = t.c, player = -1
        cdef long args[3]
        cdef int j
        if not (0 < kind < NUM_KINDS and self.accepted[kind]):
            return REJECT
        if kind == T_DISCARD_LARGEST and n != 1:
            return REJECT
        if self.has_player[kind]:
            if not t.HasField("player"):
                return REJECT
            player = t.player
            if not _in(player, 0, n - 1):
                return REJECT
        elif t.HasField("player"):
            return REJECT
        args[0], args[1], args[2] = a, b, c
        for j in range(3):
            if self.arg_used[kind][j]:
                if not _in(args[j], self.arg_lo[kind][j], self.arg_hi[kind][j]):
                    return REJECT
            elif args[j] != 0:
                return REJECT
        if kind == T_VISITOR_PLAZA:
            if a != 3 and a != 7:
                return REJECT
        elif kind == T_TICKET_OR:
            if a == b:
                return REJECT
        elif kind == T_CH_VISITOR and a != CD_TILE:
            if not _in(b, 0, n - 1):
                return REJECT
        out.kind, out.player, out.a, out.b, out.c = kind, player, a, b, c
        return OK


# ---------------------------------------------------------------- decoding helpers


cdef int _visitors(m, int8_t* out, const int8_t* hi) except -1:
    cdef long v0 = m.vip, v1 = m.investor, v2 = m.collector
    if not (_in(v0, 0, hi[0]) and _in(v1, 0, hi[1]) and _in(v2, 0, hi[2])):
        return REJECT
    out[0], out[1], out[2] = v0, v1, v2
    return OK


cdef int _tickets(m, int8_t* out, long hi) except -1:
    cdef long v0 = m.vip, v1 = m.investor, v2 = m.collector
    if not (_in(v0, 0, hi) and _in(v1, 0, hi) and _in(v2, 0, hi)):
        return REJECT
    out[0], out[1], out[2] = v0, v1, v2
    return OK


cdef int _forms(m, int8_t* out) except -1:
    cdef long v0 = m.painting, v1 = m.sculpture, v2 = m.photography, v3 = m.digital
    cdef long hi = TILES_PER_FORM_IN_PLAY
    if not (_in(v0, 0, hi) and _in(v1, 0, hi) and _in(v2, 0, hi) and _in(v3, 0, hi)):
        return REJECT
    out[0], out[1], out[2], out[3] = v0, v1, v2, v3
    return OK


cdef long _optional(m, str field, long lo, long hi) except -2:
    """An optional field: -1 when absent, its value when in lo..hi, else -3 (reject)."""
    if not m.HasField(field):
        return -1
    cdef long v = getattr(m, field)
    return v if _in(v, lo, hi) else -3


cdef long _owner(m, str field, long n) except -2:
    """serialize._decode_owner: a seat, LACERDA, -1, or -3 (reject)."""
    cdef long owner = _optional(m, field, 0, n - 1)
    if owner == -3 or not m.lacerda:
        return owner
    if n != 1 or owner >= 0:
        return -3
    return LACERDA


cdef int _player(p, long seat, long n, PlayerC* pl) except -1:
    cdef long v, i, k, card, side, desks, queue, removed
    cdef object slot, sc
    if p.seat != seat:
        return REJECT
    if not (p.HasField("assistants") and p.HasField("works_acquired")
            and p.HasField("works_sold") and p.HasField("final_score")
            and p.HasField("lobby") and p.HasField("gallery") and p.HasField("tickets")):
        return REJECT
    works = p.exhibited_works
    if len(works) > 4:
        return REJECT
    for i in range(4):
        pl.works[i] = -1
    i = 0
    for a in works:
        v = a
        if not _in(v, 0, 7):
            return REJECT
        pl.works[i] = v
        i += 1
    pl.nworks = i
    reputation = p.reputation
    if len(reputation) != 6:
        return REJECT
    i = 0
    for space in reputation:
        if space.bonus != i + 1:
            return REJECT
        v = _optional(space, "tile", 0, NUM_REP_TILES - 1)
        if v == -3:
            return REJECT
        pl.rep[i] = v
        i += 1
    contracts = p.contracts
    if len(contracts) != 3:
        return REJECT
    k = 0
    for slot in contracts:
        card = _optional(slot, "contract", 0, NUM_CONTRACTS - 1)
        side = slot.side
        if card == -3:
            return REJECT
        if card < 0:
            if side != 0 or slot.assistant:
                return REJECT
            pl.contract_state[k] = 0
        else:
            if not _in(side, 1, 3):
                return REJECT
            pl.contract_state[k] = side - 1
        pl.contract[k] = card
        pl.contract_asst[k] = bool(slot.assistant)
        k += 1
    if not (_forms(p.works_acquired, pl.acquired) and _forms(p.works_sold, pl.sold)):
        return REJECT
    sc = p.final_score
    if _final_score(sc, pl) != OK:
        return REJECT
    v = p.money
    if not _in(v, 0, MAX_MONEY):
        return REJECT
    pl.money = v
    v = p.influence
    if not _in(v, 0, INFLUENCE_MAX):
        return REJECT
    pl.influence = v
    if not (_visitors(p.lobby, pl.lobby, VISITORS_TOTAL[n])
            and _visitors(p.gallery, pl.gallery, VISITORS_TOTAL[n])
            and _tickets(p.tickets, pl.tickets, TICKETS_PER_COLOUR[n])):
        return REJECT
    assistants = p.assistants
    desks, queue, removed = assistants.desks, assistants.queue, assistants.removed
    if not (_in(desks, 0, 4) and _in(queue, 0, 8) and _in(removed, 0, ASSISTANTS_PER_PLAYER)):
        return REJECT
    pl.desks, pl.queue, pl.removed = desks, queue, removed
    v = p.gallerist
    if not _in(v, 1, 6):
        return REJECT
    pl.gallerist = v - 1
    v = _optional(p, "commission_artist", 0, 7)
    if v == -3:
        return REJECT
    pl.commission = v
    v = _optional(p, "start_tile", 0, NUM_REP_TILES - 1)
    if v == -3:
        return REJECT
    pl.start_tile = v
    v = p.curator
    if not _in(v, 1, 5):
        return REJECT
    pl.curator = -1 if v == 1 else v - 2
    v = p.dealer
    if not _in(v, 1, 5):
        return REJECT
    pl.dealer = -1 if v == 1 else v - 2
    return OK


cdef int _final_score(sc, PlayerC* pl) except -1:
    cdef long steps[8]
    cdef long work, use
    cdef int i
    steps[0], steps[1], steps[2], steps[3] = sc.majorities, sc.reputation, sc.exhibition, sc.auction
    steps[4], steps[5], steps[6], steps[7] = sc.curator, sc.dealer, sc.influence, sc.total
    for i in range(8):
        if not _in(steps[i], 0, MAX_MONEY):
            return REJECT
        pl.score[i] = steps[i]
    work, use = sc.auction_work, sc.auction_use
    if not _in(work, 0, 4):
        return REJECT
    if work == 0:
        if use != 0:
            return REJECT
        pl.auction_work, pl.auction_as = -1, 0
    else:
        if not _in(use, 1, 2):
            return REJECT
        pl.auction_work, pl.auction_as = work - 1, use - 1
    return OK


cdef int _locations(locations, StateC* s, long n) except -1:
    cdef long L = 0, owner, piece, tile
    if len(locations) != 4:
        return REJECT
    for loc in locations:
        if loc.location != L + 1:
            return REJECT
        owner = _owner(loc, "owner", n)
        piece = loc.piece
        tile = _optional(loc, "start_tile", 0, NUM_REP_TILES - 1)
        if owner == -3 or tile == -3 or not _in(piece, 1, 2):
            return REJECT
        s.loc_owner[L], s.loc_kind[L], s.loc_tile[L] = owner, piece - 1, tile
        L += 1
    return OK


cdef int _kicked_out(ko, StateC* s, long n) except -1:
    cdef long owner = _owner(ko, "owner", n), piece = ko.piece, location = ko.location
    if owner == -3 or not _in(piece, 1, 2):
        return REJECT
    if owner < 0:
        if location != 0:
            return REJECT
    elif not _in(location, 1, 4):
        return REJECT
    s.ko_owner, s.ko_kind, s.ko_loc = owner, piece - 1, location - 1
    return OK


cdef int _market(market, StateC* s, long n) except -1:
    cdef long i = 0, r, c, tile, owner
    if len(market) != 21:
        return REJECT
    for r in range(4):
        for c in range(3):
            s.mk_tile[r][c] = -1
    for space in market:
        r, c = i // 3, i % 3
        if space.row != r + 1 or space.column != c + 1:
            return REJECT
        tile = _optional(space, "reputation_tile", 0, NUM_REP_TILES - 1)
        owner = _owner(space, "assistant_owner", n)
        if tile == -3 or owner == -3:
            return REJECT
        if r >= 4 and tile >= 0:
            return REJECT
        if r < 4:
            s.mk_tile[r][c] = tile
        s.mk_asst[r][c] = owner
        if owner == LACERDA and tile >= 0:
            return REJECT
        if n <= 2 and c == 1 and (tile >= 0 or owner >= 0):
            return REJECT
        i += 1
    return OK


cdef int _artists(msg, StateC* s) except -1:
    cdef long a = 0, v
    cdef long levels[5]
    cdef object tokens
    artists = msg.artists
    if len(artists) != 8:
        return REJECT
    for art in artists:
        if art.slot != a or art.form != (a >> 1) + 1 or art.colour != (a & 1) + 1:
            return REJECT
        v = art.variant
        if not _in(v, 0, 1):
            return REJECT
        s.ar_variant[a] = v
        s.ar_discovered[a] = bool(art.discovered)
        v = art.fame
        if not _in(v, 1, FAME_MAX):
            return REJECT
        s.ar_fame[a] = v
        v = art.promotion
        if not _in(v, 0, 5):
            return REJECT
        s.ar_promo[a] = v
        v = art.signature_tokens
        if not _in(v, 0, 2):
            return REJECT
        s.ar_tokens[a] = v
        v = art.bonus
        if not _in(v, 0, 5):
            return REJECT
        s.ar_bonus[a] = v - 1
        s.ar_collector[a] = bool(art.collector)
        a += 1
    tokens = msg.promotion_tokens
    levels[0], levels[1], levels[2] = tokens.level_1, tokens.level_2, tokens.level_3
    levels[3], levels[4] = tokens.level_4, tokens.level_5
    s.promo_stock[0] = 0
    for a in range(5):
        if not _in(levels[a], 0, PROMO_TOKENS):
            return REJECT
        s.promo_stock[a + 1] = levels[a]
    return OK


cdef int _stacks(stacks, StateC* s, long n) except -1:
    cdef long f = 0, k, prev, top
    cdef unsigned int mask
    if len(stacks) != 4:
        return REJECT
    for stack in stacks:
        if stack.form != f + 1 or not stack.HasField("top_visitors"):
            return REJECT
        mask, prev = 0, -1
        for kk in stack.tiles_below:
            k = kk
            if not _in(k, 0, 7) or k <= prev:
                return REJECT
            mask |= 1u << k
            prev = k
        top = _optional(stack, "top_tile", 0, 7)
        if top == -3 or not _visitors(stack.top_visitors, s.top_visitors[f], VISITORS_TOTAL[n]):
            return REJECT
        s.stack_mask[f], s.stack_top[f] = mask, top
        f += 1
    return OK


cdef int _contracts(msg, StateC* s) except -1:
    cdef long c, prev = -1, i = 0, j
    cdef uint32_t deck = 0
    for cc in msg.contract_deck:
        c = cc
        if not _in(c, 0, NUM_CONTRACTS - 1) or c <= prev:
            return REJECT
        deck |= (<uint32_t>1) << c
        prev = c
    s.deck_mask = deck
    piles = msg.contract_piles
    if len(piles) != 4:
        return REJECT
    for pile in piles:
        cards = pile.cards
        if len(cards) > MAX_PILE:
            return REJECT
        for j in range(MAX_PILE):
            s.pile[i][j] = -1
        j = 0
        for cc in cards:
            c = cc
            if not _in(c, 0, NUM_CONTRACTS - 1):
                return REJECT
            s.pile[i][j] = c
            j += 1
        s.pile_len[i] = j
        i += 1
    return OK


cdef int _easels(works, StateC* s, long n) except -1:
    cdef long i = 0, f
    if len(works) != EASELS[n]:
        return REJECT
    s.easel[0] = s.easel[1] = s.easel[2] = -1
    for ff in works:
        f = ff
        if not _in(f, 1, 4):
            return REJECT
        s.easel[i] = f - 1
        i += 1
    return OK


cdef int _lacerda(lac, StateC* s, long n) except -1:
    cdef long location = lac.location, supply = lac.supply
    cdef bint due = lac.move_due
    if n > 1:
        if location != 0 or supply != 0 or due:
            return REJECT
        s.lac_loc, s.lac_supply, s.lac_turn = -1, 0, 0
        return OK
    if not (_in(location, 0, 4) and _in(supply, 0, LACERDA_ASSISTANTS)):
        return REJECT
    s.lac_loc, s.lac_supply, s.lac_turn = location - 1, supply, due
    return OK


# ---------------------------------------------------------------- consistency
# serialize._CONSISTENCY_CHECKS, in its order, on the decoded struct. Its _check_totals
# (RULES.md §4 component totals) is not repeated: the engine's invariant check in
# _engine_accepts tests the same totals, and serialize.py repeats them only to name
# the field.


cdef int _consistent(const StateC* s) noexcept nogil:
    if not (_stack_shape(s) and _pieces(s) and _kicked_out_rules(s) and _lacerda_rules(s)
            and _components_unique(s) and _artist_rules(s) and _player_rules(s)
            and _board_rules(s) and _task_targets(s)):
        return REJECT
    return OK


cdef bint _stack_shape(const StateC* s) noexcept nogil:
    cdef int nt = s.num_tasks, i, kind, starters = 0
    cdef bint setup
    if s.terminal:
        return nt == 0
    if nt == 0 or not _is_bottom(s.tasks[0].kind) or s.tasks[nt - 1].kind >= T_AUTO_FIRST:
        return False
    setup = s.tasks[0].kind == T_BEGIN_GAME
    for i in range(nt):
        kind = s.tasks[i].kind
        if i > 0 and _is_bottom(kind):
            return False
        if i != nt - 1 and _is_top_only(kind):
            return False
        if kind == T_AFTER_ACTION and not (i == 1 and s.tasks[0].kind == T_END_TURN):
            return False
        if kind == T_TURN_START and not (i == 2 and s.tasks[1].kind == T_AFTER_ACTION):
            return False
        if kind == T_KO_DONE and not (i == 1 and s.tasks[0].kind == T_FINISH_TURN):
            return False
        if kind == T_KO and not (i == 2 and s.tasks[1].kind == T_KO_DONE):
            return False
        if kind == T_DISCARD_LARGEST and not (i == 1 and s.tasks[0].kind == T_FINISH_TURN):
            return False
        if (kind == T_START_LOC) != (setup and i > 0):
            return False
        if kind == T_START_LOC:
            if starters >> s.tasks[i].player & 1:
                return False
            if s.players[s.tasks[i].player].gallerist != GAL_HOME:
                return False
            starters |= 1 << s.tasks[i].player
        if _is_turn_player_kind(kind) and s.tasks[i].player != s.turn_player:
            return False
    return not setup or s.turn_count == 0


cdef bint _pieces(const StateC* s) noexcept nogil:
    cdef int p, g, L, q
    cdef bint on_ko
    for p in range(s.num_players):
        g = s.players[p].gallerist
        if g < 4 and not (s.loc_owner[g] == p and s.loc_kind[g] == PIECE_GALLERIST):
            return False
        on_ko = s.ko_owner == p and s.ko_kind == PIECE_GALLERIST
        if (g == GAL_KO) != on_ko:
            return False
    for L in range(4):
        q = s.loc_owner[L]
        if q == LACERDA and s.loc_kind[L] == PIECE_GALLERIST:
            if s.lac_loc != L:
                return False
        elif q >= 0 and s.loc_kind[L] == PIECE_GALLERIST:
            if s.players[q].gallerist != L:
                return False
    return True


cdef bint _has_task(const StateC* s, int kind) noexcept nogil:
    cdef int i
    for i in range(s.num_tasks):
        if s.tasks[i].kind == kind:
            return True
    return False


cdef bint _kicked_out_rules(const StateC* s) noexcept nogil:
    cdef int nt = s.num_tasks, owner = s.ko_owner, tp = s.turn_player, L
    cdef bint ko_done = nt > 1 and s.tasks[1].kind == T_KO_DONE
    if (s.ko_active != 0) != ko_done:
        return False
    if owner < 0:
        return not _has_task(s, T_KO)
    L = s.ko_loc
    if owner == LACERDA:
        if not (nt > 0 and s.tasks[0].kind == T_END_TURN):
            return False
        if not (s.loc_owner[L] == tp and s.loc_kind[L] == PIECE_GALLERIST):
            return False
        if not (s.ko_kind == PIECE_ASSISTANT or s.lac_loc == L):
            return False
    elif s.num_players == 1:
        if not (s.loc_owner[L] == LACERDA and s.loc_kind[L] == PIECE_GALLERIST
                and s.lac_loc == L and s.ko_active):
            return False
    elif not (owner != tp and s.loc_owner[L] == tp and s.loc_kind[L] == PIECE_GALLERIST):
        return False
    return not _has_task(s, T_TURN_START)


cdef bint _lacerda_rules(const StateC* s) noexcept nogil:
    cdef int loc = s.lac_loc, nt = s.num_tasks, L, r, c
    cdef bint pieces = s.ko_owner == LACERDA, due
    if s.num_players != 1:
        return True
    for L in range(4):
        pieces = pieces or s.loc_owner[L] == LACERDA
    for r in range(7):
        for c in range(3):
            pieces = pieces or s.mk_asst[r][c] == LACERDA
    if loc < 0:
        if pieces:
            return False
    elif not (s.loc_owner[loc] == LACERDA and s.loc_kind[loc] == PIECE_GALLERIST):
        if s.loc_owner[loc] == LACERDA:
            return False
    if nt == 0 or s.tasks[0].kind == T_BEGIN_GAME or s.end_triggered:
        due = False
    elif s.tasks[0].kind == T_END_TURN or (nt > 1 and s.tasks[1].kind == T_DISCARD_LARGEST):
        due = True
    else:
        due = False
    return (s.lac_turn != 0) == due


cdef inline bint _take(uint32_t* seen, int item) noexcept nogil:
    """Marks item seen; False if it already was."""
    if seen[0] >> item & 1:
        return False
    seen[0] |= (<uint32_t>1) << item
    return True


cdef bint _components_unique(const StateC* s) noexcept nogil:
    cdef uint32_t contracts = s.deck_mask, tiles = 0
    cdef int i, j, k, p, r, c
    for i in range(4):
        for j in range(s.pile_len[i]):
            if not _take(&contracts, s.pile[i][j]):
                return False
    for p in range(s.num_players):
        for k in range(3):
            if s.players[p].contract[k] >= 0 and not _take(&contracts, s.players[p].contract[k]):
                return False
    for i in range(s.num_tasks):
        if s.tasks[i].kind == T_CONTRACT_SLOT and not _take(&contracts, s.tasks[i].a):
            return False
    for r in range(4):
        for c in range(3):
            if s.mk_tile[r][c] >= 0 and not _take(&tiles, s.mk_tile[r][c]):
                return False
    for i in range(4):
        if s.loc_tile[i] >= 0 and not _take(&tiles, s.loc_tile[i]):
            return False
    for p in range(s.num_players):
        if s.players[p].start_tile >= 0 and not _take(&tiles, s.players[p].start_tile):
            return False
        for i in range(6):
            if s.players[p].rep[i] >= 0 and not _take(&tiles, s.players[p].rep[i]):
                return False
    for i in range(s.num_tasks):
        if s.tasks[i].kind == T_REP_SPACE and not _take(&tiles, s.tasks[i].a):
            return False
    return True


cdef bint _artist_rules(const StateC* s) noexcept nogil:
    cdef int held[6]
    cdef int bonus_count[5]
    cdef int a, level, fame0, promo0, bonus
    memset(held, 0, sizeof(held))
    memset(bonus_count, 0, sizeof(bonus_count))
    for a in range(8):
        fame0 = ARTIST_FAME0[a >> 1][a & 1][s.ar_variant[a]]
        promo0 = ARTIST_PROMO0[a >> 1][a & 1][s.ar_variant[a]]
        if s.ar_discovered[a]:
            if (s.ar_fame[a] < fame0 or s.ar_promo[a] < promo0 or s.ar_bonus[a] >= 0
                    or s.ar_collector[a]):
                return False
        elif s.ar_fame[a] != fame0 or s.ar_promo[a] != promo0 or s.ar_tokens[a] != 2:
            return False
        if s.ar_collector[a] and not (a & 1):
            return False
        bonus = s.ar_bonus[a]
        if bonus >= 0:
            bonus_count[bonus] += 1
            if bonus_count[bonus] > ARTIST_BONUS_COUNT[bonus]:
                return False
        if s.ar_promo[a] > promo0:
            held[s.ar_promo[a]] += 1
    for level in range(1, 6):
        if s.promo_stock[level] + held[level] != PROMO_TOKENS:
            return False
    return True


cdef bint _player_rules(const StateC* s) noexcept nogil:
    cdef int commissions = 0, curators = 0, dealers = 0
    cdef int p, i, f, a, c, k, sold
    cdef int by_form[4]
    cdef const PlayerC* pl
    for p in range(s.num_players):
        pl = &s.players[p]
        memset(by_form, 0, sizeof(by_form))
        for i in range(pl.nworks):
            a = pl.works[i]
            by_form[a >> 1] += 1
            if not s.ar_discovered[a]:
                return False
        sold = 0
        for f in range(4):
            if pl.acquired[f] != pl.sold[f] + by_form[f]:
                return False
            sold += pl.sold[f]
        c = pl.commission
        if c >= 0:
            if not s.ar_discovered[c] or commissions >> c & 1:
                return False
            commissions |= 1 << c
        if pl.gallery[COLLECTOR] > 1 + sold:
            return False
        if pl.curator >= 0:
            if curators >> pl.curator & 1:
                return False
            curators |= 1 << pl.curator
        if pl.dealer >= 0:
            if dealers >> pl.dealer & 1:
                return False
            dealers |= 1 << pl.dealer
        for k in range(3):
            if pl.contract_asst[k] and pl.contract[k] < 0:
                return False
        if not _score_rules(s, pl):
            return False
    return True


cdef bint _score_rules(const StateC* s, const PlayerC* pl) noexcept nogil:
    cdef int i, total = 0
    if not s.terminal:
        for i in range(8):
            if pl.score[i] != 0:
                return False
        return pl.auction_work < 0
    for i in range(7):
        total += pl.score[i]
    if pl.score[7] != total:
        return False
    if pl.auction_work < 0:
        return True
    for i in range(3):
        if s.easel[i] == pl.auction_work:
            return True
    return False


cdef bint _board_rules(const StateC* s) noexcept nogil:
    cdef int f, p, top, bought, on_top, i, j
    for f in range(4):
        top = s.stack_top[f]
        bought = 0
        for p in range(s.num_players):
            bought += s.players[p].acquired[f]
        if top >= 0 and s.stack_mask[f] >> top & 1:
            return False
        if _popcount(s.stack_mask[f]) + (top >= 0) + bought != TILES_PER_FORM_IN_PLAY:
            return False
        on_top = s.top_visitors[f][0] + s.top_visitors[f][1] + s.top_visitors[f][2]
        if on_top > (WORK_VISITORS[top] if top >= 0 else 0):
            return False
    for i in range(3):
        for j in range(i + 1, 3):
            if s.easel[i] >= 0 and s.easel[i] == s.easel[j]:
                return False
    if s.intermediate_pending and s.intermediate_done:
        return False
    return s.end_triggered or s.turns_left == 0


cdef bint _task_targets(const StateC* s) noexcept nogil:
    cdef int n = s.num_players, discover_finish = 0, tile_forms = 0
    cdef int i, kind, p, a, b, r, c, k
    cdef const PlayerC* pl
    for i in range(s.num_tasks):
        kind, p, a, b = s.tasks[i].kind, s.tasks[i].player, s.tasks[i].a, s.tasks[i].b
        pl = &s.players[p] if p >= 0 else NULL
        if kind == T_LOC_ACTION:
            if pl.gallerist != a:
                return False
        elif kind == T_LEAVE:
            if s.loc_owner[a] >= 0:
                return False
            if not (i > 0 and s.tasks[i - 1].kind == T_LOC_ACTION and s.tasks[i - 1].player == p):
                return False
        elif kind == T_KO:
            if s.ko_owner != p:
                return False
        elif kind == T_GALLERY_OUT or kind == T_ORIENT or kind == T_CONTRACT_BONUS:
            if pl.contract[a] < 0:
                return False
        elif kind == T_ASSIST_SRC:
            if a < 21:
                r, c = a // 3, a % 3
                if (n <= 2 and c == 1) or s.mk_asst[r][c] >= 0:
                    return False
            else:
                k = a - 21
                if pl.contract[k] < 0 or pl.contract_asst[k]:
                    return False
        elif kind == T_MARKET_FINISH:
            if n <= 2 and a % 3 == 1:
                return False
        elif kind == T_FAME_STEPS or kind == T_PROMOTE_FINISH:
            if not s.ar_discovered[a]:
                return False
        elif kind == T_DISCOVER_FINISH:
            discover_finish += 1
            if discover_finish != 1 or s.ar_discovered[a] or pl.commission >= 0:
                return False
        elif kind == T_DISCOVER:
            if pl.commission >= 0 or _has_task(s, T_DISCOVER_FINISH):
                return False
        elif kind == T_CH_TILE:
            if s.stack_top[a] >= 0 or tile_forms >> a & 1:
                return False
            tile_forms |= 1 << a
        elif kind == T_CH_VISITOR and a == CD_TILE:
            if s.stack_top[b] < 0:
                return False
    return True


# ---------------------------------------------------------------- the engine's word


cdef int _engine_accepts(StateC* s) noexcept nogil:
    """serialize._check_engine: the C invariants; a live position offers something."""
    cdef action_t buf[MAX_LEGAL]
    cdef int w[MAX_LEGAL]
    cdef int count, i, total = 0
    if state_check_invariants(s) != 0:
        return REJECT
    if s.terminal:
        return OK
    if state_current_player(s) == PLAYER_CHANCE:
        count = state_chance_outcomes(s, buf, w)
        for i in range(count):
            total += w[i]
        return OK if count > 0 and total > 0 else REJECT
    return OK if state_legal_actions(s, buf) > 0 else REJECT
