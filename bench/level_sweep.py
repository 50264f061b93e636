"""Tuning the levels: a level setting's rating from seat-paired games against one ladder
rung of known rating (the rung's Elo plus 400 log10(score / (1 - score)), the score
clamped to 2-98%). A quick, rough measure (40 games: about +-110 Elo) to place the
levels before the ladder measures them properly (`gallerist ladder --levels`).

Usage:
    python bench/level_sweep.py --ratings bench/data/ladder/ladder.json \
        --config 10,1.0,1.0,10@greedy --config 30,0.05,0.15,5@mcts-10 [--games 20] \
        [--out bench/data/levels/sweep.jsonl]

A config is iterations,temperature,max_loss,candidates@rung.
"""
from __future__ import annotations

import argparse
import json
import math
import time

from gallerist.ai.arena.ladder import rungs_named
from gallerist.ai.arena.tournament import GameSpec, run_local
from gallerist.ai.bots.levels import Setting


def measure(setting: Setting, rung: str, elo: float, setups: int, workers: int) -> dict:
    """Play `setups` seeds in both seatings against `rung` and estimate the setting's Elo."""
    spec, other = setting.spec(calibrated=False), rungs_named([rung])[0].spec
    games = [GameSpec(index=2 * k + i, seed=1000 + k, seats=seats)
             for k in range(setups) for i, seats in enumerate(((spec, other), (other, spec)))]
    t0 = time.perf_counter()
    score = sum(r.returns[r.bots.index(spec)] for r in run_local(games, workers)) / len(games)
    s = min(max(score, 0.02), 0.98)
    return {"cfg": [setting.iterations, setting.temperature, setting.max_loss, setting.candidates],
            "ref": rung, "score": score, "elo": round(elo + 400 * math.log10(s / (1 - s))),
            "games": len(games), "seconds": round(time.perf_counter() - t0)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ratings", required=True, help="ladder.json of `gallerist ladder`")
    ap.add_argument("--config", action="append", required=True,
                    help="iterations,temperature,max_loss,candidates@rung (repeatable)")
    ap.add_argument("--games", type=int, default=20, help="setups per config, two games each")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", default=None, help="append the rows (JSON Lines) here")
    args = ap.parse_args(argv)
    with open(args.ratings, encoding="utf-8") as fh:
        elo = {r["rung"]: r["elo"] for r in json.load(fh)["rungs"]}
    for config in args.config:
        numbers, _, rung = config.partition("@")
        it, temp, loss, cand = numbers.split(",")
        row = measure(Setting(int(it), float(temp), float(loss), int(cand)), rung, elo[rung],
                      args.games, args.workers)
        print(json.dumps(row), flush=True)
        if args.out:
            with open(args.out, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
