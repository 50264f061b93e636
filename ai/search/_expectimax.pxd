# Expectimax: the transposition table, the search context and the engine wrapper
# (see _expectimax.pyx).
from libc.stdint cimport uint64_t, int16_t, int8_t

from gallerist.engine._core cimport RngC
from gallerist.ai.search._evaluation cimport Evaluator


cdef struct TTEntry:
    uint64_t key
    float vec[4]
    int16_t best
    int8_t depth
    int8_t used

cdef struct EmCtx:
    TTEntry* tt
    uint64_t tt_mask
    long nodes
    double deadline
    int* stop
    int aborted
    int chance_width
    int alpha_beta             # two players: alpha-beta on the money margin
    RngC rng


cdef class ExpectimaxEngine:
    cdef EmCtx ctx
    cdef readonly Evaluator evaluator
    cdef int stop_flag
    cdef int tt_bits
