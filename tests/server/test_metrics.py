"""Prometheus metrics (`serve --metrics-port`): calls counted by method and status over
gRPC and HTTP, durations, searches by bot kind, slots, refusals, the state cache, build
info; no metrics port without the flag (a taken metrics port: test_http.py)."""
from __future__ import annotations

import json
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import grpc
import pytest
from prometheus_client.parser import text_string_to_metric_families
from server_testlib import expect_status, running_server

from gallerist import engine
from gallerist.client import HintClient, hint_request
from gallerist.server import GalleristServer
from gallerist.v1 import hints_pb2

ROOT = Path(__file__).resolve().parents[2]
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def _scrape(server: GalleristServer) -> Samples:
    """Every sample of the server's /metrics, by (name, labels)."""
    assert server.metrics is not None and server.metrics.port is not None
    with urllib.request.urlopen(f"http://localhost:{server.metrics.port}/metrics",
                                timeout=10) as reply:
        assert reply.status == 200
        text = reply.read().decode()
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def _get(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def _labels_of(samples: Samples, name: str) -> list[dict[str, str]]:
    return [dict(labels) for (n, labels) in samples if n == name]


def _refused(port: int) -> bool:
    try:
        socket.create_connection(("localhost", port), timeout=2).close()
    except OSError:
        return True
    return False


def test_a_known_sequence_of_calls_is_counted(demo: engine.GameState) -> None:
    """Calls over gRPC and HTTP are counted once each by method and status name, with
    their durations; searches by bot kind; the state cache's hits; the slots free again,
    nothing in flight, no stream open; the build info names the version."""
    with running_server(workers=2, metrics_port=0, http_port=0) as server:
        with HintClient(f"localhost:{server.port}") as client:
            stub = client.stub
            game = stub.NewGame(hints_pb2.NewGameRequest(num_players=2, seed=1))
            stub.NewGame(hints_pb2.NewGameRequest(num_players=3, seed=2))
            stub.LegalActions(hints_pb2.LegalActionsRequest(state=game.state))   # a hit
            stub.SuggestMoves(hint_request(demo, bot="greedy", seed=1))
            expect_status(grpc.StatusCode.INVALID_ARGUMENT,
                          lambda: stub.SuggestMoves(hint_request(demo, bot="nosuchbot")))
            list(stub.AnalyzeStream(hint_request(demo, bot="mcts:iterations=50",
                                                 report_interval_ms=20)))
        body = json.dumps({"numPlayers": 2}).encode()
        post = urllib.request.Request(
            f"http://localhost:{server.http.port}/gallerist.v1.GalleristAI/NewGame",  # type: ignore[union-attr]
            data=body, method="POST", headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(post, timeout=30) as reply:
            assert reply.status == 200
        s = _scrape(server)

    calls = {(labels["method"], labels["code"]): _get(s, "gallerist_requests_total", **labels)
             for labels in _labels_of(s, "gallerist_requests_total")}
    assert calls == {("NewGame", "OK"): 3, ("LegalActions", "OK"): 1,
                     ("SuggestMoves", "OK"): 1, ("SuggestMoves", "INVALID_ARGUMENT"): 1,
                     ("AnalyzeStream", "OK"): 1}
    for method, count in (("NewGame", 3), ("LegalActions", 1), ("SuggestMoves", 2),
                          ("AnalyzeStream", 1)):
        assert _get(s, "gallerist_request_duration_seconds_count", method=method) == count
        assert _get(s, "gallerist_request_duration_seconds_sum", method=method) > 0
    assert _get(s, "gallerist_search_duration_seconds_count", bot="greedy") == 1
    assert _get(s, "gallerist_search_duration_seconds_count", bot="mcts") == 1
    assert _get(s, "gallerist_search_iterations_count", bot="mcts") == 1
    assert _get(s, "gallerist_search_iterations_sum", bot="mcts") >= 1
    assert _get(s, "gallerist_state_cache_hits_total") >= 1
    assert _get(s, "gallerist_search_slots_busy") == 0
    assert _get(s, "gallerist_search_slots_free") + _get(s, "gallerist_search_slots_busy") == 2
    assert _get(s, "gallerist_requests_in_flight") == 0
    assert _get(s, "gallerist_streams_open", method="AnalyzeStream") == 0
    assert _get(s, "gallerist_refused_total") == 0
    [build] = _labels_of(s, "gallerist_build_info")
    assert build["version"] and {"model", "calibration"} <= set(build)
    assert _get(s, "gallerist_build_info", **build) == 1
    assert _get(s, "process_resident_memory_bytes") > 0 and _get(s, "gallerist_threads") > 1


def test_a_full_server_counts_the_refusal(demo: engine.GameState) -> None:
    """A search refused because every slot is taken counts in gallerist_refused_total and
    as RESOURCE_EXHAUSTED; the slot gauges show the taken slot."""
    with running_server(workers=1, metrics_port=0) as server:
        assert server.slots.try_acquire(1)
        try:
            with HintClient(f"localhost:{server.port}") as client:
                expect_status(grpc.StatusCode.RESOURCE_EXHAUSTED,
                              lambda: client.stub.SuggestMoves(hint_request(demo, bot="greedy")))
            s = _scrape(server)
        finally:
            server.slots.release(1)
    assert _get(s, "gallerist_refused_total") == 1
    assert _get(s, "gallerist_requests_total", method="SuggestMoves",
                code="RESOURCE_EXHAUSTED") == 1
    assert (_get(s, "gallerist_search_slots_busy"), _get(s, "gallerist_search_slots_free")) == (1, 0)


def test_metrics_registries_are_per_server() -> None:
    """Two servers in one process each count only their own calls; the metrics port
    closes when its server stops."""
    with running_server(workers=1, metrics_port=0) as a, \
            running_server(workers=1, metrics_port=0) as b:
        with HintClient(f"localhost:{a.port}") as client:
            client.stub.NewGame(hints_pb2.NewGameRequest(num_players=2))
        assert _get(_scrape(a), "gallerist_requests_total", method="NewGame", code="OK") == 1
        assert _get(_scrape(b), "gallerist_requests_total", method="NewGame", code="OK") == 0
        port = a.metrics.port  # type: ignore[union-attr]
    assert port is not None and _refused(port)


def test_no_metrics_port_without_the_flag() -> None:
    """A server made without metrics_port has no metrics and opens no metrics port."""
    with running_server(workers=1) as server:
        assert server.metrics is None and server.metrics_port is None
        assert server.servicer.metrics.__class__.__name__ == "Metrics"   # the no-op one


def test_serve_help_names_the_metrics_port() -> None:
    """`serve --help` documents --metrics-port."""
    done = subprocess.run([sys.executable, "-m", "gallerist.cli", "serve", "--help"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "--metrics-port PORT" in done.stdout
    assert "/metrics" in done.stdout
