"""Calibration benchmark: do the bots' hint numbers mean what they say?

A labelled set of positions comes from MCTS self-play games of every player count (solo
to 4 players): positions sampled from every stage of each game, labelled by how that game
really ended (every seat's final money, and who won: a shared first place counts 1/k).
Every bot and budget analyzes every position; the numbers it reports for the position
(`Analysis.root`: win probability and expected final money of every seat) are scored
against the labels: Brier score, log loss and expected calibration error (ECE, 10 bins)
of the mover's win probability, mean absolute error of the expected money, each with a
95% bootstrap interval that resamples whole games; a reliability diagram per bot; and
how often two bots agree within 0.1 on the same position.

The calibration maps the bots ship with (gallerist/ai/calibration/calibration.json) are
fitted on the games of the training half of these files (the default bot's rows aside: it
is scored through the "mcts" maps, `SCORED_ONLY`) by the package, ``gallerist calibrate
DATA`` (`gallerist.ai.calibration.fit_files`), which with ``--install`` ships them; this
script makes the data, runs that fit for its report and reports every figure on the
held-out half.

Steps (each reads the previous one's file in --data; `all` runs them in order):
    generate   self-play games           -> games.jsonl.gz
    evaluate   every bot on the positions -> evals.jsonl.gz (the bots' raw numbers)
    moves      every move of some training positions (bench/calibration_moves.py)
                                         -> moves.jsonl.gz
    fit        calibration maps on the training half, and the move scale, by the
               package's fit (gallerist calibrate DATA) -> calibration.json
               (to ship them: gallerist calibrate DATA --install)
    report     figures on the held-out half -> report.json, reliability-*.png
    model      one model's value search (mcts:eval=model; --eval mix: its mixed leaf):
               its maps, fitted on the training half, beside the model
               (MODEL.calibration.json), and its held-out figures
               (bench/calibration_model.py)

Usage:
    python bench/calibration.py all [--quick] [--workers N] [--data DIR]
    python bench/calibration.py report --data bench/data/calibration
    python bench/calibration.py model --model MODEL.npz [--eval mix] [--players 2] [--time-ms 200]
"""
from __future__ import annotations

import argparse
import functools
import gzip
import json
import os
import random
import sys
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from tqdm import tqdm

from gallerist import engine
from gallerist.ai.arena.tournament import GameRecord, replay, run_local, schedule
from gallerist.ai.values import Budget
from gallerist.ai.calibration.maps import PLAYER_COUNTS, Calibration, CalibrationError
from gallerist.ai.calibration.fit_files import (  # noqa: F401 - the bench scripts' names
    SCORED_ONLY, fit_folder, held_out, read_jsonl, sample as _sample, training_turns,
    write_calibration,
)
from gallerist.ai.calibration.metrics import (
    agreement, bootstrap_by_group, brier, ece, ece_floor, log_loss, mae, reliability,
)
from gallerist.ai.bots.spec import DEFAULT_BOT, make_bot

#: The self-play bot whose games label the positions.
SELFPLAY_BOT = "mcts:iterations=150"
#: Games per player count (full run, --quick) and positions sampled per game.
GAMES = {1: 48, 2: 1600, 3: 960, 4: 480}
QUICK_GAMES = {1: 4, 2: 8, 3: 4, 4: 4}
#: Positions sampled per game, by player count: the games, not the positions, are the
#: independent samples (a game's positions share its outcome), so 2 players, the headline
#: figures, get many games with fewer positions each. 3 and 4 players (games of 330 and
#: 450 decisions) get 16 a game, so that their held-out halves hold 3,840 (4 players) and
#: 7,680 (3 players) positions: an ECE of 0.02 can only be shown where a perfect
#: forecaster's floor is below it (0.06 with 240 positions, 0.014 with 3,840, 0.011 with
#: 7,680).
POSITIONS_PER_GAME = {1: 10, 2: 8, 3: 16, 4: 16}
SEED = 20261201
DEFAULT_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "calibration")


