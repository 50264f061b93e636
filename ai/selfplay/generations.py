"""The generation loop (`gallerist generations`): expert iteration with the network's own
search. Each generation: net-guided self-play of the best model so far, a candidate
trained from it on the games of the last few generations, a seat-paired gate against
the best, and the candidate promoted when it wins enough. The state is one JSON file,
so a run stops on Ctrl-C or at its time limit and a later run goes on from there.
Layout: docs/records.md ("The generation loop"); how-to: docs/training.md.
"""
from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gallerist.ai.files import write_atomically
from gallerist.ai.settings.setting import Setting, Settings
from gallerist.ai.selfplay.records import SelfplayError, sha256_file

__all__ = ["FORMAT", "LOOP_SETTINGS", "LoopConfig", "LoopResult", "RUN_SETTINGS", "gate_spec",
           "plot_ladder", "promotes", "run_generations", "threshold_elo"]

FORMAT, FORMAT_VERSION = "gallerist-generations", 1
#: The learning rate a candidate is trained on at from the best model's weights
#: (`--train lr=...` another).
FINE_TUNING_LR = 3e-4
STATE = "generations.json"

#: How a candidate is trained: `ai.learn.train.train` in a child interpreter (JAX starts
#: threads; this process forks the workers of the next self-play and gate).
_TRAIN_SCRIPT = """
import json, sys
from gallerist.ai.learn.train import train
card = train(json.loads(sys.argv[1]), sys.argv[2], **json.loads(sys.argv[3]))
sys.exit(130 if card.get("interrupted") else 0)
"""


#: A run's settings, each declared once: `LoopConfig`'s defaults, the flags of ``gallerist
#: generations`` (whose ranges they check) and the table of docs/training.md. The defaults
#: are the settings that measured best at 2 players (docs/training.md).
LOOP_SETTINGS = Settings(
    "the generation loop",
    Setting("players", 2, "players of the loop's games, 1 (solo) to 4; at 4 players no "
            "model is packaged: give --start (e.g. ai/models/default-3p.npz, the 3-player "
            "prior, which reads a 4-player game's observation)", low=1, high=4, metavar="N"),
    Setting("games", 6000, "self-play games a generation", low=10, high=1_000_000,
            metavar="G"),
    Setting("window", 3, "generations whose games train a candidate", low=1, high=1000,
            metavar="W"),
    Setting("gate_games", 800, "seat-paired games of a gate (at 800, a 95% interval of "
            "about +-3.5 points)", low=2, high=100_000, metavar="G"),
    Setting("gate_threshold", 0.53, "the candidate's share of the gate's wins that promotes "
            "it at 2 players; at 3 and 4 players, the Elo of that share on the finishing "
            "orders (0.53: +20.9)", above=0, high=1, flag="--gate", metavar="SHARE"),
    Setting("gate_iterations", 200, "each side's search in the gate, iterations a decision",
            low=1, high=100_000, metavar="N"),
    Setting("fast_iterations", 32, "self-play's cheap searches, iterations a decision",
            low=1, high=100_000, metavar="N"),
    Setting("full_iterations", 200, "self-play's full searches, whose targets train", low=1,
            high=100_000, metavar="N"),
    Setting("full_fraction", 0.25, "share of decisions searched in full", above=0, high=1,
            metavar="F"),
    Setting("seed", 0, "base seed of the run", low=0, high=2**40, metavar="S"),
    Setting("start", "", "generation 0's model", shown="the packaged one for --players",
            metavar="MODEL.npz"),
)
#: How long a run goes (`run_generations`' bounds; not kept in the state file).
RUN_SETTINGS = Settings(
    "the generation loop's run",
    Setting("hours", 1.0, "start no stage after this many hours", above=0, high=24 * 365,
            unit="hours", metavar="H"),
    Setting("generations", None, "stop after this many more generations", kind=int, low=1,
            high=100_000, none="only --hours", metavar="N"),
)
_LOOP = LOOP_SETTINGS.defaults


@dataclass(frozen=True)
class LoopConfig:
    """A run's settings (kept in the state file; a later run must give the same players
    and seed). Each but `train` is a setting of `LOOP_SETTINGS` (its default; the command
    checks its range, the library takes any: a test promotes every candidate with a
    threshold of 0)."""

    players: int = _LOOP["players"]
    games: int = _LOOP["games"]                      # self-play games a generation
    window: int = _LOOP["window"]                    # generations whose games train a candidate
    gate_games: int = _LOOP["gate_games"]            # seat-paired games of a gate
    gate_threshold: float = _LOOP["gate_threshold"]  # the candidate's share of wins that promotes it
    gate_iterations: int = _LOOP["gate_iterations"]  # each side's search in the gate
    fast_iterations: int = _LOOP["fast_iterations"]
    full_iterations: int = _LOOP["full_iterations"]
    full_fraction: float = _LOOP["full_fraction"]
    seed: int = _LOOP["seed"]
    start: str = _LOOP["start"]                      # the model of generation 0 ("": the packaged one)
    #: options of `ai.learn.train.train` (ai.learn.options.TRAIN_SETTINGS) over the loop's own
    train: dict[str, Any] = field(default_factory=dict)


