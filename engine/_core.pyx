# cython: language_level=3
"""The rules of The Gallerist as plain C functions on StateC.

Every rule cites docs/rules.md (R-..., RN §..., C§...). A turn is a stack of
tasks (see TaskKind in _core.pxd): the top task is the current decision point, a chance
event, or an automatic step that runs at once. A decision or chance with exactly one
option is resolved automatically, so callers only ever see real choices.

Nothing here allocates or touches Python objects; the callers (state.pyx, ai/search/_mcts.pyx)
only pass actions that were listed by state_legal_actions / state_chance_outcomes.

The functions live in the engine/_rules_*.pxi files included below, one per area; they
are included rather than compiled apart so that the C compiler can inline across them.
"""
from libc.string cimport memset, memcpy
from libc.stdint cimport int8_t, int16_t, uint8_t, uint32_t, uint64_t

# pair index -> colours (A_TICKET_PAIR)
cdef int PAIR_A[3]
cdef int PAIR_B[3]
PAIR_A[:] = [VIP, VIP, INVESTOR]
PAIR_B[:] = [INVESTOR, COLLECTOR, COLLECTOR]

# The rules, by area (each file says what it holds):
include "_rules_helpers.pxi"
include "_rules_checks.pxi"
include "_rules_legal.pxi"
include "_rules_effects.pxi"
include "_rules_lacerda.pxi"
include "_rules_scoring.pxi"
include "_rules_auto.pxi"
include "_rules_resolve.pxi"
include "_rules_setup.pxi"
include "_rules_results.pxi"
include "_rules_consistency.pxi"
