# cython: language_level=3
"""Evaluators: the searches' one question about a position they stop at.

An `Evaluator` estimates each player's final money and win chance (OpenSpiel's
Evaluator pattern). MCTS and expectimax take one as an object and call its C method
`evaluate` from their threads without the GIL; they never score positions themselves.
Here: the base class, `HeuristicEvaluator` (the game scored as it stands plus small
values for held resources) and `PythonEvaluator` (a Python method, for experiments and
tests). `RolloutEvaluator` (play on, then ask another evaluator) is in _rollout.pyx.
A learned evaluator is one more subclass.
"""
import math

from libc.math cimport exp, INFINITY
from libc.string cimport memcpy

from gallerist.engine._core cimport (
    StateC, RngC, MAX_PLAYERS, money_steps, rng_next, solo_return, state_returns,
    state_score_now,
)
from gallerist.engine.state cimport GameState

WIN_TEMPERATURE = 6.0   # the default $ scale of the softmax from money to win chances


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


cdef long leaf_values(Evaluator ev, StateC* s, RngC* rng, double* money, double* win) noexcept nogil:
    """Money and win share at a leaf: exact at the end (the game's returns), else the
    evaluator's estimate (which may play s on). Returns the decisions it simulated."""
    cdef int p
    if s.terminal:
        for p in range(s.num_players):
            money[p] = s.players[p].money
        if win != NULL:
            state_returns(s, win)
        return 0
    return ev.evaluate(s, rng, money, win)


cdef class Evaluator:
    """Base class: estimates of each player's final money and win chance.

    Subclasses (in Cython) override `evaluate`; its contract: fill money[0..n) (and
    win[0..n) unless win is NULL) for the n players of s, without the GIL, safely from
    several threads at once. It may change s (play it on) and draw from rng (which
    deterministic evaluators may receive as NULL); it returns the decisions it simulated.
    At a terminal state it scores what it sees: callers that want the exact result use
    `leaf_values`. `static()` is the evaluator for one-step greedy choices (principal
    variation lines, moves a search never visited): itself unless it plays on.

    Args:
        win_temperature: $ scale of the softmax that turns money into win chances
            (`win_from_money`; solo, the estimated return money / (money + 100)).
    """

    def __cinit__(self, *args, **kwargs):
        self.win_temperature = WIN_TEMPERATURE

    def __init__(self, *, double win_temperature=WIN_TEMPERATURE):
        if type(self) is Evaluator:
            raise TypeError("Evaluator is a base class: use a subclass such as HeuristicEvaluator")
        if not math.isfinite(win_temperature) or win_temperature <= 0:
            raise ValueError(f"win_temperature must be > 0, got {win_temperature}")
        self.win_temperature = win_temperature

    cdef long evaluate(self, StateC* s, RngC* rng, double* money, double* win) noexcept nogil:
        cdef int p
        for p in range(s.num_players):
            money[p] = 0
        if win != NULL:
            self.win_from_money(money, s.num_players, win)
        return 0

    cdef void win_from_money(self, const double* money, int n, double* win) noexcept nogil:
        """Win chances from money: softmax at win_temperature; solo, the estimated return."""
        if n == 1:
            win[0] = solo_return(money[0])
        else:
            win_chances(money, n, self.win_temperature, win)

    def check(self):
        """Raise what went wrong in evaluations since the last check (nothing can, here)."""

    cpdef Evaluator static(self):
        """The evaluator for one-step greedy choices: this one (it does not play on)."""
        return self

    def values(self, GameState state, unsigned long long seed=0):
        """(money per player, win chance per player) of `state`: exact at the end, the
        estimate before (a sampling evaluator draws from `seed`)."""
        cdef StateC s
        cdef RngC r
        cdef double money[MAX_PLAYERS]
        cdef double win[MAX_PLAYERS]
        cdef int p, n = state.s.num_players
        memcpy(&s, &state.s, sizeof(StateC))
        r.s = seed
        rng_next(&r)
        leaf_values(self, &s, &r, money, win)
        self.check()
        return [money[p] for p in range(n)], [win[p] for p in range(n)]

    def win_chances(self, money):
        """The win chances this evaluator gives a money vector (one entry per player)."""
        cdef double m[MAX_PLAYERS]
        cdef double w[MAX_PLAYERS]
        cdef int p, n = len(money)
        if not 1 <= n <= MAX_PLAYERS:
            raise ValueError(f"money needs 1..{MAX_PLAYERS} entries, got {n}")
        for p in range(n):
            m[p] = money[p]
        self.win_from_money(m, n, w)
        return [w[p] for p in range(n)]