@dataclass
class LoopResult:
    """What a run did: its state (the JSON), the generations it finished now, and why it
    stopped ("hours", "generations", "interrupted")."""

    state: dict[str, Any]
    finished: int = 0
    stopped: str = ""


def gate_spec(model: str, iterations: int) -> str:
    """The bot of a generation in its gate: the network's own search as self-play runs it
    (a policy-only model values by its money head alone: margin_weight=1), raw numbers."""
    from gallerist.ai.net.packaged import load_evaluator
    from gallerist.ai.selfplay.netplay import value_kind

    margin = ",margin_weight=1" if value_kind(load_evaluator(model)) == "money" else ""
    return (f"mcts:eval=model,prior=model,calibrated=false,threads=1,model={model},"
            f"iterations={iterations}{margin}")


def _train(data_dirs: list[str], out: str, options: dict[str, Any]) -> bool:
    """Train `out` in a child interpreter; False when Ctrl-C stopped it.

    Raises:
        SelfplayError: the training failed (its error is on stderr above).
    """
    done = subprocess.run([sys.executable, "-c", _TRAIN_SCRIPT, json.dumps(data_dirs), out,
                           json.dumps(options)])
    if done.returncode == 130 or done.returncode < 0:
        return False
    if done.returncode != 0:
        raise SelfplayError(f"training {out} failed (exit status {done.returncode}; its error "
                            "is above)")
    return True


def threshold_elo(share: float) -> float:
    """The Elo difference at which a two-player win share is `share` (0.53: +20.9)."""
    return 400.0 * math.log10(share / (1.0 - share))


def promotes(gate: dict[str, Any], players: int, share: float) -> bool:
    """Whether a gate promotes its candidate: at 2 players its win share reaches `share`;
    at 3 and 4 players, where a seat's fair share is 1/N and the finishing order says
    more than the winner, its Bradley-Terry Elo on the finishing orders reaches the Elo
    of `share` at 2 players; solo, the 95% interval of its money gain over the best on
    the same setups is above zero."""
    if players == 2:
        return float(gate["win_rate"]) >= share
    if players == 1:
        return float(gate["elo_ci"][0]) > 0.0
    return float(gate["elo"]) >= threshold_elo(share)


def _gate(candidate: str, best: str, cfg: LoopConfig, k: int, records: Path, workers: int,
          backend: str) -> dict[str, Any] | None:
    """The candidate against the best, seat-paired (at 3 players the candidate in one seat
    of three, at 4 in two of four); None when Ctrl-C stopped it."""
    from gallerist.ai.arena.tournament import resume_tournament, run_tournament

    a, b = gate_spec(candidate, cfg.gate_iterations), gate_spec(best, cfg.gate_iterations)
    # the arena seats the first bot twice when there are fewer bots than seats
    lineup = [b, a] if cfg.players == 3 else [a, b]
    records.parent.mkdir(parents=True, exist_ok=True)
    if records.exists() and records.stat().st_size:
        t = resume_tournament(str(records), workers=workers, backend=backend)
    else:
        t = run_tournament(lineup, players=cfg.players, games=cfg.gate_games, workers=workers,
                           seed=cfg.seed + 7_000_000 + 10_000 * k, backend=backend,
                           records_path=str(records))
    if t.interrupted:
        if t.error:
            raise SelfplayError(f"gate of generation {k}: {t.error}")
        return None
    if cfg.players == 1:
        return _solo_gate(t.records, a, b, records)
    rep = t.report()
    rating = {r["bot"]: r for r in rep["ratings"]}[a]
    summary = {s["bot"]: s for s in rep["summary"]}[a]
    return {"games": rep["games"], "win_rate": summary["win_rate"],
            "fair_share": 1.0 / max(1, cfg.players),
            "win_rate_ci": list(summary["win_rate_ci"]),
            "elo": 2 * rating["elo"], "elo_ci": [2 * rating["ci"][0], 2 * rating["ci"][1]],
            "records": str(records)}


