"""The service over HTTP (`serve --http`, Connect): unary calls in JSON and binary answer as
the gRPC port does, the two server streams, deadlines, errors as Connect codes naming the
field, the token, TLS, curl, a taken port, and a graceful stop."""
from __future__ import annotations

import json
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from connectrpc.code import Code
from connectrpc.compat import google_protobuf_json_codec
from connectrpc.errors import ConnectError
from google.protobuf.json_format import MessageToDict
from server_testlib import running_server, wait_until

from gallerist import engine
from gallerist.client import HintClient, hint_request
from gallerist.server import GalleristServer
from gallerist.v1 import hints_pb2
from gallerist.v1.hints_connect import GalleristAIClientSync

ROOT = Path(__file__).resolve().parents[2]
RECORD = (ROOT / "tests" / "data" / "analyze_game.jsonl").read_text().splitlines()[0]
SERVICE = "/gallerist.v1.GalleristAI/"


@pytest.fixture(scope="module")
def served() -> Iterator[GalleristServer]:
    """A started server with 2 search slots and an HTTP port."""
    with running_server(workers=2, http_port=0) as server:
        yield server


@pytest.fixture()
def grpc_client(served: GalleristServer) -> Iterator[HintClient]:
    with HintClient(f"localhost:{served.port}") as c:
        yield c


@pytest.fixture()
def connect(served: GalleristServer) -> Iterator[GalleristAIClientSync]:
    """connectrpc's own client (binary protobuf) of the HTTP port."""
    with GalleristAIClientSync(_base(served)) as c:
        yield c


def _base(server: GalleristServer, scheme: str = "http") -> str:
    assert server.http is not None
    return f"{scheme}://localhost:{server.http.port}"