@dataclass(frozen=True)
class Position:
    """A labelled position: the `ply`-th action of game `game` (of `players` players) is
    about to be chosen by `mover`; `money` and `win` are the game's real end."""

    players: int
    game: int
    ply: int
    mover: int
    money: tuple[float, ...]
    win: tuple[float, ...]

    def state(self, games: dict[tuple[int, int], GameRecord]) -> engine.GameState:
        rec = games[(self.players, self.game)]
        state = engine.new_game(num_players=self.players, seed=rec.seed)
        for a in rec.actions[:self.ply]:
            state.apply(a)
        return state


# ---------------------------------------------------------------------------- files

def write_jsonl(path: str, rows: Iterable[dict[str, Any]]) -> None:
    tmp = path + ".tmp"
    with gzip.open(tmp, "wt", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, separators=(",", ":")) + "\n")
    os.replace(tmp, path)


def read_games(data: str) -> dict[tuple[int, int], GameRecord]:
    out = {}
    for row in read_jsonl(os.path.join(data, "games.jsonl.gz")):
        players = row.pop("players")
        out[(players, row["game"])] = GameRecord(**row)
    return out


# ---------------------------------------------------------------------------- generate

def generate(data: str, games: dict[int, int], workers: int, seed: int = SEED) -> None:
    """Self-play games of SELFPLAY_BOT for every player count (all cores). Games the
    file already holds are kept (the schedule is fixed by the seed), so a run that was
    stopped, or a larger one, plays only the missing games."""
    path = os.path.join(data, "games.jsonl.gz")
    rows = list(read_jsonl(path)) if os.path.exists(path) else []
    have = {(r["players"], r["game"]) for r in rows}
    try:
        for players, count in sorted(games.items()):
            specs = [g for g in schedule([SELFPLAY_BOT], players, count, seed + 1000 * players)
                     if (players, g.index) not in have]
            for rec in tqdm(run_local(specs, workers), total=len(specs),
                            desc=f"self-play {players}p", unit="game", file=sys.stderr):
                rows.append({"players": players, **asdict(rec)})
    finally:   # Ctrl-C keeps the finished games
        rows.sort(key=lambda r: (r["players"], r["game"]))
        write_jsonl(path, rows)


def positions(games: dict[tuple[int, int], GameRecord],
              per_game: dict[int, int] = POSITIONS_PER_GAME, seed: int = SEED) -> list[Position]:
    """`per_game[players]` decision points with a real choice (2+ legal moves) from each
    game, drawn uniformly over the game (seeded; fewer are a subset of more), labelled by
    the game's end."""
    out = []
    for (players, game), rec in sorted(games.items()):
        choices: list[tuple[int, int]] = []

        def note(state: engine.GameState, action: int) -> None:
            if not state.is_chance() and len(state.legal_actions()) > 1:
                choices.append((len(state.history), state.current_player))

        final = replay(rec, on_action=note)
        rng = random.Random(seed * 7919 + players * 1009 + game)
        win = tuple(final.returns()) if players > 1 else ()   # solo: no one to beat
        for ply, mover in sorted(rng.sample(choices, min(per_game[players], len(choices)))):
            out.append(Position(players, game, ply, mover, tuple(map(float, rec.money)), win))
    return out


# ---------------------------------------------------------------------------- evaluate

#: The bots and budgets the benchmark scores: (label, spec, budget). The specs ask for
#: raw numbers; the calibration is applied afterwards, exactly as the bots apply it.
BOTS = (("mcts 200 ms", "mcts:calibrated=false,reuse=false", Budget(time_ms=200)),
        ("expectimax 200 ms", "expectimax:calibrated=false,playouts=100", Budget(time_ms=200, depth=64)),
        ("greedy", "greedy:calibrated=false,playouts=100", Budget()),
        ("default 200 ms", f"{DEFAULT_BOT},calibrated=false,reuse=false", Budget(time_ms=200)))
