"""Soft labels for the calibration benchmark: each held-out 2-player position played on
several more times by the self-play bot (new seeds for the bots and the chance events),
so that a position's label is the mean win share of the mover over its real game and
those continuations. Brier scores against such labels leave out most of the outcome's
own noise (always answering 0.5 scores well below 0.25), which is how the calibration's
first figures were measured.

Usage (after bench/calibration.py's evaluate and fit steps, on their --data folder):
    python bench/continuations.py [--games 60] [--per-position 4] [--workers N]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import numpy as np
from tqdm import tqdm

from calibration import (
    DEFAULT_DATA, SELFPLAY_BOT, Position, held_out, positions, read_games, read_jsonl,
    write_jsonl, scored, with_default_bots_maps,
)
from gallerist import engine
from gallerist.ai.arena.tournament import bot_seed
from gallerist.ai.calibration.maps import Calibration
from gallerist.ai.calibration.metrics import bootstrap_by_group, brier
from gallerist.ai.bots.spec import make_bot

_games: dict = {}


def _init(games: dict) -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _games.update(games)


def play_on(job: tuple[Position, int]) -> dict[str, Any]:
    """One continuation: the position played to the end with new seeds."""
    pos, k = job
    state = pos.state(_games)
    seed = (pos.game * 1_000_003 + pos.ply * 101 + k) & 0x7FFFFFFF
    bots = [make_bot(SELFPLAY_BOT, seed=bot_seed(seed, seat, SELFPLAY_BOT))
            for seat in range(pos.players)]
    rng = np.random.default_rng(seed)
    while not state.is_terminal():
        if state.is_chance():
            outcomes = state.chance_outcomes()
            probs = np.array([p for _, p in outcomes])
            state.apply(outcomes[int(rng.choice(len(outcomes), p=probs / probs.sum()))][0])
        else:
            state.apply(bots[state.current_player].choose(state.view(state.current_player)))
    return {"players": pos.players, "game": pos.game, "ply": pos.ply, "k": k,
            "win": state.returns()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=DEFAULT_DATA)
    ap.add_argument("--games", type=int, default=60, help="held-out 2-player games (default 60)")
    ap.add_argument("--per-position", type=int, default=4, help="continuations a position (default 4)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args(argv)
    games = read_games(args.data)
    chosen = sorted({g for (n, g) in games if n == 2 and held_out(g)})[:args.games]
    todo = [p for p in positions(games) if p.players == 2 and p.game in chosen]
    path = os.path.join(args.data, "continuations.jsonl.gz")
    rows = list(read_jsonl(path)) if os.path.exists(path) else []
    have = {(r["game"], r["ply"], r["k"]) for r in rows}
    jobs = [(p, k) for p in todo for k in range(args.per_position) if (p.game, p.ply, k) not in have]
    import multiprocessing

    pool = multiprocessing.get_context("fork").Pool(args.workers, initializer=_init, initargs=(games,))
    try:
        for row in tqdm(pool.imap_unordered(play_on, jobs), total=len(jobs), desc="continuations",
                        unit="game", file=sys.stderr):
            rows.append(row)
        pool.close()
    finally:
        pool.terminate()
        pool.join()
        write_jsonl(path, sorted(rows, key=lambda r: (r["game"], r["ply"], r["k"])))
    report(args.data, todo, rows)
    return 0


def report(data: str, todo: list[Position], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Brier of every bot against the soft labels (real game + continuations)."""
    soft: dict[tuple[int, int], list[float]] = {}
    for p in todo:
        soft[(p.game, p.ply)] = [p.win[p.mover]]
    movers = {(p.game, p.ply): p.mover for p in todo}
    for r in rows:
        if (r["game"], r["ply"]) in soft:
            soft[(r["game"], r["ply"])].append(r["win"][movers[(r["game"], r["ply"])]])
    cal = with_default_bots_maps(Calibration.load(os.path.join(data, "calibration.json")))
    evals = [r for r in read_jsonl(os.path.join(data, "evals.jsonl.gz"))
             if r["players"] == 2 and (r["game"], r["ply"]) in soft]
    out: dict[str, Any] = {"positions": len(soft), "games": len({g for g, _ in soft}),
                           "labels_per_position": float(np.mean([len(v) for v in soft.values()])),
                           "bots": {}}
    for label in dict.fromkeys(r["bot"] for r in evals):
        part = [r for r in evals if r["bot"] == label]
        y = np.array([np.mean(soft[(r["game"], r["ply"])]) for r in part])
        g = np.array([r["game"] for r in part])
        out["bots"][label] = {}
        for which, c in (("calibrated", cal), ("raw", None)):
            p = scored(part, c)["p"]
            lo, hi = bootstrap_by_group(brier, g, p, y, rounds=1000)
            out["bots"][label][which] = {"brier": brier(p, y), "lo": lo, "hi": hi}
        out["constant"] = brier(np.full(len(y), 0.5), y)
    with open(os.path.join(data, "soft_report.json"), "w", encoding="utf-8") as fh:
        json.dump(out, fh, indent=1)
    print(f"Brier against the mean of {out['labels_per_position']:.1f} outcomes per position "
          f"({out['positions']} held-out 2-player positions, {out['games']} games):")
    for label, b in out["bots"].items():
        c, r = b["calibrated"], b["raw"]
        print(f"  {label:<20} calibrated {c['brier']:.3f} [{c['lo']:.3f}, {c['hi']:.3f}]   raw {r['brier']:.3f}")
    print(f"  {'constant 0.5':<20} {out['constant']:.3f}")
    return out


if __name__ == "__main__":
    raise SystemExit(main())
