# The Gallerist rules engine: the state struct and the C-level API.
#
# StateC holds bounded arrays and scalars only, so a copy is one struct assignment.
# Rules live in _core.pyx (and the _rules_*.pxi it includes) as plain functions on
# StateC*; numbers live in data.h.
from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint32_t, uint64_t

ctypedef int16_t action_t

# The numbers of the game (engine/data.h, each table naming its section of the
# components): declared here so that every module cimporting _core sees the same ones.
cdef extern from "data.h" nogil:
    const int16_t START_MONEY
    const int8_t START_INFLUENCE, START_DESKS, START_QUEUE, NUM_DESKS
    const int8_t VISITORS_TOTAL[5][3]
    const int8_t TICKETS_PER_COLOUR[5]
    const int8_t EASELS[5]
    const int8_t ARTIST_FAME0[4][2][2]
    const int8_t ARTIST_PROMO0[4][2][2]
    const int8_t ARTIST_TEMPLATE[4][2][2]
    const int8_t STAR_THRESHOLDS[2][6]
    const int8_t STAR_VALUE[7]
    const int8_t FAME_MAX, CELEBRITY_MONEY
    cpdef enum: BONUS_MONEY, BONUS_INFLUENCE, BONUS_FAME, BONUS_TWO_TICKETS, BONUS_VISITOR
    cpdef enum: NUM_ARTIST_BONUS_KINDS
    const int8_t ARTIST_BONUS_COUNT[5]
    cpdef enum: TKP_VIP, TKP_INV, TKP_ANY, TKP_VIP_PLUS, TKP_INV_PLUS, TKP_TWO
    const int8_t WORK_FAME[8]
    const int8_t WORK_TICKETS[8]
    const int8_t WORK_VISITORS[8]
    cpdef enum: CK_SIGN, CK_ASSISTANT, CK_BAG_VISITOR, CK_PLAZA_VIP_INV, CK_BONUS
    const int8_t CONTRACT_BONUS_IS_MONEY[4]
    const int8_t CONTRACT_SLOT_TICKET[3]
    cpdef enum: RT_PER_3_INFLUENCE, RT_COLLECTOR, RT_VIP, RT_INVESTOR, RT_VISITOR, RT_SET
    cpdef enum: RT_REP_TILE, RT_AUCTION_ASSISTANT, RT_ASSISTANT_IN_PLAY, RT_PROMO4_ARTIST
    cpdef enum: RT_ACQUIRED, RT_SOLD, RT_EXHIBITED, RT_ART_FORMS, RT_PHOTO, RT_PAINTING
    cpdef enum: RT_DIGITAL, RT_SCULPTURE, RT_FAME15_ARTIST, RT_MASTERPIECE
    const int8_t REP_TILE_MONEY[20]
    const int8_t REP_TILE_INFL[20]
    cpdef enum: RS_INFLUENCE, RS_MONEY, RS_FAME, RS_VISITOR, RS_TWO_TICKETS, RS_ASSISTANT
    cpdef enum: PB_ANY_TICKET, PB_INFLUENCE, PB_TWO_TICKETS, PB_MONEY, PB_VISITOR
    const int8_t PROMO_TOKENS
    const int8_t PROMO_BONUS[6]
    cpdef enum: HB_NONE, HB_INV_TICKET, HB_VIP_TICKET, HB_INFLUENCE, HB_ANY_TICKET, HB_MONEY
    const int8_t HIRE_COST[8]
    const int8_t HIRE_BONUS[8]
    const int8_t MARKET_ROW_FORM[4]
    const int8_t MARKET_COLUMN_INFLUENCE[3]
    const int8_t AUCTION_COST[3]
    cpdef enum: AB_ANY_TICKET, AB_ASSISTANT, AB_TWO_TICKETS, AB_INFLUENCE, AB_MONEY, AB_VISITOR
    const int8_t AUCTION_BONUS[3][3]
    const int8_t MAJORITY[3][3]
    cpdef enum: NUM_MONEY_ICONS
    const int8_t MONEY_ICONS[NUM_MONEY_ICONS]
    const int8_t MONEY_ICON_VALUE[NUM_MONEY_ICONS]
    const int8_t INFLUENCE_MAX
    const int8_t CURATOR_GOALS[4][2][4]
    const int8_t CURATOR_PAY[2]
    const int8_t DEALER_GOALS[4][3][4]
    const int8_t DEALER_PAY[3]
    const int8_t LACERDA_MARKET_ORDER[14][2]