QUICK_BOTS = (("mcts 20 ms", "mcts:calibrated=false,reuse=false", Budget(time_ms=20)),
              ("expectimax 20 ms", "expectimax:calibrated=false,playouts=100", Budget(time_ms=20, depth=64)),
              ("greedy", "greedy:calibrated=false,playouts=100", Budget()),
              ("default 20 ms", f"{DEFAULT_BOT},calibrated=false,reuse=false", Budget(time_ms=20)))
# SCORED_ONLY (the package's, ai.calibration.fit_files) names the bots scored through the
# maps but not fitting them: the default bot (MCTS with the packaged model's prior where
# it was trained) reports MCTS's statistics, so the "mcts" maps, fitted on plain MCTS, are
# the ones it ships with, and where it mixes a value network into the leaf (eval=auto)
# that network's own "mix" maps (the `model` step fits them); the report says how well
# they fit.

_worker: dict[str, Any] = {}


def _init_evaluator(bots: tuple, games: dict) -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the parent's to handle
    _worker["bots"] = [(label, make_bot(spec, seed=SEED), budget, spec)
                       for label, spec, budget in bots]
    _worker["games"] = games


def setup(spec: str, budget: Budget, players: int) -> str:
    """What a row of a `players` game was computed with: rows of another setup are
    computed again. The default bot's rows also name the model file it searched with at
    that player count (its sha256), so a new packaged model (or --model /
    $GALLERIST_MODEL) has the rows it changes computed again."""
    how = f"{spec} iterations={budget.iterations},time_ms={budget.time_ms:g},depth={budget.depth}"
    if spec.startswith(DEFAULT_BOT):
        how += f" model={_default_model_digest(players)}"
    return how


@functools.lru_cache(maxsize=8)
def _default_model_digest(players: int) -> str:
    """The first 16 hex digits of the sha256 of the model file whose value (eval=auto)
    or prior the default bot takes at `players` (ai.net.packaged.auto_value_files,
    auto_prior_files), else of the default model file; "none" without one."""
    from gallerist.ai.net.packaged import (
        auto_prior_files, auto_value_files, default_model_present, model_path,
    )
    from gallerist.ai.selfplay.records import sha256_file

    values = auto_value_files() if "eval=auto" in DEFAULT_BOT else {}
    if players in values:   # its policy is the prior there too
        return sha256_file(values[players])[:16]
    if not default_model_present():
        return "none"
    return sha256_file(auto_prior_files().get(players, model_path("")))[:16]


def _evaluate_one(job: tuple[Position, tuple[str, ...]]) -> list[dict[str, Any]]:
    pos, labels = job
    state = pos.state(_worker["games"])
    rows = []
    for label, bot, budget, spec in _worker["bots"]:
        if label not in labels:
            continue
        how = setup(spec, budget, pos.players)
        a = bot.analyze(state, budget)
        best = a.moves[0]
        rows.append({"players": pos.players, "game": pos.game, "ply": pos.ply, "mover": pos.mover,
                     "turn": state.turn_number, "bot": label,
                     "kind": bot.move_kind(best, pos.players), "money": best.expected_money,
                     "win": bot.win_input(a, best, pos.players) or [],
                     "final_money": pos.money, "final_win": pos.win, "ms": a.elapsed_ms,
                     "iterations": a.iterations, "depth": a.depth, "setup": how})
    return rows


