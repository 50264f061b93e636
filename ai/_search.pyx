# cython: language_level=3
"""Search in C without the GIL: the shared evaluation, MCTS (UCT with determinization)
and expectimax (max^n, alpha-beta for two players). The Python classes in ai/ wrap it.
"""
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy, memset
from libc.math cimport sqrt, log, exp, tanh, INFINITY
from libc.stdint cimport uint64_t, int32_t, int16_t, int8_t, uint8_t
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from engine._core cimport (
    StateC, RngC, TaskC, action_t, MAX_LEGAL, MAX_TASKS, NUM_ACTIONS, PLAYER_CHANCE,
    PLAYER_TERMINAL, state_current_player, state_legal_actions, state_chance_outcomes,
    state_apply, state_sample_chance, state_returns, state_resample_hidden, state_score_now,
    state_is_legal,
    rng_next, rng_below, solo_return,
)
cimport engine._core as core
from engine.state cimport GameState

# ---------------------------------------------------------------- time

cdef double now_s() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9

cdef inline double rng_unit(RngC* r) noexcept nogil:
    return (rng_next(r) >> 11) * (1.0 / 9007199254740992.0)

# ---------------------------------------------------------------- evaluation

cdef int MONEY_ICON_POS[20]
MONEY_ICON_POS[:] = [0, 1, 4, 8, 12, 15, 18, 20, 22, 24, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35]

cdef inline int influence_money_steps(int infl) noexcept nogil:
    cdef int i, n = 0
    for i in range(20):
        if MONEY_ICON_POS[i] < infl:
            n += 1
    return n

cdef struct EvalParams:
    double ticket_value        # $ per held ticket
    double commission_value    # $ for a held commission
    double influence_value     # $ per money step influence could still pay
    double win_temperature     # $ scale of the softmax that turns money into win chances
    double margin_scale        # $ scale of the margin reward
    double margin_weight       # reward = (1 - w) * win + w * margin
    double solo_reference      # solo: the final money that earns reward 0.5
    double solo_scale          # solo: $ scale of the logistic reward

cdef void eval_money(const StateC* s, const EvalParams* ep, double* out) noexcept nogil:
    """Estimated final money of each player: the game scored as it stands (every final
    scoring step, hidden cards at their mean) plus small values for held resources."""
    cdef int p
    state_score_now(s, out)
    if s.terminal:
        return
    for p in range(s.num_players):
        out[p] += ep.ticket_value * (s.players[p].tickets[0] + s.players[p].tickets[1]
                                     + s.players[p].tickets[2])
        # influence can still buy money or fame: worth more than its end value
        out[p] += ep.influence_value * influence_money_steps(s.players[p].influence)
        if s.players[p].commission >= 0:
            out[p] += ep.commission_value

cdef void win_chances(const double* money, int n, double temp, double* out) noexcept nogil:
    """Softmax of money: the estimated probability that each player wins."""
    cdef int p
    cdef double m = -INFINITY, z = 0
    for p in range(n):
        if money[p] > m:
            m = money[p]
    for p in range(n):
        out[p] = exp((money[p] - m) / temp)
        z += out[p]
    for p in range(n):
        out[p] /= z

cdef void to_rewards(const StateC* s, const double* money, const double* win, const EvalParams* ep,
                     double* out) noexcept nogil:
    """Reward in [0, 1] per player: (1 - w) * win share + w * margin, where margin =
    0.5 + 0.5 tanh((own money - best other) / margin_scale). Solo, with nobody to beat:
    a logistic of the score, 0.5 + 0.5 tanh((money - solo_reference) / solo_scale)."""
    cdef int p, q, n = s.num_players
    cdef double best
    if n == 1:
        out[0] = 0.5 + 0.5 * tanh((money[0] - ep.solo_reference) / ep.solo_scale)
        return
    for p in range(n):
        best = -INFINITY
        for q in range(n):
            if q != p and money[q] > best:
                best = money[q]
        out[p] = ((1 - ep.margin_weight) * win[p]
                  + ep.margin_weight * (0.5 + 0.5 * tanh((money[p] - best) / ep.margin_scale)))

