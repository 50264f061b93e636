"""Record the load test's corpus: real decision points from bot games of 2, 3 and 4 players.

Usage:
    python bench/make_corpus.py -o cli/load/states.jsonl.gz   # re-record the packaged corpus
    python bench/make_corpus.py --games 2 --per-game 20 -o states.jsonl.gz   # another one
                                                      # (gallerist loadtest --corpus FILE)

For each player count it plays `--games` whole games between bots (seats alternate
``mcts:iterations=200`` and ``greedy``, seeded, so the corpus is reproducible) through
`ai.arena.play.play_game`, records every decision point with its ``on_action`` callback, and keeps
`--per-game` of them evenly spread over the game's decisions, from the first turn to the
last, so every stage of the game is represented. Chance events and the end are never kept:
each state is a valid `SuggestMoves` position.

Each line of the output (JSON Lines, gzip-compressed: a state is ~7 KB of JSON, ~1.6 KB
compressed) is one object::

    {"players": 3, "game_seed": 301, "decision": 57, "decisions": 212, "progress": 0.27,
     "stage": "early", "kind": "turn-start", "to_move": 1, "state": {...}}

where ``state`` is the position as a ``gallerist.v1.GameState`` in protobuf's JSON mapping
(what ``GameState.to_json()`` and ``gallerist new`` write), and ``stage`` is "opening",
"early", "mid", "late" or "final" by ``progress`` (the decision's index over the game's
decision count). The load test's users (`gallerist.cli.load.users`) read it with
`gallerist.cli.load.corpus.load_corpus`; the package ships the one recorded with the
defaults (`cli/load/states.jsonl.gz`, 120 states, 40 KB).
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time
from typing import Any

from gallerist import engine
from gallerist.engine.actions import decision_kind

#: Bots of the recorded games, by seat (cycled).
SEAT_BOTS = ("mcts:iterations=200", "greedy")


def stage_of(progress: float) -> str:
    """The stage name of a decision at `progress` (0..1) through its game."""
    for limit, name in ((0.1, "opening"), (0.35, "early"), (0.65, "mid"), (0.9, "late")):
        if progress < limit:
            return name
    return "final"


def record_game(players: int, seed: int, per_game: int) -> list[dict[str, Any]]:
    """Play one seeded bot game and return `per_game` of its decision points as corpus rows.

    Args:
        players: 2..4.
        seed: the game seed (setup, chance and bots).
        per_game: how many decision points to keep, evenly spread over the game.

    Returns:
        Corpus rows (see the module docstring), in game order.
    """
    from gallerist.ai.arena.play import play_game
    from gallerist.ai.bots.spec import make_bot

    bots = [make_bot(SEAT_BOTS[i % len(SEAT_BOTS)], seed=seed * 10 + i) for i in range(players)]
    seen: list[tuple[str, str, int]] = []   # (state JSON, decision kind, seat to move)

    def on_action(state: engine.GameState, player: int, action: int) -> None:
        if player != engine.CHANCE:
            seen.append((state.to_json(), decision_kind(state), player))

    play_game(bots, seed=seed, on_action=on_action)
    total = len(seen)
    picks = sorted({round(i * (total - 1) / max(1, per_game - 1)) for i in range(per_game)})
    rows = []
    for index in picks:
        text, kind, seat = seen[index]
        progress = index / max(1, total - 1)
        rows.append({"players": players, "game_seed": seed, "decision": index,
                     "decisions": total, "progress": round(progress, 3),
                     "stage": stage_of(progress), "kind": kind, "to_move": seat,
                     "state": json.loads(text)})
    return rows


def write_corpus(path: str, rows: list[dict[str, Any]]) -> int:
    """Write rows as gzip-compressed JSON Lines (a fixed mtime: same rows, same bytes).

    Returns:
        The size of the file in bytes.
    """
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    data = "".join(json.dumps(r, separators=(",", ":"), sort_keys=True) + "\n" for r in rows)
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0,
                                                 filename="") as fh:
        fh.write(data.encode("utf-8"))
    return os.path.getsize(path)


def main(argv: list[str] | None = None) -> int:
    """Record the corpus (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=4,
                        help="games per player count (default 4)")
    parser.add_argument("--per-game", type=int, default=10,
                        help="decision points kept per game (default 10)")
    parser.add_argument("--seed", type=int, default=0,
                        help="base seed; game k of n players has seed base + 100 n + k")
    parser.add_argument("-o", "--output", required=True,
                        help="output file (the packaged corpus: cli/load/states.jsonl.gz)")
    args = parser.parse_args(argv)
    rows: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    for players in (2, 3, 4):
        for k in range(args.games):
            seed = args.seed + 100 * players + k
            game_rows = record_game(players, seed, args.per_game)
            rows.extend(game_rows)
            print(f"{players} players, seed {seed}: {game_rows[-1]['decisions']} decisions, "
                  f"kept {len(game_rows)} ({time.perf_counter() - t0:.0f} s)", flush=True)
    size = write_corpus(args.output, rows)
    stages: dict[str, int] = {}
    for r in rows:
        stages[r["stage"]] = stages.get(r["stage"], 0) + 1
    print(f"wrote {len(rows)} states ({size / 1024:.0f} KB) to {args.output}; by stage: "
          + ", ".join(f"{k} {v}" for k, v in stages.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
