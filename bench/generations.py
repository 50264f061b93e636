"""Generations of expert iteration: self-play of generation k's bot
trains generation k+1, which is then rated in the arena against generation k and
against generation 0.

- Generation 0 is today's default MCTS with an iteration budget (`mcts:iterations=N`).
- Generation k+1: `ai.learn.train.train` on the self-play records of generation k's bot
  (`gallerist selfplay`'s library, `ai.selfplay.run.run_selfplay`), giving `gen_{k+1}.npz`;
  its bot is `mcts:eval=model,prior=model,calibrated=false,model=gen_{k+1}.npz,iterations=N` (same budget).
- Rated in seat-paired arena games (`ai.arena.tournament.run_tournament`: every seating on every
  setup seed) against generation k and generation 0: Bradley-Terry ratings on the
  finishing order with 95% profile-likelihood intervals (`ai.arena.ratings`). With two bots a
  rating pool has ratings +d/2 and -d/2, so the difference d and its interval are
  reported ("elo_vs_previous", "elo_vs_gen0"; > 0: the new generation is stronger).
  All arena games together also give one pool rating per generation ("pool").

Status (1 Dec 2026): runs end to end (`--quick`: 24 s); no full run yet (see
bench/RESULTS.md, "The learned evaluation: first models").

Results: `OUT/generations.json` and `OUT/generations.png` (ratings by generation); the
records, models and arena games go to `--work` (large; not for git). A run given the
same --work continues: self-play resumes in its directory, a trained model and a
finished arena are reused.

Usage:
    python bench/generations.py [--generations 3] [--games 200] [--arena-games 40]
        [--iterations 400] [--players 2] [--workers 2] [--out bench/data/generations]
        [--work generations-work] [--train KEY=VALUE ...] [--quick]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from gallerist.ai.arena.tournament import read_records, resume_tournament, run_tournament
from gallerist.ai.arena.ratings import ratings
from gallerist.ai.selfplay.run import run_selfplay
from gallerist.cli.commands.options import key_value

Trainer = Callable[..., dict]
ModelSpec = Callable[[str, int], str]


#: How `default_trainer` runs `ai.learn.train.train` in a fresh interpreter: argv is the data
#: directories (JSON), the model path, the options (JSON) and where to write the card.
_TRAIN_SCRIPT = """
import json, sys
from gallerist.ai.learn.train import train
card = train(json.loads(sys.argv[1]), sys.argv[2], **json.loads(sys.argv[3]))
with open(sys.argv[4], "w", encoding="utf-8") as fh:
    json.dump(card, fh, default=str)
"""


def default_trainer(data_dirs: list[str], out: str, **options: Any) -> dict:
    """h-train's `ai.learn.train.train(data_dirs, out, **options) -> card`, run in a child
    interpreter: JAX starts threads, and this process goes on to fork the workers of the
    next self-play and arena (fork and threads do not mix)."""
    with tempfile.TemporaryDirectory() as tmp:
        card_path = os.path.join(tmp, "card.json")
        done = subprocess.run([sys.executable, "-c", _TRAIN_SCRIPT, json.dumps(list(data_dirs)), out,
                               json.dumps(options), card_path])
        if done.returncode != 0:
            raise RuntimeError(f"training {out} failed (exit status {done.returncode}; its "
                               f"error is above)")
        with open(card_path, encoding="utf-8") as fh:
            return dict(json.load(fh))


def default_model_spec(model: str, iterations: int) -> str:
    """The bot of a trained generation: MCTS with the model's value and policy prior."""
    return f"mcts:eval=model,prior=model,calibrated=false,model={model},iterations={iterations}"