cdef void leaf_values(const StateC* s, const EvalParams* ep, double* money, double* win) noexcept nogil:
    """Money and win share at a leaf: exact at the end, estimated before."""
    cdef int p
    if s.terminal:
        for p in range(s.num_players):
            money[p] = s.players[p].money
        state_returns(s, win)
    else:
        eval_money(s, ep, money)
        if s.num_players == 1:        # solo: the estimated return, as state_returns
            win[0] = solo_return(money[0])
        else:
            win_chances(money, s.num_players, ep.win_temperature, win)

# ---------------------------------------------------------------- rollout policy

cdef float POLICY_WEIGHT[NUM_ACTIONS]

cdef void init_policy_weights():
    """The cheap heuristic rollout policy: static preferences per action id."""
    cdef int a, k
    for a in range(NUM_ACTIONS):
        POLICY_WEIGHT[a] = 4.0
    POLICY_WEIGHT[core.A_END_TURN] = 3.0
    POLICY_WEIGHT[core.A_KO_PASS] = 1.0
    POLICY_WEIGHT[core.A_TMOVE_DONE] = 2.0
    POLICY_WEIGHT[core.A_DEAL4_YES] = 1.0
    POLICY_WEIGHT[core.A_LEAVE_NONE] = 2.0
    for k in range(20):                 # pay with money rather than influence
        POLICY_WEIGHT[core.A_PAY + k] = 8.0 / (1 + k)
    for k in range(8):                  # fame steps cost influence
        POLICY_WEIGHT[core.A_FAME + k] = 6.0 / (1 + 2 * k)
    for k in range(12):
        POLICY_WEIGHT[core.A_SELL + k] = 8.0
    for k in range(3):                  # visitors toward one's own gallery
        POLICY_WEIGHT[core.A_TMOVE + 5 * k + 0] = 5.0
        POLICY_WEIGHT[core.A_TMOVE + 5 * k + 1] = 8.0
    POLICY_WEIGHT[core.A_ACTION + 1] = 5.0

init_policy_weights()

cdef int choose_policy(StateC* s, int policy, RngC* rng, action_t* buf) noexcept nogil:
    cdef int n = state_legal_actions(s, buf), i
    cdef double total = 0, r
    if n <= 1 or policy == 0:
        return buf[rng_below(rng, n)]
    for i in range(n):
        total += POLICY_WEIGHT[buf[i]]
    r = rng_unit(rng) * total
    for i in range(n):
        r -= POLICY_WEIGHT[buf[i]]
        if r <= 0:
            return buf[i]
    return buf[n - 1]

cdef int rollout(StateC* s, int policy, int cutoff, RngC* rng) noexcept nogil:
    """Play on to the end, or for `cutoff` decisions when cutoff > 0; returns decisions."""
    cdef action_t buf[MAX_LEGAL]
    cdef int d = 0
    while not s.terminal and s.num_tasks > 0:
        if cutoff > 0 and d >= cutoff:
            break
        if state_current_player(s) == PLAYER_CHANCE:
            state_apply(s, <action_t>state_sample_chance(s, rng))
        else:
            state_apply(s, <action_t>choose_policy(s, policy, rng, buf))
            d += 1
    return d

# ---------------------------------------------------------------- MCTS

cdef struct NodeC:
    int32_t first_child        # index of the first child; children are contiguous
    int16_t num_children       # -1 until expanded
    int16_t action             # the action that led here
    int8_t player              # to move here: >= 0, PLAYER_CHANCE or PLAYER_TERMINAL
    int32_t visits
    float reward[4]            # summed rewards per player
    float money[4]             # summed final (or estimated) money per player
    float win[4]               # summed win shares per player

cdef struct TreeC:
    NodeC* nodes
    int32_t size
    int32_t cap
    int32_t root
    RngC rng
    long iterations            # this search's iterations
    long decisions             # decisions simulated in rollouts
    int failed                 # out of memory

