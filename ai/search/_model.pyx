# cython: language_level=3
"""The learned evaluation in C: `ModelEvaluator`, an Evaluator whose estimate is the
network of a model file (ai/net/model_file.py its format and its checks, ai/net/reference.py
the NumPy reference forward pass `Model.forward`, which this one must equal).

An evaluation fills the observation of the player to move (engine/_observation.pxd; at
a chance point or a terminal state, that of the player whose turn it is, s.turn_player)
and runs the network without the GIL: the trunk (ReLU layers), then the value heads
(plus, for a format 2 model, the skip weights' linear function of the observation).
The weights are copied once into owned, 64-byte aligned float32 arrays and never
written again, and every scratch buffer is on the caller's stack, so any number of
search threads may evaluate at once.

Every layer adds up the weight rows of its nonzero inputs (y = b + sum over x_i != 0 of
x_i W[i, :]): the observation is mostly zeros (one-hots, about 170 of its 1674 numbers
are not), and so is about half of a ReLU layer. The loop is in C (_dense.h): the
nonzero inputs listed, then 64 outputs at a time summed in vector registers over their
rows (an AVX2 build chosen at load time where the CPU has it).

The tensor seats are the observer's point of view (tensor seat k is real seat
(player + k) % n); they are rotated back to real seats here. Money: money_scale times
the money head. Win chances: the softmax of the win logits over the n seats present;
solo, where the Evaluator contract's win is the return money / (money + 100) (what the
search gets at the end of a solo game), it is that of the estimated money.
"""
import numpy as np

from libc.stdlib cimport free
from libc.string cimport memcpy, memset
from libc.math cimport exp, INFINITY
from posix.stdlib cimport posix_memalign

from gallerist.engine._core cimport (
    StateC, RngC, action_t, MAX_LEGAL, NUM_ACTIONS, solo_return, state_current_player,
    state_legal_actions,
)
from gallerist.engine._observation cimport observation_fill, OBSERVATION_SIZE
from gallerist.engine.state cimport GameState
from gallerist.ai.search._evaluation cimport Evaluator
from gallerist.ai.search._evaluation import WIN_TEMPERATURE

# ---------------------------------------------------------------- the forward pass


cdef extern from "_dense.h" nogil:
    enum: GALLERIST_DENSE_MAX_IN   # the widest input a layer takes
    # y = b + x W for W (n_in, n_out) row-major, over the nonzero inputs (see _dense.h)
    void dense "gallerist_dense" (const float* x, int n_in, const float* w, const float* b,
                                  int n_out, float* y)


cdef inline void relu(float* y, int n) noexcept nogil:
    cdef int j
    for j in range(n):
        if y[j] < 0:
            y[j] = 0


cdef const float* net_trunk(const NetC* net, const float* x, float* a, float* b) noexcept nogil:
    """The last hidden vector of the trunk on input x (in_size floats); a and b are
    scratch buffers of MODEL_MAX_WIDTH floats, one of which holds the result."""
    cdef int i, n_in = net.in_size
    cdef const float* cur = x
    cdef float* out
    for i in range(net.num_layers):
        out = a if i % 2 == 0 else b
        dense(cur, n_in, net.w[i], net.b[i], net.width[i], out)
        relu(out, net.width[i])
        cur = out
        n_in = net.width[i]
    return cur


cdef inline void softmax_over(const float* logits, const action_t* actions, int n,
                              float* out) noexcept nogil:
    """out[k] = softmax of logits[actions[k]] over k < n."""
    cdef int k
    cdef float m = -INFINITY, z = 0
    for k in range(n):
        if logits[actions[k]] > m:
            m = logits[actions[k]]
    for k in range(n):
        out[k] = exp(logits[actions[k]] - m)
        z += out[k]
    for k in range(n):
        out[k] /= z


cdef float* _owned(arr) except NULL:
    """An owned, 64-byte aligned copy of a float32 array's values."""
    cdef float[::1] flat = np.ascontiguousarray(arr, dtype=np.float32).ravel()
    cdef void* p = NULL
    cdef size_t n = flat.shape[0]
    if posix_memalign(&p, 64, (n if n > 0 else 1) * sizeof(float)) != 0:
        raise MemoryError()
    if n:
        memcpy(p, &flat[0], n * sizeof(float))
    return <float*>p

