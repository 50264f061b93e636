# cython: language_level=3
"""The rollout policy (uniform, static preferences per action id, or a trained network's
policy) and `RolloutEvaluator`: play a position on to the end or for `cutoff` decisions,
then take the exact result or another evaluator's estimate (MCTS's leaf estimate)."""
from libc.math cimport exp
from libc.string cimport memcpy, memset

from gallerist.engine._core cimport (
    StateC, RngC, action_t, MAX_LEGAL, MAX_PLAYERS, NUM_ACTIONS, PLAYER_CHANCE, rng_below,
    rng_next, state_apply, state_current_player, state_legal_actions, state_resample_hidden,
    state_returns, state_sample_chance,
)
from gallerist.engine.state cimport GameState
cimport gallerist.engine._core as core
from gallerist.ai.search._common cimport rng_unit
from gallerist.engine._clock cimport now_s
from gallerist.ai.search._evaluation cimport Evaluator, leaf_values
from gallerist.ai.search._model cimport ModelEvaluator

POLICIES = ("random", "heuristic", "model")   # rollout policy names, by their C number

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
    """One move of the rollout policy (0 uniform, 1 weighted by POLICY_WEIGHT)."""
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


cdef int choose_model(StateC* s, ModelEvaluator network, double temperature, RngC* rng,
                      action_t* buf) noexcept nogil:
    """One move drawn from the network's policy over the legal moves at temperature
    `temperature` (the softmax of its logits / temperature; 1: the policy itself)."""
    cdef int n = state_legal_actions(s, buf), i
    cdef float logit[MAX_LEGAL]
    cdef double p[MAX_LEGAL]
    cdef double total = 0, r, top
    if n <= 1:
        return buf[0]
    network.policy_logits(s, buf, n, logit)
    top = logit[0]
    for i in range(1, n):
        if logit[i] > top:
            top = logit[i]
    for i in range(n):
        p[i] = exp((logit[i] - top) / temperature)
        total += p[i]
    r = rng_unit(rng) * total
    for i in range(n):
        r -= p[i]
        if r <= 0:
            return buf[i]
    return buf[n - 1]


cdef int rollout(StateC* s, int policy, int cutoff, RngC* rng) noexcept nogil:
    """Play on to the end, or for `cutoff` decisions when cutoff > 0, with policy 0
    (uniform) or 1 (heuristic); returns decisions."""
    return rollout_with(s, policy, cutoff, None, 1.0, 0, rng)


cdef int rollout_with(StateC* s, int policy, int cutoff, ModelEvaluator network,
                      double temperature, int model_steps, RngC* rng) noexcept nogil:
    """`rollout` with any policy: 2 draws from `network`'s (choose_model), which must
    then be given; for the first `model_steps` decisions only when > 0, uniformly
    after them."""
    cdef action_t buf[MAX_LEGAL]
    cdef int d = 0
    while not s.terminal and s.num_tasks > 0:
        if cutoff > 0 and d >= cutoff:
            break
        if state_current_player(s) == PLAYER_CHANCE:
            state_apply(s, <action_t>state_sample_chance(s, rng))
        elif policy == 2 and (model_steps <= 0 or d < model_steps):
            state_apply(s, <action_t>choose_model(s, network, temperature, rng, buf))
            d += 1
        else:
            state_apply(s, <action_t>choose_policy(s, 0 if policy == 2 else policy, rng, buf))
            d += 1
    return d