cdef struct MctsParams:
    double c_uct
    int policy                 # 0 uniform random, 1 heuristic
    int cutoff                 # rollout cut-off in decisions, 0 = to the end
    int max_nodes
    int viewer                 # whose information the determinizations respect
    EvalParams ev

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

cdef bint tree_expand(TreeC* t, int32_t node, StateC* s) noexcept nogil:
    cdef action_t buf[MAX_LEGAL]
    cdef int w[MAX_LEGAL]
    cdef int n, i
    cdef int32_t first = -1, c
    cdef int player = state_current_player(s)
    if player == PLAYER_CHANCE:
        n = state_chance_outcomes(s, buf, w)
    elif player == PLAYER_TERMINAL:
        n = 0
    else:
        n = state_legal_actions(s, buf)
    for i in range(n):
        c = tree_new_node(t, buf[i])
        if c < 0:
            return False
        if i == 0:
            first = c
    t.nodes[node].first_child = first
    t.nodes[node].num_children = n
    t.nodes[node].player = player
    return True

cdef int32_t select_child(TreeC* t, int32_t node, double c_uct) noexcept nogil:
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

cdef int32_t find_child(const TreeC* t, int32_t node, int action) noexcept nogil:
    cdef const NodeC* nd = &t.nodes[node]
    cdef int i
    for i in range(nd.num_children):
        if t.nodes[nd.first_child + i].action == action:
            return nd.first_child + i
    return -1

cdef void mcts_iterate(TreeC* t, const StateC* root, const MctsParams* mp) noexcept nogil:
    """One iteration: determinize, select, expand, roll out, back up."""
    cdef StateC s
    cdef int32_t path[4096]
    cdef int depth = 0, i, p, n
    cdef int32_t node = t.root, child
    cdef double money[4]
    cdef double win[4]
    cdef double rew[4]
    cdef NodeC* nd
    memcpy(&s, root, sizeof(StateC))
    state_resample_hidden(&s, mp.viewer, &t.rng)   # never the true hidden cards
    path[0] = node
    while not s.terminal and depth < 4000:
        nd = &t.nodes[node]
        if nd.num_children < 0:
            if t.size >= mp.max_nodes or not tree_expand(t, node, &s):
                break
            nd = &t.nodes[node]
        if nd.num_children == 0 or nd.player != state_current_player(&s):
            break
        if nd.player == PLAYER_CHANCE:
            child = find_child(t, node, state_sample_chance(&s, &t.rng))
            if child < 0:
                break
        else:
            child = select_child(t, node, mp.c_uct)
        state_apply(&s, <action_t>t.nodes[child].action)
        depth += 1
        path[depth] = child
        node = child
        if t.nodes[child].visits == 0:
            break
    t.decisions += rollout(&s, mp.policy, mp.cutoff, &t.rng)
    leaf_values(&s, &mp.ev, money, win)
    to_rewards(&s, money, win, &mp.ev, rew)
    n = s.num_players
    for i in range(depth + 1):
        nd = &t.nodes[path[i]]
        nd.visits += 1
        for p in range(n):
            nd.reward[p] += rew[p]
            nd.money[p] += money[p]
            nd.win[p] += win[p]
    t.iterations += 1

cdef void mcts_run(TreeC* t, const StateC* root, const MctsParams* mp, long iterations,
                   double deadline, int* stop) noexcept nogil:
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
        mcts_iterate(t, root, mp)
        if t.failed:
            break
        i += 1
        if iterations <= 0 and deadline <= 0 and i >= 1000000:
            break

# ---------------------------------------------------------------- greedy continuation

cdef int greedy_action(StateC* s, const EvalParams* ep) noexcept nogil:
    """The legal action whose successor the evaluation likes best for the mover
    (one step, chance successors averaged over their outcomes; ties: the first)."""
    cdef action_t buf[MAX_LEGAL]
    cdef int n = state_legal_actions(s, buf), i, p = state_current_player(s), best = -1
    cdef double v, best_v = -INFINITY
    cdef StateC c
    for i in range(n):
        memcpy(&c, s, sizeof(StateC))
        state_apply(&c, buf[i])
        v = chance_mean_eval(&c, ep, p, 2)
        if v > best_v + 1e-9:
            best_v = v
            best = buf[i]
    return best

