# The cross-field rules and the engine's word on a decoded state (engine/_consistency.pyx),
# and the error helpers the state reader (engine/_reader.pyx) shares with them.
from libc.stdint cimport int8_t

from gallerist.engine._core cimport StateC

cdef extern from "data.h" nogil:        # the component numbers the reader checks against
    const int8_t VISITORS_TOTAL[5][3]
    const int8_t TICKETS_PER_COLOUR[5]
    const int8_t EASELS[5]
    const int8_t ARTIST_FAME0[4][2][2]
    const int8_t ARTIST_PROMO0[4][2][2]
    const int8_t ARTIST_BONUS_COUNT[5]
    const int8_t WORK_VISITORS[8]
    const int8_t FAME_MAX, INFLUENCE_MAX, PROMO_TOKENS, NUM_DESKS, START_QUEUE

cdef enum:
    NUM_KINDS = 64                 # task kinds are below this
    ASSISTANTS_PER_PLAYER = 10     # docs/rules.md §4
    TILES_PER_FORM_IN_PLAY = 7     # C§5: 8 per form, one set aside

cdef str path(str fmt, long i, long j, str field)
cdef int fail(str path, str problem) except -1
cdef str enum_name(enum, long v)
cdef str kind_name(long kind)
cdef int check_consistency(const StateC* s) except -1
cdef int check_engine(StateC* s) except -1
