# cython: language_level=3
"""Expectimax in C without the GIL: depth-limited max^n over decision points (alpha-beta
on the money margin with two players), chance points weighted by their probabilities,
a transposition table keyed by the 64-bit position hash. Leaves are estimated by an
Evaluator (its money). `ExpectimaxEngine` is the Python wrapper that ai/bots/expectimax.py
uses (iterative deepening lives there).
"""
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset
from libc.math cimport INFINITY
from libc.stdint cimport uint64_t

from gallerist.engine._core cimport (
    StateC, RngC, action_t, MAX_LEGAL, MAX_PLAYERS, PLAYER_CHANCE, state_apply,
    state_chance_outcomes, state_current_player, state_legal_actions, state_sample_chance,
)
from gallerist.engine.state cimport GameState
from gallerist.ai.search._common cimport state_hash
from gallerist.engine._clock cimport now_s
from gallerist.ai.search._evaluation cimport Evaluator, leaf_values
from gallerist.ai.search._greedy cimport MAX_LINE, extend_turn, line_start, most_likely_outcome


cdef inline double em_scalar(const double* vec, int np) noexcept nogil:
    """The value used for pruning: two players money[0] - money[1]; solo money[0]."""
    return vec[0] - vec[1] if np > 1 else vec[0]


cdef bint em_out_of_time(EmCtx* c) noexcept nogil:
    """Count a node; every 1024 nodes check the stop flag and the deadline."""
    c.nodes += 1
    if (c.nodes & 1023) == 0:
        if c.stop[0] or (c.deadline > 0 and now_s() >= c.deadline):
            c.aborted = 1
    return c.aborted


cdef double em_chance(EmCtx* c, Evaluator ev, StateC* s, int depth, double* vec) noexcept nogil:
    """A chance point: the outcomes' values weighted by probability; with more than
    chance_width outcomes, an unweighted mean of chance_width draws by probability."""
    cdef action_t buf[MAX_LEGAL]
    cdef int w[MAX_LEGAL]
    cdef double cv[MAX_PLAYERS]
    cdef double acc[MAX_PLAYERS]
    cdef int n = state_chance_outcomes(s, buf, w), i, p, np = s.num_players, total = 0
    cdef StateC ch
    for p in range(np):
        acc[p] = 0
    if n <= c.chance_width:
        for i in range(n):
            memcpy(&ch, s, sizeof(StateC))
            state_apply(&ch, buf[i])
            em_value(c, ev, &ch, depth, -INFINITY, INFINITY, cv, NULL)
            for p in range(np):
                acc[p] += w[i] * cv[p]
            total += w[i]
    else:
        for i in range(c.chance_width):
            memcpy(&ch, s, sizeof(StateC))
            state_apply(&ch, <action_t>state_sample_chance(&ch, &c.rng))
            em_value(c, ev, &ch, depth, -INFINITY, INFINITY, cv, NULL)
            for p in range(np):
                acc[p] += cv[p]
            total += 1
    for p in range(np):
        vec[p] = acc[p] / total
    return em_scalar(vec, np)


cdef int em_order(StateC* s, int tt_best, action_t* buf) noexcept nogil:
    """The legal actions, the transposition table's best move first (move ordering)."""
    cdef int n = state_legal_actions(s, buf), i
    if tt_best >= 0:
        for i in range(n):
            if buf[i] == tt_best:
                buf[i] = buf[0]
                buf[0] = tt_best
                break
    return n


cdef void em_store(TTEntry* e, uint64_t key, int depth, int best, const double* vec,
                   int np) noexcept nogil:
    cdef int p
    e.key = key
    e.used = 1
    e.depth = depth
    e.best = best
    for p in range(np):
        e.vec[p] = vec[p]


cdef double em_decision(EmCtx* c, Evaluator ev, StateC* s, int depth, double alpha,
                        double beta, double* vec, int* best_out) noexcept nogil:
    """A decision point: the mover's best child (max^n, or alpha-beta with two players)."""
    cdef action_t buf[MAX_LEGAL]
    cdef double cv[MAX_PLAYERS]
    cdef int n, i, p, np = s.num_players, best = -1, tt_best = -1, cp = state_current_player(s)
    cdef double sc, best_sc = -INFINITY
    cdef StateC ch
    cdef uint64_t key = state_hash(s)
    cdef TTEntry* e = &c.tt[key & c.tt_mask]
    if e.used and e.key == key:
        tt_best = e.best
        if e.depth >= depth and best_out == NULL:
            for p in range(np):
                vec[p] = e.vec[p]
            return em_scalar(vec, np)
    n = em_order(s, tt_best, buf)
    for i in range(n):
        memcpy(&ch, s, sizeof(StateC))
        state_apply(&ch, buf[i])
        sc = em_value(c, ev, &ch, depth - 1, alpha, beta, cv, NULL)
        if c.aborted:
            break
        if not c.alpha_beta:
            sc = cv[cp]
        elif cp == 1:
            sc = -sc
        if best < 0 or sc > best_sc:
            best_sc = sc
            best = buf[i]
            for p in range(np):
                vec[p] = cv[p]
        if c.alpha_beta:
            if cp == 0:
                if sc > alpha:
                    alpha = sc
            elif -sc < beta:
                beta = -sc
            if alpha >= beta:
                break
    if best_out != NULL:
        best_out[0] = best
    if not c.aborted and best >= 0 and (not c.alpha_beta or alpha < beta):
        em_store(e, key, depth, best, vec, np)
    return em_scalar(vec, np)