def evaluate(data: str, bots: tuple, workers: int, path: str = "",
             players: tuple[int, ...] = PLAYER_COUNTS) -> None:
    """Every bot on every labelled position of `players` games (all cores); their raw
    numbers, in `path` (default: evals.jsonl.gz in `data`)."""
    import multiprocessing

    games = read_games(data)
    labels = [label for label, _, _ in bots]
    wanted = {(label, n): setup(spec, budget, n) for label, spec, budget in bots
              for n in PLAYER_COUNTS}
    path = path or os.path.join(data, "evals.jsonl.gz")
    done = {}
    for r in (read_jsonl(path) if os.path.exists(path) else ()):
        if wanted.get((r["bot"], r["players"])) == r.get("setup"):   # computed as this run would: kept
            done[(r["players"], r["game"], r["ply"], r["bot"])] = r
    rows: list[dict[str, Any]] = []
    todo = []
    for pos in positions(games):
        if pos.players not in players:
            continue
        key = (pos.players, pos.game, pos.ply)
        rows.extend(done[key + (label,)] for label in labels if key + (label,) in done)
        missing = tuple(label for label in labels if key + (label,) not in done)
        if missing:
            todo.append((pos, missing))
    pool = multiprocessing.get_context("fork").Pool(max(1, workers), initializer=_init_evaluator,
                                                     initargs=(bots, games))
    try:
        for out in tqdm(pool.imap(_evaluate_one, todo, chunksize=4), total=len(todo),
                        desc="evaluate", unit="position", file=sys.stderr):
            rows.extend(out)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:   # Ctrl-C keeps the positions evaluated so far (the next run goes on)
        pool.join()
        rows.sort(key=lambda r: (r["players"], r["game"], r["ply"], labels.index(r["bot"])))
        write_jsonl(path, rows)
    final_turns = {}
    for key, rec in games.items():
        final_turns[f"{key[0]}/{key[1]}"] = replay(rec).turn_number
    with open(os.path.join(data, "final_turns.json"), "w", encoding="utf-8") as fh:
        json.dump(final_turns, fh)


# ---------------------------------------------------------------------------- fit

def fit_step(data: str) -> Calibration:
    """The package's fit (``gallerist calibrate DATA``) of every (kind, players) map on
    the training half; written as calibration.json in `data`, which the report reads."""
    cal = fit_folder(data)
    write_calibration(cal, os.path.join(data, "calibration.json"))
    return cal


# ---------------------------------------------------------------------------- report

def scored(rows: list[dict[str, Any]], cal: Calibration | None) -> dict[str, np.ndarray]:
    """Per row: the mover's forecast p and outcome y, money forecasts and finals."""
    p, y, money, final, games = [], [], [], [], []
    for r in rows:
        n, mover = r["players"], r["mover"]
        m, w = r["money"], r["win"] or None
        if cal is not None:
            m, w = cal.calibrate(r["kind"], n, cal.stage(n, r["turn"]), mover, m, w)
        money.append(m)
        final.append(r["final_money"])
        games.append(r["game"])
        if n > 1:
            p.append(w[mover])
            y.append(r["final_win"][mover])
    return {"p": np.array(p), "y": np.array(y), "money": np.array(money),
            "final": np.array(final), "games": np.array(games)}


def _with_interval(metric: Any, games: np.ndarray, *cols: np.ndarray, rounds: int) -> dict[str, float]:
    lo, hi = bootstrap_by_group(metric, games, *cols, rounds=rounds)
    return {"value": metric(*cols), "lo": lo, "hi": hi}


def _metrics(sc: dict[str, np.ndarray], players: int, rounds: int) -> dict[str, Any]:
    out = {"positions": int(len(sc["games"])), "games": int(len(set(sc["games"].tolist()))),
           "mae_money": _with_interval(mae, sc["games"], sc["money"], sc["final"], rounds=rounds)}
    if players > 1:
        g = sc["games"]
        out["brier"] = _with_interval(brier, g, sc["p"], sc["y"], rounds=rounds)
        out["log_loss"] = _with_interval(log_loss, g, sc["p"], sc["y"], rounds=rounds)
        out["ece"] = _with_interval(ece, g, sc["p"], sc["y"], rounds=rounds)
        out["ece_floor"] = ece_floor(sc["p"])
        out["reliability"] = reliability(sc["p"], sc["y"])
    return out