cdef double turn_value(StateC* s, int p, const EvalParams* ep, RngC* rng) noexcept nogil:
    """Evaluation for p at the end of p's turn, the turn finished by one-step greedy
    choices (chance outcomes sampled): a move's worth shows only once its turn is done."""
    cdef int steps = 0, cp
    cdef double money[4]
    while not s.terminal and steps < 64:
        cp = state_current_player(s)
        if cp == PLAYER_CHANCE:
            state_apply(s, <action_t>state_sample_chance(s, rng))
        elif cp == p:
            state_apply(s, <action_t>greedy_action(s, ep))
        else:
            break
        steps += 1
    eval_money(s, ep, money)
    return money[p] - max_other(money, s.num_players, p)

cdef int greedy_turn_action(StateC* s, const EvalParams* ep, RngC* rng, double* values,
                            action_t* moves) noexcept nogil:
    """GreedyBot: each move scored by turn_value; the best (ties at random). Fills
    moves/values and returns the number of moves; moves[0] is the choice."""
    cdef int n = state_legal_actions(s, moves), i, p = state_current_player(s), best = 0, ties = 1
    cdef StateC c
    cdef action_t ta
    cdef double tv
    for i in range(n):
        memcpy(&c, s, sizeof(StateC))
        state_apply(&c, moves[i])
        values[i] = turn_value(&c, p, ep, rng)
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

cdef double chance_mean_eval(StateC* s, const EvalParams* ep, int p, int levels) noexcept nogil:
    """Evaluation for player p, averaging chance points over their outcomes."""
    cdef action_t buf[MAX_LEGAL]
    cdef int w[MAX_LEGAL]
    cdef double money[4]
    cdef int n, i, total = 0
    cdef double acc = 0
    cdef StateC c
    if levels > 0 and state_current_player(s) == PLAYER_CHANCE:
        n = state_chance_outcomes(s, buf, w)
        for i in range(n):
            memcpy(&c, s, sizeof(StateC))
            state_apply(&c, buf[i])
            acc += w[i] * chance_mean_eval(&c, ep, p, levels - 1)
            total += w[i]
        return acc / total if total else 0
    eval_money(s, ep, money)
    return money[p] - max_other(money, s.num_players, p)

cdef inline double max_other(const double* money, int n, int p) noexcept nogil:
    """The best other player's money; solo: 0, so a margin is the money itself."""
    cdef int q
    cdef double b = -INFINITY
    if n == 1:
        return 0
    for q in range(n):
        if q != p and money[q] > b:
            b = money[q]
    return b

cdef int most_likely_outcome(StateC* s) noexcept nogil:
    cdef action_t buf[MAX_LEGAL]
    cdef int w[MAX_LEGAL]
    cdef int n = state_chance_outcomes(s, buf, w), i, best = 0
    for i in range(1, n):
        if w[i] > w[best]:
            best = i
    return buf[best]

cdef int extend_turn(StateC* s, int player, const EvalParams* ep, action_t* out, int n,
                     int max_len) noexcept nogil:
    """Continue a line greedily (most likely chance outcomes) to the end of `player`'s turn."""
    cdef int cp, a
    while n < max_len and not s.terminal:
        cp = state_current_player(s)
        if cp == PLAYER_CHANCE:
            a = most_likely_outcome(s)
        elif cp == player:
            a = greedy_action(s, ep)
        else:
            break
        state_apply(s, <action_t>a)
        out[n] = a
        n += 1
    return n

# ---------------------------------------------------------------- Python wrapper: MCTS

