# cython: language_level=3
"""MCTS in C without the GIL: UCT over a value vector per node, determinized by
resampling what the viewer cannot see, root-parallel (one tree per thread).

A leaf is estimated by an Evaluator (the bots pass a RolloutEvaluator: play on, then
the heuristic, or a ModelEvaluator); the rewards that UCT maximises are made from its
money and win estimates here (`to_rewards`). With a prior model (a ModelEvaluator) the
selection at decision points is PUCT, Q + c_puct * P * sqrt(N) / (1 + n), the priors P
of a node's children stored when it is expanded; chance points are sampled as with UCT.
`MctsEngine` is the Python wrapper that ai/bots/mcts.py uses.
"""
from libc.stdlib cimport malloc, realloc, free
from posix.stdlib cimport posix_memalign
from libc.string cimport memcpy, memset
from libc.math cimport sqrt, log, tanh, INFINITY
from libc.stdint cimport uint64_t, int32_t

from gallerist.engine._core cimport (
    StateC, RngC, action_t, MAX_LEGAL, MAX_PLAYERS, NUM_ACTIONS, PLAYER_CHANCE, PLAYER_TERMINAL,
    rng_below, rng_next, state_apply, state_chance_outcomes, state_current_player,
    state_is_legal, state_legal_actions, state_resample_hidden, state_sample_chance,
)
from gallerist.engine.state cimport GameState
from gallerist.ai.search._common cimport state_hash
from gallerist.engine._clock cimport now_s
from gallerist.ai.search._evaluation cimport Evaluator, leaf_values
from gallerist.ai.search._model cimport ModelEvaluator
from gallerist.ai.search._greedy cimport MAX_LINE, extend_turn, line_start

# ---------------------------------------------------------------- the tree

cdef int32_t tree_new_node(TreeC* t, int action) noexcept nogil:
    cdef NodeC* grown
    cdef int32_t cap
    if t.size == t.cap:
        cap = 1024 if t.cap == 0 else 2 * t.cap
        grown = <NodeC*>realloc(t.nodes, cap * sizeof(NodeC))
        if grown == NULL:
            t.failed = 1
            return -1
        t.nodes = grown
        t.cap = cap
    memset(&t.nodes[t.size], 0, sizeof(NodeC))
    t.nodes[t.size].num_children = -1
    t.nodes[t.size].action = action
    t.nodes[t.size].player = PLAYER_TERMINAL
    t.size += 1
    return t.size - 1


cdef bint tree_add_children(TreeC* t, int32_t node, int player, const action_t* acts,
                            int n, const float* priors) noexcept nogil:
    """Expand `node` (`player` to move there) with one child per action of acts[0..n),
    child i with the prior priors[i] (priors NULL: 0, unused by UCT)."""
    cdef int i
    cdef int32_t first = -1, c
    for i in range(n):
        c = tree_new_node(t, acts[i])
        if c < 0:
            return False
        if priors != NULL:
            t.nodes[c].prior = priors[i]
        if i == 0:
            first = c
    t.nodes[node].first_child = first
    t.nodes[node].num_children = n
    t.nodes[node].player = player
    return True


cdef bint tree_expand(TreeC* t, int32_t node, StateC* s, ModelEvaluator pm, double* money,
                      double* win) noexcept nogil:
    """Create node's children: the legal actions of s, or its chance outcomes. With a
    prior model pm, a decision point's children get pm's policy as priors, and when
    money is not NULL the same forward pass fills pm's value of s (money, win)."""
    cdef action_t buf[MAX_LEGAL]
    cdef int w[MAX_LEGAL]
    cdef float pr[MAX_LEGAL]
    cdef int n
    cdef int player = state_current_player(s)
    if player == PLAYER_CHANCE:
        n = state_chance_outcomes(s, buf, w)
    elif player == PLAYER_TERMINAL:
        n = 0
    else:
        n = state_legal_actions(s, buf)
        if pm is not None:
            if money != NULL:
                pm.evaluate_policy(s, money, win, buf, n, pr)
            else:
                pm.policy(s, buf, n, pr)
            return tree_add_children(t, node, player, buf, n, pr)
    return tree_add_children(t, node, player, buf, n, NULL)


