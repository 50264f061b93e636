# MCTS: the tree, the search parameters and the engine wrapper (see _mcts.pyx).
from libc.stdint cimport uint64_t, int32_t, int16_t, int8_t

from gallerist.engine._core cimport StateC, RngC
from gallerist.engine.state cimport GameState
from gallerist.ai.search._evaluation cimport Evaluator
from gallerist.ai.search._model cimport ModelEvaluator


cdef struct NodeC:
    int32_t first_child        # index of the first child; children are contiguous
    int16_t num_children       # -1 until expanded
    int16_t action             # the action that led here
    int8_t player              # to move here: >= 0, PLAYER_CHANCE or PLAYER_TERMINAL
    int32_t visits
    float reward[4]            # summed rewards per player
    float money[4]             # summed final (or estimated) money per player
    float win[4]               # summed win shares per player
    float prior                # the policy's prior of the action that led here (PUCT)

cdef struct TreeC:
    NodeC* nodes
    int32_t size
    int32_t cap
    int32_t root
    RngC rng
    long iterations            # this search's iterations
    long decisions             # decisions simulated by the evaluator (rollouts)
    int failed                 # out of memory
    float* money_lo            # [MAX_LEGAL * 4]: per root child and seat, the lowest and
    float* money_hi            # highest final money this search backed up through it
    char pad[56]               # to 128 bytes: each thread's tree header (written at every
                               # iteration) on cache lines of its own, no false sharing

cdef struct RewardParams:
    double margin_scale        # $ scale of the margin reward
    double margin_weight       # reward = (1 - w) * win + w * margin
    double solo_reference      # solo: the final money that earns reward 0.5
    double solo_scale          # solo: $ scale of the logistic reward

cdef struct MctsParams:
    double c_uct
    double c_puct              # PUCT's constant, with priors
    double fpu_reduction       # PUCT: an unvisited child's Q is the parent's mean minus
                               # this times sqrt(the priors of the visited children)
    int use_prior              # PUCT with the prior model's policy (else UCT)
    int expand_leaf            # the leaf estimate is the prior model: expand and evaluate
                               # a new leaf with one forward pass
    int max_nodes
    int viewer                 # whose information the determinizations respect
    RewardParams rp


cdef class MctsEngine:
    cdef TreeC* trees
    cdef int nthreads
    cdef MctsParams mp
    cdef readonly Evaluator evaluator
    cdef readonly ModelEvaluator prior   # the policy of PUCT, or None (UCT)
    cdef StateC root
    cdef int stop_flag
    cdef object root_history
    cdef object root_only        # the restricted root moves (a tuple), or None
    cdef int root_viewer
    cdef void _reset_tree(self, int i, uint64_t seed)
    cdef int _reset_ranges(self, int i) except -1
    cdef bint _follows_root(self, GameState state, int viewer, bint reuse)
    cdef int32_t _subtree(self, int i, list extra)
