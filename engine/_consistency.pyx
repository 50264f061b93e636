# cython: language_level=3
"""The rules a state read from outside must satisfy between its fields, and the engine's
own word on it: the 2nd and 3rd layers of the state reader (engine/_reader.pyx).

The rules themselves are the engine's (state_check_consistency in
engine/_rules_consistency.pxi, then the invariants of docs/rules.md §4): each returns a code
and the indices and counts it found. `check_consistency(s)` turns a finding into
`InvalidStateError` whose message starts with the path of a field involved, from one table
of code -> (path, problem), built only once a check has failed; `check_playable(s)` requires a
live position to offer an action or a chance outcome; `check_engine(s)` is the invariant
check alone, then that.
"""
from gallerist.engine._core cimport (
    StateC, action_t, MAX_LEGAL, CHECK_AT, PLAYER_CHANCE, TILES_PER_FORM_IN_PLAY,
    state_check_consistency, state_check_invariants, state_legal_actions,
    state_chance_outcomes, state_current_player,
)
from gallerist.engine._core cimport (
    SR_TASKS_OVER, SR_TASKS_EMPTY, SR_BOTTOM, SR_TOP_AUTO, SR_BOTTOM_ONLY, SR_TOP_ONLY,
    SR_HEIGHT, SR_SETUP, SR_START_TWICE, SR_START_HOME, SR_TURN_PLAYER, SR_SETUP_TURN,
    SR_GALLERIST_LOC, SR_GALLERIST_KO, SR_LOC_LACERDA, SR_LOC_OWNER,
    SR_KO_ACTING, SR_KO_NOBODY, SR_KO_LACERDA_TURN, SR_KO_TURN_GALLERIST, SR_KO_LACERDA_FROM,
    SR_KO_SOLO, SR_KO_BEFORE_MOVE,
    SR_EARLY_LOCATION, SR_EARLY_MARKET, SR_EARLY_KICKED_OUT, SR_LACERDA_ASSISTANT, SR_MOVE_DUE,
    SR_CONTRACT_TWICE, SR_TILE_TWICE,
    SR_FAME_BELOW, SR_FAME_FACE_DOWN, SR_PROMO_BELOW, SR_PROMO_FACE_DOWN, SR_BONUS_DISCOVERED,
    SR_COLLECTOR_DISCOVERED, SR_TOKENS_FACE_DOWN, SR_COLLECTOR_BLUE, SR_BONUS_COUNT,
    SR_PROMO_TOKENS,
    SR_WORK_FACE_DOWN, SR_ACQUIRED, SR_COMMISSION_FACE_DOWN, SR_COMMISSION_TWICE,
    SR_CURATOR_TWICE, SR_DEALER_TWICE, SR_SCORE_EARLY, SR_SCORE_TOTAL, SR_AUCTION_WORK,
    SR_TOP_ALSO_BELOW, SR_STACK_TOTAL, SR_TOP_VISITORS, SR_EASELS, SR_INTERMEDIATE,
    SR_TURNS_LEFT, SR_TURNS_DONE,
    SR_LOC_ACTION_ELSEWHERE, SR_LEAVE_EMPTY, SR_LEAVE_ABOVE, SR_KO_OWNER, SR_SLOT_EMPTY,
    SR_COLUMN_II, SR_MARKET_TAKEN, SR_SLOT_FOR_ASSISTANT, SR_ARTIST_FACE_DOWN,
    SR_DISCOVERY_TWICE, SR_ALREADY_DISCOVERED, SR_HAS_COMMISSION, SR_DISCOVER_SPACE,
    SR_TILE_SHOWN, SR_TILE_REVEALING, SR_NO_TOP_TILE,
)

from gallerist.engine.errors import InvalidStateError
from gallerist.engine.state import INVARIANT_NAMES
from gallerist.v1 import state_pb2 as _pb

# Field names of the schema's count messages, in the engine's index order.
VISITOR_FIELDS = tuple(f.name for f in _pb.Visitors.DESCRIPTOR.fields)   # vip, investor, collector
FORM_FIELDS = tuple(f.name for f in _pb.FormCounts.DESCRIPTOR.fields)    # painting .. digital


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


