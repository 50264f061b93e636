# The GameState wrapper, for the modules that cimport it (the codec, the search).
from gallerist.engine._core cimport StateC

cdef class GameState:
    cdef StateC s              # the whole game; copying it copies the game
    cdef StateC* _undo         # snapshots taken before each applied action
    cdef int _undo_len
    cdef int _undo_cap
    cdef list _history         # the actions applied, in order
    cdef void _push_undo(self) except *
    cdef void _apply_unchecked(self, int action) except *