def with_default_bots_maps(cal: Calibration) -> Calibration:
    """`cal` with the maps of the kinds only the default bot has (a value network's own,
    kind "mix" where eval=auto mixes), as the default bot itself reports through them."""
    own = make_bot(DEFAULT_BOT).calibration
    kinds: dict[str, dict[int, Any]] = {}
    for (kind, n), m in (own.maps.items() if own is not None else ()):
        if (kind, n) not in cal.maps:
            kinds.setdefault(kind, {})[n] = m
    for kind, maps in kinds.items():
        cal = cal.with_maps(kind, maps)
    return cal


def report_step(data: str, rounds: int) -> dict[str, Any]:
    """Every figure on the held-out half, raw and calibrated; reliability diagrams."""
    cal = with_default_bots_maps(Calibration.load(os.path.join(data, "calibration.json")))
    rows = [r for r in read_jsonl(os.path.join(data, "evals.jsonl.gz")) if held_out(r["game"])]
    labels = list(dict.fromkeys(r["bot"] for r in rows))
    report: dict[str, Any] = {"selfplay_bot": SELFPLAY_BOT, "calibration": cal.info, "players": {}}
    for n in PLAYER_COUNTS:
        mine = [r for r in rows if r["players"] == n]
        if not mine:
            continue
        entry: dict[str, Any] = {"bots": {}, "agreement": {}}
        by_bot = {}
        for label in labels:
            part = [r for r in mine if r["bot"] == label]
            by_bot[label] = scored(part, cal)
            raw = scored(part, None)
            entry["bots"][label] = {
                "calibrated": _metrics(by_bot[label], n, rounds), "raw": _metrics(raw, n, rounds),
                "mean_ms": float(np.mean([r["ms"] for r in part])),
                "mean_iterations": float(np.mean([r["iterations"] for r in part])),
                "mean_depth": float(np.mean([r["depth"] for r in part]))}
        if n > 1:
            base = by_bot[labels[0]]
            const = np.full(len(base["y"]), 1.0 / n)
            entry["constant"] = {"answer": 1.0 / n, "brier": brier(const, base["y"]),
                                 "log_loss": log_loss(const, base["y"])}
            for i, a in enumerate(labels):
                for b in labels[i + 1:]:
                    entry["agreement"][f"{a} / {b}"] = agreement(by_bot[a]["p"], by_bot[b]["p"])
        report["players"][str(n)] = entry
    with open(os.path.join(data, "report.json"), "w", encoding="utf-8") as fh:
        json.dump(report, fh, indent=1)
    plot_reliability(report, data)
    print(format_report(report))
    return report


def format_report(report: dict[str, Any]) -> str:
    """The report as Markdown tables (one per player count)."""
    def ci(m: dict[str, float], digits: int = 3) -> str:
        return f"{m['value']:.{digits}f} [{m['lo']:.{digits}f}, {m['hi']:.{digits}f}]"

    lines = []
    for n, entry in report["players"].items():
        lines.append(f"\n### {'solo' if n == '1' else n + ' players'} (held-out half)\n")
        if n == "1":
            lines.append("| bot | positions | MAE money $ calibrated | raw | mean ms |")
            lines.append("|---|---:|---|---|---:|")
        else:
            lines.append("| bot | positions | Brier | log loss | ECE | ECE floor | MAE money $ | "
                         "raw Brier | raw ECE | mean ms |")
            lines.append("|---|---:|---|---|---|---:|---|---|---|---:|")
        for label, b in entry["bots"].items():
            c, r = b["calibrated"], b["raw"]
            if n == "1":
                lines.append(f"| {label} | {c['positions']} | {ci(c['mae_money'], 1)} | "
                             f"{ci(r['mae_money'], 1)} | {b['mean_ms']:.0f} |")
            else:
                lines.append(f"| {label} | {c['positions']} | {ci(c['brier'])} | {ci(c['log_loss'])} | "
                             f"{ci(c['ece'])} | {c['ece_floor']:.3f} | {ci(c['mae_money'], 1)} | "
                             f"{r['brier']['value']:.3f} | {r['ece']['value']:.3f} | {b['mean_ms']:.0f} |")
        if n != "1":
            k = entry["constant"]
            lines.append(f"| constant {k['answer']:.3f} | | {k['brier']:.3f} | {k['log_loss']:.3f} | | | | | | |")
            for pair, share in entry["agreement"].items():
                lines.append(f"\nagree within 0.1 ({pair}): {100 * share:.0f}% of positions")
    return "\n".join(lines)