# Where a contract or a reputation tile lies, by the engine's Place kind (PL_DECK ..).
_PLACE_PATHS = ("contract_deck", "contract_piles[{0}].cards[{1}]",
                "players[{0}].contracts[{1}].contract", "tasks[{0}].a",
                "market[{1}].reputation_tile", "locations[{1}].start_tile",
                "players[{0}].start_tile", "players[{0}].reputation[{1}].tile")


class _Found(int):
    """A number a check found, formatted as its message says: {k:kind} a task kind's name,
    {k:form} / {k:visitor} a count field's name, {k:bool} true or false, {k:place} the path
    of a place (kind * 64 + i) * 64 + j of a contract or tile."""

    def __format__(self, spec):
        if spec == "kind":
            return kind_name(self)
        if spec in ("form", "visitor"):
            return (FORM_FIELDS if spec == "form" else VISITOR_FIELDS)[self]
        if spec == "bool":
            return "true" if self else "false"
        if spec == "place":
            return path(_PLACE_PATHS[self // 4096], self // 64 % 64, self % 64, "")
        return int.__format__(self, spec)


_EARLY = ("Lacerda has not moved yet, so none of her pieces is on the board (lacerda.location "
          "is UNSPECIFIED)")
_TURN_GALLERIST = "the turn player's ({0}) gallerist must stand where the piece was kicked from"
_NOT_DISCOVERED = "artist {1} is not discovered"
_TWICE = "{1} is also at {2:place}; each is in one place"
_PRINTED = "{1} is below the %s {2}", "{1} differs from the %s {2} of a face-down artist"
_TASK, _TASK_A, _TASK_PLAYER = "tasks[{0}].kind", "tasks[{0}].a", "tasks[{0}].player"
_SECTION4 = " (docs/rules.md §4)"

# Each code of the engine's checks: (path, problem), formatted with its findings at[0..].
_RULES = {
    SR_TASKS_OVER: ("tasks", "must be empty when the game is over"),
    SR_TASKS_EMPTY: ("tasks", "must not be empty before the game is over"),
    SR_BOTTOM: ("tasks[0].kind", "the bottom task must be BEGIN_GAME, END_TURN or FINISH_TURN"),
    SR_TOP_AUTO: (_TASK, "the top task must be a decision or a chance event (automatic steps "
                  "never wait)"),
    SR_BOTTOM_ONLY: (_TASK, "{1:kind} only at the bottom"),
    SR_TOP_ONLY: (_TASK, "{1:kind} only on top of the stack"),
    SR_HEIGHT: (_TASK, "{1:kind} only at height {2}, above {3:kind}"),
    SR_SETUP: (_TASK, "setup is BEGIN_GAME with START_LOC tasks only"),
    SR_START_TWICE: (_TASK_PLAYER, "chooses a start twice"),
    SR_START_HOME: (_TASK_PLAYER, "a player choosing a start location has its gallerist at home"),
    SR_TURN_PLAYER: (_TASK_PLAYER, "{1:kind} belongs to the turn player {2}"),
    SR_SETUP_TURN: ("turn.number", "must be 0 during setup"),
    SR_GALLERIST_LOC: ("players[{0}].gallerist",
                       "says location {1} but locations[{1}] does not hold this gallerist"),
    SR_GALLERIST_KO: ("players[{0}].gallerist",
                      "KICKED_OUT must match kicked_out.owner with a GALLERIST piece"),
    SR_LOC_LACERDA: ("locations[{0}].lacerda",
                     "holds Lacerda's gallerist, but lacerda.location is elsewhere"),
    SR_LOC_OWNER: ("locations[{0}].owner",
                   "holds the gallerist of seat {1}, whose gallerist is elsewhere"),
    SR_KO_ACTING: ("kicked_out.acting", "must be true exactly while a KO_DONE task is pending"),
    SR_KO_NOBODY: ("kicked_out.owner", "a KO task is pending but nobody is kicked out"),
    SR_KO_LACERDA_TURN: ("kicked_out.lacerda", "Lacerda's piece is on the kicked-out space only "
                         "during the player's turn"),
    SR_KO_TURN_GALLERIST: ("kicked_out.location", _TURN_GALLERIST),
    SR_KO_LACERDA_FROM: ("kicked_out.location",
                         "Lacerda's gallerist was kicked from lacerda.location"),
    SR_KO_SOLO: ("kicked_out.location", "Lacerda's gallerist must stand where the player's "
                 "piece was kicked from, with the kicked-out step under way"),
    SR_KO_BEFORE_MOVE: ("kicked_out.owner", "nothing is kicked out before the turn player has "
                        "moved (at most one per turn)"),
    SR_EARLY_LOCATION: ("locations[{0}]", _EARLY),
    SR_EARLY_MARKET: ("market[{0}]", _EARLY),
    SR_EARLY_KICKED_OUT: ("kicked_out", _EARLY),
    SR_LACERDA_ASSISTANT: ("locations[{0}].lacerda",
                           "her assistant never stands where her kicked-out gallerist stood last"),
    SR_MOVE_DUE: ("lacerda.move_due", "must be {0:bool} at this point of the turn"),
    SR_CONTRACT_TWICE: ("{0:place}", "contract " + _TWICE),
    SR_TILE_TWICE: ("{0:place}", "reputation tile " + _TWICE),
    SR_FAME_BELOW: ("artists[{0}].fame", _PRINTED[0] % "initial fame"),
    SR_FAME_FACE_DOWN: ("artists[{0}].fame", _PRINTED[1] % "initial fame"),
    SR_PROMO_BELOW: ("artists[{0}].promotion", _PRINTED[0] % "printed level"),
    SR_PROMO_FACE_DOWN: ("artists[{0}].promotion", _PRINTED[1] % "printed level"),
    SR_BONUS_DISCOVERED: ("artists[{0}].bonus", "a discovered artist has no bonus tile"),
    SR_COLLECTOR_DISCOVERED: ("artists[{0}].collector",
                              "a discovered artist has no collector waiting"),
    SR_TOKENS_FACE_DOWN: ("artists[{0}].signature_tokens",
                          "a face-down artist still has both tokens"),
    SR_COLLECTOR_BLUE: ("artists[{0}].collector", "only red artists hold a collector"),
    SR_BONUS_COUNT: ("artists[{0}].bonus", "there are only {1} bonus tiles of each kind"),
    SR_PROMO_TOKENS: ("promotion_tokens.level{0}",
                      "{1} in the supply + {2} on promoted artists != {3}"),
    SR_WORK_FACE_DOWN: ("players[{0}].exhibited_works[{1}]", "artist {2} is not discovered"),
    SR_ACQUIRED: ("players[{0}].works_acquired.{1:form}", "{2} != {3} sold + {4} exhibited"),
    SR_COMMISSION_FACE_DOWN: ("players[{0}].commission_artist", _NOT_DISCOVERED),
    SR_COMMISSION_TWICE: ("players[{0}].commission_artist",
                          "artist {1} is also seat {2}'s commission"),
    SR_CURATOR_TWICE: ("players[{0}].curator", "the same card is also seat {1}'s"),
    SR_DEALER_TWICE: ("players[{0}].dealer", "the same card is also seat {1}'s"),
    SR_SCORE_EARLY: ("players[{0}].final_score", "must be empty before the game is over"),
    SR_SCORE_TOTAL: ("players[{0}].final_score.total", "{1} != the sum of the steps {2}"),
    SR_AUCTION_WORK: ("players[{0}].final_score.auction_work",
                      "is not one of the renowned works"),
    SR_TOP_ALSO_BELOW: ("work_stacks[{0}].top_tile", "tile kind {1} is also in tiles_below"),
    SR_STACK_TOTAL: ("work_stacks[{0}]", "{1} below + {2} on top + {3} bought = {4}, expected "
                     f"{TILES_PER_FORM_IN_PLAY} tiles in play (C§5)"),
    SR_TOP_VISITORS: ("work_stacks[{0}].top_visitors",
                      "{1} visitors is more than the top tile takes"),
    SR_EASELS: ("renowned_works", "the art forms must differ"),
    SR_INTERMEDIATE: ("intermediate_scoring.pending", "cannot be pending once done"),
    SR_TURNS_LEFT: ("game_end.turns_left", "must be 0 until the end is triggered"),
    SR_TURNS_DONE: ("game_end.turns_left", "is 0 but the game is not over: once the end is "
                    "triggered it counts the turns still to play, the current one included, "
                    "and the game is scored when it reaches 0 (R-END-1)"),
    SR_LOC_ACTION_ELSEWHERE: (_TASK_A, "is not where the player's gallerist is"),
    SR_LEAVE_EMPTY: (_TASK_A, "the location left must be empty"),
    SR_LEAVE_ABOVE: (_TASK, "LEAVE sits right above the same player's LOC_ACTION"),
    SR_KO_OWNER: (_TASK_PLAYER, "is not the kicked-out owner"),
    SR_SLOT_EMPTY: (_TASK_A, "contract slot {1} is empty"),
    SR_COLUMN_II: (_TASK_A, "column II is unused with 2 players"),
    SR_MARKET_TAKEN: (_TASK_A, "market space {1} is taken"),
    SR_SLOT_FOR_ASSISTANT: (_TASK_A, "contract slot {1} must hold a contract without an assistant"),
    SR_ARTIST_FACE_DOWN: (_TASK_A, _NOT_DISCOVERED),
    SR_DISCOVERY_TWICE: (_TASK, "only one discovery at a time"),
    SR_ALREADY_DISCOVERED: (_TASK_A, "artist {1} is already discovered"),
    SR_HAS_COMMISSION: (_TASK_PLAYER, "the discoverer already has a commission"),
    SR_DISCOVER_SPACE: (_TASK_PLAYER, "discovering needs an empty commission space (R-ART-2)"),
    SR_TILE_SHOWN: (_TASK_A, "the stack of form {1} already shows a top tile"),
    SR_TILE_REVEALING: (_TASK_A, "form {1} is already being revealed"),
    SR_NO_TOP_TILE: ("tasks[{0}].b", "the stack of form {1} has no top tile"),
    # the invariants of docs/rules.md §4 (state_check_invariants) that decoding leaves open
    1: ("bag|plaza|players[].lobby|players[].gallery|work_stacks[].top_visitors.{0:visitor}",
        "{0:visitor} visitors total {1} (with those on red artists), expected {2} for {3} "
        "players" + _SECTION4),
    2: ("box_office|ticket_discards|players[].tickets.{0:visitor}",
        "{0:visitor} tickets total {1}, expected {2} for {3} players" + _SECTION4),
    3: ("players[{0}].assistants",
        "desks + queue + removed + {2} on the board = {1}, expected {3}" + _SECTION4),
    7: ("players[{0}].gallery.collector", "{1} collectors > 1 + {2} works sold (R-VIS-2)"),
    8: ("artists[{0}].signature_tokens",
        "on the artist + exhibited + commissions = {1}, expected 2" + _SECTION4),
    9: ("lacerda.supply", "supply + {2} on the board = {1}, expected {3} (Lacerda's assistants, "
        "docs/rules.md §4)"),
}


cdef int _broken(int code, const int* at) except -1:
    """The InvalidStateError of a code of the engine's checks and its findings."""
    if code not in _RULES:
        name = INVARIANT_NAMES.get(code, f"invariant {code}")
        fail("state", f"breaks an invariant of docs/rules.md §4: {name}")
    found = [_Found(at[k]) for k in range(CHECK_AT)]
    where, problem = _RULES[code]
    fail(where.format(*found), problem.format(*found))


# ================================================================ the checks


cdef int check_consistency(const StateC* s) except -1:
    """The rules between fields, then the invariants of docs/rules.md §4."""
    cdef int at[CHECK_AT]
    cdef int code = state_check_consistency(s, at)
    if code:
        _broken(code, at)


cdef int check_engine(StateC* s) except -1:
    """The C invariant check, then: a live position offers something to do."""
    cdef int at[CHECK_AT]
    cdef int code = state_check_invariants(s, at)
    if code:
        _broken(code, at)
    check_playable(s)


cdef int check_playable(StateC* s) except -1:
    """A live position offers an action or a chance outcome."""
    cdef action_t buf[MAX_LEGAL]
    cdef int w[MAX_LEGAL]
    cdef int count, i, total = 0
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
