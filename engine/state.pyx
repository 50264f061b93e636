# cython: language_level=3
"""GameState: the thin Python wrapper around one StateC.

It checks arguments, converts values and raises errors; the rules are in _core.pyx.
"""
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy, memcmp, memset
from libc.stdint cimport int8_t, uint64_t
from cpython.bytes cimport PyBytes_FromStringAndSize

from gallerist.engine._core cimport (
    StateC, RngC, action_t, MAX_LEGAL, NUM_ACTIONS, PLAYER_CHANCE, PLAYER_TERMINAL,
    MAX_TURNS_PER_PLAYER, MAX_TASKS, state_init, state_current_player, state_legal_actions,
    state_chance_outcomes, state_apply, state_is_legal, state_sample_chance, state_returns,
    state_check_invariants, state_check_consistency, CHECK_AT, state_resample_hidden,
    playout_random, rng_next, rng_below, state_sale_value, state_scoring_now,
)
from gallerist.engine._core cimport TaskC, PlayerC, MAX_PLAYERS
cimport gallerist.engine._core as core
from gallerist.engine._observation cimport observation_fill, OBSERVATION_SIZE
from gallerist.engine._clock cimport now_s

include "_raw.pxi"


import numpy as _numpy

from gallerist.engine._core import TaskKind
from gallerist.engine.names import SCORING_STEPS
from gallerist.engine.errors import IllegalActionError, InvalidStateError

CHANCE = PLAYER_CHANCE
TERMINAL = PLAYER_TERMINAL
#: Owner id of Lacerda's pieces (solo) in the raw state's loc_owner, mk_asst and ko_owner.
LACERDA = core.LACERDA
#: PlayerC.gallerist of a gallerist at home, and of one on the kicked-out space.
GAL_HOME = core.GAL_HOME
GAL_KO = core.GAL_KO
#: Solo: returns() maps the final money m to m / (m + SOLO_RETURN_SCALE).
SOLO_RETURN_SCALE = core.SOLO_RETURN_SCALE
NUM_DISTINCT_ACTIONS = NUM_ACTIONS
MAX_DECISIONS_PER_TURN = 128
#: Upper bound on the number of actions (decisions and chance events) of any game.
MAX_GAME_LENGTH = 2 * MAX_TURNS_PER_PLAYER * MAX_PLAYERS * MAX_DECISIONS_PER_TURN + 64

ACTION_BASES = {
    "start": core.A_START_LOC, "move": core.A_MOVE, "ea-tickets": core.A_EA_TICKETS,
    "ea-contract": core.A_EA_CONTRACT, "leave-none": core.A_LEAVE_NONE,
    "leave-desk": core.A_LEAVE_DESK, "leave": core.A_LEAVE_LOC, "action": core.A_ACTION,
    "pass": core.A_PASS, "end-turn": core.A_END_TURN, "ko-pass": core.A_KO_PASS,
    "ko-action": core.A_KO_ACTION, "artist": core.A_ARTIST, "pay-influence": core.A_PAY,
    "fame": core.A_FAME, "ticket": core.A_TICKET, "tickets": core.A_TICKET_PAIR,
    "box-discard": core.A_BOX_DISCARD, "visitor": core.A_VISITOR,
    "rep-space": core.A_REP_SPACE, "deal4-no": core.A_DEAL4_NO, "deal4-yes": core.A_DEAL4_YES,
    "pile": core.A_PILE, "contract-slot": core.A_CSLOT, "sell": core.A_SELL,
    "orient": core.A_ORIENT, "hire": core.A_HIRE, "market": core.A_MARKET,
    "from-desk": core.A_SRC_DESK, "from-location": core.A_SRC_LOC, "from-ko": core.A_SRC_KO,
    "ticket-move": core.A_TMOVE, "tickets-done": core.A_TMOVE_DONE,
    "solo-discard": core.A_DISCARD_LARGEST, "chance-visitor": core.C_VISITOR,
    "chance-tile": core.C_TILE, "chance-contract": core.C_CONTRACT,
}

#: Task kinds of the task stack and their numbers: the cpdef enum TaskKind of _core.pxd.
TASK_KINDS = {name: int(kind) for name, kind in TaskKind.__members__.items()}


# ---- the tables of engine/data.h, read from the C arrays (never typed twice)

cdef tuple _row(const int8_t* v, int n):
    cdef int i
    return tuple([v[i] for i in range(n)])


cdef tuple _rows(const int8_t* v, int n, int width):
    cdef int i
    return tuple([_row(v + i * width, width) for i in range(n)])