def _solo_gate(games: list[Any], candidate: str, best: str, records: Path) -> dict[str, Any]:
    """Solo there is no one to beat but Lacerda: the candidate's money against the best's
    on the same setups, paired by seed; its mean difference and 95% t interval stand in
    for the Elo (in dollars a game: `unit`)."""
    from scipy import stats

    money: dict[str, dict[int, int]] = {candidate: {}, best: {}}
    for r in games:
        money[r.bots[0]][r.seed] = r.money[0]
    diffs = [money[candidate][k] - money[best][k] for k in money[candidate] if k in money[best]]
    n = len(diffs)
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1)) if n > 1 else 0.0
    half = float(stats.t.ppf(0.975, n - 1)) * sd / math.sqrt(n) if n > 1 else float("inf")
    return {"games": len(games), "pairs": n, "win_rate": sum(d > 0 for d in diffs) / n,
            "fair_share": 0.5, "unit": "$ a game", "elo": mean,
            "elo_ci": [mean - half, mean + half], "records": str(records)}


def _at(out: Path, path: str) -> str:
    """A path of the state file (relative to the loop's directory, so that the directory
    can move) as a path to open."""
    return path if os.path.isabs(path) else str(out / path)


def _new_state(cfg: LoopConfig, out: Path, start: str) -> dict[str, Any]:
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "config": asdict(cfg),
            "best": 0, "games_played": 0,
            "generations": [{"generation": 0, "model": start,
                             "sha256": sha256_file(_at(out, start)),
                             "promoted": True, "elo": 0.0, "elo_ci": [0.0, 0.0],
                             "games_played": 0}]}


def _open(out: Path, cfg: LoopConfig, start: str) -> dict[str, Any]:
    path = out / STATE
    if not path.exists():
        out.mkdir(parents=True, exist_ok=True)
        (out / "models").mkdir(exist_ok=True)
        shutil.copyfile(start, out / "models" / "gen-000.npz")
        state = _new_state(cfg, out, "models/gen-000.npz")
        _save(out, state)
        return state
    state = json.loads(path.read_text(encoding="utf-8"))
    if state.get("format") != FORMAT:
        raise SelfplayError(f"{path}: not a generation loop's state (format {state.get('format')!r})")
    given = asdict(cfg)
    kept = state["config"]
    for key in ("players", "seed"):
        if kept.get(key) != given[key]:
            raise SelfplayError(f"--{key} {given[key]}: this run was started with {kept.get(key)}"
                                f" (in {path}); give the same or another --out")
    state["config"] = {**kept, **{k: v for k, v in given.items() if k not in ("start",)}}
    return state


def _save(out: Path, state: dict[str, Any]) -> None:
    text = json.dumps(state, indent=1) + "\n"
    write_atomically(out / STATE, lambda fh: fh.write(text), "w", encoding="utf-8")


def run_generations(out: str | os.PathLike[str], cfg: LoopConfig, *,
                    hours: float = RUN_SETTINGS["hours"].default,
                    generations: int | None = RUN_SETTINGS["generations"].default,
                    workers: int = 1, backend: str = "local",
                    log: Callable[[str], None] = print) -> LoopResult:
    """Run generations into `out` until `hours` have passed (no new stage starts after
    that), `generations` more are finished, or Ctrl-C; every finished generation is kept.

    Raises:
        SelfplayError: a bad setting, a directory of another run, or a failed stage.
    """
    from gallerist.ai.selfplay.netplay import model_for, run_netplay

    outp = Path(out)
    state = _open(outp, cfg, model_for(cfg.players, cfg.start))
    end = time.monotonic() + hours * 3600.0
    result = LoopResult(state=state)
    while True:
        if generations is not None and result.finished >= generations:
            result.stopped = "generations"
            break
        if time.monotonic() >= end:
            result.stopped = "hours"
            break
        if not _one_generation(outp, state, cfg, workers, backend, log, run_netplay):
            result.stopped = "interrupted"
            break
        result.finished += 1
        plot_ladder(state, outp / "generations.png")
    return result