cpdef enum:
    MAX_PLAYERS = 4
    NUM_FORMS = 4
    NUM_VTYPES = 3           # VIP, investor, collector (tickets use the same colours)
    NUM_LOCATIONS = 4
    NUM_ARTISTS = 8          # slot = 2 * form + colour
    NUM_CONTRACTS = 20
    NUM_REP_TILES = 20
    NUM_REP_SPACES = 6
    MARKET_ROWS = 7
    MARKET_COLS = 3
    NUM_MARKET_SPACES = MARKET_ROWS * MARKET_COLS   # space = 3 * row + column
    MAX_WORKS = 4
    MAX_TASKS = 32
    MAX_PILE = 20
    MAX_EASELS = 3
    MAX_LEGAL = 256

    VIP = 0
    INVESTOR = 1
    COLLECTOR = 2

    LOC_SALES = 0
    LOC_COLONY = 1
    LOC_MEDIA = 2
    LOC_MARKET = 3
    GAL_HOME = 4             # gallerist at home in its gallery (after being kicked out)
    GAL_KO = 5               # gallerist on a kicked-out space, waiting for the KO action

    PIECE_GALLERIST = 0
    PIECE_ASSISTANT = 1

    # contract_state values
    CS_FACE_UP = 0
    CS_MONEY = 1             # face down, money half up
    CS_INFLUENCE = 2         # face down, influence half up

    # current_player special values
    PLAYER_CHANCE = -1
    PLAYER_TERMINAL = -2

    # Solo (num_players == 1): the owner id of Lacerda's pieces in loc_owner, mk_asst and
    # ko_owner. It is never a seat, so code that loops over the seats never meets it.
    LACERDA = 4
    LACERDA_ASSISTANTS = 10
    # C§1: a player's assistants (START_DESKS + START_QUEUE of data.h), wherever they are.
    ASSISTANTS_PER_PLAYER = 10
    # Solo returns(): the final money m as m / (m + SOLO_RETURN_SCALE), see state_returns.
    SOLO_RETURN_SCALE = 100

    # Game-length safety net (the rules are silent, docs/rules.md §5.1): see state_end_turn.
    MAX_TURNS_PER_PLAYER = 60
    # C§5: 8 work tiles per form, one set aside at setup.
    TILES_PER_FORM_IN_PLAY = 7

