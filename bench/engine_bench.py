#!/usr/bin/env python3
"""Speed of the Gallerist engine, in one table: copies, apply+undo, legal actions, the
observation tensor, the state codec, playouts.

Run from the repository root after building the extensions::

    python bench/engine_bench.py            # full run, about half a minute
    python bench/engine_bench.py --quick    # small counts, a few seconds
    python bench/engine_bench.py --json results.json

Each measure is given for 2, 3 and 4 players. "C" rows come from
``engine._bench.bench_core`` (loops in C on a pool of mid-game decision points; its
docstring says exactly what each loop does), "Python" rows time the public
``GameState`` methods from Python on a similar pool, and the playout rows come from
``engine.random_playouts`` (whole uniformly random games in C). Every timed loop runs
a few times and the fastest run is kept.
"""
from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from gallerist import engine
from gallerist.engine._bench import bench_core
from gallerist.engine.state import GameState, new_game, random_playouts

PLAYER_COUNTS = (2, 3, 4)

#: Loop sizes: (quick, full).
COUNTS = {
    "core_iterations": (200_000, 2_000_000),
    "core_repeat": (3, 5),
    "py_iterations": (30_000, 300_000),
    "py_copy_iterations": (3_000, 30_000),
    "py_codec_iterations": (1_000, 10_000),
    "py_repeat": (3, 5),
    "playout_games": (500, 5_000),
}


def _pool(num_players: int, size: int, seed: int) -> list[tuple[GameState, int]]:
    """Mid-game decision points reached by random play, each with one legal action.

    Args:
        num_players: 2, 3 or 4.
        size: how many positions.
        seed: seed of the games and of the moves.

    Returns:
        (position without history, legal action) pairs.
    """
    rng = random.Random(seed)
    out: list[tuple[GameState, int]] = []
    while len(out) < size:
        s = new_game(num_players, rng.getrandbits(32))
        for _ in range(rng.randrange(20, 170 * num_players)):
            if s.is_terminal():
                break
            if s.is_chance():
                s.apply_random_chance(rng.getrandbits(32))
            else:
                s.apply(rng.choice(s.legal_actions()))
        while s.is_chance():
            s.apply_random_chance(rng.getrandbits(32))
        if s.is_terminal():
            continue
        pos = s.clone_position()
        out.append((pos, rng.choice(pos.legal_actions())))
    return out