def plot_reliability(report: dict[str, Any], data: str) -> None:
    """reliability-<bot>.png: forecast vs outcome per bin, raw and calibrated, one panel
    per player count."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    counts = [n for n in report["players"] if n != "1"]
    labels = list(next(iter(report["players"].values()))["bots"])
    for label in labels:
        fig, axes = plt.subplots(1, len(counts), figsize=(4 * len(counts), 4), squeeze=False)
        for ax, n in zip(axes[0], counts):
            b = report["players"][n]["bots"][label]
            for which, style in (("raw", "o--"), ("calibrated", "s-")):
                pts = [(mp, my) for cnt, mp, my in b[which]["reliability"] if cnt]
                ax.plot([x for x, _ in pts], [y for _, y in pts], style, label=which)
            ax.plot([0, 1], [0, 1], color="grey", linewidth=0.8)
            ax.set(title=f"{n} players", xlabel="forecast win probability",
                   ylabel="observed win share", xlim=(0, 1), ylim=(0, 1))
            ax.legend(loc="upper left")
        fig.suptitle(f"{label}: reliability on the held-out half")
        fig.tight_layout()
        fig.savefig(os.path.join(data, f"reliability-{label.replace(' ', '-')}.png"), dpi=80)
        plt.close(fig)


# ---------------------------------------------------------------------------- main

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("step", choices=("generate", "evaluate", "moves", "fit", "report", "all",
                                     "model"))
    ap.add_argument("--quick", action="store_true", help="a small run (a few games per player count)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: every core)")
    ap.add_argument("--data", default=DEFAULT_DATA, help="folder of the step files (default: %(default)s)")
    ap.add_argument("--model", help="model: the model file whose value search (mcts:eval=model) "
                                    "gets maps, written beside it as MODEL.calibration.json")
    ap.add_argument("--eval", default="model", choices=("model", "mix"),
                    help="model: the search whose maps are fitted: the network's value "
                         "(model, the default) or half it and half a rollout (mix)")
    ap.add_argument("--players", default="2", help="model: player counts to fit, comma-separated "
                                                  "(default 2)")
    ap.add_argument("--time-ms", type=float, default=200.0,
                    help="model: the search's time a position (default 200, as the bots')")
    args = ap.parse_args(argv)
    try:
        return run_steps(args)
    except CalibrationError as exc:   # a step's input missing: run the step before first
        print(f"calibration: {exc}", file=sys.stderr)
        return 2


def run_steps(args: argparse.Namespace) -> int:
    """Run the step (or every step) `args` names."""
    if args.step == "model":
        from calibration_model import model_step

        return model_step(args, sys.modules[__name__])
    os.makedirs(args.data, exist_ok=True)
    t0 = time.perf_counter()
    if args.step in ("generate", "all"):
        generate(args.data, QUICK_GAMES if args.quick else GAMES, args.workers)
    if args.step in ("evaluate", "all"):
        evaluate(args.data, QUICK_BOTS if args.quick else BOTS, args.workers)
    if args.step in ("moves", "all"):
        from calibration_moves import evaluate_moves

        games = read_games(args.data)
        evaluate_moves(args.data, positions(games), games, args.workers, args.quick, SEED)
    if args.step in ("fit", "all"):
        fit_step(args.data)
    if args.step in ("report", "all"):
        report_step(args.data, rounds=200 if args.quick else 1000)
    print(f"calibration {args.step}: {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