# Task kinds: the pending work of the current turn, kept as a stack. A decision task is
# resolved by the top-level action of its player; a chance task by a chance outcome; an
# automatic step runs as soon as it reaches the top.
cpdef enum TaskKind:
    # decisions
    T_START_LOC = 1         # choose a start location (setup)
    T_TURN_START            # an executive action, or move
    T_LEAVE                 # leave an assistant behind at location a
    T_LOC_ACTION            # take action A or B at location a (or pass)
    T_AFTER_ACTION          # an executive action, or end the turn
    T_KO                    # the kicked-out owner's choice
    T_DISCOVER              # choose a face-down artist
    T_BUY                   # choose an artist to buy from
    T_PROMOTE               # choose an artist to promote
    T_PAY                   # pay a (money), keeping b influence fame-steps available
    T_FAME_STEPS            # artist a gains b fame, plus 0..k influence steps (>= c)
    T_FAME_BONUS            # choose a discovered non-celebrity artist
    T_TICKET_ANY            # one ticket of any colour
    T_TICKET_PAIR           # two tickets of different colours
    T_TICKET_OR             # one ticket: colour a or colour b
    T_BOX_DISCARD           # colour a was short: return colour != a from the box office
    T_VISITOR_PLAZA         # visitor from the plaza to the gallery; a = allowed type mask
    T_LOBBY_OUT             # one lobby visitor to the plaza
    T_GALLERY_OUT           # one gallery visitor to the plaza; sets contract slot a's side
    T_ORIENT                # choose contract slot a's side
    T_REP_SPACE             # place reputation tile a on a board space
    T_DEAL4                 # deal 4 new contracts or not
    T_PILE                  # take the top card of a pile
    T_CONTRACT_SLOT         # place contract a on a board slot
    T_SELL                  # choose work and contract
    T_HIRE                  # how many to hire
    T_MARKET                # choose a market space; a = 0 reputation, 1 auction
    T_ASSIST_SRC            # where the assistant for target a comes from: market space a,
                            # or contract slot a - NUM_MARKET_SPACES
    T_TICKET_MOVE           # spend one ticket, or stop (a = moves made so far)
    T_DISCARD_LARGEST       # solo: discard a ticket from a largest box-office stack
    # chance
    T_CH_VISITOR            # bag draw; a = destination kind, b = form/player
    T_CH_TILE               # reveal the next work of form a
    T_CH_CONTRACT           # deal a contract onto pile a
    # automatic steps
    T_AUTO_FIRST            # marker: kinds from here on run automatically
    T_GAIN_TICKET           # take a ticket of colour a
    T_END_TURN              # KO phase and end-of-turn bookkeeping
    T_KO_DONE               # the kicked-out piece goes home
    T_BUY_FINISH            # artist a, tile kind b: tickets, work placed, refill
    T_FREE_HIRE             # next queue assistant, free, with its printed bonus
    T_MONEY_BONUS
    T_INFLUENCE_BONUS
    T_GAIN_INFLUENCE        # +a influence
    T_MARKET_FINISH         # space a: influence and bonus after the assistant is placed
    T_CONTRACT_BONUS        # contract slot a's bonus
    T_REFILL_PILE           # refill pile a if empty
    T_PROMOTE_FINISH        # artist a: promotion bonus, then fame
    T_BEGIN_GAME            # after the start locations: the first turn
    T_FINISH_TURN           # intermediate scoring, end check, next turn
    T_DISCOVER_FINISH       # artist a: collector to the plaza, flip, commission

# The action space: one fixed range per kind of decision (see engine/actions.py).
cpdef enum:  # ActionBase
    A_START_LOC = 0          # 4: start location
    A_MOVE = 4               # 4: move the gallerist to a location
    A_EA_TICKETS = 8         # 1: executive action: spend tickets
    A_EA_CONTRACT = 9        # 3: executive action: contract bonus of board slot k
    A_LEAVE_NONE = 12        # 1: leave no assistant behind
    A_LEAVE_DESK = 13        # 1: leave an assistant from a desk
    A_LEAVE_LOC = 14         # 4: leave the assistant standing on location k
    A_ACTION = 18            # 2: location action A (0) or B (1)
    A_PASS = 20              # 1: no location action is possible
    A_END_TURN = 21          # 1: end the turn without an executive action
    A_KO_PASS = 22           # 1: kicked out: do nothing
    A_KO_ACTION = 23         # 2: kicked out: pay influence, take action A or B
    A_ARTIST = 25            # 8: artist slot
    A_PAY = 33               # 20: influence money-steps used in a payment
    A_FAME = 53              # 8: influence fame-steps added
    A_TICKET = 61            # 3: ticket colour
    A_TICKET_PAIR = 64       # 3: two tickets: VIP+investor, VIP+collector, investor+collector
    A_BOX_DISCARD = 67       # 3: colour returned from the box office to the discards
    A_VISITOR = 70           # 3: visitor type
    A_REP_SPACE = 73         # 6: player board reputation space
    A_DEAL4_NO = 79          # 1
    A_DEAL4_YES = 80         # 1
    A_PILE = 81              # 4: contract display pile
    A_CSLOT = 85             # 3: player board contract slot
    A_SELL = 88              # 12: 3 * work slot + contract slot
    A_ORIENT = 100           # 2: sold contract side: money (0) or influence (1)
    A_HIRE = 102             # 4: hire 1..4 assistants
    A_MARKET = 106           # 21: market space 3 * row + column
    A_SRC_DESK = 127         # 1: assistant from a desk
    A_SRC_LOC = 128          # 4: assistant from location k
    A_SRC_KO = 132           # 1: the kicked-out assistant itself
    A_TMOVE = 133            # 15: ticket move: 5 * colour + route
    A_TMOVE_DONE = 148       # 1: stop spending tickets
    A_DISCARD_LARGEST = 149  # 3: solo: colour discarded from the box office
    C_VISITOR = 152          # 3: chance: visitor type drawn from the bag
    C_TILE = 155             # 8: chance: work tile revealed
    C_CONTRACT = 163         # 20: chance: contract dealt
    NUM_ACTIONS = 183