cdef int32_t select_child(TreeC* t, int32_t node, double c_uct) noexcept nogil:
    """UCT by the mover's own reward entry; unvisited children first, at random."""
    cdef NodeC* nd = &t.nodes[node]
    cdef int i, unvisited = 0, pick, p = nd.player
    cdef int32_t ch, best = -1
    cdef double lg, score, best_score = -INFINITY
    for i in range(nd.num_children):
        if t.nodes[nd.first_child + i].visits == 0:
            unvisited += 1
    if unvisited:
        pick = rng_below(&t.rng, unvisited)
        for i in range(nd.num_children):
            if t.nodes[nd.first_child + i].visits == 0:
                if pick == 0:
                    return nd.first_child + i
                pick -= 1
    lg = log(<double>nd.visits)
    for i in range(nd.num_children):
        ch = nd.first_child + i
        score = (t.nodes[ch].reward[p] / t.nodes[ch].visits
                 + c_uct * sqrt(lg / t.nodes[ch].visits))
        if score > best_score:
            best_score = score
            best = ch
    return best


cdef int32_t select_puct(TreeC* t, int32_t node, double c_puct,
                         double fpu_reduction) noexcept nogil:
    """PUCT by the mover's own reward entry: Q + c_puct * P * sqrt(N) / (1 + n), where an
    unvisited child's Q is the node's own mean reward for the mover (first-play urgency
    at the parent's value), less fpu_reduction * sqrt(sum of the visited children's
    priors) (Leela Zero's reduction: the more of the policy already searched, the less
    an unsearched move is presumed worth); ties to the first child."""
    cdef NodeC* nd = &t.nodes[node]
    cdef int i, p = nd.player
    cdef int32_t ch, best = nd.first_child
    cdef double q, score, best_score = -INFINITY, seen = 0
    cdef double sq = sqrt(<double>(nd.visits if nd.visits > 0 else 1))
    cdef double fpu = nd.reward[p] / nd.visits if nd.visits > 0 else 0.5
    if fpu_reduction > 0:
        for i in range(nd.num_children):
            if t.nodes[nd.first_child + i].visits > 0:
                seen += t.nodes[nd.first_child + i].prior
        fpu -= fpu_reduction * sqrt(seen)
    for i in range(nd.num_children):
        ch = nd.first_child + i
        if t.nodes[ch].visits > 0:
            q = t.nodes[ch].reward[p] / t.nodes[ch].visits
        else:
            q = fpu
        score = q + c_puct * t.nodes[ch].prior * sq / (1 + t.nodes[ch].visits)
        if score > best_score:
            best_score = score
            best = ch
    return best


cdef int32_t find_child(const TreeC* t, int32_t node, int action) noexcept nogil:
    cdef const NodeC* nd = &t.nodes[node]
    cdef int i
    for i in range(nd.num_children):
        if t.nodes[nd.first_child + i].action == action:
            return nd.first_child + i
    return -1

# ---------------------------------------------------------------- one iteration

cdef void to_rewards(const StateC* s, const double* money, const double* win,
                     const RewardParams* rp, double* out) noexcept nogil:
    """Reward in [0, 1] per player: (1 - w) * win share + w * margin, where margin =
    0.5 + 0.5 tanh((own money - best other) / margin_scale). Solo, with nobody to beat:
    a logistic of the score, 0.5 + 0.5 tanh((money - solo_reference) / solo_scale)."""
    cdef int p, q, n = s.num_players
    cdef double best
    if n == 1:
        out[0] = 0.5 + 0.5 * tanh((money[0] - rp.solo_reference) / rp.solo_scale)
        return
    for p in range(n):
        best = -INFINITY
        for q in range(n):
            if q != p and money[q] > best:
                best = money[q]
        out[p] = ((1 - rp.margin_weight) * win[p]
                  + rp.margin_weight * (0.5 + 0.5 * tanh((money[p] - best) / rp.margin_scale)))


cdef int subtree_depth(const TreeC* t, int32_t node) noexcept nogil:
    """The decisions searched below `node`: the most decision points (chance events not
    counted) on a path of visited nodes from it. Recursion as deep as the tree (a game's
    length at most)."""
    cdef const NodeC* nd = &t.nodes[node]
    cdef int k, d, best = 0
    cdef int step = 1 if nd.player >= 0 else 0
    if nd.num_children <= 0:
        return 0
    for k in range(nd.num_children):
        if t.nodes[nd.first_child + k].visits > 0:
            d = subtree_depth(t, nd.first_child + k) + step
            if d > best:
                best = d
    return best