cdef class HeuristicEvaluator(Evaluator):
    """The game scored as it stands (every final scoring step, hidden cards at their
    mean) plus small values for held resources; win chances by softmax.

    Args:
        win_temperature: as Evaluator.
        ticket_value: $ per held ticket.
        commission_value: $ for a held commission.
        influence_value: $ per money step the influence could still pay (influence can
            still buy money or fame: worth more than its end value).
    """

    def __init__(self, *, double win_temperature=WIN_TEMPERATURE, double ticket_value=1.0,
                 double commission_value=2.0, double influence_value=0.5):
        super().__init__(win_temperature=win_temperature)
        for key, value in (("ticket_value", ticket_value), ("commission_value", commission_value),
                           ("influence_value", influence_value)):
            if not math.isfinite(value):
                raise ValueError(f"{key} must be a finite number, got {value}")
        self.ticket_value = ticket_value
        self.commission_value = commission_value
        self.influence_value = influence_value

    cdef void estimate_money(self, const StateC* s, double* out) noexcept nogil:
        """Estimated final money of each player (at a terminal state: scored again as it
        stands, which is what expectimax and the greedy lines have always used)."""
        cdef int p
        state_score_now(s, out)
        if s.terminal:
            return
        for p in range(s.num_players):
            out[p] += self.ticket_value * (s.players[p].tickets[0] + s.players[p].tickets[1]
                                           + s.players[p].tickets[2])
            out[p] += self.influence_value * money_steps(s.players[p].influence)
            if s.players[p].commission >= 0:
                out[p] += self.commission_value

    cdef long evaluate(self, StateC* s, RngC* rng, double* money, double* win) noexcept nogil:
        self.estimate_money(s, money)
        if win != NULL:
            self.win_from_money(money, s.num_players, win)
        return 0


cdef class MixEvaluator(Evaluator):
    """A weighted mean of two evaluators' estimates, each on its own copy of the position:
    `weight` * first + (1 - weight) * second, for money and win chances alike (AlphaGo's
    mix of a value network and a playout). The decisions it returns are the sum of
    both evaluators' (a network simulates none); its softmax and its one-step evaluator
    are second's.

    Args:
        first, second: the two evaluators (e.g. a ModelEvaluator and a RolloutEvaluator).
        weight: first's share, in [0, 1].
    """

    def __init__(self, Evaluator first not None, Evaluator second not None, *, double weight):
        if not 0 <= weight <= 1:
            raise ValueError(f"mix weight must be in [0, 1], got {weight}")
        super().__init__(win_temperature=second.win_temperature)
        self.first = first
        self.second = second
        self.weight = weight

    cdef long evaluate(self, StateC* s, RngC* rng, double* money, double* win) noexcept nogil:
        cdef StateC c
        cdef double m1[MAX_PLAYERS]
        cdef double w1[MAX_PLAYERS]
        cdef int p, n = s.num_players
        cdef long d
        memcpy(&c, s, sizeof(StateC))
        d = leaf_values(self.first, &c, rng, m1, w1)
        d += leaf_values(self.second, s, rng, money, win)
        for p in range(n):
            money[p] = self.weight * m1[p] + (1 - self.weight) * money[p]
            if win != NULL:
                win[p] = self.weight * w1[p] + (1 - self.weight) * win[p]
        return d

    cdef void win_from_money(self, const double* money, int n, double* win) noexcept nogil:
        self.second.win_from_money(money, n, win)

    def check(self):
        """Raise what went wrong in either evaluator's evaluations since the last check."""
        self.first.check()
        self.second.check()

    cpdef Evaluator static(self):
        """The evaluator for one-step greedy choices: second's."""
        return self.second.static()


cdef class PythonEvaluator(Evaluator):
    """An evaluator written in Python, for experiments and tests: subclass it and define
    `estimate(state) -> (money, win)` (sequences with one entry per player; win may be
    None for the softmax of money). Each call takes the GIL, so it is slow and
    serialises search threads. An exception in `estimate` cannot cross the C search:
    the position counts as $0 for everyone, the first exception is kept, and the bot
    raises it (`check()`) when its search returns.
    """

    cdef long evaluate(self, StateC* s, RngC* rng, double* money, double* win) noexcept nogil:
        with gil:
            try:
                self._estimate(s, money, win)
            except BaseException as exc:
                if self._error is None:
                    self._error = exc
        return 0

    def check(self):
        """Raise the first exception `estimate` raised since the last check, if any."""
        exc, self._error = self._error, None
        if exc is not None:
            raise ValueError(f"{type(self).__name__}.estimate failed during the search: "
                             f"{type(exc).__name__}: {exc}") from exc

    cdef void _estimate(self, const StateC* s, double* money, double* win) except *:
        cdef GameState g = GameState.__new__(GameState)
        cdef int p, n = s.num_players
        for p in range(n):
            money[p] = 0
        if win != NULL:
            self.win_from_money(money, n, win)
        g.s = s[0]
        est_money, est_win = self.estimate(g)
        for p in range(n):
            money[p] = est_money[p]
        if win != NULL:
            if est_win is None:
                self.win_from_money(money, n, win)
            else:
                for p in range(n):
                    win[p] = est_win[p]

    def estimate(self, GameState state):
        """(money per player, win chance per player or None) of a non-terminal state."""
        raise TypeError(f"{type(self).__name__} defines no estimate(state): a PythonEvaluator "
                        f"subclass must define it")


cdef HeuristicEvaluator _DEFAULT = HeuristicEvaluator()


def evaluate(GameState state, Evaluator evaluator=None):
    """(estimated final money per player, win chances) of `state` by `evaluator`
    (default: the heuristic with its default values); exact at the end."""
    return (evaluator if evaluator is not None else _DEFAULT).values(state)