cdef void _fill_eval(EvalParams* ep, dict opts):
    ep.ticket_value = opts.get("ticket_value", 1.0)
    ep.commission_value = opts.get("commission_value", 2.0)
    ep.influence_value = opts.get("influence_value", 0.5)
    ep.win_temperature = opts.get("win_temperature", 6.0)
    ep.margin_scale = opts.get("margin_scale", 20.0)
    ep.margin_weight = opts.get("margin_weight", 0.25)
    ep.solo_reference = opts.get("solo_reference", 150.0)
    ep.solo_scale = opts.get("solo_scale", 50.0)


cdef class MctsEngine:
    """UCT search trees (one per thread, root-parallel) on one game."""
    cdef TreeC* trees
    cdef int nthreads
    cdef MctsParams mp
    cdef StateC root
    cdef int stop_flag
    cdef object root_history
    cdef int root_viewer

    def __cinit__(self, int threads, dict opts):
        cdef int i
        if threads < 1:
            threads = 1
        self.nthreads = threads
        self.trees = <TreeC*>malloc(threads * sizeof(TreeC))
        if self.trees == NULL:
            raise MemoryError()
        memset(self.trees, 0, threads * sizeof(TreeC))
        self.mp.c_uct = opts.get("c", 0.7)
        self.mp.policy = 1 if opts.get("rollout", "random") == "heuristic" else 0
        self.mp.cutoff = opts.get("cutoff", 0)
        self.mp.max_nodes = opts.get("max_nodes", 2000000)
        _fill_eval(&self.mp.ev, opts)
        self.stop_flag = 0
        self.root_history = None
        self.root_viewer = -9

    def __dealloc__(self):
        cdef int i
        if self.trees != NULL:
            for i in range(self.nthreads):
                free(self.trees[i].nodes)
            free(self.trees)

    cdef void _reset_tree(self, int i, uint64_t seed):
        cdef TreeC* t = &self.trees[i]
        t.size = 0
        t.failed = 0
        t.root = tree_new_node(t, -1)
        t.rng.s = seed
        rng_next(&t.rng)

    def prepare(self, GameState state, int viewer, uint64_t seed, bint reuse):
        """Set the root; keep the trees when `state` follows the previous root's history
        (same viewer), otherwise start new ones. Returns how many nodes were reused."""
        cdef int i, k
        cdef int32_t node
        cdef list hist = state.history
        cdef list old = self.root_history
        cdef long reused = 0
        cdef StateC walk
        can = (reuse and old is not None and viewer == self.root_viewer
               and len(hist) >= len(old) and hist[:len(old)] == old)
        if can:
            # the new state must be the old root after the extra actions (cards aside)
            memcpy(&walk, &self.root, sizeof(StateC))
            for a in hist[len(old):]:
                if not state_is_legal(&walk, <action_t>a):
                    can = False
                    break
                state_apply(&walk, <action_t>a)
            if can:
                can = same_position(&walk, &state.s)
        memcpy(&self.root, &state.s, sizeof(StateC))
        self.mp.viewer = viewer
        for i in range(self.nthreads):
            if can and self.trees[i].size > 0 and self.trees[i].size < self.mp.max_nodes // 2:
                node = self.trees[i].root
                for a in hist[len(old):]:
                    if self.trees[i].nodes[node].num_children < 0:
                        node = -1
                        break
                    node = find_child(&self.trees[i], node, a)
                    if node < 0:
                        break
                if node >= 0:
                    self.trees[i].root = node
                    self.trees[i].iterations = 0
                    self.trees[i].decisions = 0
                    self.trees[i].rng.s ^= seed
                    reused += self.trees[i].nodes[node].visits
                    continue
            self._reset_tree(i, (seed + 0x9E3779B97F4A7C15 * (i + 1)) & 0xFFFFFFFFFFFFFFFF)
            self.trees[i].iterations = 0
            self.trees[i].decisions = 0
        self.root_history = list(hist)
        self.root_viewer = viewer
        self.stop_flag = 0
        return reused

    def run(self, int i, long iterations, double deadline):
        """Search with tree i (call from one thread per tree); releases the GIL."""
        if not 0 <= i < self.nthreads:
            raise ValueError("tree index")
        with nogil:
            mcts_run(&self.trees[i], &self.root, &self.mp, iterations, deadline, &self.stop_flag)

    def stop(self):
        self.stop_flag = 1

    def stats(self):
        """Merged root statistics: {action: [visits, reward[], money[], win[]]}, nodes,
        iterations, rollout decisions."""
        cdef int i, k, p, n = self.root.num_players
        cdef TreeC* t
        cdef NodeC* nd
        cdef NodeC* ch
        out = {}
        nodes = 0
        iters = 0
        decisions = 0
        for i in range(self.nthreads):
            t = &self.trees[i]
            nodes += t.size
            iters += t.iterations
            decisions += t.decisions
            if t.size == 0:
                continue
            nd = &t.nodes[t.root]
            if nd.num_children <= 0:
                continue
            for k in range(nd.num_children):
                ch = &t.nodes[nd.first_child + k]
                e = out.get(ch.action)
                if e is None:
                    e = [0, [0.0] * n, [0.0] * n, [0.0] * n]
                    out[ch.action] = e
                e[0] += ch.visits
                for p in range(n):
                    e[1][p] += ch.reward[p]
                    e[2][p] += ch.money[p]
                    e[3][p] += ch.win[p]
        return {"children": out, "nodes": nodes, "iterations": iters, "decisions": decisions}

    def principal_variation(self, int action, int max_len=60):
        """From root action `action`: the most visited line (tree 0, chance by its most
        visited outcome) while it stays with the mover, then greedy to the end of the
        mover's turn."""
        cdef action_t out[256]
        cdef StateC s
        cdef TreeC* t = &self.trees[0]
        cdef int n = 0, player = state_current_player(&self.root), best_i, k, cp
        cdef int32_t node
        cdef NodeC* nd
        if max_len > 256:
            max_len = 256
        memcpy(&s, &self.root, sizeof(StateC))
        state_apply(&s, <action_t>action)
        out[0] = action
        n = 1
        node = find_child(t, t.root, action) if t.size and t.nodes[t.root].num_children > 0 else -1
        while node >= 0 and n < max_len and not s.terminal:
            nd = &t.nodes[node]
            cp = state_current_player(&s)
            if nd.num_children <= 0 or (cp != player and cp != PLAYER_CHANCE):
                break
            best_i = -1
            for k in range(nd.num_children):
                if best_i < 0 or t.nodes[nd.first_child + k].visits > t.nodes[nd.first_child + best_i].visits:
                    best_i = k
            if t.nodes[nd.first_child + best_i].visits < 2:
                break
            node = nd.first_child + best_i
            state_apply(&s, <action_t>t.nodes[node].action)
            out[n] = t.nodes[node].action
            n += 1
        n = extend_turn(&s, player, &self.mp.ev, out, n, max_len)
        return [out[k] for k in range(n)]

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