#: C§1 start supplies of each player.
START_MONEY = core.START_MONEY
START_INFLUENCE = core.START_INFLUENCE
START_DESKS = core.START_DESKS
START_QUEUE = core.START_QUEUE
#: C§1 visitors of each type (VIP, investor, collector), by player count (index 1..4).
VISITORS_TOTAL = _rows(&core.VISITORS_TOTAL[0][0], 5, 3)
#: C§1 tickets of each colour in the box office, by player count (index 1..4).
TICKETS_PER_COLOUR = _row(core.TICKETS_PER_COLOUR, 5)
#: C§13 easels (renowned works), by player count (index 1..4).
EASELS = _row(core.EASELS, 5)
#: C§3 initial fame and printed promotion level, [form][colour][variant].
ARTIST_FAME0 = tuple([_rows(&core.ARTIST_FAME0[f][0][0], 2, 2) for f in range(core.NUM_FORMS)])
ARTIST_PROMO0 = tuple([_rows(&core.ARTIST_PROMO0[f][0][0], 2, 2) for f in range(core.NUM_FORMS)])
#: C§4 fame of a celebrity (its works are masterpieces); C§2 the top of the influence track.
FAME_MAX = core.FAME_MAX
INFLUENCE_MAX = core.INFLUENCE_MAX
#: C§5 by work tile kind: printed fame and ticket pattern (TKP_* of data.h).
WORK_FAME = _row(core.WORK_FAME, 8)
WORK_TICKETS = _row(core.WORK_TICKETS, 8)
#: C§10 art form of each reputation row, influence of each column, cost of each auction row.
MARKET_ROW_FORM = _row(core.MARKET_ROW_FORM, 4)
MARKET_COLUMN_INFLUENCE = _row(core.MARKET_COLUMN_INFLUENCE, 3)
AUCTION_COST = _row(core.AUCTION_COST, 3)
#: C§14 Lacerda's International Market placement order, (row, column) pairs.
LACERDA_MARKET_ORDER = _rows(&core.LACERDA_MARKET_ORDER[0][0], 14, 2)

INVARIANT_NAMES = {
    1: "visitors: bag + plaza + lobbies + galleries + works + red artists != the count for the player count",
    2: "tickets: box office + discards + held != the stock for the player count",
    3: "assistants: queue + desks + locations + market + contracts + kicked-out + removed != 10",
    4: "money is negative",
    5: "influence is outside 0..35",
    6: "an artist's fame is outside 1..19",
    7: "a gallery holds more collectors than 1 + works sold",
    8: "signature tokens: on the artist + in galleries + on a commission space != 2",
    9: "Lacerda's assistants: supply + locations + market + kicked-out != 10",
}


def _check_players(num_players):
    if isinstance(num_players, bool) or not isinstance(num_players, int):
        raise ValueError(f"num_players must be an int, got {type(num_players).__name__}")
    if num_players not in (1, 2, 3, 4):
        raise ValueError(f"num_players must be 1 (solo), 2, 3 or 4, got {num_players}")


def _check_seed(seed):
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an int, got {type(seed).__name__}")
    return seed & 0xFFFFFFFFFFFFFFFF


cdef _bad_observation_out(out):
    """The ValueError for an `out` that is not a float32 (OBSERVATION_SIZE,) array."""
    desc = (f"{out.dtype} of shape {out.shape}" + ("" if out.flags.c_contiguous else ", not C-contiguous")
            + ("" if out.flags.writeable else ", read-only")) if hasattr(out, "flags") else type(out).__name__
    return ValueError(f"out must be a C-contiguous, writeable float32 numpy array of shape "
                      f"({OBSERVATION_SIZE},), got {desc}")


