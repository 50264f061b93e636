# Small helpers shared by the compiled search modules (ai/_*.pyx): uniform random numbers
# from the engine's RngC, the 64-bit position hash and the best other player's money.
# Inline only: this .pxd has no module of its own.
from libc.math cimport INFINITY
from libc.stdint cimport uint8_t, uint64_t

from gallerist.engine._core cimport StateC, RngC, MAX_TASKS, rng_next


cdef inline double rng_unit(RngC* r) noexcept nogil:
    """A uniform double in [0, 1)."""
    return (rng_next(r) >> 11) * (1.0 / 9007199254740992.0)


cdef inline uint64_t state_hash(const StateC* s) noexcept nogil:
    """64-bit FNV-1a hash of the canonical state (task slots above the top ignored)."""
    cdef const uint8_t* b = <const uint8_t*>s
    cdef size_t i, n = sizeof(StateC)
    cdef size_t t1 = <size_t>(<const uint8_t*>&s.tasks[s.num_tasks] - b)
    cdef size_t tend = <size_t>(<const uint8_t*>&s.tasks[MAX_TASKS] - b)
    cdef uint64_t h = 1469598103934665603ULL
    for i in range(n):
        if i >= t1 and i < tend:
            continue
        h = (h ^ b[i]) * 1099511628211ULL
    return h


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
