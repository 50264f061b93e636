# cython: language_level=3
"""The observation tensor: what one player sees of a position, as float32 numbers.

`observation_fill(s, player, out)` writes OBSERVATION_SIZE floats describing exactly what
`GameState.view(player)` shows: everything on the table and every player's supplies, the
pending decision and the game's progress, and the player's own Curator and Art Dealer
cards; never the other players' cards (the only hidden information of the engine: the
bag, the tile stacks and the contract deck are sets, whose contents every player can
count; their order is chance). The point of view is the player's: seat block k is player
(player + k) % n, and every owner of a piece on the board is such a relative seat (or
Lacerda, solo). Absent seats are zero; the player count is a one-hot (num_players).

Scales: money / 100, influence / 35, fame / 19, other counts as small integers or
divided by a documented constant, categories as one-hots (all zero: none). The offsets
are the enums of _observation.pxd; `observation_fields()` lists them with their meaning
(docs/observation.md is the same table) and FIELD_RANGES the documented bounds.
"""
from libc.string cimport memset

from gallerist.engine._core cimport (
    StateC, PlayerC, TaskC, MAX_PLAYERS, NUM_ARTISTS, LACERDA, PIECE_ASSISTANT, GAL_HOME,
    GAL_KO, PLAYER_CHANCE, PLAYER_TERMINAL, NUM_ARTIST_BONUS_KINDS, state_current_player,
    state_sale_value,
)
cimport gallerist.engine._core as core


cdef inline int _rel(int owner, int player, int n) noexcept nogil:
    """The owner slot of a piece: relative seat 0..n-1, 4 for Lacerda, -1 for none."""
    if owner == LACERDA:
        return 4
    if owner < 0 or owner >= n:
        return -1
    return (owner - player + n) % n


cdef inline void _hot(float* out, int index, int size) noexcept nogil:
    if 0 <= index < size:
        out[index] = 1.0


cdef void _seat(const PlayerC* p, float* o) noexcept nogil:
    cdef int i, t
    o[S_MONEY] = p.money / 100.0
    o[S_INFLUENCE] = p.influence / 35.0
    for i in range(3):
        o[S_LOBBY + i] = p.lobby[i]
        o[S_GALLERY + i] = p.gallery[i]
        o[S_TICKETS + i] = p.tickets[i]
    o[S_DESKS] = p.desks
    o[S_QUEUE] = p.queue
    o[S_REMOVED] = p.removed
    _hot(o + S_GALLERIST, p.gallerist, 6)
    _hot(o + S_COMMISSION, p.commission, 8)
    for i in range(p.nworks):
        _hot(o + S_WORKS + 8 * i, p.works[i], 8)
    _hot(o + S_START_TILE, p.start_tile, OBS_TILES)
    for i in range(6):
        t = p.rep[i]
        if t >= 0:
            o[S_REP_SPACES + i] = 1.0
            _hot(o + S_REP_TILES, t, OBS_TILES)
    for i in range(4):
        o[S_ACQUIRED + i] = p.acquired[i]
        o[S_SOLD + i] = p.sold[i]
    for i in range(3):
        if p.contract[i] >= 0:
            _hot(o + S_CONTRACT + OBS_CONTRACTS * i, p.contract[i], OBS_CONTRACTS)
            _hot(o + S_CONTRACT_SIDE + 3 * i, p.contract_state[i], 3)
        o[S_CONTRACT_ASSISTANT + i] = p.contract_asst[i]


