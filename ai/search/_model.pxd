# The learned evaluation: the network's weights in C arrays and its forward pass
# (see _model.pyx; the file format is ai/net/model_file.py, the NumPy reference
# ai/net/reference.py).
from gallerist.engine._core cimport StateC, RngC, action_t
from gallerist.ai.search._evaluation cimport Evaluator

# The network's limits, stated here once. cpdef: a build makes them Python ints of
# gallerist.ai.search._model too, for ai.net.model_file (MAX_LAYERS, MAX_WIDTH) to read
# instead of restating them (until then _model.pyx asserts the two equal).
cpdef enum:
    MODEL_MAX_LAYERS = 8       # most trunk layers
    MODEL_MAX_WIDTH = 4096     # widest trunk layer: scratch buffers on the stack (32 KB)

cdef enum:
    MODEL_SEATS = 4            # tensor seats of the value heads
    MODEL_VALUE_OUT = 8        # the value heads side by side: win logits 0..3, money 4..7

cdef struct NetC:
    int num_layers
    int in_size                # OBSERVATION_SIZE
    int width[MODEL_MAX_LAYERS]    # out_i of trunk layer i
    float* w[MODEL_MAX_LAYERS]     # (in_i, out_i), row-major, 64-byte aligned
    float* b[MODEL_MAX_LAYERS]     # (out_i,)
    float* value_w             # (H, 8): win_w | money_w
    float* value_b             # (8,)
    float* value_skip          # (in_size, 8): win_skip | money_skip (format 2), or NULL
    float* policy_w            # (H, NUM_ACTIONS)
    float* policy_b            # (NUM_ACTIONS,)
    float money_scale


cdef const float* net_trunk(const NetC* net, const float* x, float* a, float* b) noexcept nogil


cdef class ModelEvaluator(Evaluator):
    cdef NetC net
    cdef readonly object model     # the ai.net.reference.Model the weights were copied from
    cdef void _free(self)
    cdef int _observe(self, const StateC* s, float* obs) noexcept nogil
    cdef void _value(self, const float* obs, const float* h, float* v) noexcept nogil
    cdef void _to_seats(self, const StateC* s, int player, const float* v, double* money,
                        double* win) noexcept nogil
    cdef void policy(self, const StateC* s, const action_t* actions, int n,
                     float* priors) noexcept nogil
    cdef void policy_logits(self, const StateC* s, const action_t* actions, int n,
                            float* logits) noexcept nogil
    cdef long evaluate_policy(self, const StateC* s, double* money, double* win,
                              const action_t* actions, int n, float* priors) noexcept nogil
