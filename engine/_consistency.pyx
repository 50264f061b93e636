# cython: language_level=3
"""The rules a state read from outside must satisfy between its fields, and the engine's
own word on it: the 2nd and 3rd layers of the state reader (engine/_reader.pyx).

`check_consistency(s)` checks what the rules keep true between fields of a decoded
struct (pieces on locations agree with their owners, every contract and reputation tile
is in one place, the task stack has the shape the engine builds, the component totals of
docs/rules.md §4, ...); `check_engine(s)` runs the C invariant check, then requires a live
position to offer an action or a chance outcome. Both raise `InvalidStateError` whose
message starts with the path of a field involved, built only once a check has failed.
Component numbers come from the engine (data.h, _core.pxd).
"""
from libc.stdint cimport int8_t, uint64_t
from libc.string cimport memset

from gallerist.engine._core cimport (
    StateC, PlayerC, action_t, MAX_LEGAL, NUM_CONTRACTS, LACERDA, LACERDA_ASSISTANTS,
    GAL_HOME, GAL_KO, PIECE_GALLERIST, PIECE_ASSISTANT, COLLECTOR, PLAYER_CHANCE, CD_TILE,
    ASSISTANTS_PER_PLAYER, VISITORS_TOTAL, TICKETS_PER_COLOUR, ARTIST_FAME0, ARTIST_PROMO0,
    ARTIST_BONUS_COUNT, WORK_VISITORS, PROMO_TOKENS,
    state_check_invariants, state_legal_actions, state_chance_outcomes, state_current_player,
)
from gallerist.engine._core cimport (
    T_START_LOC, T_TURN_START, T_LEAVE, T_LOC_ACTION, T_AFTER_ACTION, T_KO, T_DISCOVER,
    T_BUY, T_PROMOTE, T_FAME_STEPS, T_FAME_BONUS, T_TICKET_PAIR, T_BOX_DISCARD,
    T_VISITOR_PLAZA, T_GALLERY_OUT, T_ORIENT, T_REP_SPACE, T_DEAL4, T_CONTRACT_SLOT, T_SELL,
    T_HIRE, T_MARKET, T_ASSIST_SRC, T_TICKET_MOVE, T_DISCARD_LARGEST, T_CH_VISITOR, T_CH_TILE,
    T_AUTO_FIRST, T_END_TURN, T_KO_DONE, T_MARKET_FINISH, T_CONTRACT_BONUS, T_PROMOTE_FINISH,
    T_BEGIN_GAME, T_FINISH_TURN, T_DISCOVER_FINISH,
)

from gallerist.engine.errors import InvalidStateError
from gallerist.engine.state import INVARIANT_NAMES
from gallerist.v1 import state_pb2 as _pb

cdef enum:
    MAX_PLACES = 160           # places a contract or a reputation tile can be in

# Field names of the schema's count messages, in the engine's index order.
VISITOR_FIELDS = tuple(f.name for f in _pb.Visitors.DESCRIPTOR.fields)   # vip, investor, collector
FORM_FIELDS = tuple(f.name for f in _pb.FormCounts.DESCRIPTOR.fields)    # painting .. digital

# Where kinds sit in the stack the engine builds: setup [BEGIN_GAME, START_LOC...], a turn
# [END_TURN, AFTER_ACTION, TURN_START, ...], the kicked-out step [FINISH_TURN, KO_DONE, KO
# or DISCARD_LARGEST, ...]. Top-only decisions are pushed last and resolved before anything
# else runs, so their preconditions (checked by the action that pushed them) are never
# re-checked; deeper down they could act on a changed position.
_BOTTOM_KINDS = (T_BEGIN_GAME, T_END_TURN, T_FINISH_TURN)
_TOP_ONLY_KINDS = (T_DISCOVER, T_BUY, T_PROMOTE, T_SELL, T_HIRE, T_MARKET, T_ASSIST_SRC, T_KO,
                   T_DEAL4, T_CONTRACT_SLOT, T_GALLERY_OUT, T_ORIENT, T_TICKET_MOVE,
                   T_BOX_DISCARD, T_LEAVE, T_FAME_BONUS, T_TICKET_PAIR, T_VISITOR_PLAZA,
                   T_DISCARD_LARGEST)