def _pair(spec_a: str, spec_b: str, *, players: int, games: int, workers: int, seed: int,
          backend: str, records: Path) -> dict[str, Any]:
    """A seat-paired match of `spec_a` against `spec_b`, and the rating difference a - b
    with its 95% interval. A match with records in `records` is finished from them (only
    its missing games are played)."""
    if records.exists() and records.stat().st_size:
        t = resume_tournament(str(records), workers=workers, backend=backend)
    else:
        t = run_tournament([spec_a, spec_b], players=players, games=games, workers=workers,
                           seed=seed, backend=backend, records_path=str(records))
    if t.interrupted:
        raise RuntimeError(t.error or "interrupted")
    rep = t.report()
    by_bot = {r["bot"]: r for r in rep["ratings"]}
    a = by_bot[spec_a]
    summary = {s["bot"]: s for s in rep["summary"]}
    return {"games": rep["games"], "seconds": rep["seconds"],
            "elo": 2 * a["elo"], "ci": [2 * a["ci"][0], 2 * a["ci"][1]],
            "win_rate": summary[spec_a]["win_rate"], "win_rate_ci": list(summary[spec_a]["win_rate_ci"]),
            "records": str(records)}


def run_generations(*, generations: int, games: int, arena_games: int, iterations: int,
                    players: int, workers: int, out: str, work: str, seed: int = 0,
                    backend: str = "local", train_options: dict[str, Any] | None = None,
                    trainer: Trainer = default_trainer, model_spec: ModelSpec = default_model_spec,
                    log: Callable[[str], None] = print) -> dict[str, Any]:
    """Run the generations loop and write OUT/generations.json and OUT/generations.png.

    Returns:
        The results (what the JSON holds).
    """
    outp, workp = Path(out), Path(work)
    outp.mkdir(parents=True, exist_ok=True)
    workp.mkdir(parents=True, exist_ok=True)
    specs = [f"mcts:iterations={iterations}"]
    rows: list[dict[str, Any]] = [{"generation": 0, "spec": specs[0], "model": None}]
    all_games: list[Any] = []
    config = {"generations": generations, "games": games, "arena_games": arena_games,
              "iterations": iterations, "players": players, "workers": workers, "seed": seed,
              "backend": backend, "train_options": train_options or {}}
    t_start = time.perf_counter()
    for k in range(generations):
        data = workp / f"selfplay-gen{k}"
        log(f"generation {k}: self-play of {specs[k]} ({games} games) -> {data}")
        sp = run_selfplay(specs[k], players=players, games=games, out=data, workers=workers,
                          backend=backend, seed=seed + 1_000_000 * k)
        if sp.interrupted:
            raise RuntimeError(sp.error or "self-play interrupted")
        rows[k]["selfplay"] = {"dir": str(data), "games": sp.games, "positions": sp.positions,
                               "seconds": sp.seconds}
        model = workp / f"gen_{k + 1}.npz"
        card_path = workp / f"gen_{k + 1}.card.json"
        if model.exists() and card_path.exists():
            card = json.loads(card_path.read_text())
            log(f"generation {k + 1}: model {model} already trained")
        else:
            log(f"generation {k + 1}: training on {data} -> {model}")
            card = trainer([str(data)], str(model), **(train_options or {}))
            if not card_path.exists():   # ai.learn.train.train writes it itself
                card_path.write_text(json.dumps(card, indent=1, default=str))
        spec = model_spec(str(model), iterations)
        specs.append(spec)
        row: dict[str, Any] = {"generation": k + 1, "spec": spec, "model": str(model),
                               "train": _card_summary(card)}
        arena_seed = seed + 500_000 + 1000 * k
        log(f"generation {k + 1}: arena against generation {k}" + ("" if k == 0 else " and generation 0"))
        row["vs_previous"] = _pair(spec, specs[k], players=players, games=arena_games, workers=workers,
                                   seed=arena_seed, backend=backend,
                                   records=workp / f"arena-gen{k + 1}-vs-gen{k}.jsonl")
        row["vs_gen0"] = row["vs_previous"] if k == 0 else _pair(
            spec, specs[0], players=players, games=arena_games, workers=workers, seed=arena_seed,
            backend=backend, records=workp / f"arena-gen{k + 1}-vs-gen0.jsonl")
        rows.append(row)
        for match in {id(row["vs_previous"]): row["vs_previous"], id(row["vs_gen0"]): row["vs_gen0"]}.values():
            all_games.extend(r.result() for r in read_records(match["records"]))
        log(f"generation {k + 1}: {row['vs_previous']['elo']:+.0f} Elo vs generation {k} "
            f"[{row['vs_previous']['ci'][0]:+.0f}, {row['vs_previous']['ci'][1]:+.0f}], "
            f"{row['vs_gen0']['elo']:+.0f} vs generation 0")
    pool = ratings(all_games, specs) if all_games else []
    zero = next((r.elo for r in pool if r.bot == specs[0]), 0.0)
    for r in pool:
        rows[specs.index(r.bot)]["pool"] = {"elo": r.elo - zero, "ci": [r.ci[0] - zero, r.ci[1] - zero]}
    results = {"config": config, "seconds": time.perf_counter() - t_start,
               "pool_note": "Bradley-Terry on all arena games of the run, shifted so that "
                            "generation 0 is 0 (intervals shifted alike)",
               "generations": rows}
    (outp / "generations.json").write_text(json.dumps(results, indent=1, default=str))
    plot(results, outp / "generations.png")
    return results