cpdef enum ChanceDest:
    CD_TILE = 0             # onto the top work of form b
    CD_GALLERY_ANY = 1      # into player b's gallery (collector over the limit: plaza)
    CD_GALLERY_VI = 2       # into player b's gallery if VIP/investor and allowed, else plaza

cdef struct TaskC:
    int8_t kind              # TaskKind
    int8_t player            # acting player, or -1
    int8_t a
    int8_t b
    int8_t c

cdef struct PlayerC:
    int16_t money            # >= 0
    int8_t influence         # 0..35
    int8_t lobby[3]          # visitors by type
    int8_t gallery[3]        # visitors by type
    int8_t tickets[3]        # held tickets by colour
    int8_t desks             # assistants on office desks, 0..4
    int8_t queue             # assistants in the unemployment queue, 0..8
    int8_t removed           # assistants out of the game
    int8_t gallerist         # location 0..3, GAL_HOME or GAL_KO
    int8_t commission        # artist slot whose signature token is on the commission space, or -1
    int8_t nworks            # exhibited works, 0..4
    int8_t works[4]          # artist slot of each exhibited work, left to right
    int8_t start_tile        # reputation tile waiting on the 3rd art slot, or -1
    int8_t rep[6]            # reputation tile on each board space, or -1
    int8_t acquired[4]       # works ever bought, by form
    int8_t sold[4]           # works sold, by form
    int8_t contract[3]       # contract id on each board slot, or -1
    int8_t contract_state[3] # CS_FACE_UP, CS_MONEY or CS_INFLUENCE
    int8_t contract_asst[3]  # 1 if one of the player's assistants sits on the contract
    int8_t curator           # Curator card 0..3, or -1 when hidden from this view
    int8_t dealer            # Art Dealer card 0..3, or -1 when hidden from this view
    int8_t auction_work      # final scoring: easel form won, or -1
    int8_t auction_as        # final scoring: 0 counted as Curator (exhibited), 1 as Dealer (sold)
    int16_t score[8]         # final scoring by step: majorities, reputation, exhibition,
                             # auction, curator, dealer, influence, total gained

