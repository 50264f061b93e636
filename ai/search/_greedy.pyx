# cython: language_level=3
"""One-step greedy choices by an evaluator (a deterministic one: `Evaluator.static()`).

GreedyBot scores each move by the mover's margin once its turn is finished greedily;
MCTS and expectimax end their principal variations with greedy moves to the end of the
mover's turn (`extend_turn`)."""
from libc.math cimport INFINITY
from libc.string cimport memcpy

from gallerist.engine._core cimport (
    StateC, RngC, action_t, MAX_LEGAL, MAX_PLAYERS, PLAYER_CHANCE, rng_below, rng_next,
    NUM_ACTIONS, state_apply, state_chance_outcomes, state_current_player, state_is_legal,
    state_legal_actions, state_sample_chance,
)
from gallerist.engine.state cimport GameState
from gallerist.ai.search._common cimport max_other
from gallerist.ai.search._evaluation cimport Evaluator, leaf_values


cdef double chance_mean_eval(StateC* s, Evaluator ev, int p, int levels) noexcept nogil:
    """The evaluation's margin for player p, averaging chance points over their outcomes."""
    cdef action_t buf[MAX_LEGAL]
    cdef int w[MAX_LEGAL]
    cdef double money[MAX_PLAYERS]
    cdef int n, i, total = 0
    cdef double acc = 0
    cdef StateC c
    if levels > 0 and state_current_player(s) == PLAYER_CHANCE:
        n = state_chance_outcomes(s, buf, w)
        for i in range(n):
            memcpy(&c, s, sizeof(StateC))
            state_apply(&c, buf[i])
            acc += w[i] * chance_mean_eval(&c, ev, p, levels - 1)
            total += w[i]
        return acc / total if total else 0
    leaf_values(ev, s, NULL, money, NULL)   # exact at the end of the game
    return money[p] - max_other(money, s.num_players, p)


cdef int greedy_action(StateC* s, Evaluator ev) noexcept nogil:
    """The legal action whose successor the evaluation likes best for the mover
    (one step, chance successors averaged over their outcomes; ties: the first)."""
    cdef action_t buf[MAX_LEGAL]
    cdef int n = state_legal_actions(s, buf), i, p = state_current_player(s), best = -1
    cdef double v, best_v = -INFINITY
    cdef StateC c
    for i in range(n):
        memcpy(&c, s, sizeof(StateC))
        state_apply(&c, buf[i])
        v = chance_mean_eval(&c, ev, p, 2)
        if v > best_v + 1e-9:
            best_v = v
            best = buf[i]
    return best


cdef int most_likely_outcome(StateC* s) noexcept nogil:
    """The chance outcome with the largest weight (the first of equals)."""
    cdef action_t buf[MAX_LEGAL]
    cdef int w[MAX_LEGAL]
    cdef int n = state_chance_outcomes(s, buf, w), i, best = 0
    for i in range(1, n):
        if w[i] > w[best]:
            best = i
    return buf[best]


cdef int line_start(StateC* s, const StateC* root, int action, action_t* out) noexcept nogil:
    """Start a line with `action`: s becomes root after it, out[0] the action; returns 1."""
    memcpy(s, root, sizeof(StateC))
    state_apply(s, <action_t>action)
    out[0] = action
    return 1


cdef int extend_turn(StateC* s, int player, int turn, Evaluator ev, action_t* out, int n,
                     int max_len) noexcept nogil:
    """Continue a line greedily (most likely chance outcomes) to the end of `player`'s
    turn (`turn`: the turn count where the line started; solo, where every decision is
    the player's, the turn ends when the count moves on); returns the line's new length."""
    cdef int cp, a
    while n < max_len and not s.terminal and s.turn_count == turn:
        cp = state_current_player(s)
        if cp == PLAYER_CHANCE:
            a = most_likely_outcome(s)
        elif cp == player:
            a = greedy_action(s, ev)
        else:
            break
        state_apply(s, <action_t>a)
        out[n] = a
        n += 1
    return n