cdef int tree_descend(TreeC* t, StateC* s, const MctsParams* mp, ModelEvaluator pm,
                      int32_t* path) noexcept nogil:
    """Select (UCT; chance by sampling) and expand from the root while the tree knows the
    way, applying the moves to s; fills path[0..depth] and returns depth."""
    cdef int depth = 0
    cdef int32_t node = t.root, child
    cdef NodeC* nd
    path[0] = node
    while not s.terminal and depth < 4000:
        nd = &t.nodes[node]
        if nd.num_children < 0:
            if t.size >= mp.max_nodes or not tree_expand(t, node, s, pm, NULL, NULL):
                break
            nd = &t.nodes[node]
        if nd.num_children == 0 or nd.player != state_current_player(s):
            break
        if nd.player == PLAYER_CHANCE:
            child = find_child(t, node, state_sample_chance(s, &t.rng))
            if child < 0:
                break
        elif mp.use_prior:
            child = select_puct(t, node, mp.c_puct, mp.fpu_reduction)
        else:
            child = select_child(t, node, mp.c_uct)
        state_apply(s, <action_t>t.nodes[child].action)
        depth += 1
        path[depth] = child
        node = child
        if t.nodes[child].visits == 0:
            break
    return depth


cdef void mcts_iterate(TreeC* t, const StateC* root, const MctsParams* mp,
                       Evaluator ev, ModelEvaluator pm) noexcept nogil:
    """One iteration: determinize, select, expand, evaluate the leaf, back up. When the
    leaf estimate is the prior model itself (expand_leaf), a new decision-point leaf is
    expanded at once, its priors and its value from one forward pass."""
    cdef StateC s
    cdef int32_t path[4096]
    cdef int depth, i, p, n
    cdef double money[MAX_PLAYERS]
    cdef double win[MAX_PLAYERS]
    cdef double rew[MAX_PLAYERS]
    cdef NodeC* nd
    cdef int32_t leaf
    cdef bint done = False
    memcpy(&s, root, sizeof(StateC))
    state_resample_hidden(&s, mp.viewer, &t.rng)   # never the true hidden cards
    depth = tree_descend(t, &s, mp, pm, path)
    leaf = path[depth]
    if (mp.expand_leaf and not s.terminal and t.nodes[leaf].num_children < 0
            and state_current_player(&s) >= 0 and t.size < mp.max_nodes):
        tree_expand(t, leaf, &s, pm, money, win)   # the value is filled even if memory ran out
        done = True
    if not done:
        t.decisions += leaf_values(ev, &s, &t.rng, money, win)
    to_rewards(&s, money, win, &mp.rp, rew)
    n = s.num_players
    if depth >= 1:   # the outcomes seen through each root move: their range
        i = path[1] - t.nodes[t.root].first_child
        if 0 <= i < MAX_LEGAL:
            for p in range(n):
                if money[p] < t.money_lo[4 * i + p]:
                    t.money_lo[4 * i + p] = <float>money[p]
                if money[p] > t.money_hi[4 * i + p]:
                    t.money_hi[4 * i + p] = <float>money[p]
    for i in range(depth + 1):
        nd = &t.nodes[path[i]]
        nd.visits += 1
        for p in range(n):
            nd.reward[p] += rew[p]
            nd.money[p] += money[p]
            nd.win[p] += win[p]
    t.iterations += 1


cdef void mcts_run(TreeC* t, const StateC* root, const MctsParams* mp, Evaluator ev,
                   ModelEvaluator pm, long iterations, double deadline, int* stop) noexcept nogil:
    """Iterate until `iterations` (if > 0), the deadline (if > 0) or *stop."""
    cdef long i = 0
    while True:
        if iterations > 0 and i >= iterations:
            break
        if (i & 31) == 0:
            if stop[0]:
                break
            if deadline > 0 and now_s() >= deadline:
                break
        mcts_iterate(t, root, mp, ev, pm)
        if t.failed:
            break
        i += 1
        if iterations <= 0 and deadline <= 0 and i >= 1000000:
            break


cdef bint same_position(const StateC* a, const StateC* b) noexcept nogil:
    """Equal states up to the hidden cards."""
    cdef StateC x, y
    cdef int p
    memcpy(&x, a, sizeof(StateC))
    memcpy(&y, b, sizeof(StateC))
    for p in range(4):
        x.players[p].curator = 0
        x.players[p].dealer = 0
        y.players[p].curator = 0
        y.players[p].dealer = 0
    return state_hash(&x) == state_hash(&y)