cdef struct StateC:
    int8_t num_players       # 2..4, or 1 = solo against Lacerda
    int8_t turn_player       # whose turn it is, 0..n-1
    int8_t ea_used           # the turn's executive action was taken
    int8_t end_triggered     # two end conditions have held
    int8_t turns_left        # turns still to play, the current one included, once triggered
    int8_t intermediate_pending
    int8_t intermediate_done
    int8_t terminal          # final scoring done
    int8_t ko_active         # the KO owner is taking its KO action now
    int8_t passes            # consecutive turns whose location action was a pass
    int16_t turn_count       # turns started, for the game-length bound
    int16_t num_tasks
    TaskC tasks[MAX_TASKS]
    PlayerC players[MAX_PLAYERS]
    # board
    int8_t bag[3]
    int8_t plaza[3]
    int8_t box[3]            # box office tickets by colour
    int8_t discards[3]       # spent or displaced tickets by colour
    int8_t loc_owner[4]      # piece on each location's action space: owner, LACERDA or -1
    int8_t loc_kind[4]       # PIECE_GALLERIST or PIECE_ASSISTANT
    int8_t loc_tile[4]       # start reputation tile beside each location, or -1
    int8_t ko_owner          # owner of the kicked-out piece (a seat or LACERDA), or -1
    int8_t ko_kind           # its kind
    int8_t ko_loc            # the location it was kicked from
    int8_t mk_tile[4][3]     # reputation tile on each market space, or -1
    int8_t mk_asst[7][3]     # owner of the assistant on each market space (or LACERDA), or -1
    # artists, slot = 2 * form + colour
    int8_t ar_variant[8]     # which of the two printed tiles, 0..1
    int8_t ar_discovered[8]
    int8_t ar_fame[8]        # 1..19 (meaningful once discovered)
    int8_t ar_promo[8]       # promotion level 0..5
    int8_t ar_tokens[8]      # signature tokens on the artist tile, 0..2
    int8_t ar_bonus[8]       # artist bonus tile kind, or -1
    int8_t ar_collector[8]   # collector waiting on a red tile, 0..1
    int8_t promo_stock[6]    # promotion tokens left per level (index 1..5)
    # works of art
    uint8_t stack_mask[4]    # tiles still under the top of each form's stack (bit = kind)
    int8_t stack_top[4]      # the visible top tile kind, or -1 when the stack is empty
    int8_t top_visitors[4][3]
    int8_t easel[3]          # form of each renowned work, or -1
    # contracts
    uint32_t deck_mask       # contracts in the deck (order is chance)
    int8_t pile[4][MAX_PILE] # display piles, bottom first
    int8_t pile_len[4]
    # Lacerda (solo; -1 / 0 / 0 with 2..4 players). Her gallerist is on the board exactly
    # when loc_owner[lac_loc] == LACERDA with a PIECE_GALLERIST; otherwise the player
    # kicked it out and her next move starts from lac_loc leaving no assistant.
    int8_t lac_loc           # location her gallerist stands on or last stood on, or -1
                             # before her first move
    int8_t lac_supply        # assistants in her supply, 0..10
    int8_t lac_turn          # 1 when her move is due at the end of the current turn

cdef struct RngC:
    uint64_t s

cdef inline uint64_t rng_next(RngC* r) noexcept nogil:
    # splitmix64: small, fast, and good enough for playouts
    r.s += 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = r.s
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)

cdef inline int rng_below(RngC* r, int n) noexcept nogil:
    return <int>((rng_next(r) >> 33) % <uint64_t>n)

cdef inline int money_steps(int infl) noexcept nogil:
    """Money icons strictly below `infl`: the most $ influence can pay (C§2)."""
    cdef int i, n = 0
    for i in range(NUM_MONEY_ICONS):
        if MONEY_ICONS[i] < infl:
            n += 1
    return n

cdef inline double solo_return(double money) noexcept nogil:
    """The solo result as a value in [0, 1): money / (money + SOLO_RETURN_SCALE)."""
    if money <= 0:
        return 0.0
    return money / (money + SOLO_RETURN_SCALE)