cdef class RolloutEvaluator(Evaluator):
    """Plays the position on with the rollout policy (chance sampled), to the end or for
    `cutoff` decisions, then reports the exact result or `inner`'s estimate.

    Args:
        inner: the evaluator where the playout stops short of the end; its
            win_temperature is this evaluator's too.
        policy: "random" (uniform), "heuristic" (static preferences per action id) or
            "model" (drawn from `network`'s policy: one forward pass a decision).
        cutoff: decisions to play before asking `inner` (0 = play to the end).
        network: policy="model": the ai.search._model.ModelEvaluator whose policy plays.
        temperature: policy="model": its priors are raised to 1 / temperature (> 0;
            1 as they are, lower sharper).
        model_steps: policy="model": only the first model_steps decisions are drawn
            from the network's policy, the rest uniformly (0: every decision).
        (No defaults here but network's, temperature's and model_steps': MctsBot's
        signature holds them.)
    """

    def __init__(self, Evaluator inner not None, *, str policy, int cutoff,
                 ModelEvaluator network=None, double temperature=1.0, int model_steps=0):
        if policy not in POLICIES:
            raise ValueError(f"rollout policy must be one of {', '.join(POLICIES)}, got {policy!r}")
        if cutoff < 0:
            raise ValueError(f"rollout cutoff must be >= 0, got {cutoff}")
        if (policy == "model") != (network is not None):
            raise ValueError("rollout policy 'model' needs a network, and only it takes one")
        if not temperature > 0 or temperature == float("inf"):
            raise ValueError(f"rollout temperature must be a finite number > 0, got {temperature}")
        if model_steps < 0 or (model_steps and policy != "model"):
            raise ValueError(f"rollout model_steps must be >= 0 and needs policy 'model', "
                             f"got {model_steps} with policy {policy!r}")
        super().__init__(win_temperature=inner.win_temperature)
        self.inner = inner
        self.policy = POLICIES.index(policy)
        self.cutoff = cutoff
        self.network = network
        self.temperature = temperature
        self.model_steps = model_steps

    cdef long evaluate(self, StateC* s, RngC* rng, double* money, double* win) noexcept nogil:
        cdef long d = rollout_with(s, self.policy, self.cutoff, self.network,
                                   self.temperature, self.model_steps, rng)
        return d + leaf_values(self.inner, s, rng, money, win)

    cdef void win_from_money(self, const double* money, int n, double* win) noexcept nogil:
        self.inner.win_from_money(money, n, win)

    def check(self):
        """Raise what went wrong in `inner`'s evaluations since the last check."""
        self.inner.check()

    cpdef Evaluator static(self):
        """The evaluator for one-step greedy choices: inner's (no playouts)."""
        return self.inner.static()



def playout_shares(GameState state not None, int viewer, int count, double max_ms=0.0,
                   unsigned long long seed=0):
    """Every seat's mean win share over `count` games played on from `state` by the
    uniform rollout policy (MCTS's default, chance sampled), each with the cards `viewer`
    cannot see dealt anew from those it has not seen (never the true hidden cards).

    A cheap estimate of who is ahead, independent of any search: the bots that rank moves
    by the heuristic report numbers calibrated from it (ai.bots.base.BaseBot.report). Stops
    after `max_ms` of wall time when > 0 (after at least one game).

    Returns:
        (win share per seat, games played). A finished position gives its exact result.

    Raises:
        ValueError: viewer is not a seat of the game, or count is outside 1..1,000,000.
    """
    cdef StateC s
    cdef RngC rng
    cdef double win[MAX_PLAYERS]
    cdef double total[MAX_PLAYERS]
    cdef int n = state.s.num_players, p, played = 0
    cdef double t0
    if not 0 <= viewer < n:
        raise ValueError(f"viewer must be a seat 0..{n - 1}, got {viewer}")
    if not 1 <= count <= 1_000_000:
        raise ValueError(f"count must be 1..1000000, got {count}")
    if not max_ms >= 0:
        raise ValueError(f"max_ms must be >= 0, got {max_ms}")
    memset(total, 0, sizeof(total))
    rng.s = seed
    rng_next(&rng)
    with nogil:
        t0 = now_s()
        while played < count:
            memcpy(&s, &state.s, sizeof(StateC))
            state_resample_hidden(&s, viewer, &rng)
            rollout(&s, 0, 0, &rng)
            state_returns(&s, win)
            for p in range(n):
                total[p] += win[p]
            played += 1
            if max_ms > 0:
                if (now_s() - t0) * 1e3 >= max_ms:
                    break
    return [total[p] / played for p in range(n)], played