def _one_generation(out: Path, state: dict[str, Any], cfg: LoopConfig, workers: int,
                    backend: str, log: Callable[[str], None], run_netplay: Any) -> bool:
    """Self-play, train, gate and maybe promote generation k; False on Ctrl-C (what is
    done is kept: a later run picks it up)."""
    k = len(state["generations"])
    best = state["generations"][state["best"]]
    games = out / "games" / f"gen-{k:03d}"
    log(f"generation {k}: self-play of generation {best['generation']} ({cfg.games} games)")
    best_model = _at(out, best["model"])
    run = run_netplay(players=cfg.players, games=cfg.games, out=games, model=best_model,
                      workers=workers, backend=backend, seed=cfg.seed + 1_000_000 * k,
                      fast_iterations=cfg.fast_iterations, full_iterations=cfg.full_iterations,
                      full_fraction=cfg.full_fraction)
    if run.interrupted:
        if run.error:
            raise SelfplayError(f"self-play of generation {k}: {run.error}")
        return False
    window = [f"games/gen-{j:03d}" for j in range(max(1, k - cfg.window + 1), k + 1)]
    candidate = out / "models" / f"gen-{k:03d}.npz"
    if not candidate.exists():
        log(f"generation {k}: training on {len(window)} generations' games")
        # trained on from the best at a fine-tuning rate, judged on the newest games only
        # (the best was trained on the older ones)
        options = {"players": cfg.players, "init": best_model, "seed": k, "progress": False,
                   "val_games": "last", "lr": FINE_TUNING_LR, **cfg.train}
        with tempfile.TemporaryDirectory(dir=out) as tmp:
            partial = os.path.join(tmp, candidate.name)
            if not _train([_at(out, w) for w in window], partial, options):
                return False
            for src in Path(tmp).iterdir():
                os.replace(src, candidate.parent / src.name)
    log(f"generation {k}: gate against generation {best['generation']} ({cfg.gate_games} games)")
    gate = _gate(str(candidate), best_model, cfg, k, out / "gates" / f"gen-{k:03d}.jsonl",
                 workers, backend)
    if gate is None:
        return False
    state["games_played"] += run.games
    promoted = promotes(gate, cfg.players, cfg.gate_threshold)
    gate["records"] = f"gates/gen-{k:03d}.jsonl"
    row = {"generation": k, "model": f"models/{candidate.name}", "sha256": sha256_file(candidate),
           "parent": best["generation"], "selfplay_games": run.games,
           "selfplay_seconds": round(run.seconds, 1), "trained_on": window, "gate": gate,
           "promoted": promoted, "games_played": state["games_played"]}
    if promoted:
        row["elo"] = best["elo"] + gate["elo"]
        row["elo_ci"] = [best["elo"] + gate["elo_ci"][0], best["elo"] + gate["elo_ci"][1]]
        state["best"] = k
    state["generations"].append(row)
    _save(out, state)
    log(f"generation {k}: won {100 * gate['win_rate']:.1f}% of its seats' games (fair share "
        f"{100 * gate['fair_share']:.0f}%) in {gate['games']} against "
        f"generation {best['generation']} ({gate['elo']:+.0f} {gate.get('unit', 'Elo')}) -> "
        + ("promoted" if promoted else "not promoted"))
    return True


def plot_ladder(state: dict[str, Any], path: Path) -> None:
    """The promoted generations' Elo (each gate's difference added to its parent's, with
    the gate's 95% interval) against the self-play games played to make them."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in state["generations"] if r.get("promoted")]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    xs = [r["games_played"] for r in rows]
    ys = [r["elo"] for r in rows]
    err = [[r["elo"] - r["elo_ci"][0] for r in rows], [r["elo_ci"][1] - r["elo"] for r in rows]]
    ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3)
    for r in rows:
        ax.annotate(str(r["generation"]), (r["games_played"], r["elo"]), fontsize=7,
                    xytext=(3, 3), textcoords="offset points")
    rejected = [r for r in state["generations"] if not r.get("promoted")]
    if rejected:
        ax.scatter([r["games_played"] for r in rejected],
                   [state["generations"][r["parent"]]["elo"] + r["gate"]["elo"] for r in rejected],
                   marker="x", color="grey", label="not promoted (its gate)")
        ax.legend(fontsize=8)
    ax.axhline(0, color="grey", linewidth=0.8)
    cfg = state["config"]
    ax.set_xlabel("self-play games played")
    ax.set_ylabel("$ a game over generation 0 (95% interval of each gate)"
                  if cfg["players"] == 1 else "Elo over generation 0 (95% interval of each gate)")
    sizes = sorted({r["gate"]["games"] for r in state["generations"] if r.get("gate")})
    games = (f"{sizes[0]}" if len(sizes) == 1 else f"{sizes[0]}-{sizes[-1]}") if sizes \
        else f"{cfg['gate_games']}"
    ax.set_title(f"Generations: {cfg['players']} players, gates of {games} games at "
                 f"{cfg['gate_iterations']} iterations", fontsize=9)
    fig.tight_layout()
    tmp = path.with_name(path.name + ".tmp.png")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    os.replace(tmp, path)