# The rules a state keeps between its fields (engine/_rules_consistency.pxi): the codes of
# state_check_consistency, after the invariant codes 1..9 of state_check_invariants (C
# only: a named cpdef enum would cost the import an enum class of 63 members).
cdef enum StateRule:
    SR_TASKS_OVER = 10, SR_TASKS_EMPTY, SR_BOTTOM, SR_TOP_AUTO, SR_BOTTOM_ONLY, SR_TOP_ONLY
    SR_HEIGHT, SR_SETUP, SR_START_TWICE, SR_START_HOME, SR_TURN_PLAYER, SR_SETUP_TURN
    SR_GALLERIST_LOC, SR_GALLERIST_KO, SR_LOC_LACERDA, SR_LOC_OWNER
    SR_KO_ACTING, SR_KO_NOBODY, SR_KO_LACERDA_TURN, SR_KO_TURN_GALLERIST, SR_KO_LACERDA_FROM
    SR_KO_SOLO, SR_KO_BEFORE_MOVE
    SR_EARLY_LOCATION, SR_EARLY_MARKET, SR_EARLY_KICKED_OUT, SR_LACERDA_ASSISTANT, SR_MOVE_DUE
    SR_CONTRACT_TWICE, SR_TILE_TWICE
    SR_FAME_BELOW, SR_FAME_FACE_DOWN, SR_PROMO_BELOW, SR_PROMO_FACE_DOWN, SR_BONUS_DISCOVERED
    SR_COLLECTOR_DISCOVERED, SR_TOKENS_FACE_DOWN, SR_COLLECTOR_BLUE, SR_BONUS_COUNT
    SR_PROMO_TOKENS
    SR_WORK_FACE_DOWN, SR_ACQUIRED, SR_COMMISSION_FACE_DOWN, SR_COMMISSION_TWICE
    SR_CURATOR_TWICE, SR_DEALER_TWICE, SR_SCORE_EARLY, SR_SCORE_TOTAL, SR_AUCTION_WORK
    SR_TOP_ALSO_BELOW, SR_STACK_TOTAL, SR_TOP_VISITORS, SR_EASELS, SR_INTERMEDIATE
    SR_TURNS_LEFT, SR_TURNS_DONE
    SR_LOC_ACTION_ELSEWHERE, SR_LEAVE_EMPTY, SR_LEAVE_ABOVE, SR_KO_OWNER, SR_SLOT_EMPTY
    SR_COLUMN_II, SR_MARKET_TAKEN, SR_SLOT_FOR_ASSISTANT, SR_ARTIST_FACE_DOWN
    SR_DISCOVERY_TWICE, SR_ALREADY_DISCOVERED, SR_HAS_COMMISSION, SR_DISCOVER_SPACE
    SR_TILE_SHOWN, SR_TILE_REVEALING, SR_NO_TOP_TILE

# Where a contract or a reputation tile lies, for SR_CONTRACT_TWICE and SR_TILE_TWICE:
# place (kind * 64 + i) * 64 + j, kind one of these.
cdef enum Place:
    PL_DECK, PL_PILE, PL_BOARD, PL_TASK, PL_MARKET, PL_LOCATION, PL_START, PL_REP

cpdef enum:
    CHECK_AT = 5             # the ints a state check writes into its `at` out-array

# --- the C-level API ---
cdef void state_init(StateC* s, int num_players, uint64_t seed) noexcept nogil
cdef int state_current_player(const StateC* s) noexcept nogil
cdef bint state_is_chance(const StateC* s) noexcept nogil
cdef int state_legal_actions(StateC* s, action_t* out) noexcept nogil
cdef int state_chance_outcomes(StateC* s, action_t* out, int* weights) noexcept nogil
cdef void state_apply(StateC* s, action_t a) noexcept nogil
cdef bint state_is_legal(StateC* s, action_t a) noexcept nogil
cdef int state_sample_chance(StateC* s, RngC* rng) noexcept nogil
cdef void state_final_money(const StateC* s, int* out) noexcept nogil
cdef void state_returns(const StateC* s, double* out) noexcept nogil
cdef int state_check_invariants(const StateC* s, int* at=*) noexcept nogil
cdef int state_check_consistency(const StateC* s, int* at) noexcept nogil
cdef int state_sale_value(const StateC* s, int artist) noexcept nogil
cdef void state_resample_hidden(StateC* s, int player, RngC* rng) noexcept nogil
cdef long playout_random(StateC* s, RngC* rng, int max_decisions) noexcept nogil
cdef void state_score_now(const StateC* s, double* out) noexcept nogil
cdef void state_scoring_now(const StateC* s, int* out) noexcept nogil
