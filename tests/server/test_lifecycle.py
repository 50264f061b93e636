"""Deadlines, cancellation, overload, graceful shutdown (also on SIGTERM), health
checking, reflection and TLS."""
from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)
from google.protobuf.descriptor_pool import DescriptorPool

from gallerist import engine
from gallerist.client import HintClient, hint_request
from gallerist.server.servicer import SERVICE_NAME
from server_testlib import expect_status, running_server, wait_until

ROOT = Path(__file__).resolve().parents[2]
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


def _health(channel: grpc.Channel, service: str = "") -> int:
    stub = health_pb2_grpc.HealthStub(channel)
    return stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=5).status  # type: ignore[no-any-return]


@pytest.mark.parametrize("bot", ["mcts", "expectimax:depth=6"])
def test_short_deadline_returns_in_time_with_a_result(client: HintClient,
                                                      demo: engine.GameState, bot: str) -> None:
    """A 500 ms deadline with a 10 s time budget: the answer arrives before the deadline,
    with every move ranked, marked deadline_limited. (The channel is connected first: the
    client's clock also counts connecting, which the server cannot see.)"""
    client.new_game()
    t0 = time.perf_counter()
    r = client.suggest(hint_request(demo, bot=bot, time_ms=10_000), timeout=0.5)
    elapsed = time.perf_counter() - t0
    assert elapsed < 0.5
    assert r.deadline_limited and r.final
    assert len(r.moves) == len(demo.legal_actions())
    assert r.budget.time_ms < 500
    if bot == "mcts":
        assert r.stats.iterations > 100


def test_short_deadline_on_a_stream(client: HintClient, demo: engine.GameState) -> None:
    """AnalyzeStream under a 600 ms deadline ends with its final report in time."""
    client.new_game()
    t0 = time.perf_counter()
    reports = list(client.analyze_stream(
        hint_request(demo, time_ms=10_000, report_interval_ms=100), timeout=0.6))
    assert time.perf_counter() - t0 < 0.6
    assert reports[-1].final and reports[-1].deadline_limited
    assert len(reports) >= 2


def test_cancelled_call_stops_its_search(client: HintClient, service, demo: engine.GameState) -> None:  # type: ignore[no-untyped-def]
    """Cancelling a 10 s search frees its slot within a fraction of a second."""
    future = client.stub.SuggestMoves.future(hint_request(demo, time_ms=10_000))
    wait_until(lambda: service.slots.in_use == 1)
    time.sleep(0.1)
    t0 = time.perf_counter()
    future.cancel()
    wait_until(lambda: service.slots.in_use == 0, timeout=1.0)
    assert time.perf_counter() - t0 < 0.5
    assert future.cancelled()


def test_cancelled_stream_stops_its_search(client: HintClient, service, demo: engine.GameState) -> None:  # type: ignore[no-untyped-def]
    """Cancelling a stream after its first report frees the slot."""
    stream = client.analyze_stream(hint_request(demo, time_ms=10_000, report_interval_ms=50))
    first = next(stream)
    assert not first.final
    stream.cancel()
    wait_until(lambda: service.slots.in_use == 0, timeout=1.0)


def test_overload_is_resource_exhausted(demo: engine.GameState) -> None:
    """With one search slot busy a second search is refused at once with
    RESOURCE_EXHAUSTED (no queueing), while cheap calls and health still work; the slot
    serves again once free."""
    with running_server(workers=1) as server, HintClient(f"localhost:{server.port}") as c:
        busy = c.stub.SuggestMoves.future(hint_request(demo, time_ms=5_000))
        wait_until(lambda: server.slots.in_use == 1)
        t0 = time.perf_counter()
        expect_status(grpc.StatusCode.RESOURCE_EXHAUSTED,
                      lambda: c.suggest(hint_request(demo, bot="greedy")), "busy", "1 of 1")
        expect_status(grpc.StatusCode.RESOURCE_EXHAUSTED,
                      lambda: c.analyze_stream(hint_request(demo, bot="greedy")), "busy")
        assert time.perf_counter() - t0 < 0.5
        assert c.new_game().state.num_players == 2
        assert _health(c.channel) == SERVING
        busy.cancel()
        wait_until(lambda: server.slots.in_use == 0, timeout=1.0)
        assert c.suggest(hint_request(demo, bot="greedy")).final


def test_threads_take_slots(demo: engine.GameState) -> None:
    """A 2-thread search takes both slots of a 2-worker server."""
    with running_server(workers=2) as server, HintClient(f"localhost:{server.port}") as c:
        busy = c.stub.SuggestMoves.future(hint_request(demo, bot="mcts:threads=2",
                                                       time_ms=5_000))
        wait_until(lambda: server.slots.in_use == 2)
        expect_status(grpc.StatusCode.RESOURCE_EXHAUSTED,
                      lambda: c.suggest(hint_request(demo, bot="greedy")), "2 of 2")
        busy.cancel()
        wait_until(lambda: server.slots.in_use == 0, timeout=1.0)