cdef double em_value(EmCtx* c, Evaluator ev, StateC* s, int depth, double alpha, double beta,
                     double* vec, int* best_out) noexcept nogil:
    """Value vector (estimated final money) of s searched `depth` decisions deep.
    Returns the scalar used for pruning (two players: money[0] - money[1])."""
    cdef int p
    if em_out_of_time(c):
        for p in range(s.num_players):
            vec[p] = 0
        return 0
    if s.terminal or depth <= 0:
        leaf_values(ev, s, &c.rng, vec, NULL)   # exact at the end of the game
        return em_scalar(vec, s.num_players)
    if state_current_player(s) == PLAYER_CHANCE:
        return em_chance(c, ev, s, depth, vec)
    return em_decision(c, ev, s, depth, alpha, beta, vec, best_out)


cdef class ExpectimaxEngine:
    """Depth-limited expectimax with a transposition table (kept between searches).

    Args:
        evaluator: the leaf estimate (its money); its `static()` ends the principal
            variations.
        chance_width, tt_bits, alpha_beta: as ExpectimaxBot (which owns their defaults;
            every one is required here).
    """

    def __cinit__(self, Evaluator evaluator not None, *, int chance_width, int tt_bits,
                  bint alpha_beta):
        self.evaluator = evaluator
        self.tt_bits = tt_bits
        self.ctx.tt = <TTEntry*>malloc((1 << self.tt_bits) * sizeof(TTEntry))
        if self.ctx.tt == NULL:
            raise MemoryError()
        memset(self.ctx.tt, 0, (1 << self.tt_bits) * sizeof(TTEntry))
        self.ctx.tt_mask = (1 << self.tt_bits) - 1
        self.ctx.chance_width = chance_width
        self.ctx.alpha_beta = 1 if alpha_beta else 0
        self.stop_flag = 0
        self.ctx.stop = &self.stop_flag

    def __dealloc__(self):
        free(self.ctx.tt)

    def stop(self):
        self.stop_flag = 1

    def search_root(self, GameState state, int depth, double deadline, uint64_t seed, list order,
                    bint stopped=False):
        """Search every root move (in `order`) to `depth`; returns (complete, [(action,
        vec)], nodes). Root moves get a full window so that each has an exact value."""
        cdef StateC ch
        cdef double vec[MAX_PLAYERS]
        cdef int p, np = state.s.num_players
        cdef int a
        self.stop_flag = 1 if stopped else 0
        self.ctx.aborted = 0
        self.ctx.deadline = deadline
        self.ctx.rng.s = seed
        self.ctx.alpha_beta = self.ctx.alpha_beta and np == 2
        nodes0 = self.ctx.nodes
        res = []
        for a in order:
            memcpy(&ch, &state.s, sizeof(StateC))
            with nogil:
                state_apply(&ch, <action_t>a)
                em_value(&self.ctx, self.evaluator, &ch, depth - 1, -INFINITY, INFINITY, vec, NULL)
            if self.ctx.aborted:
                return False, res, self.ctx.nodes - nodes0
            res.append((a, [vec[p] for p in range(np)]))
        return True, res, self.ctx.nodes - nodes0

    def principal_variation(self, GameState state, int action, int max_len=60):
        """From `action`: the table's best moves (most likely chance outcomes), then greedy
        to the end of the mover's turn."""
        cdef action_t out[MAX_LINE]
        cdef StateC s
        cdef int n = line_start(&s, &state.s, action, out), cp, k
        cdef int player = state_current_player(&state.s)
        cdef uint64_t key
        cdef TTEntry* e
        max_len = min(max_len, MAX_LINE)
        while n < max_len and not s.terminal and s.turn_count == state.s.turn_count:
            cp = state_current_player(&s)
            if cp == PLAYER_CHANCE:
                k = most_likely_outcome(&s)
            elif cp == player:
                key = state_hash(&s)
                e = &self.ctx.tt[key & self.ctx.tt_mask]
                if not (e.used and e.key == key and e.best >= 0):
                    break
                k = e.best
            else:
                break
            state_apply(&s, <action_t>k)
            out[n] = k
            n += 1
        n = extend_turn(&s, player, state.s.turn_count, self.evaluator.static(), out, n, max_len)
        return [out[k] for k in range(n)]