cdef class GameState:
    """One game of The Gallerist at one decision point, chance event or the end.

    Create it with `engine.new_game`. Actions are ints in [0, NUM_DISTINCT_ACTIONS);
    `action_to_string` gives their notation.
    """

    def __cinit__(self):
        self._undo = NULL
        self._undo_len = 0
        self._undo_cap = 0
        self._history = []

    def __dealloc__(self):
        if self._undo != NULL:
            free(self._undo)

    cdef void _push_undo(self) except *:
        cdef StateC* grown
        cdef int cap
        if self._undo_len == self._undo_cap:
            cap = 64 if self._undo_cap == 0 else 2 * self._undo_cap
            grown = <StateC*>realloc(self._undo, cap * sizeof(StateC))
            if grown == NULL:
                raise MemoryError("undo stack")
            self._undo = grown
            self._undo_cap = cap
        memcpy(&self._undo[self._undo_len], &self.s, sizeof(StateC))
        self._undo_len += 1

    cdef void _apply_unchecked(self, int action) except *:
        self._push_undo()
        state_apply(&self.s, <action_t>action)
        self._history.append(action)

    # ---- basic queries
    @property
    def num_players(self) -> int:
        return self.s.num_players

    @property
    def current_player(self) -> int:
        """The player to decide, or engine.CHANCE / engine.TERMINAL."""
        return state_current_player(&self.s)

    @property
    def turn_player(self) -> int:
        return self.s.turn_player

    @property
    def turn_number(self) -> int:
        """Turns started so far: the game's clock (`turn.number` in the state's JSON)."""
        return self.s.turn_count

    @property
    def turns_left(self) -> int:
        """-1 until the end is triggered (R-END-1); then the turns still to play, the
        current one included (0 once the game is over)."""
        return self.s.turns_left if self.s.end_triggered else -1

    @property
    def history(self) -> list:
        return list(self._history)

    def is_chance(self) -> bool:
        return state_current_player(&self.s) == PLAYER_CHANCE

    def is_terminal(self) -> bool:
        return bool(self.s.terminal)

    def legal_actions(self) -> list:
        """The actions of the player to decide, ascending; empty at chance points and the end."""
        cdef action_t buf[MAX_LEGAL]
        cdef int n = state_legal_actions(&self.s, buf)
        return [buf[i] for i in range(n)]

    def chance_outcomes(self) -> list:
        """(action, probability) pairs at a chance point, ascending; probabilities sum to 1."""
        cdef action_t buf[MAX_LEGAL]
        cdef int w[MAX_LEGAL]
        cdef int n = state_chance_outcomes(&self.s, buf, w), i, total = 0
        if not self.is_chance():
            return []
        for i in range(n):
            total += w[i]
        return [(buf[i], (<double>w[i]) / total) for i in range(n)]

    def apply(self, action) -> None:
        """Apply a legal action (or chance outcome). Raises IllegalActionError saying why."""
        if isinstance(action, bool) or not isinstance(action, int):
            raise IllegalActionError(f"action must be an int, got {type(action).__name__}")
        if self.s.terminal:
            raise IllegalActionError(f"action {action}: the game is over")
        if not 0 <= action < NUM_ACTIONS:
            raise IllegalActionError(f"action {action} is outside 0..{NUM_ACTIONS - 1}")
        if not state_is_legal(&self.s, <action_t>action):
            from gallerist.engine.actions import action_to_string, describe_decision
            legal = self.legal_actions() if not self.is_chance() else [a for a, _ in self.chance_outcomes()]
            raise IllegalActionError(
                f"action {action} ({action_to_string(action)}) is not legal now: "
                f"{describe_decision(self)}; legal: "
                + ", ".join(action_to_string(a) for a in legal))
        self._apply_unchecked(action)

    def apply_random_chance(self, seed) -> int:
        """At a chance point, apply an outcome drawn with its probability; returns it."""
        cdef RngC rng
        if not self.is_chance() or not self.chance_outcomes():
            raise IllegalActionError("not at a chance point")
        rng.s = _check_seed(seed)
        rng_next(&rng)
        cdef int a = state_sample_chance(&self.s, &rng)
        self._apply_unchecked(a)
        return a

    def undo(self) -> int:
        """Take back the last action; returns it. Restores the previous state exactly."""
        if self._undo_len == 0:
            raise IllegalActionError("nothing to undo")
        self._undo_len -= 1
        memcpy(&self.s, &self._undo[self._undo_len], sizeof(StateC))
        return self._history.pop()

    def copy(self):
        """An independent copy, history and undo included."""
        cdef GameState other = GameState.__new__(GameState)
        memcpy(&other.s, &self.s, sizeof(StateC))
        if self._undo_len:
            other._undo = <StateC*>malloc(self._undo_len * sizeof(StateC))
            if other._undo == NULL:
                raise MemoryError("undo stack")
            memcpy(other._undo, self._undo, self._undo_len * sizeof(StateC))
            other._undo_cap = self._undo_len
            other._undo_len = self._undo_len
        other._history = list(self._history)
        return other

    def clone_position(self):
        """A copy of the position alone (no history, nothing to undo): the cheap copy."""
        cdef GameState other = GameState.__new__(GameState)
        other.s = self.s
        return other

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def __eq__(self, other):
        if not isinstance(other, GameState):
            return NotImplemented
        return self.state_bytes() == (<GameState>other).state_bytes()

    def __hash__(self):
        return hash(self.state_bytes())

    def state_bytes(self) -> bytes:
        """The struct's bytes, canonical (task slots above the stack top zeroed), for
        exact comparisons: undo, copies, determinism and serialization round trips."""
        cdef StateC c = self.s
        memset(&c.tasks[c.num_tasks], 0, (MAX_TASKS - c.num_tasks) * sizeof(TaskC))
        return PyBytes_FromStringAndSize(<char*>&c, sizeof(StateC))

    # ---- results
    def money(self) -> list:
        return [self.s.players[p].money for p in range(self.s.num_players)]

    def influence(self) -> list:
        return [self.s.players[p].influence for p in range(self.s.num_players)]

    def returns(self) -> list:
        """At the end: 1 shared equally among the winners (R-END-2), 0 to the others.
        All zeros before the end. Solo (one player against Lacerda, who has no score):
        the final money m as m / (m + 100), a value in [0, 1) that grows with the score
        (0.5 at $100); the solo result itself is the money (`money()`)."""
        cdef double out[MAX_PLAYERS]
        state_returns(&self.s, out)
        return [out[p] for p in range(self.s.num_players)]

    def winners(self) -> list:
        """The seats with the most money at the end (R-END-2); [] before. Solo: [0]."""
        if self.s.num_players == 1:
            return [0] if self.s.terminal else []
        return [p for p, r in enumerate(self.returns()) if r > 0]

    def final_scores(self) -> list:
        """Per player, the money of each final scoring step (RN §9.2), and the total."""
        if not self.s.terminal:
            raise IllegalActionError("final scores exist only at the end of the game")
        steps = SCORING_STEPS + ("total",)
        out = []
        for p in range(self.s.num_players):
            d = {steps[i]: self.s.players[p].score[i] for i in range(len(steps))}
            d["money"] = self.s.players[p].money
            out.append(d)
        return out

    def scoring_now(self) -> list:
        """Per player, what final scoring would pay if the game ended now (RN §9.2 on a
        copy; the end state's own scores at the end): the money of each step, "total"
        and "money" after it, as `final_scores`. A card this state hides scores 0, so on
        a player's view the others' Curator and Art Dealer steps are 0."""
        cdef int out[9 * MAX_PLAYERS]
        state_scoring_now(&self.s, out)
        steps = SCORING_STEPS + ("total", "money")
        return [{steps[i]: out[9 * p + i] for i in range(9)} for p in range(self.s.num_players)]

    def sale_value(self, artist: int) -> int:
        if not 0 <= artist < core.NUM_ARTISTS:
            raise ValueError(f"artist must be 0..{core.NUM_ARTISTS - 1}, got {artist}")
        return state_sale_value(&self.s, artist)

    def check_invariants(self) -> None:
        """Raise InvalidStateError naming the first broken invariant of docs/rules.md §4."""
        cdef int code = state_check_invariants(&self.s)
        if code:
            raise InvalidStateError(INVARIANT_NAMES[code])

    # ---- hidden information
    def view(self, player: int):
        """What `player` may know: the opponents' Curator and Art Dealer cards hidden (-1).
        The view keeps the history (for tree reuse) but cannot be undone."""
        self._check_player(player)
        cdef GameState v = self.clone_position()
        v._history = list(self._history)
        for p in range(self.s.num_players):
            if p != player:
                v.s.players[p].curator = -1
                v.s.players[p].dealer = -1
        return v

    def observation(self, player, out=None):
        """What `player` sees (exactly `view(player)`), as a float32 vector of
        OBSERVATION_SIZE numbers, own seat first (engine/_observation.pyx; the layout is
        `engine.observation_fields()`, docs/observation.md). `out`, a C-contiguous
        float32 array of shape (OBSERVATION_SIZE,), is filled and returned instead of a
        new array."""
        self._check_player(player)
        cdef float[::1] buf
        if out is None:
            out = _numpy.empty(OBSERVATION_SIZE, dtype=_numpy.float32)
        try:
            buf = out
        except (TypeError, ValueError, BufferError):
            raise _bad_observation_out(out) from None
        if buf.shape[0] != OBSERVATION_SIZE or getattr(out, "ndim", 1) != 1:
            raise _bad_observation_out(out)
        observation_fill(&self.s, <int>player, &buf[0])
        return out

    def resample_hidden(self, player: int, seed):
        """A copy in which everything `player` cannot see is a fresh consistent sample."""
        self._check_player(player)
        cdef RngC rng
        rng.s = _check_seed(seed)
        rng_next(&rng)
        cdef GameState v = self.clone_position()
        v._history = list(self._history)
        if self.s.players[player].curator < 0 or self.s.players[player].dealer < 0:
            raise InvalidStateError(f"player {player}'s own cards are unknown in this state")
        state_resample_hidden(&v.s, player, &rng)
        return v

    def hidden_known(self) -> bool:
        """True when every player's cards are known (a full state, not a view)."""
        return all(self.s.players[p].curator >= 0 and self.s.players[p].dealer >= 0
                   for p in range(self.s.num_players))

    def _check_player(self, player):
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < self.s.num_players:
            raise ValueError(f"player must be an int in 0..{self.s.num_players - 1}, got {player!r}")

    # ---- notation, rendering, serialization (implemented in Python modules)
    def action_to_string(self, action) -> str:
        from gallerist.engine.actions import action_to_string
        return action_to_string(action)

    def string_to_action(self, text) -> int:
        from gallerist.engine.actions import string_to_action
        return string_to_action(text)

    def render(self) -> str:
        from gallerist.engine.render import render
        return render(self)

    def to_dict(self) -> dict:
        from gallerist.engine.serialize import state_to_dict
        return state_to_dict(self)

    def to_proto(self):
        from gallerist.engine.serialize import state_to_proto
        return state_to_proto(self)

    def to_json(self) -> str:
        from gallerist.engine.serialize import state_to_json
        return state_to_json(self)

    @staticmethod
    def from_json(text):
        from gallerist.engine.serialize import state_from_json
        return state_from_json(text)

    @staticmethod
    def from_proto(msg):
        from gallerist.engine.serialize import state_from_proto
        return state_from_proto(msg)

    def __repr__(self):
        return f"GameState.from_json({self.to_json()!r})"

    def __reduce__(self):
        return (GameState.from_json, (self.to_json(),))

    # ---- raw access for engine.serialize (validated there before it reaches C)
    def _raw(self) -> dict:
        return state_to_raw(&self.s)

    @staticmethod
    def _from_raw(dict raw, list history=None):
        """Build a state from a raw dict that engine.serialize has validated."""
        cdef GameState g = GameState.__new__(GameState)
        raw_to_state(raw, &g.s)
        if history:
            g._history = list(history)
        return g

    def _invariant_code(self) -> int:
        return state_check_invariants(&self.s)

    def _consistency_code(self) -> int:
        """0, or the code of the first broken rule between fields (StateRule) or invariant
        (engine/_rules_consistency.pxi): what the state reader requires of a state."""
        cdef int at[CHECK_AT]
        return state_check_consistency(&self.s, at)