# ---------------------------------------------------------------- expectimax

cdef struct TTEntry:
    uint64_t key
    float vec[4]
    int16_t best
    int8_t depth
    int8_t used

cdef struct EmCtx:
    EvalParams ev
    TTEntry* tt
    uint64_t tt_mask
    long nodes
    double deadline
    int* stop
    int aborted
    int chance_width
    int alpha_beta             # two players: alpha-beta on the money margin
    RngC rng

cdef uint64_t state_hash(const StateC* s) noexcept nogil:
    """64-bit hash of the canonical state (task slots above the top ignored)."""
    cdef const uint8_t* b = <const uint8_t*>s
    cdef size_t i, n = sizeof(StateC)
    cdef size_t t0 = <size_t>(<const uint8_t*>&s.tasks[0] - b)
    cdef size_t t1 = <size_t>(<const uint8_t*>&s.tasks[s.num_tasks] - b)
    cdef size_t tend = <size_t>(<const uint8_t*>&s.tasks[MAX_TASKS] - b)
    cdef uint64_t h = 1469598103934665603ULL
    for i in range(n):
        if i >= t1 and i < tend:
            continue
        h = (h ^ b[i]) * 1099511628211ULL
    return h

cdef inline double em_scalar(const double* vec, int np) noexcept nogil:
    """The value used for pruning: two players money[0] - money[1]; solo money[0]."""
    return vec[0] - vec[1] if np > 1 else vec[0]