def _best_rate(loop: Callable[[int], None], iterations: int, repeat: int) -> float:
    """Operations per second of `loop(iterations)`, the fastest of `repeat` runs."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        loop(iterations)
        best = min(best, time.perf_counter() - t0)
    return iterations / best if best > 0 else float("inf")


def python_level(num_players: int, iterations: int, copy_iterations: int,
                 codec_iterations: int, repeat: int, seed: int) -> dict[str, float]:
    """Time the GameState methods from Python.

    Args:
        num_players: 2, 3 or 4.
        iterations: calls per timed loop.
        copy_iterations: calls per timed loop of `copy()` (slower: it copies the undo stack).
        codec_iterations: calls per timed loop of `to_proto()` and `from_proto()` (the
            reader runs every check of a state from outside).
        repeat: timed runs per measure (the fastest is kept).
        seed: seed of the position pool.

    Returns:
        Rates per second, and the history length that `copy()` carried.
    """
    pool = _pool(num_players, 32, seed)
    states = [s for s, _ in pool]
    mask = len(pool) - 1

    def clone(n: int) -> None:
        for i in range(n):
            states[i & mask].clone_position()

    # copy() duplicates the history and undo stack too: time it on a mid-game state
    # that was reached by play, and report how long its history is.
    played = new_game(num_players, seed)
    rng = random.Random(seed)
    for _ in range(100 * num_players):
        if played.is_chance():
            played.apply_random_chance(rng.getrandbits(32))
        else:
            played.apply(rng.choice(played.legal_actions()))

    def copy(n: int) -> None:
        for _ in range(n):
            played.copy()

    def apply_undo(n: int) -> None:
        for i in range(n):
            s, a = pool[i & mask]
            s.apply(a)
            s.undo()

    def legal(n: int) -> None:
        for i in range(n):
            states[i & mask].legal_actions()

    buf = np.empty(engine.OBSERVATION_SIZE, dtype=np.float32)

    def observation(n: int) -> None:
        for i in range(n):
            states[i & mask].observation(i % num_players)

    def observation_out(n: int) -> None:
        for i in range(n):
            states[i & mask].observation(i % num_players, out=buf)

    messages = [s.to_proto() for s in states]

    def to_proto(n: int) -> None:
        for i in range(n):
            states[i & mask].to_proto()

    def from_proto(n: int) -> None:
        for i in range(n):
            GameState.from_proto(messages[i & mask])

    return {
        "to_proto_per_s": _best_rate(to_proto, codec_iterations, repeat),
        "from_proto_per_s": _best_rate(from_proto, codec_iterations, repeat),
        "clone_position_per_s": _best_rate(clone, iterations, repeat),
        "copy_per_s": _best_rate(copy, copy_iterations, repeat),
        "copy_history_len": float(len(played.history)),
        "apply_undo_per_s": _best_rate(apply_undo, iterations, repeat),
        "legal_per_s": _best_rate(legal, iterations, repeat),
        "observation_per_s": _best_rate(observation, iterations, repeat),
        "observation_out_per_s": _best_rate(observation_out, iterations, repeat),
    }


def playouts(num_players: int, games: int, seed: int, repeat: int) -> dict[str, float]:
    """Whole random games in C (``random_playouts``), the fastest of `repeat` runs.

    Args:
        num_players: 2, 3 or 4.
        games: games per run.
        seed: seed of the games.
        repeat: runs (the fastest is kept).

    Returns:
        decisions_per_s, games_per_s, decisions_per_game, unfinished.
    """
    best = random_playouts(num_players, games, seed)
    for _ in range(repeat - 1):
        r = random_playouts(num_players, games, seed)
        if r["seconds"] < best["seconds"]:
            best = r
    secs = best["seconds"]
    return {
        "decisions_per_s": best["decisions"] / secs if secs > 0 else float("inf"),
        "games_per_s": games / secs if secs > 0 else float("inf"),
        "decisions_per_game": best["decisions"] / games,
        "unfinished": float(best["unfinished"]),
    }


def run(quick: bool, seed: int = 0) -> dict[str, Any]:
    """Every measure for 2, 3 and 4 players.

    Args:
        quick: use the small counts.
        seed: seed of the positions and games.

    Returns:
        A JSON-ready dict: ``meta`` and, per player count, ``c``, ``python`` and ``playouts``.
    """
    k = 0 if quick else 1
    counts = {name: pair[k] for name, pair in COUNTS.items()}
    results: dict[str, Any] = {}
    for n in PLAYER_COUNTS:
        core = bench_core(n, counts["core_iterations"], seed, repeat=counts["core_repeat"])
        core.pop("_sink", None)
        results[str(n)] = {
            "c": core,
            "python": python_level(n, counts["py_iterations"], counts["py_copy_iterations"],
                                   counts["py_codec_iterations"], counts["py_repeat"], seed),
            "playouts": playouts(n, counts["playout_games"], seed, counts["py_repeat"]),
        }
    state_bytes = results[str(PLAYER_COUNTS[0])]["c"]["state_bytes"]
    return {
        "meta": {
            "quick": quick,
            "seed": seed,
            "counts": counts,
            "state_bytes": state_bytes,
            "python": platform.python_version(),
            "machine": platform.machine(),
            "processor": platform.processor() or platform.machine(),
            "engine": getattr(engine, "__file__", "?"),
        },
        "results": results,
    }


def _rate(x: float) -> str:
    """A rate with a unit prefix, e.g. '12.3 M/s'."""
    for div, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if x >= div:
            return f"{x / div:.3g} {unit}/s"
    return f"{x:.3g} /s"


def format_table(data: dict[str, Any]) -> str:
    """The results as a fixed-width table.

    Args:
        data: the dict returned by `run`.

    Returns:
        The table, one measure per row, one column per player count.
    """
    res = data["results"]
    meta = data["meta"]
    cols = [str(n) for n in PLAYER_COUNTS]

    def row(label: str, level: str, values: list[str]) -> str:
        return f"{label:43}{level:7}" + "".join(f"{v:>14}" for v in values)

    def rates(section: str, key: str) -> list[str]:
        return [_rate(res[c][section][key]) for c in cols]

    def us(section: str, key: str) -> list[str]:
        return [f"{1e6 / res[c][section][key]:.2f} us" for c in cols]

    def ns(key: str) -> list[str]:
        return [f"{res[c]['c']['ns'][key]:.1f} ns" for c in cols]

    lines = [
        f"Gallerist engine benchmark ({'quick' if meta['quick'] else 'full'} run): "
        f"StateC is {meta['state_bytes']} bytes; Python {meta['python']} on {meta['machine']}",
        row("measure", "level", [f"{c} players" for c in cols]),
        "-" * (50 + 14 * len(cols)),
        row("state copy, struct assignment", "C", rates("c", "copy_per_s")),
        row("  time per copy", "C", ns("copy")),
        row("state copy, memcpy", "C", rates("c", "memcpy_per_s")),
        row("  time per memcpy", "C", ns("memcpy")),
        row("  struct copy / memcpy time ratio", "C",
            [f"{res[c]['c']['ns']['copy'] / res[c]['c']['ns']['memcpy']:.2f}"
             if res[c]["c"]["ns"]["memcpy"] > 0 else "-" for c in cols]),
        row("clone_position()", "Python", rates("python", "clone_position_per_s")),
        row("copy() (with history and undo stack)", "Python", rates("python", "copy_per_s")),
        row("  actions in that history", "Python",
            [f"{int(res[c]['python']['copy_history_len'])}" for c in cols]),
        row("apply + undo (snapshot, apply, restore)", "C", rates("c", "apply_undo_per_s")),
        row("  apply alone (pair minus the two copies)", "C", rates("c", "apply_per_s")),
        row("  undo alone (one restoring copy)", "C", rates("c", "undo_per_s")),
        row("apply() + undo()", "Python", rates("python", "apply_undo_per_s")),
        row("legal-action generation", "C", rates("c", "legal_per_s")),
        row("legal_actions()", "Python", rates("python", "legal_per_s")),
        row("observation tensor (observation_fill)", "C", us("c", "observation_per_s")),
        row("observation(player), new array", "Python", us("python", "observation_per_s")),
        row("observation(player, out=buf)", "Python", us("python", "observation_out_per_s")),
        row("to_proto() (the state writer)", "Python", us("python", "to_proto_per_s")),
        row("from_proto() (the reader, every check)", "Python",
            us("python", "from_proto_per_s")),
        row("random playouts: decisions", "C", rates("playouts", "decisions_per_s")),
        row("random playouts: games", "C", rates("playouts", "games_per_s")),
        row("random playouts: mean decisions per game", "C",
            [f"{res[c]['playouts']['decisions_per_game']:.1f}" for c in cols]),
    ]
    unfinished = [c for c in cols if res[c]["playouts"]["unfinished"]]
    if unfinished:
        lines.append("WARNING: unfinished random games for " + ", ".join(unfinished)
                     + " players")
    counts = meta["counts"]
    lines.append(f"(C loops: {counts['core_iterations']} iterations, best of "
                 f"{counts['core_repeat']}; Python loops: {counts['py_iterations']} calls "
                 f"({counts['py_codec_iterations']} for the codec), best of {counts['py_repeat']}; playouts: {counts['playout_games']} games)")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print the table.

    Args:
        argv: command-line arguments (default: sys.argv[1:]).

    Returns:
        The exit status, 0 on success.
    """
    parser = argparse.ArgumentParser(
        description="Benchmark the Gallerist engine: state copies, apply+undo, legal actions "
                    "and random playouts, at C and Python level, for 2, 3 and 4 players.")
    parser.add_argument("--quick", action="store_true",
                        help="small counts: finishes in a few seconds (less precise)")
    parser.add_argument("--json", metavar="FILE", type=Path,
                        help="also write every number to FILE as JSON")
    parser.add_argument("--seed", type=int, default=0, help="seed of positions and games")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    data = run(args.quick, args.seed)
    data["meta"]["seconds"] = time.perf_counter() - t0
    print(format_table(data))
    print(f"(benchmark took {data['meta']['seconds']:.1f} s)")
    if args.json is not None:
        args.json.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