cdef double turn_value(StateC* s, int p, Evaluator ev, RngC* rng) noexcept nogil:
    """Evaluation for p at the end of p's turn, the turn finished by one-step greedy
    choices (chance outcomes sampled): a move's worth shows only once its turn is done."""
    cdef int steps = 0, cp
    cdef double money[MAX_PLAYERS]
    while not s.terminal and steps < 64:
        cp = state_current_player(s)
        if cp == PLAYER_CHANCE:
            state_apply(s, <action_t>state_sample_chance(s, rng))
        elif cp == p:
            state_apply(s, <action_t>greedy_action(s, ev))
        else:
            break
        steps += 1
    leaf_values(ev, s, NULL, money, NULL)   # exact at the end of the game
    return money[p] - max_other(money, s.num_players, p)


cdef int greedy_turn_action(StateC* s, Evaluator ev, RngC* rng, double* values,
                            action_t* moves, int given) noexcept nogil:
    """GreedyBot: each move scored by turn_value; the best (ties at random). With
    given > 0 the candidates are moves[0..given) (legal moves of s, checked by the
    caller: the root restricted to them), else every legal move. Fills moves/values and
    returns the number of moves; moves[0] is the choice."""
    cdef int n = given if given > 0 else state_legal_actions(s, moves)
    cdef int i, p = state_current_player(s), best = 0, ties = 1
    cdef StateC c
    cdef action_t ta
    cdef double tv
    for i in range(n):
        memcpy(&c, s, sizeof(StateC))
        state_apply(&c, moves[i])
        values[i] = turn_value(&c, p, ev, rng)
        if i > 0:
            if values[i] > values[best] + 1e-9:
                best = i
                ties = 1
            elif values[i] > values[best] - 1e-9:
                ties += 1
                if rng_below(rng, ties) == 0:
                    best = i
    ta = moves[0]
    moves[0] = moves[best]
    moves[best] = ta
    tv = values[0]
    values[0] = values[best]
    values[best] = tv
    return n


def greedy_moves(GameState state, unsigned long long seed, Evaluator evaluator not None,
                 list only=None):
    """GreedyBot's scores: [(action, value)] with the chosen move first; value = the
    mover's estimated money margin once its turn is finished greedily. `only`: score
    just these moves (legal in `state`, no repeats; ai.bots.base.BaseBot.root_moves checks
    them), else every legal move."""
    cdef Evaluator ev = evaluator.static()
    cdef StateC s
    cdef RngC r
    cdef action_t moves[MAX_LEGAL]
    cdef double values[MAX_LEGAL]
    cdef int n, i, given = 0
    r.s = seed
    rng_next(&r)
    memcpy(&s, &state.s, sizeof(StateC))
    if only is not None:
        if not 0 < len(only) <= MAX_LEGAL:
            raise ValueError(f"only: {len(only)} moves; give 1..{MAX_LEGAL}")
        for a in only:
            if not 0 <= a < NUM_ACTIONS or not state_is_legal(&s, <action_t>a):
                raise ValueError(f"only: action {a} is not legal here")
            moves[given] = <action_t>a
            given += 1
    with nogil:
        n = greedy_turn_action(&s, ev, &r, values, moves, given)
    return [(moves[i], values[i]) for i in range(n)]


def greedy_line(GameState state, int action, Evaluator evaluator not None, int max_len=60):
    """`action`, then greedy moves (most likely chance outcomes) to the end of the turn."""
    cdef action_t out[MAX_LINE]
    cdef StateC s
    cdef int n = line_start(&s, &state.s, action, out), k
    n = extend_turn(&s, state_current_player(&state.s), state.s.turn_count, evaluator.static(),
                    out, n, min(max_len, MAX_LINE))
    return [out[k] for k in range(n)]