_TURN_PLAYER_KINDS = (T_END_TURN, T_AFTER_ACTION, T_TURN_START, T_LOC_ACTION, T_LEAVE)
_FIXED_BELOW = {T_AFTER_ACTION: T_END_TURN, T_TURN_START: T_AFTER_ACTION,   # kind: the one
                T_KO_DONE: T_FINISH_TURN, T_DISCARD_LARGEST: T_FINISH_TURN,  # right below
                T_KO: T_KO_DONE}
cdef int _below[NUM_KINDS]
cdef uint64_t _bottom = sum(1 << k for k in _BOTTOM_KINDS)
cdef uint64_t _top_only = sum(1 << k for k in _TOP_ONLY_KINDS)
cdef uint64_t _turn_player = sum(1 << k for k in _TURN_PLAYER_KINDS)
for _kind, _kind_below in _FIXED_BELOW.items():
    _below[<int>_kind] = _kind_below


# ================================================================ errors (the cold path)


cdef str path(str fmt, long i, long j, str field):
    """A field's path: `fmt` with the indices filled in, then `.field`."""
    cdef str p = fmt.format(i, j)
    if not field:
        return p
    return p + "." + field if p else field


cdef int fail(str path, str problem) except -1:
    raise InvalidStateError(f"{path}: {problem}")


cdef str enum_name(enum, long v):
    return enum.values_by_number[v].name if v in enum.values_by_number else str(v)


cdef str kind_name(long kind):
    return enum_name(_pb.TaskKind.DESCRIPTOR, kind)


# ================================================================ consistency


cdef int check_consistency(const StateC* s) except -1:
    _stack_shape(s)
    _pieces(s)
    _kicked_out_rules(s)
    _lacerda_rules(s)
    _components_unique(s)
    _artist_rules(s)
    _player_rules(s)
    _board_rules(s)
    _task_targets(s)
    _totals(s)


cdef inline bint _has_task(const StateC* s, int kind) noexcept nogil:
    cdef int i
    for i in range(s.num_tasks):
        if s.tasks[i].kind == kind:
            return True
    return False


cdef int _stack_shape(const StateC* s) except -1:
    """The task stack has the shape the engine builds, so play goes on from it: a bottom
    task that finishes the turn, fixed-height steps in place, a decision or chance event
    on top, and no tasks exactly when the game is over."""
    cdef int nt = s.num_tasks, i, kind, below, height, p, starters = 0
    cdef bint setup
    if s.terminal:
        if nt:
            fail("tasks", "must be empty when the game is over")
        return 0
    if not nt:
        fail("tasks", "must not be empty before the game is over")
    if not _bottom >> s.tasks[0].kind & 1:
        fail("tasks[0].kind", "the bottom task must be BEGIN_GAME, END_TURN or FINISH_TURN")
    if s.tasks[nt - 1].kind >= T_AUTO_FIRST:
        fail(f"tasks[{nt - 1}].kind",
             "the top task must be a decision or a chance event (automatic steps never wait)")
    setup = s.tasks[0].kind == T_BEGIN_GAME
    for i in range(nt):
        kind = s.tasks[i].kind
        if i > 0 and _bottom >> kind & 1:
            fail(f"tasks[{i}].kind", f"{kind_name(kind)} only at the bottom")
        if i != nt - 1 and _top_only >> kind & 1:
            fail(f"tasks[{i}].kind", f"{kind_name(kind)} only on top of the stack")
        below = _below[kind]
        height = 1 if below == T_END_TURN or below == T_FINISH_TURN else 2
        if below and not (i == height and s.tasks[i - 1].kind == below):
            fail(f"tasks[{i}].kind",
                 f"{kind_name(kind)} only at height {height}, above {kind_name(below)}")
        if (kind == T_START_LOC) != (setup and i > 0):
            fail(f"tasks[{i}].kind", "setup is BEGIN_GAME with START_LOC tasks only")
        if kind == T_START_LOC:
            p = s.tasks[i].player
            if starters >> p & 1:
                fail(f"tasks[{i}].player", "chooses a start twice")
            if s.players[p].gallerist != GAL_HOME:
                fail(f"tasks[{i}].player",
                     "a player choosing a start location has its gallerist at home")
            starters |= 1 << p
        if _turn_player >> kind & 1 and s.tasks[i].player != s.turn_player:
            fail(f"tasks[{i}].player",
                 f"{kind_name(kind)} belongs to the turn player {s.turn_player}")
    if setup and s.turn_count:
        fail("turn.number", "must be 0 during setup")