cdef double em_value(EmCtx* c, StateC* s, int depth, double alpha, double beta,
                     double* vec, int* best_out) noexcept nogil:
    """Value vector (estimated final money) of s searched `depth` decisions deep.
    Returns the scalar used for pruning (two players: money[0] - money[1])."""
    cdef action_t buf[MAX_LEGAL]
    cdef int w[MAX_LEGAL]
    cdef int n, i, j, p, np = s.num_players, total, best = -1, tt_best = -1, k
    cdef double cv[4]
    cdef double acc[4]
    cdef double sc, best_sc
    cdef StateC ch
    cdef uint64_t key
    cdef TTEntry* e
    cdef int cp = state_current_player(s)
    c.nodes += 1
    if (c.nodes & 1023) == 0:
        if c.stop[0] or (c.deadline > 0 and now_s() >= c.deadline):
            c.aborted = 1
    if c.aborted:
        for p in range(np):
            vec[p] = 0
        return 0
    if s.terminal or depth <= 0:
        eval_money(s, &c.ev, vec)
        return em_scalar(vec, np)
    if cp == PLAYER_CHANCE:
        n = state_chance_outcomes(s, buf, w)
        for p in range(np):
            acc[p] = 0
        total = 0
        if n <= c.chance_width:
            for i in range(n):
                memcpy(&ch, s, sizeof(StateC))
                state_apply(&ch, buf[i])
                em_value(c, &ch, depth, -INFINITY, INFINITY, cv, NULL)
                for p in range(np):
                    acc[p] += w[i] * cv[p]
                total += w[i]
        else:
            # too many outcomes: an unweighted mean of chance_width draws by probability
            for j in range(c.chance_width):
                memcpy(&ch, s, sizeof(StateC))
                state_apply(&ch, <action_t>state_sample_chance(&ch, &c.rng))
                em_value(c, &ch, depth, -INFINITY, INFINITY, cv, NULL)
                for p in range(np):
                    acc[p] += cv[p]
                total += 1
        for p in range(np):
            vec[p] = acc[p] / total
        return em_scalar(vec, np)
    key = state_hash(s)
    e = &c.tt[key & c.tt_mask]
    if e.used and e.key == key:
        tt_best = e.best
        if e.depth >= depth and best_out == NULL:
            for p in range(np):
                vec[p] = e.vec[p]
            return em_scalar(vec, np)
    n = state_legal_actions(s, buf)
    # move ordering: the transposition table's best move first
    if tt_best >= 0:
        for i in range(n):
            if buf[i] == tt_best:
                buf[i] = buf[0]
                buf[0] = tt_best
                break
    best_sc = -INFINITY
    for i in range(n):
        memcpy(&ch, s, sizeof(StateC))
        state_apply(&ch, buf[i])
        sc = em_value(c, &ch, depth - 1, alpha, beta, cv, NULL)
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
            else:
                if -sc < beta:
                    beta = -sc
            if alpha >= beta:
                break
    if best_out != NULL:
        best_out[0] = best
    if not c.aborted and best >= 0 and (not c.alpha_beta or alpha < beta):
        e.key = key
        e.used = 1
        e.depth = depth
        e.best = best
        for p in range(np):
            e.vec[p] = vec[p]
    return em_scalar(vec, np)


