# cython: language_level=3
"""C-level timings of the engine's primitives for bench/engine_bench.py: struct copies,
memcpy, apply and undo, legal actions, the observation."""
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy

from gallerist.engine._core cimport (
    StateC, RngC, action_t, MAX_LEGAL, PLAYER_CHANCE, state_init, state_current_player,
    state_legal_actions, state_apply, state_sample_chance, playout_random, rng_next, rng_below,
)
from gallerist.engine._observation cimport observation_fill, OBSERVATION_SIZE
from gallerist.engine._clock cimport now_s

from gallerist.engine.state import _check_players, _check_seed

__all__ = ["bench_core"]


def bench_core(num_players: int = 2, iterations: int = 100000, seed: int = 0,
               repeat: int = 3) -> dict:
    """C-level timings for bench/: struct copies, memcpy, apply+undo, legal actions.

    Works on a pool of 64 mid-game decision points (random play from new games), each
    with one legal action chosen at random. Every quantity is timed as a whole loop of
    `iterations` steps (the clock is read twice per loop, never per call), `repeat`
    times, and the fastest run is kept. Each loop passes its result to a cheap opaque C
    call of engine._core (state_current_player, reached through a function pointer) so
    that the compiler cannot drop a copy whose result is otherwise unused; a loop of
    that call alone (`t_call`) is timed and subtracted:

    - copy:        ``t = pool[k]`` (struct assignment), then the call on ``&t``
    - memcpy:      ``memcpy(&t, &pool[k])``, then the call on ``&t``
    - legal:       ``state_legal_actions(&pool[k])`` (no subtraction: a real call)
    - apply+undo:  ``snap = pool[k]; state_apply(&pool[k], a[k]); pool[k] = snap``,
                   the snapshot, the action and the restore, as GameState.apply/undo do
    - undo-only:   ``snap = pool[k]; call(&pool[k]); pool[k] = snap``, the two copies
                   alone; apply = (apply+undo) - (undo-only), undo = (undo-only - t_call) / 2
    - observation: ``observation_fill(&pool[k], k % n, buf)`` (no subtraction: a real call)

    Returns rates per second (``copy_per_s``, ``memcpy_per_s``, ``legal_per_s``,
    ``apply_undo_per_s``, ``apply_per_s``, ``undo_per_s``, ``observation_per_s``), the struct size
    ``state_bytes``, ``ns`` (nanoseconds per operation of each kind) and ``_sink``.
    """
    _check_players(num_players)
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations <= 0:
        raise ValueError(f"iterations must be a positive int, got {iterations!r}")
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat <= 0:
        raise ValueError(f"repeat must be a positive int, got {repeat!r}")
    cdef int np = num_players
    cdef StateC t, snap
    cdef StateC* states
    cdef RngC rng
    cdef action_t buf[MAX_LEGAL]
    cdef action_t acts[64]
    cdef long i, it = iterations, count = 0, k
    cdef int n, r, reps = repeat
    cdef double t0, t1
    cdef double t_call = 1e300, t_copy = 1e300, t_memcpy = 1e300, t_legal = 1e300
    cdef double t_au = 1e300, t_u = 1e300, t_obs = 1e300
    cdef float obs[OBSERVATION_SIZE]
    rng.s = _check_seed(seed)
    # a pool of mid-game decision points (chance events resolved), one action each
    states = <StateC*>malloc(64 * sizeof(StateC))
    if states == NULL:
        raise MemoryError()
    try:
        with nogil:
            for k in range(64):
                while True:
                    state_init(&states[k], np, rng_next(&rng))
                    playout_random(&states[k], &rng, 20 + rng_below(&rng, 150))
                    while state_current_player(&states[k]) == PLAYER_CHANCE:
                        state_apply(&states[k], <action_t>state_sample_chance(&states[k], &rng))
                    if state_current_player(&states[k]) >= 0:
                        break
                n = state_legal_actions(&states[k], buf)
                acts[k] = buf[rng_below(&rng, n)]
            for r in range(reps):
                t0 = now_s()
                for i in range(it):
                    count += state_current_player(&states[i & 63])
                t1 = now_s()
                t_call = min(t_call, t1 - t0)

                t0 = now_s()
                for i in range(it):
                    t = states[i & 63]
                    count += state_current_player(&t)
                t1 = now_s()
                t_copy = min(t_copy, t1 - t0)

                t0 = now_s()
                for i in range(it):
                    memcpy(&t, &states[i & 63], sizeof(StateC))
                    count += state_current_player(&t)
                t1 = now_s()
                t_memcpy = min(t_memcpy, t1 - t0)

                t0 = now_s()
                for i in range(it):
                    count += state_legal_actions(&states[i & 63], buf)
                t1 = now_s()
                t_legal = min(t_legal, t1 - t0)

                t0 = now_s()
                for i in range(it):
                    k = i & 63
                    snap = states[k]
                    state_apply(&states[k], acts[k])
                    states[k] = snap
                    count += states[k].num_tasks
                t1 = now_s()
                t_au = min(t_au, t1 - t0)

                t0 = now_s()
                for i in range(it):
                    k = i & 63
                    snap = states[k]
                    count += state_current_player(&states[k])
                    states[k] = snap
                    count += states[k].num_tasks
                t1 = now_s()
                t_u = min(t_u, t1 - t0)

                t0 = now_s()
                for i in range(it):
                    k = i & 63
                    count += observation_fill(&states[k], k % np, obs)
                t1 = now_s()
                t_obs = min(t_obs, t1 - t0)
    finally:
        free(states)

    def per_s(double ops, double seconds):
        return ops / seconds if seconds > 0 else float("inf")

    cdef double copy_s = max(t_copy - t_call, 0.0)
    cdef double memcpy_s = max(t_memcpy - t_call, 0.0)
    cdef double apply_s = max(t_au - t_u, 0.0)
    cdef double undo_s = max(t_u - t_call, 0.0) / 2
    return {
        "iterations": iterations,
        "repeat": repeat,
        "state_bytes": sizeof(StateC),
        "copy_per_s": per_s(it, copy_s),
        "memcpy_per_s": per_s(it, memcpy_s),
        "legal_per_s": per_s(it, t_legal),
        "apply_undo_per_s": per_s(it, t_au),
        "apply_per_s": per_s(it, apply_s),
        "undo_per_s": per_s(it, undo_s),
        "observation_per_s": per_s(it, t_obs),
        "ns": {
            "call": 1e9 * t_call / it,
            "copy": 1e9 * copy_s / it,
            "memcpy": 1e9 * memcpy_s / it,
            "legal": 1e9 * t_legal / it,
            "apply_undo": 1e9 * t_au / it,
            "apply": 1e9 * apply_s / it,
            "undo": 1e9 * undo_s / it,
            "observation": 1e9 * t_obs / it,
        },
        "_sink": count,
    }