# ---------------------------------------------------------------- Python wrapper


#: Bytes of one tree header: a multiple of the 128-byte alignment, so that no two
#: threads' headers share a cache line (TreeC's `pad` in _mcts.pxd makes it so).
TREE_HEADER_BYTES = sizeof(TreeC)
if TREE_HEADER_BYTES % 128:
    raise ImportError(f"gallerist.ai.search._mcts: TreeC takes {TREE_HEADER_BYTES} bytes, not a multiple "
                      f"of 128: resize its pad in ai/search/_mcts.pxd to the fields before it")


cdef class MctsEngine:
    """UCT search trees (one per thread, root-parallel) on one game.

    Args:
        threads: trees, each searched by its own `run` call (one thread each).
        evaluator: the leaf estimate; its `static()` ends the principal variations.
        prior: a ModelEvaluator whose policy gives PUCT's priors, or None (UCT).
        c, c_puct, fpu_reduction, max_nodes, margin_weight, margin_scale, solo_reference,
            solo_scale: as MctsBot (which owns their defaults; every one is required here).
    """

    def __cinit__(self, int threads, Evaluator evaluator not None, *, double c, double c_puct,
                  double fpu_reduction, ModelEvaluator prior, int max_nodes,
                  double margin_weight, double margin_scale, double solo_reference,
                  double solo_scale):
        if threads < 1:
            threads = 1
        self.nthreads = threads
        if posix_memalign(<void**>&self.trees, 128, threads * sizeof(TreeC)) != 0:
            self.trees = NULL
            raise MemoryError()
        memset(self.trees, 0, threads * sizeof(TreeC))
        self.evaluator = evaluator
        self.prior = prior
        self.mp.c_uct = c
        self.mp.c_puct = c_puct
        self.mp.fpu_reduction = fpu_reduction
        self.mp.use_prior = prior is not None
        self.mp.expand_leaf = prior is not None and prior is evaluator
        self.mp.max_nodes = max_nodes
        self.mp.rp.margin_weight = margin_weight
        self.mp.rp.margin_scale = margin_scale
        self.mp.rp.solo_reference = solo_reference
        self.mp.rp.solo_scale = solo_scale
        self.stop_flag = 0
        self.root_history = None
        self.root_only = None
        self.root_viewer = -9

    def __dealloc__(self):
        cdef int i
        if self.trees != NULL:
            for i in range(self.nthreads):
                free(self.trees[i].nodes)
                free(self.trees[i].money_lo)
                free(self.trees[i].money_hi)
            free(self.trees)

    cdef int _reset_ranges(self, int i) except -1:
        """Forget the outcome ranges of the root's moves (a new search)."""
        cdef TreeC* t = &self.trees[i]
        cdef int k
        if t.money_lo == NULL:
            t.money_lo = <float*>malloc(MAX_LEGAL * 4 * sizeof(float))
            t.money_hi = <float*>malloc(MAX_LEGAL * 4 * sizeof(float))
            if t.money_lo == NULL or t.money_hi == NULL:
                raise MemoryError()
        for k in range(MAX_LEGAL * 4):
            t.money_lo[k] = INFINITY
            t.money_hi[k] = -INFINITY
        return 0

    cdef void _reset_tree(self, int i, uint64_t seed):
        cdef TreeC* t = &self.trees[i]
        t.size = 0
        t.failed = 0
        t.root = tree_new_node(t, -1)
        t.rng.s = seed
        rng_next(&t.rng)

    cdef bint _follows_root(self, GameState state, int viewer, bint reuse):
        """Whether `state` is the previous root after more actions (same viewer)."""
        cdef list hist = state.history
        cdef list old = self.root_history
        cdef StateC walk
        if not (reuse and old is not None and viewer == self.root_viewer
                and len(hist) >= len(old) and hist[:len(old)] == old):
            return False
        # the new state must be the old root after the extra actions (cards aside)
        memcpy(&walk, &self.root, sizeof(StateC))
        for a in hist[len(old):]:
            if not state_is_legal(&walk, <action_t>a):
                return False
            state_apply(&walk, <action_t>a)
        return same_position(&walk, &state.s)

    cdef int32_t _subtree(self, int i, list extra):
        """Tree i's node after the actions `extra` from its root, or -1."""
        cdef int32_t node = self.trees[i].root
        for a in extra:
            if self.trees[i].nodes[node].num_children < 0:
                return -1
            node = find_child(&self.trees[i], node, a)
            if node < 0:
                return -1
        return node

    def prepare(self, GameState state, int viewer, uint64_t seed, bint reuse, only=None):
        """Set the root; keep the trees when `state` follows the previous root's history
        (same viewer), otherwise start new ones. `only`: search just these root moves
        (legal in `state`, no repeats: ai.bots.base.BaseBot.root_moves checks them); a
        restricted root is kept only for the same position and the same moves. Returns
        how many nodes were reused."""
        cdef int i, k, n_only = 0
        cdef int32_t node
        cdef list hist = state.history
        cdef long reused = 0
        cdef action_t acts[MAX_LEGAL]
        cdef float pr[MAX_LEGAL]
        key = None
        if only is not None:
            key = tuple(only)
            if not 0 < len(key) <= MAX_LEGAL:
                raise ValueError(f"only: {len(key)} moves; give 1..{MAX_LEGAL}")
            for a in key:
                if not 0 <= a < NUM_ACTIONS or not state_is_legal(&state.s, <action_t>a):
                    raise ValueError(f"only: action {a} is not legal here")
                acts[n_only] = <action_t>a
                n_only += 1
        if n_only and self.prior is not None:
            self.prior.policy(&state.s, acts, n_only, pr)
        can = self._follows_root(state, viewer, reuse)
        extra = hist[len(self.root_history):] if can else []
        if key != self.root_only or (key is not None and extra):
            can = False
            extra = []
        memcpy(&self.root, &state.s, sizeof(StateC))
        self.mp.viewer = viewer
        for i in range(self.nthreads):
            self.trees[i].iterations = 0
            self.trees[i].decisions = 0
            self._reset_ranges(i)
            if can and self.trees[i].size > 0 and self.trees[i].size < self.mp.max_nodes // 2:
                node = self._subtree(i, extra)
                if node >= 0:
                    self.trees[i].root = node
                    self.trees[i].rng.s ^= seed
                    reused += self.trees[i].nodes[node].visits
                    continue
            self._reset_tree(i, (seed + 0x9E3779B97F4A7C15 * (i + 1)) & 0xFFFFFFFFFFFFFFFF)
            # the root restricted to `only` (allow/avoid): expanded with just those moves
            # (with a prior model, its policy over those moves as their priors)
            if n_only and not tree_add_children(&self.trees[i], self.trees[i].root,
                                                state_current_player(&state.s), acts, n_only,
                                                pr if self.prior is not None else NULL):
                raise MemoryError("mcts: cannot expand the root")
        self.root_only = key
        self.root_history = list(hist)
        self.root_viewer = viewer
        self.stop_flag = 0
        return reused

    def run(self, int i, long iterations, double deadline):
        """Search with tree i (call from one thread per tree); releases the GIL."""
        if not 0 <= i < self.nthreads:
            raise ValueError("tree index")
        with nogil:
            mcts_run(&self.trees[i], &self.root, &self.mp, self.evaluator, self.prior, iterations,
                     deadline, &self.stop_flag)

    def stop(self):
        self.stop_flag = 1

    def stats(self, bint depth=False):
        """Merged root statistics: {action: [visits, reward[], money[], win[], depth,
        lowest money[], highest money[]]} (with `depth`, the decisions searched below the
        action, the deepest of the trees, else 0; the lowest and highest final money this
        search backed up through the action, by seat: inf and -inf before any), nodes,
        iterations, rollout decisions."""
        cdef int i, k, p, n = self.root.num_players, k_depth
        cdef TreeC* t
        cdef NodeC* nd
        cdef NodeC* ch
        out = {}
        nodes = iters = decisions = 0
        for i in range(self.nthreads):
            t = &self.trees[i]
            nodes += t.size
            iters += t.iterations
            decisions += t.decisions
            if t.size == 0 or t.nodes[t.root].num_children <= 0:
                continue
            nd = &t.nodes[t.root]
            for k in range(nd.num_children):
                ch = &t.nodes[nd.first_child + k]
                e = out.get(ch.action)
                if e is None:
                    e = out[ch.action] = [0, [0.0] * n, [0.0] * n, [0.0] * n, 0,
                                          [INFINITY] * n, [-INFINITY] * n]
                e[0] += ch.visits
                if t.money_lo != NULL and k < MAX_LEGAL:
                    for p in range(n):
                        e[5][p] = min(e[5][p], t.money_lo[4 * k + p])
                        e[6][p] = max(e[6][p], t.money_hi[4 * k + p])
                if depth and ch.visits > 0:
                    with nogil:
                        k_depth = subtree_depth(t, nd.first_child + k)
                    e[4] = max(e[4], k_depth)
                for p in range(n):
                    e[1][p] += ch.reward[p]
                    e[2][p] += ch.money[p]
                    e[3][p] += ch.win[p]
        return {"children": out, "nodes": nodes, "iterations": iters, "decisions": decisions}

    def principal_variation(self, int action, int max_len=60):
        """From root action `action`: the most visited line (tree 0, chance by its most
        visited outcome) while it stays with the mover, then greedy to the end of the
        mover's turn."""
        cdef action_t out[MAX_LINE]
        cdef StateC s
        cdef TreeC* t = &self.trees[0]
        cdef int n = line_start(&s, &self.root, action, out), best_i, k, cp
        cdef int player = state_current_player(&self.root)
        cdef int32_t node
        cdef NodeC* nd
        max_len = min(max_len, MAX_LINE)
        node = find_child(t, t.root, action) if t.size and t.nodes[t.root].num_children > 0 else -1
        while node >= 0 and n < max_len and not s.terminal:
            nd = &t.nodes[node]
            cp = state_current_player(&s)
            if nd.num_children <= 0 or (cp != player and cp != PLAYER_CHANCE) \
                    or s.turn_count != self.root.turn_count:
                break
            best_i = 0
            for k in range(1, nd.num_children):
                if t.nodes[nd.first_child + k].visits > t.nodes[nd.first_child + best_i].visits:
                    best_i = k
            if t.nodes[nd.first_child + best_i].visits < 2:
                break
            node = nd.first_child + best_i
            state_apply(&s, <action_t>t.nodes[node].action)
            out[n] = t.nodes[node].action
            n += 1
        n = extend_turn(&s, player, self.root.turn_count, self.evaluator.static(), out, n, max_len)
        return [out[k] for k in range(n)]

    def continuation(self, int action, int min_visits=10, int max_len=24):
        """From root action `action`: the most visited line of tree 0 (chance by its most
        visited outcome), split where the mover's turn ends: (the mover's part, the
        rest). The mover's part follows the tree as principal_variation does (steps of 2
        visits or more), the rest only steps of `min_visits` or more. Never extended
        greedily: every step is the search's own ([], [] when `action` itself has fewer
        than `min_visits`)."""
        cdef action_t out[MAX_LINE]
        cdef StateC s
        cdef TreeC* t = &self.trees[0]
        cdef int n = line_start(&s, &self.root, action, out), best_i, k, cp, turn_end = -1
        cdef int player = state_current_player(&self.root)
        cdef int32_t node
        cdef NodeC* nd
        max_len = min(max_len, MAX_LINE)
        node = find_child(t, t.root, action) if t.size and t.nodes[t.root].num_children > 0 else -1
        if node < 0 or t.nodes[node].visits < min_visits:
            return [], []
        while node >= 0 and n < max_len and not s.terminal:
            nd = &t.nodes[node]
            cp = state_current_player(&s)
            if turn_end < 0 and ((cp != player and cp != PLAYER_CHANCE)
                                 or s.turn_count != self.root.turn_count):
                turn_end = n
            if nd.num_children <= 0:
                break
            best_i = 0
            for k in range(1, nd.num_children):
                if t.nodes[nd.first_child + k].visits > t.nodes[nd.first_child + best_i].visits:
                    best_i = k
            # the mover's turn as principal_variation follows it, then min_visits
            if t.nodes[nd.first_child + best_i].visits < (2 if turn_end < 0 else min_visits):
                break
            node = nd.first_child + best_i
            state_apply(&s, <action_t>t.nodes[node].action)
            out[n] = t.nodes[node].action
            n += 1
        if turn_end < 0:
            turn_end = n
        return [out[k] for k in range(turn_end)], [out[k] for k in range(turn_end, n)]
