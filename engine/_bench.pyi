"""C-level timings of the engine's primitives (bench/engine_bench.py)."""
from typing import TypedDict

from typing_extensions import NotRequired

class CoreBench(TypedDict):
    """What ``bench_core`` returns: rates per second and nanoseconds per operation."""

    iterations: int
    repeat: int
    state_bytes: int
    copy_per_s: float
    memcpy_per_s: float
    legal_per_s: float
    apply_undo_per_s: float
    apply_per_s: float
    undo_per_s: float
    observation_per_s: float
    ns: dict[str, float]
    _sink: NotRequired[int]

def bench_core(num_players: int = 2, iterations: int = 100000, seed: int = 0,
               repeat: int = 3) -> CoreBench:
    """C-level timings: struct copies, memcpy, apply+undo, legal actions."""