# ---------------------------------------------------------------- the evaluator


cdef class ModelEvaluator(Evaluator):
    """The evaluation of a trained network (module docstring), from a validated
    ai.net.reference.Model (`ModelEvaluator.load(path)` reads and checks a file).

    Args:
        model: the network; its input size must be engine.OBSERVATION_SIZE and its layers
            at most MAX_WIDTH wide (load_model checks both).
        win_temperature: as Evaluator (only `win_chances` of a money vector uses it, e.g.
            expectimax's searched money; the evaluation's own win chances are the
            network's).
    """

    def __cinit__(self, *args, **kwargs):
        memset(&self.net, 0, sizeof(NetC))

    def __init__(self, model, *, double win_temperature=WIN_TEMPERATURE):
        from gallerist.ai.net.model_file import MAX_LAYERS, MAX_WIDTH, NUM_ACTIONS as ACTIONS
        from gallerist.ai.net.reference import Model
        if not isinstance(model, Model):
            raise ValueError(f"ModelEvaluator needs an ai.net.reference.Model, got {type(model).__name__}")
        super().__init__(win_temperature=win_temperature)
        assert MAX_LAYERS == MODEL_MAX_LAYERS and MAX_WIDTH == MODEL_MAX_WIDTH and ACTIONS == NUM_ACTIONS
        assert MODEL_MAX_WIDTH <= GALLERIST_DENSE_MAX_IN and OBSERVATION_SIZE <= GALLERIST_DENSE_MAX_IN
        layers = len(model.trunk)
        if not 1 <= layers <= MODEL_MAX_LAYERS:
            raise ValueError(f"model {model.source}: {layers} layers, the evaluator takes 1..{MODEL_MAX_LAYERS}")
        if model.trunk[0][0].shape[0] != OBSERVATION_SIZE:
            raise ValueError(f"model {model.source}: input size {model.trunk[0][0].shape[0]}, "
                             f"the observation has {OBSERVATION_SIZE}")
        for width in model.hidden:
            if not 1 <= width <= MODEL_MAX_WIDTH:
                raise ValueError(f"model {model.source}: layer width {width}, the evaluator "
                                 f"takes 1..{MODEL_MAX_WIDTH}")
        self._free()
        self.model = model
        self.net.in_size = OBSERVATION_SIZE
        self.net.num_layers = layers
        for i, (w, b) in enumerate(model.trunk):
            self.net.width[i] = w.shape[1]
            self.net.w[i] = _owned(w)
            self.net.b[i] = _owned(b)
        self.net.value_w = _owned(np.concatenate([model.win_w, model.money_w], axis=1))
        self.net.value_b = _owned(np.concatenate([model.win_b, model.money_b]))
        if model.win_skip is not None and model.money_skip is not None:
            self.net.value_skip = _owned(np.concatenate([model.win_skip, model.money_skip], axis=1))
        self.net.policy_w = _owned(model.policy_w)
        self.net.policy_b = _owned(model.policy_b)
        self.net.money_scale = model.money_scale

    @staticmethod
    def load(path):
        """The evaluator of a model file (ai.net.model_file.ModelFileError naming the file
        and the mismatch)."""
        from gallerist.ai.net.model_file import load_model
        return ModelEvaluator(load_model(path))

    cdef void _free(self):
        cdef int i
        for i in range(MODEL_MAX_LAYERS):
            free(self.net.w[i])
            free(self.net.b[i])
        free(self.net.value_w)
        free(self.net.value_b)
        free(self.net.value_skip)
        free(self.net.policy_w)
        free(self.net.policy_b)
        memset(&self.net, 0, sizeof(NetC))

    def __dealloc__(self):
        self._free()

    @property
    def hidden(self):
        """The widths of the trunk's layers."""
        return tuple(self.net.width[i] for i in range(self.net.num_layers))

    cdef int _observe(self, const StateC* s, float* obs) noexcept nogil:
        """Fill the observation of the player to move (chance, terminal: whose turn it
        is); returns that player."""
        cdef int player = state_current_player(s)
        if player < 0 or player >= s.num_players:
            player = s.turn_player
        observation_fill(s, player, obs)
        return player

    cdef void _value(self, const float* obs, const float* h, float* v) noexcept nogil:
        """The value heads v (MODEL_VALUE_OUT floats, by tensor seat) from the observation
        and the trunk's last hidden vector h: h @ value_w + value_b, plus obs @ value_skip
        when the model has skip weights (computed first and used as the heads' bias)."""
        cdef float skip[MODEL_VALUE_OUT]
        cdef const float* bias = self.net.value_b
        if self.net.value_skip != NULL:
            dense(obs, self.net.in_size, self.net.value_skip, self.net.value_b,
                  MODEL_VALUE_OUT, skip)
            bias = skip
        dense(h, self.net.width[self.net.num_layers - 1], self.net.value_w, bias,
              MODEL_VALUE_OUT, v)

    cdef void _to_seats(self, const StateC* s, int player, const float* v, double* money,
                        double* win) noexcept nogil:
        """Value heads v (by tensor seat) to money and win chances by real seat."""
        cdef int k, n = s.num_players
        cdef double m = -INFINITY, z = 0
        cdef double e[MODEL_SEATS]
        for k in range(n):
            money[(player + k) % n] = self.net.money_scale * v[MODEL_SEATS + k]
        if win == NULL:
            return
        if n == 1:
            win[0] = solo_return(money[0])
            return
        for k in range(n):
            if v[k] > m:
                m = v[k]
        for k in range(n):
            e[k] = exp(v[k] - m)
            z += e[k]
        for k in range(n):
            win[(player + k) % n] = e[k] / z

    cdef long evaluate(self, StateC* s, RngC* rng, double* money, double* win) noexcept nogil:
        cdef float obs[OBSERVATION_SIZE]
        cdef float a[MODEL_MAX_WIDTH]
        cdef float b[MODEL_MAX_WIDTH]
        cdef float v[MODEL_VALUE_OUT]
        cdef int player = self._observe(s, obs)
        cdef const float* h = net_trunk(&self.net, obs, a, b)
        self._value(obs, h, v)
        self._to_seats(s, player, v, money, win)
        return 0

    cdef void policy(self, const StateC* s, const action_t* actions, int n,
                     float* priors) noexcept nogil:
        """priors[k] for actions[k], k < n (the legal actions of decision point s): the
        softmax of the policy logits over them."""
        cdef float obs[OBSERVATION_SIZE]
        cdef float a[MODEL_MAX_WIDTH]
        cdef float b[MODEL_MAX_WIDTH]
        cdef float logits[NUM_ACTIONS]
        cdef const float* h
        self._observe(s, obs)
        h = net_trunk(&self.net, obs, a, b)
        dense(h, self.net.width[self.net.num_layers - 1], self.net.policy_w, self.net.policy_b,
              NUM_ACTIONS, logits)
        softmax_over(logits, actions, n, priors)

    cdef void policy_logits(self, const StateC* s, const action_t* actions, int n,
                            float* logits) noexcept nogil:
        """logits[k] of actions[k], k < n (the legal actions of decision point s): only
        those columns of the policy head, over the nonzero hidden units (what a rollout
        drawing from the policy needs; `policy` computes every logit, then the softmax)."""
        cdef float obs[OBSERVATION_SIZE]
        cdef float a[MODEL_MAX_WIDTH]
        cdef float b[MODEL_MAX_WIDTH]
        cdef int nz[MODEL_MAX_WIDTH]
        cdef int H = self.net.width[self.net.num_layers - 1], j, k, m = 0
        cdef const float* h
        cdef const float* w = self.net.policy_w
        cdef float acc
        self._observe(s, obs)
        h = net_trunk(&self.net, obs, a, b)
        for j in range(H):
            if h[j] != 0:
                nz[m] = j
                m += 1
        for k in range(n):
            acc = self.net.policy_b[actions[k]]
            for j in range(m):
                acc += h[nz[j]] * w[nz[j] * NUM_ACTIONS + actions[k]]
            logits[k] = acc

    cdef long evaluate_policy(self, const StateC* s, double* money, double* win,
                              const action_t* actions, int n, float* priors) noexcept nogil:
        """`evaluate` and `policy` of one position from one pass through the trunk."""
        cdef float obs[OBSERVATION_SIZE]
        cdef float a[MODEL_MAX_WIDTH]
        cdef float b[MODEL_MAX_WIDTH]
        cdef float v[MODEL_VALUE_OUT]
        cdef float logits[NUM_ACTIONS]
        cdef int player = self._observe(s, obs)
        cdef int H = self.net.width[self.net.num_layers - 1]
        cdef const float* h = net_trunk(&self.net, obs, a, b)
        self._value(obs, h, v)
        self._to_seats(s, player, v, money, win)
        dense(h, H, self.net.policy_w, self.net.policy_b, NUM_ACTIONS, logits)
        softmax_over(logits, actions, n, priors)
        return 0

    # ------------------------------------------------------------ Python faces (tests, tools)

    def raw(self, obs):
        """The C forward pass on observations (B, OBSERVATION_SIZE): (win logits (B, 4),
        money / money_scale (B, 4), policy logits (B, 183)), as Model.raw."""
        cdef float[:, ::1] x = np.ascontiguousarray(np.atleast_2d(obs), dtype=np.float32)
        if x.shape[1] != OBSERVATION_SIZE:
            raise ValueError(f"observations must have shape (batch, {OBSERVATION_SIZE}), "
                             f"got {np.shape(obs)}")
        out_v = np.empty((x.shape[0], MODEL_VALUE_OUT), dtype=np.float32)
        out_p = np.empty((x.shape[0], NUM_ACTIONS), dtype=np.float32)
        cdef float[:, ::1] ov = out_v
        cdef float[:, ::1] op = out_p
        cdef float a[MODEL_MAX_WIDTH]
        cdef float b[MODEL_MAX_WIDTH]
        cdef const float* h
        cdef Py_ssize_t r
        cdef int H = self.net.width[self.net.num_layers - 1]
        with nogil:
            for r in range(x.shape[0]):
                h = net_trunk(&self.net, &x[r, 0], a, b)
                self._value(&x[r, 0], h, &ov[r, 0])
                dense(h, H, self.net.policy_w, self.net.policy_b, NUM_ACTIONS, &op[r, 0])
        return out_v[:, :MODEL_SEATS], out_v[:, MODEL_SEATS:], out_p

    def priors(self, GameState state):
        """{action: prior} over the legal actions of a decision point (`policy`)."""
        cdef action_t buf[MAX_LEGAL]
        cdef float pr[MAX_LEGAL]
        cdef int k, n
        if state.s.terminal or state_current_player(&state.s) < 0:
            raise ValueError("priors need a decision point (not a chance event or the end)")
        n = state_legal_actions(&state.s, buf)
        self.policy(&state.s, buf, n, pr)
        return {int(buf[k]): float(pr[k]) for k in range(n)}

    def legal_logits(self, GameState state):
        """{action: logit} over the legal actions of a decision point (`policy_logits`:
        what a rollout with rollout=model draws from)."""
        cdef action_t buf[MAX_LEGAL]
        cdef float lg[MAX_LEGAL]
        cdef int k, n
        if state.s.terminal or state_current_player(&state.s) < 0:
            raise ValueError("legal_logits need a decision point (not a chance event or the end)")
        n = state_legal_actions(&state.s, buf)
        self.policy_logits(&state.s, buf, n, lg)
        return {int(buf[k]): float(lg[k]) for k in range(n)}

    def evaluate_many(self, GameState state, int repeats):
        """Evaluate `state` `repeats` times without the GIL (benchmarks); returns the
        CPU seconds of this thread it took (not wall time: the machine may be shared)."""
        cdef StateC s = state.s
        cdef double money[4]
        cdef double win[4]
        cdef int i
        from time import thread_time
        t0 = thread_time()
        with nogil:
            for i in range(repeats):
                self.evaluate(&s, NULL, money, win)
        return thread_time() - t0
