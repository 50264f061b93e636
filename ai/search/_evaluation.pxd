# Evaluators: what the searches ask about a position they stop at (see _evaluation.pyx).
from gallerist.engine._core cimport StateC, RngC


cdef class Evaluator:
    cdef readonly double win_temperature   # $ scale of the softmax from money to win chances
    cdef long evaluate(self, StateC* s, RngC* rng, double* money, double* win) noexcept nogil
    cdef void win_from_money(self, const double* money, int n, double* win) noexcept nogil
    cpdef Evaluator static(self)


cdef class HeuristicEvaluator(Evaluator):
    cdef readonly double ticket_value      # $ per held ticket
    cdef readonly double commission_value  # $ for a held commission
    cdef readonly double influence_value   # $ per money step influence could still pay
    cdef void estimate_money(self, const StateC* s, double* money) noexcept nogil


cdef class MixEvaluator(Evaluator):
    cdef readonly Evaluator first          # weighted by weight
    cdef readonly Evaluator second         # weighted by 1 - weight
    cdef readonly double weight


cdef class PythonEvaluator(Evaluator):
    cdef object _error                     # the first exception of estimate() since check()
    cdef void _estimate(self, const StateC* s, double* money, double* win) except *


cdef long leaf_values(Evaluator ev, StateC* s, RngC* rng, double* money, double* win) noexcept nogil