def _card_summary(card: dict[str, Any]) -> dict[str, Any]:
    """The model card without its per-epoch history (the curves are in its PNG)."""
    return {k: v for k, v in card.items() if k != "history"}


def plot(results: dict[str, Any], path: Path) -> None:
    """Ratings by generation: against the previous generation, against generation 0 and
    in the pool of all games, with their 95% intervals."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = results["generations"]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for key, label, shift, marker in (("vs_previous", "vs the previous generation", -0.08, "o"),
                                      ("vs_gen0", "vs generation 0", 0.0, "s"),
                                      ("pool", "pool of all games (gen 0 = 0)", 0.08, "^")):
        pts = [(r["generation"] + shift, r[key]) for r in rows if key in r]
        if not pts:
            continue
        xs = [x for x, _ in pts]
        ys = [p["elo"] for _, p in pts]
        err = [[p["elo"] - p["ci"][0] for _, p in pts], [p["ci"][1] - p["elo"] for _, p in pts]]
        ax.errorbar(xs, ys, yerr=err, marker=marker, capsize=3, label=label, linestyle="-")
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_xticks([r["generation"] for r in rows])
    ax.set_xlabel("generation")
    ax.set_ylabel("Elo (95% interval)")
    cfg = results["config"]
    ax.set_title(f"Expert iteration: {cfg['players']} players, {cfg['iterations']} iterations, "
                 f"{cfg['games']} self-play games a generation", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--generations", type=int, default=3, help="generations to train (default 3)")
    ap.add_argument("--games", type=int, default=200, help="self-play games a generation (default 200)")
    ap.add_argument("--arena-games", type=int, default=40, help="arena games a match (default 40)")
    ap.add_argument("--iterations", type=int, default=400, help="MCTS iterations a decision (default 400)")
    ap.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--backend", choices=("local", "ray"), default="local")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--train", type=key_value, action="append", default=[], metavar="KEY=VALUE",
                    help="an option of ai.learn.train.train (e.g. --train epochs=20 --train hidden=64,64)")
    ap.add_argument("--out", default="bench/data/generations", help="results (JSON, PNG)")
    ap.add_argument("--work", default="generations-work", help="records, models, arena games")
    ap.add_argument("--quick", action="store_true",
                    help="a tiny run: 2 generations, 6 self-play games, 4 arena games, 30 iterations")
    args = ap.parse_args(argv)
    train_options = dict(args.train)
    if args.quick:
        args.generations, args.games, args.arena_games, args.iterations = 2, 6, 4, 30
        train_options = {"epochs": 3, **train_options}
        if args.out == ap.get_default("out"):
            args.out = os.path.join(args.work, "quick-results")
    try:
        run_generations(generations=args.generations, games=args.games, arena_games=args.arena_games,
                        iterations=args.iterations, players=args.players, workers=args.workers,
                        out=args.out, work=args.work, seed=args.seed, backend=args.backend,
                        train_options=train_options)
    except (RuntimeError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"results: {os.path.join(args.out, 'generations.json')}, {os.path.join(args.out, 'generations.png')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
