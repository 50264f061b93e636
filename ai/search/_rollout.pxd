# The rollout policy and the evaluator that plays a position on (see _rollout.pyx).
from gallerist.engine._core cimport StateC, RngC, action_t
from gallerist.ai.search._evaluation cimport Evaluator
from gallerist.ai.search._model cimport ModelEvaluator


cdef int choose_policy(StateC* s, int policy, RngC* rng, action_t* buf) noexcept nogil
cdef int rollout(StateC* s, int policy, int cutoff, RngC* rng) noexcept nogil
cdef int rollout_with(StateC* s, int policy, int cutoff, ModelEvaluator network,
                      double temperature, int model_steps, RngC* rng) noexcept nogil


cdef class RolloutEvaluator(Evaluator):
    cdef readonly Evaluator inner     # asked where the playout stops short of the end
    cdef readonly int policy          # 0 uniform random, 1 heuristic (POLICY_WEIGHT), 2 model
    cdef readonly int cutoff          # decisions to play before asking inner; 0 = to the end
    cdef readonly ModelEvaluator network   # policy 2: whose policy plays; else None
    cdef readonly double temperature  # policy 2: priors ** (1 / temperature)
    cdef readonly int model_steps     # policy 2: decisions drawn from it (0 = all), then uniform
