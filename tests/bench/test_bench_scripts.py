"""Every benchmark script runs: each `bench/*.py` in its smallest mode, its outputs in a
temporary folder, so that a benchmark cannot rot unseen. A run must exit 0, print its
table, write what it was asked to write and leave the repository's files as they were
(no RESULTS.md or bench/data writes).

The modules that are not scripts (imported by the scripts) are listed with the script
whose run covers them; a new file in bench/ fails the test until it is in one list.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
#: A smallest run takes seconds; past this something hangs.
TIMEOUT_S = 240

#: script -> (arguments, with {tmp} for the run's folder; text its output must hold; files
#: it must write under {tmp})
SCRIPTS: dict[str, tuple[list[str], str, list[str]]] = {
    "engine_bench.py": (["--quick", "--json", "{tmp}/engine.json"], "apply", ["engine.json"]),
    "search_bench.py": (["--quick", "--games", "2", "--time-ms", "5", "--json", "{tmp}/search.json"],
                        "speed-up on 2 threads", ["search.json"]),
    "analyze_bench.py": (["--time-ms", "5", "--workers", "1"], "pos/s", []),
    "explain_bench.py": (["--positions", "1", "--time-ms", "5", "--json", "{tmp}/explain.json"],
                         "explain adds", ["explain.json"]),
    "arena_bench.py": (["--games", "4", "--no-ray"], "games/s", []),
    "http_bench.py": (["--calls", "5"], "ms p50 to SuggestMoves", []),
    "games_bench.py": (["--games", "1", "--json", "{tmp}/games.json"],
                       "SQLite file adds", ["games.json"]),
    "rating_combine.py": (["--draws", "2", "--out", "{tmp}/combine.json"],
                          "stays with the player", ["combine.json"]),
    "http_servers.py": (["--servers", "granian,wsgiref", "--calls", "5", "--quick", "--json",
                         "{tmp}/servers.json"], "| granian | True | True |", ["servers.json"]),
    "play_bench.py": (["--games", "1", "--max-moves", "4", "--json", "{tmp}/play.json"],
                      "a click on a move", ["play.json"]),
    "levels_bench.py": (["--games", "1", "--levels", "1,2", "--out", "{tmp}/levels.json"],
                        "mean ms", ["levels.json"]),
    "level_sweep.py": (["--ratings", "bench/data/ladder/ladder.json", "--config",
                        "10,1.0,1.0,10@random", "--games", "1"], "\"elo\"", []),
    "strength_fit.py": (["--records", "bench/data/ladder/ladder-games.jsonl", "--ratings",
                         "bench/data/ladder/ladder.json", "--per-rung", "1", "--held-out", "2",
                         "--iterations", "10", "--workers", "1", "--cache", "{tmp}/cache.jsonl",
                         "--out", "{tmp}/fit.json"], "held out", ["fit.json"]),
    "selfplay_bench.py": (["--games", "2", "--no-ray", "--spec", "mcts:iterations=20",
                           "--out", "{tmp}/selfplay.json"], "positions/s", ["selfplay.json"]),
    "model_bench.py": (["--quick", "--json", "{tmp}/model.json"], "iterations", ["model.json"]),
    "make_corpus.py": (["--games", "1", "--per-game", "2", "-o", "{tmp}/corpus.jsonl.gz"],
                       "", ["corpus.jsonl.gz"]),
    "service_bench.py": (["--quick", "--json", "{tmp}/service.json"], "", ["service.json"]),
    "openspiel_bench.py": (["--quick", "--states", "1", "--simulations", "20", "--python-states", "1",
                            "--python-simulations", "10", "--repeat", "1", "--games", "2",
                            "--time-ms", "5", "--json", "{tmp}/openspiel.json"], "", ["openspiel.json"]),
    "generations.py": (["--quick", "--out", "{tmp}/gen", "--work", "{tmp}/work"], "",
                       ["gen/generations.json"]),
    "loadtest.py": (["--duration", "2", "--out", "{tmp}/load", "--no-progress"], "hints/s",
                    ["load/loadtest_stats.csv"]),
    "capacity.py": (["--duration", "2", "--only", "time_ms=10*2,time_ms=50,iterations=1000",
                     "--out", "{tmp}/capacity", "--json", "{tmp}/capacity.json"], "hints/s",
                    ["capacity.json"]),
    "calibration.py": (["all", "--quick", "--workers", "2", "--data", "{tmp}/calibration"],
                       "Brier", ["calibration/games.jsonl.gz", "calibration/evals.jsonl.gz"]),
    "value_check.py": (["{selfplay}", "--rounds", "10", "--val-fraction", "0.25"], "Brier", []),
    "value_ranking.py": (["{selfplay}", "--games", "2", "--per-game", "1", "--reference", "20"],
                         "Spearman", []),
    "value_scale.py": (["{selfplay}", "--held-out", "2", "--sizes", "3,6", "--epochs", "2",
                        "--rounds", "10", "--out", "{tmp}/scale.json", "--png", "{tmp}/scale.png"],
                       "Brier", ["scale.json", "scale.png"]),
}
#: Scripts that read another script's output: script -> (the one it follows, arguments).
FOLLOWERS: dict[str, tuple[str, list[str], str]] = {
    "continuations.py": ("calibration.py", ["--data", "{tmp}/calibration", "--games", "2",
                                            "--per-position", "1", "--workers", "2"], "constant 0.5"),
}
#: Modules, not scripts -> the script whose run imports them (calibration.py's `model`
#: step, which imports calibration_model.py, runs in tests/ai/calibration/test_model_maps.py).
MODULES = {"figures.py": "search_bench.py", "positions.py": "search_bench.py",
           "calibration_moves.py": "calibration.py", "calibration_model.py": "calibration.py"}


def _repo_files() -> str:
    """The changed and untracked files of bench/ (RESULTS.md, bench/data) and tests/data."""
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "--",
                           "bench", "tests/data"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60).stdout


def _run(script: str, args: list[str], tmp: Path, selfplay: Path | None = None) -> str:
    argv = [a.format(tmp=tmp, selfplay=selfplay) for a in args]
    before = _repo_files()
    try:
        out = subprocess.run([sys.executable, str(BENCH / script), *argv], cwd=ROOT,
                             capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"{script} did not finish within {TIMEOUT_S} s: {exc.stdout!r} {exc.stderr!r}",
                    pytrace=False)
    assert out.returncode == 0, f"{script} exited {out.returncode}:\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}"
    assert _repo_files() == before, f"{script} changed files in bench/ or tests/data"
    return out.stdout + out.stderr


@pytest.fixture(scope="module")
def selfplay_dir(tmp_path_factory) -> Path:
    """A small self-play directory (8 two-player games with playout labels)."""
    out = tmp_path_factory.mktemp("selfplay") / "records"
    done = subprocess.run([sys.executable, "-m", "gallerist.cli", "selfplay", "mcts:iterations=10",
                           "--games", "8", "--out", str(out), "--playouts", "4", "--no-progress",
                           "--workers", "2"], capture_output=True, text=True, timeout=TIMEOUT_S)
    assert done.returncode == 0, done.stderr
    return out


def test_every_bench_file_is_run_or_covered():
    """Each bench/*.py is a script run below, a follower of one, or a module one imports."""
    files = {p.name for p in BENCH.glob("*.py")}
    listed = set(SCRIPTS) | set(FOLLOWERS) | set(MODULES)
    assert files - listed == set(), "bench scripts without a smallest run here"
    assert listed - files == set(), "listed bench files that do not exist"
    for module in MODULES:
        assert "__main__" not in (BENCH / module).read_text(), f"{module} is a script"


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_bench_script_runs_in_its_smallest_mode(script, tmp_path, selfplay_dir):
    """The script exits 0, prints its figures and writes only where it was told."""
    args, expect, files = SCRIPTS[script]
    output = _run(script, args, tmp_path, selfplay_dir)
    assert expect in output
    for name in files:
        assert (tmp_path / name).is_file(), f"{script} did not write {name}"
    follower = [(name, f) for name, f in FOLLOWERS.items() if f[0] == script]
    for name, (_, follow_args, follow_expect) in follower:
        assert follow_expect in _run(name, follow_args, tmp_path, selfplay_dir)
