# One-step greedy choices by an evaluator: GreedyBot and the end of every principal
# variation (see _greedy.pyx).
from gallerist.engine._core cimport StateC, RngC, action_t
from gallerist.ai.search._evaluation cimport Evaluator


cdef enum:
    MAX_LINE = 256           # the longest principal variation a search reports


cdef int line_start(StateC* s, const StateC* root, int action, action_t* out) noexcept nogil
cdef int greedy_action(StateC* s, Evaluator ev) noexcept nogil
cdef int most_likely_outcome(StateC* s) noexcept nogil
cdef int extend_turn(StateC* s, int player, int turn, Evaluator ev, action_t* out, int n,
                     int max_len) noexcept nogil