def test_graceful_shutdown_lets_calls_finish(demo: engine.GameState) -> None:
    """shutdown(): health turns NOT_SERVING at once, the call in flight finishes with its
    whole result, and new calls are refused afterwards."""
    with running_server(workers=1) as server, HintClient(f"localhost:{server.port}") as c:
        in_flight = c.stub.SuggestMoves.future(hint_request(demo, time_ms=800))
        wait_until(lambda: server.slots.in_use == 1)
        stopper = threading.Thread(target=server.shutdown, kwargs={"grace": 5, "drain": 0.3})
        stopper.start()
        wait_until(lambda: _health(c.channel) == NOT_SERVING, timeout=1.0)
        assert _health(c.channel, SERVICE_NAME) == NOT_SERVING
        result = in_flight.result(timeout=5)
        assert result.final and not result.stopped and result.stats.elapsed_ms >= 790
        stopper.join(5)
        assert not stopper.is_alive()
        expect_status(grpc.StatusCode.UNAVAILABLE, lambda: c.new_game(timeout=2))


def test_shutdown_grace_shorter_than_search(demo: engine.GameState) -> None:
    """A search longer than the grace period is asked to stop before the grace ends and
    still answers OK with what it found (stopped = true)."""
    with running_server(workers=1) as server, HintClient(f"localhost:{server.port}") as c:
        in_flight = c.stub.SuggestMoves.future(hint_request(demo, time_ms=8_000))
        wait_until(lambda: server.slots.in_use == 1)
        t0 = time.perf_counter()
        server.stop(grace=2.0)
        result = in_flight.result(timeout=5)
        assert time.perf_counter() - t0 < 2.0
        assert result.stopped and result.final and result.stats.iterations > 0


def test_health_and_reflection(client: HintClient) -> None:
    """Health reports SERVING for the server and the service, NOT_FOUND for others;
    reflection lists the services and describes the GalleristAI methods."""
    assert _health(client.channel) == SERVING
    assert _health(client.channel, SERVICE_NAME) == SERVING
    expect_status(grpc.StatusCode.NOT_FOUND, lambda: _health(client.channel, "nope"))
    db = ProtoReflectionDescriptorDatabase(client.channel)
    services = set(db.get_services())
    assert {SERVICE_NAME, "grpc.health.v1.Health",
            "grpc.reflection.v1alpha.ServerReflection"} <= services
    service = DescriptorPool(db).FindServiceByName(SERVICE_NAME)
    assert {m.name for m in service.methods} == {
        "SuggestMoves", "AnalyzeStream", "NewGame", "LegalActions", "ApplyAction",
        "AnalyzeGame"}
    assert service.methods_by_name["AnalyzeStream"].server_streaming


def test_tls(tmp_path: Path, demo: engine.GameState) -> None:
    """With a certificate and key the server speaks TLS: a client trusting the
    certificate works, a plain-text client does not."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                    str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost"],
                   check=True, capture_output=True)
    with running_server(workers=1, tls_cert=cert, tls_key=key) as server:
        with HintClient(f"localhost:{server.port}", ca_file=cert) as c:
            assert c.suggest(hint_request(demo, bot="greedy")).final
        with HintClient(f"localhost:{server.port}") as plain:
            with pytest.raises(grpc.RpcError):
                plain.new_game(timeout=2)


def test_sigterm_shuts_down_gracefully(demo: engine.GameState) -> None:
    """`gallerist serve` on SIGTERM: the call in flight finishes OK, the process exits 0
    and its log has the signal and the call's line (method, budget, elapsed, status)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "gallerist.cli", "serve", "--port", "0", "--workers", "1",
         "--grace", "5"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        match = re.search(r"listening on (\S+):(\d+)", line)
        assert match, line
        with HintClient(f"localhost:{match.group(2)}") as c:
            in_flight = c.stub.SuggestMoves.future(hint_request(demo, time_ms=700))
            time.sleep(0.3)
            proc.send_signal(signal.SIGTERM)
            result = in_flight.result(timeout=10)
            assert result.final and not result.stopped
        assert proc.wait(timeout=10) == 0
        assert proc.stderr is not None
        log = proc.stderr.read()
        assert "received SIGTERM" in log
        assert re.search(r"SuggestMoves budget=mcts/it=0,ms=700,d=0 elapsed=\d+\.\dms status=OK",
                         log), log
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_port_taken_on_one_address_of_localhost_is_refused() -> None:
    """Another program listening on 127.0.0.1:PORT: `serve --port PORT` (localhost) does not
    serve on [::1] alone, which would send clients of 127.0.0.1 to that program; it
    exits 1 with one line naming the port."""
    from gallerist.server.app import PortInUseError, create_server

    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        with pytest.raises(PortInUseError, match=f"port {port} is in use on 127.0.0.1"):
            create_server(f"localhost:{port}", workers=1)
        done = subprocess.run([sys.executable, "-m", "gallerist.cli", "serve", "--port",
                               str(port), "--workers", "1"], cwd=ROOT, capture_output=True,
                              text=True, timeout=60)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "listening" not in done.stdout
    assert [line for line in done.stderr.splitlines() if line.startswith("error: ")] == [
        f"error: port {port} is in use on 127.0.0.1, an address of localhost: another "
        f"program listens there; stop it or give another port"]
