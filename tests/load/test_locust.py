"""The load test: short headless locust runs against server subprocesses, and
the pure helpers of `cli.load`.

Locust runs in a child process (`bench/loadtest.py` starts the servers and locust on the
packaged users, `cli/load/users.py`): its import monkey-patches the process with gevent,
which must not happen to pytest's. No module of `cli.load` but `users` imports locust.
"""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gallerist.cli.load import driver
from gallerist.cli.load.corpus import DEFAULT_CORPUS, load_corpus
from gallerist.cli.load.locust_csv import read_stats_csv
from gallerist.cli.load.mix import BudgetMix
from gallerist.cli.load.report import memory_verdict
from gallerist.cli.load.servers import round_robin_target

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"


def run_loadtest(tmp_path: Path, *args: str, timeout: float = 60) -> tuple[int, dict[str, Any], str]:
    """Run bench/loadtest.py with `args` into tmp_path; (exit code, summary, output)."""
    summary_path = tmp_path / "summary.json"
    proc = subprocess.run(
        [sys.executable, str(BENCH / "loadtest.py"), "--out", str(tmp_path), "--json",
         str(summary_path), "--spawn-rate", "50", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    output = proc.stdout + proc.stderr
    assert summary_path.exists(), output
    return proc.returncode, json.loads(summary_path.read_text()), output


# ---------------------------------------------------------------------------- locust runs


def test_headless_run_has_requests_and_no_failures(tmp_path: Path) -> None:
    """A few seconds of SuggestMoves (two budgets, corpus states) and a game player
    against one server: requests of every kind, zero failures, reports written."""
    code, summary, output = run_loadtest(
        tmp_path, "--duration", "4", "--workers", "1", "--users", "1", "--players", "1",
        "--budgets", "time_ms=5,iterations=50")
    assert code == 0, output
    rpcs = summary["rpcs"]
    assert summary["failures"] == 0 and summary["failure_errors"] == [], output
    assert summary["requests"] > 0
    for name in ("SuggestMoves [time_ms=5]", "SuggestMoves [iterations=50]", "NewGame",
                 "LegalActions", "ApplyAction"):
        assert rpcs[name]["requests"] > 0, (name, output)
        assert rpcs[name]["failures"] == 0
    assert summary["hints_per_s"] > 0
    files = summary["files"]
    for key in ("stats_csv", "html", "history_csv"):
        assert Path(files[key]).stat().st_size > 0, key
    with open(files["stats_csv"], newline="") as fh:
        types = {row["Type"] for row in csv.DictReader(fh) if row["Name"] != "Aggregated"}
    assert types == {"grpc"}
    assert summary["server_exit_codes"] == [0]       # stopped gracefully
    assert "hints/s:" in output and "failures: 0" in output


def test_interceptor_counts_bad_states_as_failures_with_status(tmp_path: Path) -> None:
    """Half the SuggestMoves carry a corrupted state: each is a failure under
    INVALID_ARGUMENT, the good ones are not; over two replicas behind one round-robin
    channel, both servers get calls."""
    code, summary, output = run_loadtest(
        tmp_path, "--duration", "4", "--workers", "1", "--replicas", "2", "--users", "2",
        "--players", "0", "--budgets", "time_ms=5", "--invalid-share", "0.5",
        "--server-arg=--log-level=INFO")
    assert code == 1, output                           # a run with failures fails
    rpcs = summary["rpcs"]
    bad = rpcs["SuggestMoves [invalid-state]"]
    assert bad["requests"] > 0 and bad["failures"] == bad["requests"], output
    good = rpcs["SuggestMoves"]
    assert good["requests"] > 0 and good["failures"] == 0, output
    assert summary["failures"] == bad["failures"]
    errors = summary["failure_errors"]
    assert errors and all(e["name"] == "SuggestMoves [invalid-state]" for e in errors)
    assert all("INVALID_ARGUMENT" in e["error"] and "money" in e["error"] for e in errors)
    assert sum(e["occurrences"] for e in errors) == bad["failures"]
    assert summary["config"]["target"].startswith("ipv4:127.0.0.1:")
    for i in range(2):                                 # round robin reached both servers
        log = (tmp_path / f"loadtest_server{i}.log").read_text()
        assert "SuggestMoves" in log and "status=OK" in log, log[-500:]
        assert "status=INVALID_ARGUMENT" in log


def test_bad_options_exit_2(tmp_path: Path) -> None:
    """A bad budget mix is refused before anything starts."""
    from gallerist.cli.main import main

    assert main(["loadtest", "--budgets", "time_ms=abc", "--out", str(tmp_path)]) == 2
    assert main(["loadtest", "--duration", "0", "--out", str(tmp_path)]) == 2


# ---------------------------------------------------------------------------- helpers


def test_budget_mix_parse_and_pick() -> None:
    mix = BudgetMix.parse("time_ms=10*3, iterations=500+time_ms=40, "
                                  "expectimax/depth=2*0.5, greedy")
    labels = [c.label for c in mix.choices]
    assert labels == ["time_ms=10", "iterations=500+time_ms=40", "expectimax/depth=2", "greedy"]
    assert (mix.choices[1].iterations, mix.choices[1].time_ms) == (500, 40)
    assert mix.choices[2].bot == "expectimax" and mix.choices[2].depth == 2
    assert mix.choices[3].bot == "greedy" and mix.choices[3].weight == 1.0
    import random
    rng = random.Random(0)
    picks = [mix.pick(rng).label for _ in range(2000)]
    assert picks.count("time_ms=10") > picks.count("greedy") * 2
    for bad in ("", "time_ms=x", "nodes=3", "time_ms=5*0", "time_ms=-1", "/depth=2"):
        with pytest.raises(ValueError):
            BudgetMix.parse(bad)


def test_corpus_covers_every_stage_and_player_count() -> None:
    """The stored corpus: states of 2, 3 and 4 players at every stage, all decision
    points that the engine accepts, and small on disk."""
    from gallerist import engine

    corpus = load_corpus()
    assert os.path.getsize(DEFAULT_CORPUS) < 300_000
    seen = {(c.players, c.stage) for c in corpus}
    for players in (2, 3, 4):
        for stage in ("opening", "early", "mid", "late", "final"):
            assert (players, stage) in seen
    for c in corpus[::7]:
        state = engine.GameState.from_json(json.dumps(c.state))
        assert not state.is_chance() and not state.is_terminal()
        assert state.current_player == c.to_move
        assert state.num_players == c.players


def test_parse_duration_and_target() -> None:
    assert driver.parse_duration("5m") == 300.0
    assert driver.parse_duration("1h2m3s") == 3723.0
    assert driver.parse_duration("2.5") == 2.5
    for bad in ("5x", "m", "10s5"):
        with pytest.raises(ValueError):
            driver.parse_duration(bad)
    assert round_robin_target(["127.0.0.1:1"]) == "127.0.0.1:1"
    assert round_robin_target(["127.0.0.1:1", "127.0.0.1:2"]) == \
        "ipv4:127.0.0.1:1,127.0.0.1:2"


def test_memory_verdict() -> None:
    flat = [(t, 100.0 + (t % 20) * 0.1) for t in range(0, 300, 10)]
    assert memory_verdict(flat, 60)["flat"]
    growing = [(t, 100.0 + t * 0.2) for t in range(0, 300, 10)]
    verdict = memory_verdict(growing, 60)
    assert not verdict["flat"] and verdict["slope_mb_per_min"] == pytest.approx(12.0)
    warm = [(0, 40.0), (10, 90.0)] + [(t, 100.0) for t in range(20, 100, 10)]
    assert memory_verdict(warm, 20)["flat"]            # warm-up growth is not judged
    assert not memory_verdict(warm[:2], 20)["flat"]    # nothing after warm-up


def test_read_stats_csv(tmp_path: Path) -> None:
    path = tmp_path / "x_stats.csv"
    header = ("Type,Name,Request Count,Failure Count,Median Response Time,Average Response "
              "Time,Min Response Time,Max Response Time,Average Content Size,Requests/s,"
              "Failures/s,50%,66%,75%,80%,90%,95%,98%,99%,99.9%,99.99%,100%")
    path.write_text(header + "\n"
                    "grpc,SuggestMoves,10,1,12,13.5,10,40,900,5.0,0.5,12,13,14,15,16,20,30,40,40,40,40\n"
                    ",Aggregated,10,1,12,13.5,10,40,900,5.0,0.5,12,13,14,15,16,20,30,40,40,40,40\n"
                    "grpc,Empty,0,0,0,0,0,0,0,0,0,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A\n")
    rows = read_stats_csv(str(path))
    r = rows["SuggestMoves"]
    assert (r.requests, r.failures, r.rps, r.p50, r.p95, r.p99) == (10, 1, 5.0, 12, 20, 40)
    assert "Aggregated" in rows
    assert rows["Empty"].p99 != rows["Empty"].p99       # N/A -> nan
