"""`gallerist loadtest` as a user meets it: its reports go where it is run (or
to --out), it shows progress while it runs, and a missed latency target fails the run
(status 1) unless --no-fail-on-missed-targets; `bench/loadtest.py` keeps bench/results
and only reports missed targets."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gallerist.cli.load import driver
from gallerist.cli.load.driver import run_status

ROOT = Path(__file__).resolve().parents[2]


def _summary(*, met: bool = True, failures: int = 0, requests: int = 10) -> dict[str, Any]:
    return {"requests": requests, "failures": failures,
            "time_budget_targets": [{"name": "SuggestMoves [time_ms=5]", "p99": 40.0,
                                     "limit": 25.0, "met": met}]}


def test_missed_target_fails_the_run(capsys: pytest.CaptureFixture[str]) -> None:
    """A missed target is status 1 with an error line naming it and the flag; with
    --no-fail-on-missed-targets it is only reported (status 0)."""
    assert run_status(_summary(met=False), soak=False, fail_on_missed_targets=True) == 1
    assert capsys.readouterr().err == (
        "error: latency target missed: SuggestMoves [time_ms=5] (use "
        "--no-fail-on-missed-targets to only report it)\n")
    assert run_status(_summary(met=False), soak=False, fail_on_missed_targets=False) == 0
    assert run_status(_summary(met=True), soak=False, fail_on_missed_targets=True) == 0
    assert capsys.readouterr().err == ""


def test_failures_and_empty_runs_fail_with_a_reason(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_status(_summary(failures=3), soak=False, fail_on_missed_targets=False) == 1
    assert "error: 3 of 10 requests failed" in capsys.readouterr().err
    assert run_status(_summary(requests=0), soak=False, fail_on_missed_targets=False) == 1
    assert "error: no request was made" in capsys.readouterr().err
    soak = dict(_summary(), memory={"flat": False})
    assert run_status(soak, soak=True, fail_on_missed_targets=False) == 1
    assert "error: server memory did not level off" in capsys.readouterr().err


def _parse(add: Any, argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    add(p)
    return p.parse_args(argv)


def test_defaults_of_the_two_entry_points() -> None:
    """`gallerist loadtest` writes into ./loadtest-results and fails on a missed target;
    `bench/loadtest.py` writes into bench/results and reports it. Both run the packaged
    users on the packaged corpus."""
    from gallerist.cli.commands import loadtest

    sub = argparse.ArgumentParser().add_subparsers()
    loadtest.add(sub)
    cli = sub.choices["loadtest"].parse_args([])
    assert cli.out == "loadtest-results" and cli.fail_on_missed_targets is True
    bench_loadtest = _bench_module("loadtest")
    bench = _parse(lambda p: driver.add_arguments(p, out=bench_loadtest.RESULTS), [])
    assert bench.out == os.path.join(str(ROOT), "bench", "results")
    assert bench.fail_on_missed_targets is False
    assert _parse(driver.add_arguments, ["--fail-on-missed-targets"]).fail_on_missed_targets
    package = Path(driver.__file__).parent
    assert Path(driver.LOCUSTFILE) == package / "users.py"
    assert Path(cli.corpus) == package / "states.jsonl.gz" == Path(bench.corpus)
    assert not (ROOT / "bench" / "locustfile.py").exists()


def _bench_module(name: str) -> Any:
    """bench/NAME.py as a module (bench's scripts import each other by bare name)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_missing_corpus_is_refused_before_any_server_starts(tmp_path: Path) -> None:
    """--corpus names a file that is not there: status 2 naming it, and nothing ran."""
    from gallerist.cli.main import main

    code = main(["loadtest", "--corpus", str(tmp_path / "none.jsonl.gz"), "--out",
                 str(tmp_path / "out"), "--duration", "1"])
    assert code == 2
    assert not (tmp_path / "out").exists()


def test_reports_go_where_it_runs_with_progress(tmp_path: Path) -> None:
    """Run from another folder, the reports are in ./loadtest-results there (they went
    under the source tree), and a progress bar was shown on stderr while locust ran."""
    proc = subprocess.run(
        [sys.executable, "-m", "gallerist.cli", "loadtest", "--duration", "5",
         "--workers", "1", "--users", "1", "--players", "0", "--spawn-rate", "50",
         "--budgets", "iterations=20"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    summary = json.loads((tmp_path / "loadtest-results" / "loadtest_summary.json").read_text())
    assert summary["requests"] > 0
    assert Path(summary["files"]["stats_csv"]).parent == tmp_path / "loadtest-results"
    assert "loadtest:" in proc.stderr and "/" in proc.stderr     # the bar: "n/total s"
    assert "loadtest-results" in proc.stdout                    # "reports: ..."
    # locust's run time leaves room for its start-up (on a busy machine a short run
    # used to end before any request): 5 s of load + LOCUST_STARTUP_S
    assert f" -t {5 + round(driver.LOCUST_STARTUP_S)}s " in summary["locust_command"]


def test_without_locust_it_says_which_extra_to_install(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """An installed package without the `load` extra: status 1 naming the extra, before
    any server starts."""
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "locust" else find_spec(name, *a))
    from gallerist.cli.main import main

    assert main(["loadtest", "--out", str(tmp_path / "out"), "--duration", "1"]) == 1
    assert ("error: the load test needs locust: pip install 'gallerist-ai[load]'"
            in capsys.readouterr().err)
    assert not (tmp_path / "out").exists()