def new_game(num_players: int = 2, seed: int = 0) -> GameState:
    """A new game after setup; every setup shuffle is resolved from `seed`.

    `num_players=1` is the solo game against Lacerda (R-SCOPE-2), whose moves the
    engine makes itself: every decision is the player's (seat 0).

    >>> s = new_game(num_players=2, seed=1)
    >>> s.current_player
    1
    """
    _check_players(num_players)
    cdef uint64_t sd = _check_seed(seed)
    cdef int n = num_players
    cdef GameState g = GameState.__new__(GameState)
    with nogil:
        state_init(&g.s, n, sd)
    return g


def random_playouts(num_players: int = 2, games: int = 100, seed: int = 0) -> dict:
    """Play `games` uniformly random games entirely in C, without the GIL.

    Returns games, decisions (player decisions), chance (chance events), seconds,
    and the mean money of each seat at the end.
    """
    _check_players(num_players)
    if isinstance(games, bool) or not isinstance(games, int) or games < 0:
        raise ValueError(f"games must be a non-negative int, got {games!r}")
    cdef uint64_t sd = _check_seed(seed)
    cdef StateC s
    cdef RngC rng
    cdef long decisions = 0, total_money = 0, i
    cdef long g, ng = games
    cdef int p, n = num_players, unfinished = 0
    cdef double t0, t1
    cdef long money[MAX_PLAYERS]
    for p in range(MAX_PLAYERS):
        money[p] = 0
    rng.s = sd
    with nogil:
        t0 = now_s()
        for g in range(ng):
            state_init(&s, n, rng_next(&rng))
            decisions += playout_random(&s, &rng, 1000000)
            if not s.terminal:
                unfinished += 1
            for p in range(n):
                money[p] += s.players[p].money
        t1 = now_s()
    return {
        "games": games,
        "decisions": decisions,
        "seconds": t1 - t0,
        "unfinished": unfinished,
        "mean_money": [money[p] / games if games else 0.0 for p in range(n)],
    }