def _post(server: GalleristServer, method: str, body: bytes,
          content_type: str = "application/json", headers: dict[str, str] | None = None,
          context: ssl.SSLContext | None = None, scheme: str = "http") -> tuple[int, bytes]:
    """POST `body` to the method; (HTTP status, response body)."""
    request = urllib.request.Request(_base(server, scheme) + SERVICE + method, data=body,
                                     method="POST",
                                     headers={"Content-Type": content_type, **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=60, context=context) as reply:
            return reply.status, reply.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def _post_json(server: GalleristServer, method: str, body: dict[str, Any],
               **kwargs: Any) -> tuple[int, Any]:
    status, data = _post(server, method, json.dumps(body).encode(), **kwargs)
    return status, json.loads(data)


def _as_json(message: Any) -> Any:
    """A message as protobuf's JSON mapping gives it (what the HTTP port answers)."""
    return MessageToDict(message)


def _without_timing(hint: dict[str, Any]) -> dict[str, Any]:
    for key in ("elapsedMs", "nodesPerSecond"):
        hint.get("stats", {}).pop(key, None)
    return hint


def test_game_play_in_json_answers_as_the_grpc_port(served: GalleristServer,
                                                    grpc_client: HintClient) -> None:
    """NewGame, LegalActions and ApplyAction POSTed as JSON answer exactly the gRPC port's
    reply in protobuf's JSON mapping; the state sent back is the one NewGame gave."""
    status, new = _post_json(served, "NewGame", {"numPlayers": 2, "seed": 5})
    assert status == 200
    assert new == _as_json(grpc_client.new_game(players=2, seed=5))
    state = grpc_client.new_game(players=2, seed=5).state

    status, legal = _post_json(served, "LegalActions", {"state": new["state"]})
    assert status == 200 and legal == _as_json(grpc_client.legal_actions(state))
    action = legal["actions"][-1].get("action", 0)

    status, applied = _post_json(served, "ApplyAction", {"state": new["state"], "action": action})
    assert status == 200
    assert applied == _as_json(grpc_client.apply_action(state, action=action))
    assert applied["notation"] == legal["actions"][-1]["notation"]


@pytest.mark.parametrize("bot", ["mcts:iterations=200", "greedy"])
def test_suggest_moves_in_json_answers_as_the_grpc_port(served: GalleristServer,
                                                        grpc_client: HintClient,
                                                        demo: engine.GameState, bot: str) -> None:
    """SuggestMoves POSTed as JSON (same seed, same budget) gives the gRPC port's
    ranking, timing aside."""
    request = hint_request(demo, bot=bot, seed=3, max_moves=2)
    status, reply = _post_json(served, "SuggestMoves", _as_json(request))
    assert status == 200
    assert _without_timing(reply) == _without_timing(_as_json(grpc_client.suggest(request)))
    assert len(reply["moves"]) == 2 < reply["legalMoveCount"]


def test_binary_unary_call(served: GalleristServer, grpc_client: HintClient) -> None:
    """A unary call in binary protobuf (application/proto) answers the gRPC reply's bytes'
    message."""
    request = hints_pb2.NewGameRequest(num_players=3, seed=8)
    status, body = _post(served, "NewGame", request.SerializeToString(),
                         content_type="application/proto")
    assert status == 200
    assert hints_pb2.NewGameResponse.FromString(body) == grpc_client.new_game(players=3, seed=8)


def test_analyze_stream_is_a_connect_server_stream(connect: GalleristAIClientSync,
                                                   demo: engine.GameState) -> None:
    """AnalyzeStream through connectrpc's client: partial reports with growing iteration
    counts as the search makes them, then exactly one final report."""
    started = time.monotonic()
    arrivals, reports = [], []
    for report in connect.analyze_stream(hint_request(demo, bot="mcts", time_ms=600,
                                                      report_interval_ms=100, max_moves=3)):
        arrivals.append(time.monotonic() - started)
        reports.append(report)
    assert len(reports) >= 3
    assert [r.final for r in reports] == [False] * (len(reports) - 1) + [True]
    iterations = [r.stats.iterations for r in reports]
    assert iterations == sorted(iterations) and iterations[0] < iterations[-1]
    assert arrivals[0] < arrivals[-1] - 0.2   # streamed, not sent at the end


def test_analyze_game_stream_in_json_matches_the_grpc_port(served: GalleristServer,
                                                           grpc_client: HintClient) -> None:
    """AnalyzeGame as a Connect stream in JSON (application/connect+json) gives the gRPC
    port's analyzed positions, in game order."""
    request = hints_pb2.AnalyzeGameRequest(record=RECORD, seats=[1], bot_spec="mcts",
                                           budget=hints_pb2.Budget(iterations=60), seed=4,
                                           max_moves=2, query_id="h")
    with GalleristAIClientSync(_base(served), codec=google_protobuf_json_codec()) as client:
        over_http = list(client.analyze_game(request, timeout_ms=60_000))
    over_grpc = list(grpc_client.analyze_game(request, timeout=60))
    assert len(over_http) == over_http[0].total > 1
    assert over_http == over_grpc


def test_deadline_header_sizes_the_search(connect: GalleristAIClientSync,
                                          demo: engine.GameState) -> None:
    """A Connect deadline (Connect-Timeout-Ms) shorter than the budget: the answer comes
    in time, marked deadline_limited, like a gRPC deadline."""
    started = time.monotonic()
    reply = connect.suggest_moves(hint_request(demo, bot="mcts", time_ms=5000),
                                  timeout_ms=600)
    assert time.monotonic() - started < 0.6
    assert reply.final and reply.deadline_limited and reply.moves


def test_closing_a_stream_stops_its_search(served: GalleristServer, demo: engine.GameState) -> None:
    """A client that goes away mid-stream: the search stops and its slot is freed."""
    client = GalleristAIClientSync(_base(served))
    stream = iter(client.analyze_stream(hint_request(demo, bot="mcts", time_ms=8000,
                                                     report_interval_ms=50)))
    assert next(stream).final is False
    wait_until(lambda: served.slots.in_use == 1)
    client.close()
    del stream
    wait_until(lambda: served.slots.in_use == 0, timeout=5)


@pytest.mark.parametrize("body,fragment", [
    ({"botSpec": "level:12"}, "bot_spec: "),
    ({"botSpec": "nosuchbot"}, "bot_spec: "),
    ({"budget": {"iterations": 10 ** 9}}, "budget.iterations: "),
])
def test_bad_request_is_invalid_argument_naming_the_field(served: GalleristServer,
                                                          demo: engine.GameState,
                                                          body: dict[str, Any],
                                                          fragment: str) -> None:
    """An unknown bot, a level out of range or a budget over the limit: HTTP 400 and the
    Connect code invalid_argument with the servicer's message naming the field."""
    request = {**_as_json(hint_request(demo)), **body}
    status, error = _post_json(served, "SuggestMoves", request)
    assert status == 400 and error["code"] == "invalid_argument", error
    assert error["message"].startswith(fragment), error


def test_bad_request_on_a_stream_is_invalid_argument(connect: GalleristAIClientSync,
                                                     demo: engine.GameState) -> None:
    """The same check on AnalyzeStream: connectrpc's client raises ConnectError
    INVALID_ARGUMENT with the message naming bot_spec."""
    with pytest.raises(ConnectError) as info:
        list(connect.analyze_stream(hint_request(demo, bot="level:12")))
    assert info.value.code == Code.INVALID_ARGUMENT
    assert info.value.message.startswith("bot_spec: "), info.value.message


@pytest.mark.parametrize("body,content_type,status,fragment", [
    (b'{"numPlayers": ', "application/json", 400, "unmarshal message"),
    (b'{"numPlayerz": 2}', "application/json", 400, '"numPlayerz"'),
    (b'\xff\xff\xff', "application/proto", 400, "unmarshal message"),
    (b'{"numPlayers": 2}', "text/plain", 415, "content-type 'text/plain' is not served"),
    (b'{"numPlayers": 2}', "application/x-www-form-urlencoded", 415, "application/json"),
])
def test_malformed_requests_get_a_connect_error(served: GalleristServer, body: bytes,
                                                content_type: str, status: int,
                                                fragment: str) -> None:
    """A body that is not JSON, an unknown field, bad protobuf bytes or a wrong content
    type: a 4xx with a Connect error (code invalid_argument and what was wrong), never a
    500."""
    got, data = _post(served, "NewGame", body, content_type=content_type)
    error = json.loads(data)
    assert got == status and error["code"] == "invalid_argument", (got, error)
    assert fragment in error["message"], error


def test_unknown_method_and_get_get_a_connect_error(served: GalleristServer) -> None:
    """No such method: 404 with code unimplemented; a GET: 405 saying to POST."""
    status, error = _post_json(served, "NoSuchMethod", {})
    assert status == 404 and error["code"] == "unimplemented"
    try:
        urllib.request.urlopen(_base(served) + SERVICE + "NewGame", timeout=10)
    except urllib.error.HTTPError as err:
        assert err.code == 405 and "POST" in json.loads(err.read())["message"]
    else:
        raise AssertionError("a GET was served")


def test_token_is_required_when_set(demo: engine.GameState) -> None:
    """With a token the HTTP port answers unauthenticated (HTTP 401) without
    'Authorization: Bearer TOKEN' or with a wrong one, unary and streaming; with it the
    call is served."""
    with running_server(workers=1, http_port=0, token="s3cret") as server:
        status, error = _post_json(server, "NewGame", {"numPlayers": 2})
        assert status == 401 and error["code"] == "unauthenticated"
        assert error["message"].startswith("authorization: missing or wrong token")
        status, _ = _post_json(server, "NewGame", {"numPlayers": 2},
                               headers={"Authorization": "Bearer wrong"})
        assert status == 401
        status, reply = _post_json(server, "NewGame", {"numPlayers": 2},
                                   headers={"Authorization": "Bearer s3cret"})
        assert status == 200 and reply["state"]["numPlayers"] == 2
        with GalleristAIClientSync(_base(server)) as client:
            with pytest.raises(ConnectError) as info:
                list(client.analyze_stream(hint_request(demo, bot="greedy")))
            assert info.value.code == Code.UNAUTHENTICATED
            reports = list(client.analyze_stream(hint_request(demo, bot="greedy"),
                                                 headers={"Authorization": "Bearer s3cret"}))
            assert reports[-1].final


def test_documented_curl_commands_work(served: GalleristServer, grpc_client: HintClient) -> None:
    """docs/hints.md's curl commands: NewGame, and SuggestMoves on a game given as a setup
    (JSON in, JSON out)."""
    if shutil.which("curl") is None:
        pytest.fail("curl is not on PATH: install it (`apt-get install curl`; tests/run.sh "
                    "does)", pytrace=False)
    def curl(method: str, body: str) -> Any:
        done = subprocess.run(["curl", "-sS", "-H", "Content-Type: application/json", "-d", body,
                               _base(served) + SERVICE + method],
                              capture_output=True, text=True, timeout=60, check=True)
        return json.loads(done.stdout)

    assert curl("NewGame", '{"numPlayers": 2, "seed": 1}') == _as_json(
        grpc_client.new_game(players=2, seed=1))
    hint = curl("SuggestMoves", '{"game": {"numPlayers": 2, "seed": 1}, "botSpec": "mcts", '
                                '"budget": {"iterations": 1000}, "maxMoves": 3}')
    assert hint["bot"] == "mcts" and len(hint["moves"]) == 3 and hint["final"]


def test_https_with_the_grpc_ports_certificate(tmp_path: Path) -> None:
    """With --tls-cert/--tls-key the HTTP port is HTTPS with the same certificate."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                    str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost"],
                   check=True, capture_output=True)
    with running_server(workers=1, http_port=0, tls_cert=cert, tls_key=key) as server:
        trusted = ssl.create_default_context(cafile=str(cert))
        status, reply = _post(server, "NewGame", b'{"numPlayers": 2}', context=trusted,
                              scheme="https")
        assert status == 200 and json.loads(reply)["state"]["numPlayers"] == 2


@pytest.mark.parametrize("flag, keyword, name", [("--http", "http_port", "HTTP port"),
                                                  ("--metrics-port", "metrics_port", "metrics port")])
def test_a_taken_extra_port_is_refused(flag: str, keyword: str, name: str) -> None:
    """Another program on the HTTP or the metrics port: create_server raises naming it,
    and `serve FLAG PORT` exits 1 with one error line, serving nothing."""
    from gallerist.server.app import PortInUseError, create_server

    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        with pytest.raises(PortInUseError, match=f"{name} {port} is in use on 127.0.0.1"):
            create_server("localhost:0", workers=1, **{keyword: port})
        done = subprocess.run([sys.executable, "-m", "gallerist.cli", "serve", "--port", "0",
                               flag, str(port), "--workers", "1"], cwd=ROOT,
                              capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "listening" not in done.stdout
    assert [line for line in done.stderr.splitlines() if line.startswith("error: ")] == [
        f"error: {name} {port} is in use on 127.0.0.1, an address of localhost: another "
        f"program listens there; stop it or give another port"]


def test_graceful_stop_lets_an_http_call_finish(demo: engine.GameState) -> None:
    """stop(grace): an HTTP call in flight finishes OK; the port then refuses
    connections."""
    with running_server(workers=1, http_port=0) as server:
        result: list[Any] = []
        client = GalleristAIClientSync(_base(server))
        call = threading.Thread(target=lambda: result.append(
            client.suggest_moves(hint_request(demo, time_ms=600))))
        call.start()
        wait_until(lambda: server.slots.in_use == 1)
        server.stop(grace=5).wait(10)
        call.join(10)
        assert result and result[0].final and not result[0].stopped
        assert server.http is not None
        with pytest.raises(ConnectionError):
            socket.create_connection(("127.0.0.1", server.http.port), timeout=2)


def test_sigterm_lets_an_http_call_finish(demo: engine.GameState) -> None:
    """`gallerist serve --http` on SIGTERM: the HTTP call in flight gets its answer
    before the process exits 0."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "gallerist.cli", "serve", "--port", "0", "--http", "0",
         "--workers", "1", "--grace", "5"], cwd=ROOT, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        match = re.search(r"HTTP on (\S+):(\d+)", line)
        assert match, line
        with GalleristAIClientSync(f"http://localhost:{match.group(2)}") as client:
            threading.Timer(0.3, proc.send_signal, (signal.SIGTERM,)).start()
            result = client.suggest_moves(hint_request(demo, time_ms=700))
            assert result.final and not result.stopped
        assert proc.wait(timeout=15) == 0, proc.stderr.read() if proc.stderr else ""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
