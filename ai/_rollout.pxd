# The rollout policy and the evaluator that plays a position on (see _rollout.pyx).
from gallerist.engine._core cimport StateC, RngC, action_t
from gallerist.ai._evaluation cimport Evaluator


cdef int choose_policy(StateC* s, int policy, RngC* rng, action_t* buf) noexcept nogil
cdef int rollout(StateC* s, int policy, int cutoff, RngC* rng) noexcept nogil


cdef class RolloutEvaluator(Evaluator):
    cdef readonly Evaluator inner     # asked where the playout stops short of the end
    cdef readonly int policy          # 0 uniform random, 1 heuristic (POLICY_WEIGHT)
    cdef readonly int cutoff          # decisions to play before asking inner; 0 = to the end
