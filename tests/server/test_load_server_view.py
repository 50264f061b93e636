"""The load test's server view: quantiles from histogram buckets (as Prometheus's
histogram_quantile), a scrape of a real server's metrics before and after known calls,
and a short load test whose summary and report carry the server's view."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from server_testlib import running_server

from gallerist import engine
from gallerist.client import HintClient, hint_request
from gallerist.cli.load.server_view import (format_server_view, histogram_quantile,
                                               scrape, server_view)
from gallerist.v1 import hints_pb2

ROOT = Path(__file__).resolve().parents[2]


def test_quantiles_of_a_known_histogram() -> None:
    """10 observations <= 0.01, 30 in (0.01, 0.05], 60 in (0.05, 0.1], none above."""
    buckets = [(0.01, 10), (0.05, 40), (0.1, 100), (math.inf, 100)]
    assert histogram_quantile(0.05, buckets) == pytest.approx(0.005)   # first bucket from 0
    assert histogram_quantile(0.25, buckets) == pytest.approx(0.01 + 0.04 * 15 / 30)
    assert histogram_quantile(0.5, buckets) == pytest.approx(0.05 + 0.05 * 10 / 60)
    assert histogram_quantile(0.99, buckets) == pytest.approx(0.05 + 0.05 * 59 / 60)
    assert histogram_quantile(1.0, buckets) == pytest.approx(0.1)
    # a rank in the +Inf bucket: the highest finite bound; no observation: NaN
    assert histogram_quantile(0.99, [(0.01, 10), (0.1, 90), (math.inf, 100)]) == 0.1
    assert math.isnan(histogram_quantile(0.5, [(0.01, 0), (math.inf, 0)]))
    # unsorted input, as a scrape's labels come
    assert histogram_quantile(0.5, list(reversed(buckets))) == pytest.approx(0.05 + 0.05 / 6)


def test_scrape_before_and_after_known_calls(demo: engine.GameState) -> None:
    """The server's view between two scrapes counts exactly the calls made between them,
    by method and status, with quantiles inside the histogram's range."""
    with running_server(workers=2, metrics_port=0) as server:
        assert server.metrics is not None
        urls = [f"http://127.0.0.1:{server.metrics.port}/metrics"]
        with HintClient(f"localhost:{server.port}") as client:
            client.stub.NewGame(hints_pb2.NewGameRequest(num_players=2, seed=9))  # not counted
            before = scrape(urls)
            for seed in range(3):
                client.stub.SuggestMoves(hint_request(demo, bot="greedy", seed=seed))
            for seed in range(2):
                client.stub.NewGame(hints_pb2.NewGameRequest(num_players=2, seed=seed))
            after = scrape(urls)
        view = server_view(before, after, [0.0, 1.0])
    methods = view["methods"]
    assert set(methods) == {"SuggestMoves", "NewGame"}
    assert methods["SuggestMoves"]["calls"] == 3
    assert methods["SuggestMoves"]["codes"] == {"OK": 3}
    assert methods["NewGame"]["calls"] == 2
    for row in methods.values():
        assert 0 < row["p50_ms"] <= row["p90_ms"] <= row["p99_ms"] <= 60_000
    assert view["refusals"] == 0
    assert view["slots_busy_end"] == 0 and view["slots_free_end"] == 2
    assert view["slots_busy_peak"] == 1
    text = "\n".join(format_server_view(view))
    assert "server's view: SuggestMoves 3 calls, p50 " in text
    assert "refusals 0" in text and "highest sampled 1" in text


def test_a_short_load_test_reports_the_server_view(tmp_path: Path) -> None:
    """A few seconds of load: the summary's server_view counts SuggestMoves calls (at
    least those locust counted after its reset), and the report prints it."""
    summary_path = tmp_path / "summary.json"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "loadtest.py"), "--out", str(tmp_path),
         "--json", str(summary_path), "--spawn-rate", "50", "--duration", "3", "--workers",
         "1", "--users", "1", "--players", "0", "--budgets", "iterations=20",
         "--no-progress"],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    summary = json.loads(summary_path.read_text())
    view = summary["server_view"]
    assert "error" not in view, view
    hints = view["methods"]["SuggestMoves"]
    assert hints["calls"] >= summary["rpcs"]["SuggestMoves"]["requests"] > 0
    assert hints["p50_ms"] > 0
    assert view["refusals"] == 0 and view["slots_busy_peak"] is not None
    assert "server's view: SuggestMoves" in proc.stdout