cdef int _pieces(const StateC* s) except -1:
    """Pieces on the locations and the kicked-out space agree with the players' gallerist
    fields (so each player has at most one gallerist on the board)."""
    cdef int p, g, L, q
    for p in range(s.num_players):
        g = s.players[p].gallerist
        if g < 4 and not (s.loc_owner[g] == p and s.loc_kind[g] == PIECE_GALLERIST):
            fail(f"players[{p}].gallerist",
                 f"says location {g} but locations[{g}] does not hold this gallerist")
        if (g == GAL_KO) != (s.ko_owner == p and s.ko_kind == PIECE_GALLERIST):
            fail(f"players[{p}].gallerist",
                 "KICKED_OUT must match kicked_out.owner with a GALLERIST piece")
    for L in range(4):
        q = s.loc_owner[L]
        if s.loc_kind[L] != PIECE_GALLERIST or q < 0:
            continue
        if q == LACERDA and s.lac_loc != L:
            fail(f"locations[{L}].lacerda",
                 "holds Lacerda's gallerist, but lacerda.location is elsewhere")
        if q != LACERDA and s.players[q].gallerist != L:
            fail(f"locations[{L}].owner",
                 f"holds the gallerist of seat {q}, whose gallerist is elsewhere")


cdef int _kicked_out_rules(const StateC* s) except -1:
    """The kicked-out space (R-KO-1): filled only by the turn player's move this turn, so
    that gallerist stands where the piece came from and the turn has no move to come;
    `acting` exactly while its KO_DONE step is pending (at index 1)."""
    cdef int nt = s.num_tasks, owner = s.ko_owner, tp = s.turn_player, L = s.ko_loc
    cdef bint turn_gallerist
    if (s.ko_active != 0) != (nt > 1 and s.tasks[1].kind == T_KO_DONE):
        fail("kicked_out.acting", "must be true exactly while a KO_DONE task is pending")
    if owner < 0:
        if _has_task(s, T_KO):
            fail("kicked_out.owner", "a KO task is pending but nobody is kicked out")
        return 0
    turn_gallerist = s.loc_owner[L] == tp and s.loc_kind[L] == PIECE_GALLERIST
    if owner == LACERDA:
        # solo: the player moved onto her piece this turn; it leaves at the turn's end
        if not (nt and s.tasks[0].kind == T_END_TURN):
            fail("kicked_out.lacerda",
                 "Lacerda's piece is on the kicked-out space only during the player's turn")
        if not turn_gallerist:
            fail("kicked_out.location", f"the turn player's ({tp}) gallerist must stand "
                 "where the piece was kicked from")
        if not (s.ko_kind == PIECE_ASSISTANT or s.lac_loc == L):
            fail("kicked_out.location", "Lacerda's gallerist was kicked from lacerda.location")
    elif s.num_players == 1:
        # solo: her move kicked out the player's piece, whose kicked-out step is under way
        if not (s.loc_owner[L] == LACERDA and s.loc_kind[L] == PIECE_GALLERIST
                and s.lac_loc == L and s.ko_active):
            fail("kicked_out.location", "Lacerda's gallerist must stand where the player's "
                 "piece was kicked from, with the kicked-out step under way")
    elif owner == tp or not turn_gallerist:
        fail("kicked_out.location", f"the turn player's ({tp}) gallerist must stand where "
             "the piece was kicked from")
    if _has_task(s, T_TURN_START):
        fail("kicked_out.owner", "nothing is kicked out before the turn player has moved "
             "(at most one per turn)")