cdef class ExpectimaxEngine:
    """Depth-limited expectimax with iterative deepening and a transposition table."""
    cdef EmCtx ctx
    cdef int stop_flag
    cdef int tt_bits

    def __cinit__(self, dict opts):
        _fill_eval(&self.ctx.ev, opts)
        self.tt_bits = opts.get("tt_bits", 18)
        self.ctx.tt = <TTEntry*>malloc((1 << self.tt_bits) * sizeof(TTEntry))
        if self.ctx.tt == NULL:
            raise MemoryError()
        memset(self.ctx.tt, 0, (1 << self.tt_bits) * sizeof(TTEntry))
        self.ctx.tt_mask = (1 << self.tt_bits) - 1
        self.ctx.chance_width = opts.get("chance_width", 6)
        self.ctx.alpha_beta = 1 if opts.get("alpha_beta", True) else 0
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
        cdef double vec[4]
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
                em_value(&self.ctx, &ch, depth - 1, -INFINITY, INFINITY, vec, NULL)
            if self.ctx.aborted:
                return False, res, self.ctx.nodes - nodes0
            res.append((a, [vec[p] for p in range(np)]))
        return True, res, self.ctx.nodes - nodes0

    def principal_variation(self, GameState state, int action, int max_len=60):
        """From `action`: the table's best moves (most likely chance outcomes), then greedy
        to the end of the mover's turn."""
        cdef action_t out[256]
        cdef StateC s
        cdef int n = 1, player = state_current_player(&state.s), cp, k
        cdef uint64_t key
        cdef TTEntry* e
        if max_len > 256:
            max_len = 256
        memcpy(&s, &state.s, sizeof(StateC))
        state_apply(&s, <action_t>action)
        out[0] = action
        while n < max_len and not s.terminal:
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
        n = extend_turn(&s, player, &self.ctx.ev, out, n, max_len)
        return [out[k] for k in range(n)]


def evaluate(GameState state, dict opts=None):
    """The shared evaluation: (estimated final money per player, win chances)."""
    cdef EvalParams ep
    cdef double money[4]
    cdef double win[4]
    _fill_eval(&ep, opts or {})
    leaf_values(&state.s, &ep, money, win)
    n = state.s.num_players
    return [money[p] for p in range(n)], [win[p] for p in range(n)]


def greedy_moves(GameState state, uint64_t seed, dict opts=None):
    """GreedyBot's scores: [(action, value)] with the chosen move first; value = the
    mover's estimated money margin once its turn is finished greedily."""
    cdef EvalParams ep
    cdef StateC s
    cdef RngC r
    cdef action_t moves[MAX_LEGAL]
    cdef double values[MAX_LEGAL]
    cdef int n, i
    _fill_eval(&ep, opts or {})
    r.s = seed
    rng_next(&r)
    memcpy(&s, &state.s, sizeof(StateC))
    with nogil:
        n = greedy_turn_action(&s, &ep, &r, values, moves)
    return [(moves[i], values[i]) for i in range(n)]


def successor_values(GameState state, dict opts=None):
    """For each legal action: (action, estimated money vector after it, chance averaged)."""
    cdef EvalParams ep
    cdef action_t buf[MAX_LEGAL]
    cdef StateC c
    cdef int n, i, p, cp = state_current_player(&state.s)
    _fill_eval(&ep, opts or {})
    n = state_legal_actions(&state.s, buf)
    out = []
    for i in range(n):
        memcpy(&c, &state.s, sizeof(StateC))
        state_apply(&c, buf[i])
        out.append((buf[i], chance_mean_eval(&c, &ep, cp, 2)))
    return out


def rollout_policy_action(GameState state, int policy, uint64_t seed):
    """One move of the rollout policy (0 uniform, 1 heuristic)."""
    cdef action_t buf[MAX_LEGAL]
    cdef RngC r
    r.s = seed
    rng_next(&r)
    return choose_policy(&state.s, policy, &r, buf)


def greedy_line(GameState state, int action, int max_len=60, dict opts=None):
    """`action`, then greedy moves (most likely chance outcomes) to the end of the turn."""
    cdef EvalParams ep
    cdef action_t out[256]
    cdef StateC s
    cdef int n, k, player = state_current_player(&state.s)
    _fill_eval(&ep, opts or {})
    if max_len > 256:
        max_len = 256
    memcpy(&s, &state.s, sizeof(StateC))
    state_apply(&s, <action_t>action)
    out[0] = action
    n = extend_turn(&s, player, &ep, out, 1, max_len)
    return [out[k] for k in range(n)]