cdef int observation_fill(const StateC* s, int player, float* out) noexcept nogil:
    """Fill out[0..OBSERVATION_SIZE) with what `player` (a valid seat) sees of `s`."""
    cdef int n = s.num_players, k, i, j, c, f, who, len_
    cdef const TaskC* top
    memset(out, 0, OBSERVATION_SIZE * sizeof(float))
    # ---- the game
    _hot(out + O_NUM_PLAYERS, n - 1, 4)
    out[O_PROGRESS] = s.turn_count / 100.0
    out[O_PROGRESS + 1] = s.turn_count / (20.0 * n)
    out[O_EA_USED] = s.ea_used
    out[O_END_TRIGGERED] = s.end_triggered
    if s.end_triggered:
        out[O_TURNS_LEFT] = s.turns_left / 8.0
    out[O_INTERMEDIATE] = s.intermediate_pending
    out[O_INTERMEDIATE + 1] = s.intermediate_done
    out[O_KO_ACTIVE] = s.ko_active
    out[O_PASSES] = s.passes / 8.0
    _hot(out + O_TURN_PLAYER, _rel(s.turn_player, player, n), 4)
    who = state_current_player(s)
    if who == PLAYER_CHANCE:
        out[O_TO_MOVE + 4] = 1.0
    elif who == PLAYER_TERMINAL:
        out[O_TO_MOVE + 5] = 1.0
    else:
        _hot(out + O_TO_MOVE, _rel(who, player, n), 4)
    if not s.terminal and s.num_tasks > 0:
        top = &s.tasks[s.num_tasks - 1]
        _hot(out + O_TASK_KIND, top.kind - 1, OBS_TASK_KINDS)
        _hot(out + O_TASK_A, top.a, OBS_TASK_A)
        out[O_TASK_ARGS] = top.a / 20.0
        out[O_TASK_ARGS + 1] = top.b / 20.0
        out[O_TASK_ARGS + 2] = top.c / 20.0
        for i in range(s.num_tasks - 1):
            _hot(out + O_TASK_STACK, s.tasks[i].kind - 1, OBS_STACK_KINDS)
    _hot(out + O_OWN_CURATOR, s.players[player].curator, 4)
    _hot(out + O_OWN_DEALER, s.players[player].dealer, 4)
    # ---- the board
    for c in range(3):
        out[O_BAG + c] = s.bag[c] / 10.0
        out[O_PLAZA + c] = s.plaza[c] / 10.0
        out[O_BOX + c] = s.box[c] / 10.0
        out[O_DISCARDS + c] = s.discards[c] / 10.0
    for i in range(4):
        who = _rel(s.loc_owner[i], player, n)
        if who >= 0:
            out[O_LOC_OWNER + OBS_OWNERS * i + who] = 1.0
            out[O_LOC_ASSISTANT + i] = s.loc_kind[i] == PIECE_ASSISTANT
        _hot(out + O_LOC_TILE + OBS_TILES * i, s.loc_tile[i], OBS_TILES)
    who = _rel(s.ko_owner, player, n)
    if who >= 0:
        out[O_KO_OWNER + who] = 1.0
        out[O_KO_ASSISTANT] = s.ko_kind == PIECE_ASSISTANT
        _hot(out + O_KO_LOCATION, s.ko_loc, 4)
    for i in range(4):
        for j in range(3):
            _hot(out + O_MARKET_TILE + OBS_TILES * (3 * i + j), s.mk_tile[i][j], OBS_TILES)
    for i in range(7):
        for j in range(3):
            _hot(out + O_MARKET_ASSISTANT + OBS_OWNERS * (3 * i + j),
                 _rel(s.mk_asst[i][j], player, n), OBS_OWNERS)
    for i in range(NUM_ARTISTS):
        out[O_ARTIST_DISCOVERED + i] = s.ar_discovered[i]
        out[O_ARTIST_VARIANT + i] = s.ar_variant[i]
        out[O_ARTIST_FAME + i] = s.ar_fame[i] / 19.0
        out[O_ARTIST_VALUE + i] = state_sale_value(s, i) / 20.0
        out[O_ARTIST_PROMO + i] = s.ar_promo[i] / 5.0
        out[O_ARTIST_TOKENS + i] = s.ar_tokens[i]
        _hot(out + O_ARTIST_BONUS + NUM_ARTIST_BONUS_KINDS * i, s.ar_bonus[i],
             NUM_ARTIST_BONUS_KINDS)
        out[O_ARTIST_COLLECTOR + i] = s.ar_collector[i]
    for i in range(5):
        out[O_PROMO_STOCK + i] = s.promo_stock[i + 1] / 4.0
    for f in range(4):
        for k in range(8):
            if s.stack_mask[f] & (1 << k):
                out[O_STACK_LEFT + 8 * f + k] = 1.0
        _hot(out + O_STACK_TOP + 8 * f, s.stack_top[f], 8)
        for c in range(3):
            out[O_TOP_VISITORS + 3 * f + c] = s.top_visitors[f][c]
    for i in range(3):
        _hot(out + O_EASEL + 4 * i, s.easel[i], 4)
    for k in range(OBS_CONTRACTS):
        if s.deck_mask & (1u << k):
            out[O_DECK + k] = 1.0
    for i in range(4):
        len_ = s.pile_len[i]
        if len_ > 0:
            _hot(out + O_PILE_TOP + OBS_CONTRACTS * i, s.pile[i][len_ - 1], OBS_CONTRACTS)
            for j in range(len_ - 1):
                _hot(out + O_PILE_UNDER, s.pile[i][j], OBS_CONTRACTS)
        out[O_PILE_LEN + i] = len_ / 5.0
    _hot(out + O_LACERDA_LOCATION, s.lac_loc, 4)
    out[O_LACERDA_SUPPLY] = s.lac_supply / 10.0
    out[O_LACERDA_TURN] = s.lac_turn
    # ---- the seats, own first
    for k in range(n):
        _seat(&s.players[(player + k) % n], out + O_SEATS + SEAT_SIZE * k)
    return 0


