# The observation tensor (engine/_observation.pyx): what one player sees of a position
# (exactly GameState.view(player): the other players' Curator and Art Dealer cards left
# out), as OBSERVATION_SIZE floats, own seat first. The layout is these offsets; the
# Python table observation_fields() and docs/observation.md describe every field.
from gallerist.engine._core cimport StateC, MAX_PLAYERS

cdef enum:
    OBS_TASK_KINDS = 33          # task kinds 1..33: the decisions and the chance events
    OBS_TASK_A = 24              # one-hot of the pending task's argument a, 0..23
    OBS_STACK_KINDS = 49         # every task kind 1..49, automatic steps included
    OBS_OWNERS = 5               # a piece's owner: seat 0..3 (own first), Lacerda
    OBS_TILES = 20               # reputation tiles
    OBS_CONTRACTS = 20

    # ---- the game (offsets from 0)
    O_NUM_PLAYERS = 0                               # 4: one-hot of 1..4
    O_PROGRESS = O_NUM_PLAYERS + 4                  # 2: turns / 100, rounds / 20
    O_EA_USED = O_PROGRESS + 2                      # 1
    O_END_TRIGGERED = O_EA_USED + 1                 # 1
    O_TURNS_LEFT = O_END_TRIGGERED + 1              # 1: / 8, 0 until triggered
    O_INTERMEDIATE = O_TURNS_LEFT + 1               # 2: pending, done
    O_KO_ACTIVE = O_INTERMEDIATE + 2                # 1
    O_PASSES = O_KO_ACTIVE + 1                      # 1: / 8
    O_TURN_PLAYER = O_PASSES + 1                    # 4: relative seat
    O_TO_MOVE = O_TURN_PLAYER + 4                   # 6: relative seat, chance, terminal
    O_TASK_KIND = O_TO_MOVE + 6                     # 33
    O_TASK_A = O_TASK_KIND + OBS_TASK_KINDS         # 24
    O_TASK_ARGS = O_TASK_A + OBS_TASK_A             # 3: a, b, c / 20
    O_TASK_STACK = O_TASK_ARGS + 3                  # 49: kinds pending below the top
    O_OWN_CURATOR = O_TASK_STACK + OBS_STACK_KINDS  # 4
    O_OWN_DEALER = O_OWN_CURATOR + 4                # 4
    # ---- the board
    O_BAG = O_OWN_DEALER + 4                        # 3: / 10
    O_PLAZA = O_BAG + 3                             # 3: / 10
    O_BOX = O_PLAZA + 3                             # 3: / 10
    O_DISCARDS = O_BOX + 3                          # 3: / 10
    O_LOC_OWNER = O_DISCARDS + 3                    # 4 x 5
    O_LOC_ASSISTANT = O_LOC_OWNER + 4 * OBS_OWNERS  # 4
    O_LOC_TILE = O_LOC_ASSISTANT + 4                # 4 x 20
    O_KO_OWNER = O_LOC_TILE + 4 * OBS_TILES         # 5
    O_KO_ASSISTANT = O_KO_OWNER + OBS_OWNERS        # 1
    O_KO_LOCATION = O_KO_ASSISTANT + 1              # 4
    O_MARKET_TILE = O_KO_LOCATION + 4               # 12 x 20
    O_MARKET_ASSISTANT = O_MARKET_TILE + 12 * OBS_TILES   # 21 x 5
    O_ARTIST_DISCOVERED = O_MARKET_ASSISTANT + 21 * OBS_OWNERS   # 8
    O_ARTIST_VARIANT = O_ARTIST_DISCOVERED + 8      # 8
    O_ARTIST_FAME = O_ARTIST_VARIANT + 8            # 8: / 19
    O_ARTIST_VALUE = O_ARTIST_FAME + 8              # 8: sale value / 20
    O_ARTIST_PROMO = O_ARTIST_VALUE + 8             # 8: / 5
    O_ARTIST_TOKENS = O_ARTIST_PROMO + 8            # 8
    O_ARTIST_BONUS = O_ARTIST_TOKENS + 8            # 8 x 5
    O_ARTIST_COLLECTOR = O_ARTIST_BONUS + 40        # 8
    O_PROMO_STOCK = O_ARTIST_COLLECTOR + 8          # 5: levels 1..5, / 4
    O_STACK_LEFT = O_PROMO_STOCK + 5                # 4 x 8
    O_STACK_TOP = O_STACK_LEFT + 32                 # 4 x 8
    O_TOP_VISITORS = O_STACK_TOP + 32               # 4 x 3
    O_EASEL = O_TOP_VISITORS + 12                   # 3 x 4
    O_DECK = O_EASEL + 12                           # 20
    O_PILE_TOP = O_DECK + OBS_CONTRACTS             # 4 x 20
    O_PILE_UNDER = O_PILE_TOP + 4 * OBS_CONTRACTS   # 20
    O_PILE_LEN = O_PILE_UNDER + OBS_CONTRACTS       # 4: / 5
    O_LACERDA_LOCATION = O_PILE_LEN + 4             # 4
    O_LACERDA_SUPPLY = O_LACERDA_LOCATION + 4       # 1: / 10
    O_LACERDA_TURN = O_LACERDA_SUPPLY + 1           # 1
    O_SEATS = O_LACERDA_TURN + 1

    # ---- one seat's block (offsets from the block's start)
    S_MONEY = 0                                     # 1: / 100
    S_INFLUENCE = S_MONEY + 1                       # 1: / 35
    S_LOBBY = S_INFLUENCE + 1                       # 3
    S_GALLERY = S_LOBBY + 3                         # 3
    S_TICKETS = S_GALLERY + 3                       # 3
    S_DESKS = S_TICKETS + 3                         # 1
    S_QUEUE = S_DESKS + 1                           # 1
    S_REMOVED = S_QUEUE + 1                         # 1
    S_GALLERIST = S_REMOVED + 1                     # 6: location 0..3, home, kicked out
    S_COMMISSION = S_GALLERIST + 6                  # 8
    S_WORKS = S_COMMISSION + 8                      # 4 x 8
    S_START_TILE = S_WORKS + 32                     # 20
    S_REP_SPACES = S_START_TILE + OBS_TILES         # 6
    S_REP_TILES = S_REP_SPACES + 6                  # 20
    S_ACQUIRED = S_REP_TILES + OBS_TILES            # 4
    S_SOLD = S_ACQUIRED + 4                         # 4
    S_CONTRACT = S_SOLD + 4                         # 3 x 20
    S_CONTRACT_SIDE = S_CONTRACT + 3 * OBS_CONTRACTS   # 3 x 3
    S_CONTRACT_ASSISTANT = S_CONTRACT_SIDE + 9      # 3
    SEAT_SIZE = S_CONTRACT_ASSISTANT + 3

# Python reads these two as gallerist.engine.OBSERVATION_SIZE / OBSERVATION_VERSION.
cpdef enum:
    OBSERVATION_SIZE = O_SEATS + MAX_PLAYERS * SEAT_SIZE
    OBSERVATION_VERSION = 1

cdef int observation_fill(const StateC* s, int player, float* out) noexcept nogil
