# The cross-field rules and the engine's word on a decoded state (engine/_consistency.pyx),
# and the error helpers the state reader (engine/_reader.pyx) shares with them.
from gallerist.engine._core cimport StateC

cdef enum:
    NUM_KINDS = 64                 # task kinds are below this

cdef str path(str fmt, long i, long j, str field)
cdef int fail(str path, str problem) except -1
cdef str enum_name(enum, long v)
cdef str kind_name(long kind)
cdef int check_consistency(const StateC* s) except -1
cdef int check_engine(StateC* s) except -1
cdef int check_playable(StateC* s) except -1