cdef int _lacerda_rules(const StateC* s) except -1:
    """Solo: Lacerda's gallerist, pieces and move flag as her moves leave them (RN §10);
    her assistant total is in _totals."""
    cdef int loc = s.lac_loc, nt = s.num_tasks, L, i
    cdef bint due
    if s.num_players != 1:
        return 0
    if loc < 0:
        for L in range(4):
            if s.loc_owner[L] == LACERDA:
                _lacerda_early(f"locations[{L}]")
        for i in range(21):
            if s.mk_asst[i // 3][i % 3] == LACERDA:
                _lacerda_early(f"market[{i}]")
        if s.ko_owner == LACERDA:
            _lacerda_early("kicked_out")
    elif s.loc_owner[loc] == LACERDA and s.loc_kind[loc] != PIECE_GALLERIST:
        # kicked out by the player: her next move leaves from here without an assistant
        fail(f"locations[{loc}].lacerda",
             "her assistant never stands where her kicked-out gallerist stood last")
    if nt == 0 or s.tasks[0].kind == T_BEGIN_GAME or s.end_triggered:
        due = False                   # setup, the final turn and the end: no more moves
    else:                             # the player's turn: she moves after it (else her turn)
        due = s.tasks[0].kind == T_END_TURN or (nt > 1 and s.tasks[1].kind == T_DISCARD_LARGEST)
    if (s.lac_turn != 0) != due:
        fail("lacerda.move_due",
             f"must be {'true' if due else 'false'} at this point of the turn")


cdef int _lacerda_early(str path) except -1:
    return fail(path, "Lacerda has not moved yet, so none of her pieces is on the board "
                "(lacerda.location is UNSPECIFIED)")


# Where a contract or a reputation tile can be: (kind of place, i, j) -> its path.
cdef enum:
    PL_DECK, PL_PILE, PL_BOARD, PL_TASK, PL_MARKET, PL_LOCATION, PL_START, PL_REP
_PLACE_PATHS = ("contract_deck", "contract_piles[{0}].cards[{1}]",
                "players[{0}].contracts[{1}].contract", "tasks[{0}].a",
                "market[{1}].reputation_tile", "locations[{1}].start_tile",
                "players[{0}].start_tile", "players[{0}].reputation[{1}].tile")


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


cdef inline int _task_places(const StateC* s, int* items, int* places, int n, int task_kind,
                             int kind) noexcept nogil:
    """Adds argument a of each pending task of `task_kind` (a contract or tile it holds)."""
    cdef int i
    for i in range(s.num_tasks):
        if s.tasks[i].kind == task_kind:
            n = _places(items, places, n, &s.tasks[i].a, 1, kind, i)
    return n


cdef str _place_path(int place):
    return path(_PLACE_PATHS[place // 4096], place // 64 % 64, place % 64, "")


cdef int _unique(const int* items, const int* places, int n, str what) except -1:
    cdef int first[32]
    cdef int k
    for k in range(32):
        first[k] = -1
    for k in range(n):
        if first[items[k]] >= 0:
            fail(_place_path(places[k]), f"{what} {items[k]} is also at "
                 f"{_place_path(places[first[items[k]]])}; each is in one place")
        first[items[k]] = k


cdef int _components_unique(const StateC* s) except -1:
    """Every contract card and reputation tile is in at most one place (deck, piles,
    boards, market, pending tasks)."""
    cdef int items[MAX_PLACES]
    cdef int places[MAX_PLACES]
    cdef int8_t deck[NUM_CONTRACTS]
    cdef int n, i, p
    for i in range(NUM_CONTRACTS):
        deck[i] = i if s.deck_mask >> i & 1 else -1
    n = _places(items, places, 0, deck, NUM_CONTRACTS, PL_DECK, 0)
    for i in range(4):
        n = _places(items, places, n, s.pile[i], s.pile_len[i], PL_PILE, i)
    for p in range(s.num_players):
        n = _places(items, places, n, s.players[p].contract, 3, PL_BOARD, p)
    n = _task_places(s, items, places, n, T_CONTRACT_SLOT, PL_TASK)
    _unique(items, places, n, "contract")
    n = _places(items, places, 0, &s.mk_tile[0][0], 12, PL_MARKET, 0)
    n = _places(items, places, n, s.loc_tile, 4, PL_LOCATION, 0)
    for p in range(s.num_players):
        n = _places(items, places, n, &s.players[p].start_tile, 1, PL_START, p)
        n = _places(items, places, n, s.players[p].rep, 6, PL_REP, p)
    n = _task_places(s, items, places, n, T_REP_SPACE, PL_TASK)
    _unique(items, places, n, "reputation tile")


cdef int _artist_rules(const StateC* s) except -1:
    """Each artist as the rules leave it; bonus tiles: ARTIST_BONUS_COUNT of each kind
    (C§3); promotion tokens: 4 per level between the supply and the promoted artists (C§8)."""
    cdef int held[6]
    cdef int bonus_count[5]
    cdef int a, level, bonus
    memset(held, 0, sizeof(held))
    memset(bonus_count, 0, sizeof(bonus_count))
    for a in range(8):
        _artist(s, a)
        bonus = s.ar_bonus[a]
        if bonus >= 0:
            bonus_count[bonus] += 1
            if bonus_count[bonus] > ARTIST_BONUS_COUNT[bonus]:
                fail(f"artists[{a}].bonus",
                     f"there are only {ARTIST_BONUS_COUNT[bonus]} bonus tiles of each kind")
        if s.ar_promo[a] > ARTIST_PROMO0[a >> 1][a & 1][s.ar_variant[a]]:
            held[s.ar_promo[a]] += 1      # it holds a token of its level
    for level in range(1, 6):
        if s.promo_stock[level] + held[level] != PROMO_TOKENS:
            fail(f"promotion_tokens.level{level}", f"{s.promo_stock[level]} in the supply + "
                 f"{held[level]} on promoted artists != {PROMO_TOKENS}")


_PRINTED = (("fame", "initial fame"), ("promotion", "printed level"))  # an artist's values


cdef int _artist(const StateC* s, int a) except -1:
    """Fame and promotion never below the printed values (fame never drops); a face-down
    artist is as set up; bonus tiles and collectors only on face-down artists, and
    collectors only on red ones."""
    cdef int k
    cdef int v[2]
    cdef int v0[2]
    v[:] = [s.ar_fame[a], s.ar_promo[a]]
    v0[:] = [ARTIST_FAME0[a >> 1][a & 1][s.ar_variant[a]],
             ARTIST_PROMO0[a >> 1][a & 1][s.ar_variant[a]]]
    for k in range(2):
        if v[k] < v0[k] or v[k] != v0[k] and not s.ar_discovered[a]:
            fail(f"artists[{a}].{_PRINTED[k][0]}", f"{v[k]} " + (
                f"is below the {_PRINTED[k][1]} {v0[k]}" if s.ar_discovered[a] else
                f"differs from the {_PRINTED[k][1]} {v0[k]} of a face-down artist"))
    if s.ar_discovered[a]:
        if s.ar_bonus[a] >= 0:
            fail(f"artists[{a}].bonus", "a discovered artist has no bonus tile")
        if s.ar_collector[a]:
            fail(f"artists[{a}].collector", "a discovered artist has no collector waiting")
    elif s.ar_tokens[a] != 2:
        fail(f"artists[{a}].signature_tokens", "a face-down artist still has both tokens")
    if s.ar_collector[a] and not a & 1:
        fail(f"artists[{a}].collector", "only red artists hold a collector")


cdef int _player_rules(const StateC* s) except -1:
    """Works, commissions, cards and scores of each player."""
    cdef int commission_of[8]
    cdef int curator_of[4]
    cdef int dealer_of[4]
    cdef int by_form[4]
    cdef int p, i, f, a, c, sold
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
                fail(f"players[{p}].exhibited_works[{i}]", f"artist {a} is not discovered")
        sold = 0
        for f in range(4):
            if pl.acquired[f] != pl.sold[f] + by_form[f]:
                fail(f"players[{p}].works_acquired.{FORM_FIELDS[f]}",
                     f"{pl.acquired[f]} != {pl.sold[f]} sold + {by_form[f]} exhibited")
            sold += pl.sold[f]
        c = pl.commission
        if c >= 0:
            if not s.ar_discovered[c]:
                fail(f"players[{p}].commission_artist", f"artist {c} is not discovered")
            if commission_of[c] >= 0:
                fail(f"players[{p}].commission_artist",
                     f"artist {c} is also seat {commission_of[c]}'s commission")
            commission_of[c] = p
        if pl.gallery[COLLECTOR] > 1 + sold:
            fail(f"players[{p}].gallery.collector", f"{pl.gallery[COLLECTOR]} collectors > 1 + "
                 f"{sold} works sold (R-VIS-2)")
        _card(curator_of, pl.curator, p, "curator")
        _card(dealer_of, pl.dealer, p, "dealer")
        _score_rules(s, pl, p)


cdef int _card(int* owner_of, int card, int p, str which) except -1:
    if card < 0:
        return 0
    if owner_of[card] >= 0:
        fail(f"players[{p}].{which}", f"the same card is also seat {owner_of[card]}'s")
    owner_of[card] = p


cdef int _score_rules(const StateC* s, const PlayerC* pl, int p) except -1:
    cdef int i, total = 0, nonzero = pl.score[7]      # scores are never negative
    for i in range(7):
        total += pl.score[i]
        nonzero |= pl.score[i]
    if not s.terminal:
        if nonzero or pl.auction_work >= 0:
            fail(f"players[{p}].final_score", "must be empty before the game is over")
        return 0
    if pl.score[7] != total:
        fail(f"players[{p}].final_score.total",
             f"{pl.score[7]} != the sum of the steps {total}")
    if pl.auction_work >= 0 and not (s.easel[0] == pl.auction_work or s.easel[1] == pl.auction_work
                                     or s.easel[2] == pl.auction_work):
        fail(f"players[{p}].final_score.auction_work", "is not one of the renowned works")


cdef extern from *:
    int _popcount "__builtin_popcount" (unsigned int x) nogil


cdef int _board_rules(const StateC* s) except -1:
    """Work stacks (7 tiles per form in play), easels, game flags."""
    cdef int f, p, top, below, bought, total, on_top
    for f in range(4):
        top = s.stack_top[f]
        below = _popcount(s.stack_mask[f])
        bought = 0
        for p in range(s.num_players):
            bought += s.players[p].acquired[f]
        if top >= 0 and s.stack_mask[f] >> top & 1:
            fail(f"work_stacks[{f}].top_tile", f"tile kind {top} is also in tiles_below")
        total = below + (top >= 0) + bought
        if total != TILES_PER_FORM_IN_PLAY:
            fail(f"work_stacks[{f}]", f"{below} below + {int(top >= 0)} on top + {bought} "
                 f"bought = {total}, expected {TILES_PER_FORM_IN_PLAY} tiles in play (C§5)")
        on_top = s.top_visitors[f][0] + s.top_visitors[f][1] + s.top_visitors[f][2]
        if on_top > (WORK_VISITORS[top] if top >= 0 else 0):
            fail(f"work_stacks[{f}].top_visitors",
                 f"{on_top} visitors is more than the top tile takes")
    if ((s.easel[0] >= 0 and (s.easel[0] == s.easel[1] or s.easel[0] == s.easel[2]))
            or (s.easel[1] >= 0 and s.easel[1] == s.easel[2])):
        fail("renowned_works", "the art forms must differ")
    if s.intermediate_pending and s.intermediate_done:
        fail("intermediate_scoring.pending", "cannot be pending once done")
    if not s.end_triggered and s.turns_left:
        fail("game_end.turns_left", "must be 0 until the end is triggered")


cdef int _task_targets(const StateC* s) except -1:
    """What each task's arguments point at exists and is in the state the engine leaves
    it in when it pushes that task."""
    cdef int i, kind, p, a, b, finishing = 0, revealing = 0
    cdef const PlayerC* pl
    for i in range(s.num_tasks):
        kind, p, a, b = s.tasks[i].kind, s.tasks[i].player, s.tasks[i].a, s.tasks[i].b
        pl = &s.players[p if p >= 0 else 0]
        if kind == T_LOC_ACTION and pl.gallerist != a:
            fail(f"tasks[{i}].a", "is not where the player's gallerist is")
        elif kind == T_LEAVE:
            if s.loc_owner[a] >= 0:
                fail(f"tasks[{i}].a", "the location left must be empty")
            # its legality reads the destination from the LOC_ACTION right below it
            if not (i > 0 and s.tasks[i - 1].kind == T_LOC_ACTION and s.tasks[i - 1].player == p):
                fail(f"tasks[{i}].kind", "LEAVE sits right above the same player's LOC_ACTION")
        elif kind == T_KO and s.ko_owner != p:
            fail(f"tasks[{i}].player", "is not the kicked-out owner")
        elif kind == T_GALLERY_OUT or kind == T_ORIENT or kind == T_CONTRACT_BONUS:
            if pl.contract[a] < 0:
                fail(f"tasks[{i}].a", f"contract slot {a} is empty")
        elif ((kind == T_MARKET_FINISH or kind == T_ASSIST_SRC and a < 21)
              and s.num_players <= 2 and a % 3 == 1):
            fail(f"tasks[{i}].a", "column II is unused with 2 players")   # R-MKT-1
        elif kind == T_ASSIST_SRC and a < 21:
            if s.mk_asst[a // 3][a % 3] >= 0:
                fail(f"tasks[{i}].a", f"market space {a} is taken")
        elif kind == T_ASSIST_SRC and (pl.contract[a - 21] < 0 or pl.contract_asst[a - 21]):
            fail(f"tasks[{i}].a",
                 f"contract slot {a - 21} must hold a contract without an assistant")
        elif (kind == T_FAME_STEPS or kind == T_PROMOTE_FINISH) and not s.ar_discovered[a]:
            fail(f"tasks[{i}].a", f"artist {a} is not discovered")
        elif kind == T_DISCOVER_FINISH:
            finishing += 1
            if finishing > 1:
                fail(f"tasks[{i}].kind", "only one discovery at a time")
            if s.ar_discovered[a]:
                fail(f"tasks[{i}].a", f"artist {a} is already discovered")
            if pl.commission >= 0:
                fail(f"tasks[{i}].player", "the discoverer already has a commission")
        elif kind == T_DISCOVER and (pl.commission >= 0 or _has_task(s, T_DISCOVER_FINISH)):
            fail(f"tasks[{i}].player", "discovering needs an empty commission space (R-ART-2)")
        elif kind == T_CH_TILE:
            if s.stack_top[a] >= 0:
                fail(f"tasks[{i}].a", f"the stack of form {a} already shows a top tile")
            if revealing >> a & 1:
                fail(f"tasks[{i}].a", f"form {a} is already being revealed")
            revealing |= 1 << a
        elif kind == T_CH_VISITOR and a == CD_TILE and s.stack_top[b] < 0:
            fail(f"tasks[{i}].b", f"the stack of form {b} has no top tile")


cdef int _totals(const StateC* s) except -1:
    """docs/rules.md §4 component totals: the engine's invariant check, its finding named by the
    fields it counts (what it checks besides, the decoding and the rules above rule out)."""
    cdef int at[2]
    cdef int code = state_check_invariants(s, at), n = s.num_players, c = at[0], total = at[1]
    cdef const PlayerC* pl = &s.players[c if code == 3 else 0]
    if code == 1:
        fail("bag|plaza|players[].lobby|players[].gallery|work_stacks[].top_visitors."
             + VISITOR_FIELDS[c], f"{VISITOR_FIELDS[c]} visitors total {total} (with those "
             f"on red artists), expected {VISITORS_TOTAL[n][c]} for {n} players (docs/rules.md §4)")
    elif code == 2:
        fail("box_office|ticket_discards|players[].tickets." + VISITOR_FIELDS[c],
             f"{VISITOR_FIELDS[c]} tickets total {total}, expected {TICKETS_PER_COLOUR[n]} "
             f"for {n} players (docs/rules.md §4)")
    elif code == 3:
        fail(f"players[{c}].assistants", f"desks + queue + removed + "
             f"{total - pl.desks - pl.queue - pl.removed} on the board = {total}, expected "
             f"{ASSISTANTS_PER_PLAYER} (docs/rules.md §4)")
    elif code == 9:
        fail("lacerda.supply", f"supply + {total - s.lac_supply} on the board = {total}, "
             f"expected {LACERDA_ASSISTANTS} (Lacerda's assistants, docs/rules.md §4)")
    elif code == 8:
        fail(f"artists[{c}].signature_tokens",
             f"on the artist + exhibited + commissions = {total}, expected 2 (docs/rules.md §4)")


# ================================================================ the engine's word


cdef int check_engine(StateC* s) except -1:
    """The C invariant check, then: a live position offers something to do."""
    cdef action_t buf[MAX_LEGAL]
    cdef int w[MAX_LEGAL]
    cdef int code = state_check_invariants(s), count, i, total = 0
    if code:
        name = INVARIANT_NAMES.get(code, f"invariant {code}")
        fail("state", f"breaks an invariant of docs/rules.md §4: {name}")
    if s.terminal:
        return 0
    if state_current_player(s) == PLAYER_CHANCE:
        count = state_chance_outcomes(s, buf, w)
        for i in range(count):
            total += w[i]
        if total <= 0:
            fail(f"tasks[{s.num_tasks - 1}]", "this chance event has no possible outcome")
    elif state_legal_actions(s, buf) <= 0:
        fail(f"tasks[{s.num_tasks - 1}]", "this decision has no legal action")