# ---- the layout, for Python: (name, offset, length, description, low, high)

_GAME = (
    ("num_players", O_NUM_PLAYERS, 4, "one-hot of the player count 1 (solo), 2, 3, 4", 0, 1),
    ("progress", O_PROGRESS, 2, "turns started / 100, and / (20 x players) (rounds / 20)", 0, 3),
    ("ea_used", O_EA_USED, 1, "1 once the turn's executive action was taken", 0, 1),
    ("end_triggered", O_END_TRIGGERED, 1, "1 once two end conditions held (R-END-1)", 0, 1),
    ("turns_left", O_TURNS_LEFT, 1, "turns still to play, the current one included (up to 2 x players - 1) / 8, once triggered (0 before)", 0, 1),
    ("intermediate", O_INTERMEDIATE, 2, "intermediate scoring pending, done", 0, 1),
    ("ko_active", O_KO_ACTIVE, 1, "1 while the kicked-out owner takes its KO action", 0, 1),
    ("passes", O_PASSES, 1, "consecutive turns whose location action was a pass / 8 (stall rule)", 0, 2),
    ("turn_player", O_TURN_PLAYER, 4, "one-hot of whose turn it is, as a relative seat (0 = the observer)", 0, 1),
    ("to_move", O_TO_MOVE, 6, "who decides now: relative seat 0..3, chance (4), terminal (5)", 0, 1),
    ("task_kind", O_TASK_KIND, OBS_TASK_KINDS, "the pending decision or chance event: one-hot of its task kind 1..33 (engine TASK_KINDS, index kind - 1); zero at the end", 0, 1),
    ("task_a", O_TASK_A, OBS_TASK_A, "one-hot of the pending task's argument a (0..23: location, artist, space, slot... by kind)", 0, 1),
    ("task_args", O_TASK_ARGS, 3, "the pending task's arguments a, b, c / 20 (-1 = none)", -1, 7),
    ("task_stack", O_TASK_STACK, OBS_STACK_KINDS, "the work still pending below the top task: multi-hot of the task kinds 1..49 on the stack (index kind - 1), automatic steps included", 0, 1),
    ("own_curator", O_OWN_CURATOR, 4, "one-hot of the observer's Curator card (the other players' are hidden)", 0, 1),
    ("own_dealer", O_OWN_DEALER, 4, "one-hot of the observer's Art Dealer card", 0, 1),
)
_BOARD = (
    ("bag", O_BAG, 3, "visitors in the bag: VIP, investor, collector / 10", 0, 1.4),
    ("plaza", O_PLAZA, 3, "visitors in the plaza by type / 10", 0, 1.4),
    ("box_office", O_BOX, 3, "tickets in the box office by colour / 10", 0, 2),
    ("discards", O_DISCARDS, 3, "spent or displaced tickets by colour / 10", 0, 2),
    ("location_owner", O_LOC_OWNER, 4 * OBS_OWNERS, "per location (sales, colony, media, market): owner of the piece on its action space, one-hot of relative seat 0..3 or Lacerda (4)", 0, 1),
    ("location_assistant", O_LOC_ASSISTANT, 4, "per location: 1 if that piece is an assistant (0: a gallerist, or empty)", 0, 1),
    ("location_tile", O_LOC_TILE, 4 * OBS_TILES, "per location: one-hot of the start reputation tile beside it", 0, 1),
    ("ko_owner", O_KO_OWNER, OBS_OWNERS, "owner of the kicked-out piece: relative seat 0..3 or Lacerda (4)", 0, 1),
    ("ko_assistant", O_KO_ASSISTANT, 1, "1 if the kicked-out piece is an assistant", 0, 1),
    ("ko_location", O_KO_LOCATION, 4, "one-hot of the location it was kicked from", 0, 1),
    ("market_tile", O_MARKET_TILE, 12 * OBS_TILES, "per reputation market space (3 x row + column, rows 0..3): one-hot of its tile", 0, 1),
    ("market_assistant", O_MARKET_ASSISTANT, 21 * OBS_OWNERS, "per market space (3 x row + column): owner of the assistant on it, relative seat 0..3 or Lacerda (4)", 0, 1),
    ("artist_discovered", O_ARTIST_DISCOVERED, 8, "per artist slot (2 x form + colour): 1 once discovered", 0, 1),
    ("artist_variant", O_ARTIST_VARIANT, 8, "per artist: which of the two printed tiles (0, 1)", 0, 1),
    ("artist_fame", O_ARTIST_FAME, 8, "per artist: fame / 19", 0, 1),
    ("artist_value", O_ARTIST_VALUE, 8, "per artist: sale value of its works now ($) / 20", 0, 1),
    ("artist_promotion", O_ARTIST_PROMO, 8, "per artist: promotion level / 5", 0, 1),
    ("artist_tokens", O_ARTIST_TOKENS, 8, "per artist: signature tokens left on its tile (0..2)", 0, 2),
    ("artist_bonus", O_ARTIST_BONUS, 8 * NUM_ARTIST_BONUS_KINDS, "per artist: one-hot of its bonus tile kind (money, influence, fame, two tickets, visitor)", 0, 1),
    ("artist_collector", O_ARTIST_COLLECTOR, 8, "per artist: 1 if a collector waits on its tile", 0, 1),
    ("promotion_stock", O_PROMO_STOCK, 5, "promotion tokens left of levels 1..5 / 4", 0, 1),
    ("stack_left", O_STACK_LEFT, 32, "per form (8 x form + kind): the work tiles still under the top of its stack (a set; the order is chance)", 0, 1),
    ("stack_top", O_STACK_TOP, 32, "per form: one-hot of the visible top tile's kind", 0, 1),
    ("top_visitors", O_TOP_VISITORS, 12, "per form (3 x form + type): visitors on the top work", 0, 2),
    ("easel", O_EASEL, 12, "per easel: one-hot of the form of its renowned work", 0, 1),
    ("contract_deck", O_DECK, OBS_CONTRACTS, "contracts still in the deck (a set; the order is chance)", 0, 1),
    ("pile_top", O_PILE_TOP, 4 * OBS_CONTRACTS, "per display pile: one-hot of its top contract (the one a player can take)", 0, 1),
    ("pile_under", O_PILE_UNDER, OBS_CONTRACTS, "contracts under the tops of the display piles", 0, 1),
    ("pile_length", O_PILE_LEN, 4, "per display pile: its contracts / 5", 0, 4),
    ("lacerda_location", O_LACERDA_LOCATION, 4, "solo: one-hot of the location Lacerda's gallerist stands or last stood on", 0, 1),
    ("lacerda_supply", O_LACERDA_SUPPLY, 1, "solo: assistants in Lacerda's supply / 10", 0, 1),
    ("lacerda_turn", O_LACERDA_TURN, 1, "solo: 1 when Lacerda's move is due at the end of the turn", 0, 1),
)
_SEAT = (
    ("money", S_MONEY, 1, "money ($) / 100", 0, 10),
    ("influence", S_INFLUENCE, 1, "influence / 35", 0, 1),
    ("lobby", S_LOBBY, 3, "visitors in the lobby: VIP, investor, collector", 0, 14),
    ("gallery", S_GALLERY, 3, "visitors in the gallery by type", 0, 14),
    ("tickets", S_TICKETS, 3, "tickets held by colour", 0, 20),
    ("desks", S_DESKS, 1, "assistants on office desks (0..4)", 0, 4),
    ("queue", S_QUEUE, 1, "assistants in the unemployment queue (0..8)", 0, 8),
    ("removed", S_REMOVED, 1, "assistants out of the game", 0, 10),
    ("gallerist", S_GALLERIST, 6, "one-hot of where the gallerist is: location 0..3, at home (4), kicked out (5)", 0, 1),
    ("commission", S_COMMISSION, 8, "one-hot of the artist whose signature token is on the commission space", 0, 1),
    ("works", S_WORKS, 32, "per exhibited work, left to right (8 x position + artist): one-hot of its artist", 0, 1),
    ("start_tile", S_START_TILE, OBS_TILES, "one-hot of the reputation tile waiting on the 3rd art slot", 0, 1),
    ("rep_spaces", S_REP_SPACES, 6, "per player-board reputation space: 1 if a tile is on it", 0, 1),
    ("rep_tiles", S_REP_TILES, OBS_TILES, "the reputation tiles on the player board (multi-hot)", 0, 1),
    ("acquired", S_ACQUIRED, 4, "works ever bought, by form", 0, 8),
    ("sold", S_SOLD, 4, "works sold, by form", 0, 8),
    ("contract", S_CONTRACT, 3 * OBS_CONTRACTS, "per board contract slot: one-hot of its contract", 0, 1),
    ("contract_side", S_CONTRACT_SIDE, 9, "per contract slot: one-hot of its side: face up, money, influence", 0, 1),
    ("contract_assistant", S_CONTRACT_ASSISTANT, 3, "per contract slot: 1 if one of the player's assistants sits on it", 0, 1),
)


def _fields():
    out = [(n, o, l, d, lo, hi) for n, o, l, d, lo, hi in _GAME + _BOARD]
    for k in range(MAX_PLAYERS):
        who = "the observer" if k == 0 else f"the player {k} seat(s) after the observer in turn order"
        for n, o, l, d, lo, hi in _SEAT:
            out.append((f"seat{k}.{n}", O_SEATS + SEAT_SIZE * k + o, l, f"{who}: {d}", lo, hi))
    return out


_FIELDS = _fields()

#: Seat block k starts at SEAT_OFFSET + k * SEAT_SIZE (player (observer + k) % n).
SEAT_OFFSET = int(<int>O_SEATS)
SEAT_BLOCK_SIZE = int(<int>SEAT_SIZE)
#: name -> (low, high): the documented bounds of every value of a field.
FIELD_RANGES = {f[0]: (f[4], f[5]) for f in _FIELDS}


def observation_fields() -> list:
    """The layout of the observation tensor: (name, offset, length, description) per
    field, in order, covering 0..OBSERVATION_SIZE exactly (docs/observation.md)."""
    return [f[:4] for f in _FIELDS]
