"""The HTTP port against careless and hostile clients: malformed and oversized requests,
floods of slow and of simultaneous connections under an open-file limit of 1,024, a client
that goes away mid-search; and what browsers need of it (keep-alive, HTTP/2, CORS, the
Host check). Each runs against a served port (`gallerist serve` in a child process where
the process's own limits matter), bounded in time."""
from __future__ import annotations

import asyncio
import http.client
import json
import re
import resource
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import grpc
import psutil
import pytest
from google.protobuf.json_format import MessageToJson
from grpc_health.v1 import health_pb2, health_pb2_grpc
from server_testlib import running_server, wait_until

from gallerist import engine
from gallerist.client import HintClient, hint_request
from gallerist.cli.commands.http_options import cors_origin
from gallerist.server.http_server import HttpLimits

NEW_GAME = "/gallerist.v1.GalleristAI/NewGame"
SUGGEST = "/gallerist.v1.GalleristAI/SuggestMoves"


def _raw(port: int, data: bytes, timeout: float = 10.0) -> tuple[float, bytes]:
    """Send `data` on a new connection; (seconds to the answer's head, the answer's start)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as conn:
        start = time.monotonic()
        try:
            conn.sendall(data)
        except OSError:   # the server may answer and close before the rest is sent
            pass
        out = b""
        try:
            while b"\r\n\r\n" not in out:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                out += chunk
        except ConnectionResetError:
            pass
        return time.monotonic() - start, out


def _status(answer: bytes) -> int:
    match = re.match(rb"HTTP/1\.1 (\d{3})", answer, re.IGNORECASE)
    assert match, f"not an HTTP/1.1 answer: {answer[:200]!r}"
    return int(match.group(1))


@pytest.fixture(scope="module")
def served() -> Iterator[Any]:
    with running_server(workers=1, http_port=0, token="sekret",
                        http_limits=HttpLimits(max_body_bytes=64 << 10)) as server:
        yield server


def _head(method: str, *lines: str) -> bytes:
    return (f"POST {method} HTTP/1.1\r\nHost: localhost\r\n" + "".join(f"{line}\r\n" for line in lines)
            + "\r\n").encode()


AUTH = "Authorization: Bearer sekret"
JSON = "Content-Type: application/json"


def _rss_mb(pid: int | None = None) -> float:
    return psutil.Process(pid).memory_info().rss / 1e6


def test_negative_chunk_size_is_refused_without_reading_the_stream(served: Any) -> None:
    """A chunk size of -1 is a malformed body: answered at once, the stream not read."""
    before = _rss_mb()
    took, answer = _raw(served.http.port, _head(NEW_GAME, AUTH, JSON, "Transfer-Encoding: chunked")
                        + b"-1\r\n" + b"x" * (8 << 20))
    assert _status(answer) in (400, 499) and took < 5
    assert _rss_mb() - before < 50


def test_chunked_body_over_the_limit_is_cut_off(served: Any) -> None:
    """A chunked body is read only up to the body limit, then refused."""
    before = _rss_mb()
    with socket.create_connection(("127.0.0.1", served.http.port), timeout=10) as conn:
        conn.sendall(_head(NEW_GAME, AUTH, JSON, "Transfer-Encoding: chunked"))
        sent = 0
        try:
            while sent < 200 << 20:
                conn.sendall(b"100000\r\n" + b"a" * 0x100000 + b"\r\n")
                sent += 0x100000
        except OSError:
            pass
        answer = conn.recv(4096)
    assert sent < 64 << 20, "the server kept reading past its limit"
    assert _status(answer) == 429 and b"resource_exhausted" in answer
    assert _rss_mb() - before < 100


def test_declared_body_over_the_limit_is_refused_before_it_is_read(served: Any) -> None:
    """A Content-Length over the limit gets 413 naming both sizes, before any body byte."""
    took, answer = _raw(served.http.port, _head(NEW_GAME, AUTH, JSON, "Content-Length: 999999999"))
    assert _status(answer) == 413 and took < 2
    assert b"999,999,999 bytes" in answer and b"65,536 bytes" in answer


@pytest.mark.parametrize("value", ["abc", "-5", "1e3", "12 34"])
def test_non_numeric_content_length_is_a_bad_request(served: Any, value: str) -> None:
    """A Content-Length that is not a number is answered 400 at once."""
    took, answer = _raw(served.http.port, _head(NEW_GAME, AUTH, JSON, f"Content-Length: {value}"))
    assert _status(answer) == 400 and took < 2


def test_huge_and_many_headers_are_refused(served: Any) -> None:
    """6 MB of headers, or 5,000 of them, get 431 without the server holding them."""
    before = _rss_mb()
    for head in (_head(NEW_GAME, "X-Big: " + "a" * (6 << 20)),
                 _head(NEW_GAME, *(f"X-H{i}: v" for i in range(5000)))):
        took, answer = _raw(served.http.port, head)
        assert _status(answer) == 431 and took < 5
    assert _rss_mb() - before < 50


def test_token_is_checked_before_the_body_and_its_scheme_is_case_insensitive(served: Any) -> None:
    """Without the token a call is refused before its body is read; 'bearer' works."""
    took, answer = _raw(served.http.port, _head(NEW_GAME, JSON, "Content-Length: 60000")
                        + b"{")   # the rest of the body never comes
    assert _status(answer) == 401 and took < 2
    for scheme in ("bearer", "BEARER", "Bearer"):
        body = b'{"numPlayers": 2}'
        _, answer = _raw(served.http.port, _head(NEW_GAME, f"Authorization: {scheme} sekret", JSON,
                                                 f"Content-Length: {len(body)}") + body)
        assert _status(answer) == 200, scheme


def test_keep_alive_serves_several_calls_on_one_connection(served: Any) -> None:
    """HTTP/1.1 with keep-alive: three calls on one connection, and pipelined ones."""
    conn = http.client.HTTPConnection("127.0.0.1", served.http.port, timeout=10)
    headers = {"Content-Type": "application/json", "Authorization": "Bearer sekret"}
    conn.request("POST", NEW_GAME, b'{"numPlayers": 2}', headers)
    first = conn.getresponse()
    first.read()
    sock = conn.sock
    for _ in range(2):
        conn.request("POST", NEW_GAME, b'{"numPlayers": 3}', headers)
        reply = conn.getresponse()
        assert reply.version == 11 and reply.status == 200
        assert json.loads(reply.read())["state"]["numPlayers"] == 3
    assert conn.sock is sock, "the connection was not kept alive"
    conn.close()
    body = b'{"numPlayers": 2}'
    one = _head(NEW_GAME, AUTH, JSON, f"Content-Length: {len(body)}") + body
    with socket.create_connection(("127.0.0.1", served.http.port), timeout=10) as raw:
        raw.sendall(one * 3)
        got = b""
        while got.count(b"HTTP/1.1 200") < 3:
            chunk = raw.recv(65536)
            assert chunk, f"pipelined calls dropped: {got.count(b'HTTP/1.1 200')} of 3 answered"
            got += chunk


def test_http2_without_tls(served: Any) -> None:
    """h2c (HTTP/2 with prior knowledge) serves Connect calls too."""
    done = subprocess.run(["curl", "-s", "--http2-prior-knowledge", "-H", "Content-Type: application/json",
                           "-H", "Authorization: Bearer sekret", "-d", '{"numPlayers": 4}',
                           "-w", "\n%{http_version}",
                           f"http://localhost:{served.http.port}{NEW_GAME}"],
                          capture_output=True, text=True, timeout=30, check=True)
    body, version = done.stdout.rsplit("\n", 1)
    assert version == "2" and json.loads(body)["state"]["numPlayers"] == 4


def test_host_header_of_another_site_is_refused_on_localhost(served: Any) -> None:
    """Bound to localhost, the port refuses a Host header naming another host (a page on
    that site reaching it by DNS rebinding) and accepts this machine's names."""
    body = b'{"numPlayers": 2}'
    for host, status in (("evil.example", 400), ("localhost", 200), ("127.0.0.1:1234", 200),
                         ("[::1]:80", 200)):
        head = (f"POST {NEW_GAME} HTTP/1.1\r\nHost: {host}\r\n{AUTH}\r\n{JSON}\r\n"
                f"Content-Length: {len(body)}\r\n\r\n").encode()
        _, answer = _raw(served.http.port, head + body)
        assert _status(answer) == status, host


def test_cors_preflight_answers_only_the_named_origins() -> None:
    """With --cors-origin, a preflight from that origin is answered with Connect's
    headers allowed; another origin, or no --cors-origin at all, gets no permission."""
    def preflight(port: int, origin: str) -> bytes:
        head = (f"OPTIONS {NEW_GAME} HTTP/1.1\r\nHost: localhost\r\nOrigin: {origin}\r\n"
                "Access-Control-Request-Method: POST\r\n"
                "Access-Control-Request-Headers: content-type,connect-protocol-version\r\n\r\n")
        return _raw(port, head.encode())[1].lower()

    with running_server(workers=1, http_port=0,
                        cors_origins=("http://game.example:5173",)) as server:
        allowed = preflight(server.http.port, "http://game.example:5173")
        assert _status(allowed) == 200
        assert b"access-control-allow-origin: http://game.example:5173" in allowed
        assert b"connect-protocol-version" in allowed
        assert b"access-control-allow-origin" not in preflight(server.http.port, "http://other.example")
    with running_server(workers=1, http_port=0) as server:
        assert b"access-control-allow-origin" not in preflight(server.http.port,
                                                               "http://game.example:5173")


def test_cors_origin_option_refuses_what_is_not_an_origin() -> None:
    """--cors-origin takes scheme://host[:port] and names the problem otherwise."""
    assert cors_origin("https://game.example.com/") == "https://game.example.com"
    for bad in ("game.example.com", "https://game.example.com/play", "ftp://x", "http://u@x"):
        with pytest.raises(Exception, match="is not an origin"):
            cors_origin(bad)


def test_abandoned_unary_call_frees_its_search_slot(demo: engine.GameState) -> None:
    """A client that goes away mid-search cancels it: its slot is free within 1 s."""
    with running_server(workers=1, http_port=0) as server:
        body = MessageToJson(hint_request(demo, time_ms=8000)).encode()
        conn = socket.create_connection(("127.0.0.1", server.http.port))
        conn.sendall(_head(SUGGEST, JSON, f"Content-Length: {len(body)}") + body)
        wait_until(lambda: server.slots.in_use == 1, timeout=5)
        conn.close()
        gone = time.monotonic()
        wait_until(lambda: server.slots.in_use == 0, timeout=1.0)
        assert time.monotonic() - gone < 1.0
        with HintClient(server.address) as client:
            assert client.suggest(hint_request(demo, iterations=20)).moves


# ---------------------------------------------------------------- floods, in a child process

@contextmanager
def _serve_with_nofile(limit: int, *options: str) -> Iterator[tuple[int, int, int]]:
    """`gallerist serve --http 0` with the open-file limit `limit`: (pid, gRPC port, HTTP port)."""
    errors = tempfile.TemporaryFile("w+")
    # util-linux's prlimit, not preexec_fn: Python code run between fork and exec in a
    # process with gRPC's threads (this one has them) can break the child
    proc = subprocess.Popen(["prlimit", f"--nofile={limit}:{limit}", sys.executable, "-m",
                             "gallerist.cli", "serve", "--port", "0", "--http", "0",
                             "--workers", "1", *options],
                            stdout=subprocess.PIPE, stderr=errors, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        ports = re.findall(r"localhost:(\d+)", line)
        if len(ports) < 2:
            errors.seek(0)
            raise AssertionError(f"unexpected start line {line!r}: {errors.read()[-2000:]}")
        yield proc.pid, int(ports[0]), int(ports[1])
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout:
            proc.stdout.close()
        errors.close()


def _health(grpc_port: int) -> int:
    with grpc.insecure_channel(f"localhost:{grpc_port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        return stub.Check(health_pb2.HealthCheckRequest(), timeout=5).status


def _own_nofile(at_least: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < at_least:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, at_least), hard))


def test_slow_connections_do_not_take_the_process_down(demo: engine.GameState) -> None:
    """2,000 connections that send a byte now and then, at an open-file limit of 1,024:
    gRPC health stays SERVING and gRPC hints are answered throughout, memory stays under
    300 MB, and once the header deadline has cut the slow ones an HTTP hint is answered."""
    _own_nofile(4096)
    with _serve_with_nofile(1024, "--http-header-timeout", "4") as (pid, grpc_port, http_port):
        slow: list[socket.socket] = []
        for _ in range(2000):
            conn = socket.socket()
            conn.setblocking(False)
            conn.connect_ex(("127.0.0.1", http_port))
            slow.append(conn)
        stop = threading.Event()

        def trickle() -> None:
            first = True
            while not stop.is_set():
                for conn in slow:
                    try:
                        conn.send(b"POST / HTTP/1.1\r\n" if first else b"X")
                    except OSError:
                        pass
                first = False
                stop.wait(1.0)
        threading.Thread(target=trickle, daemon=True).start()
        try:
            end = time.monotonic() + 12
            peak = 0.0
            with HintClient(f"localhost:{grpc_port}") as client:
                while time.monotonic() < end:
                    assert _health(grpc_port) == health_pb2.HealthCheckResponse.SERVING
                    assert client.suggest(hint_request(demo, iterations=20)).moves
                    peak = max(peak, _rss_mb(pid))
                    time.sleep(0.5)
            assert peak < 300, f"{peak:.0f} MB under slow connections"
            body = MessageToJson(hint_request(demo, iterations=20)).encode()
            deadline = time.monotonic() + 90
            while True:
                try:
                    took, answer = _raw(http_port, _head(SUGGEST, JSON, f"Content-Length: {len(body)}")
                                        + body, timeout=90)
                    if answer:
                        break
                except OSError:
                    pass
                assert time.monotonic() < deadline, "no HTTP answer after the slow ones were cut"
            assert _status(answer) == 200
        finally:
            stop.set()
            for conn in slow:
                conn.close()


def test_two_thousand_connections_at_once_are_all_answered() -> None:
    """2,000 clients calling at once, at an open-file limit of 1,024: every one gets an
    answer (200, or RESOURCE_EXHAUSTED when the calls in flight are at their cap) within
    10 s."""
    _own_nofile(4096)
    body = b'{"numPlayers": 2}'
    request = _head(NEW_GAME, JSON, f"Content-Length: {len(body)}") + body

    async def one(port: int) -> tuple[int, float]:
        start = time.monotonic()
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(request)
        await writer.drain()
        line = await reader.readline()
        writer.close()
        return int(line.split()[1]), time.monotonic() - start

    async def flood(port: int) -> list[Any]:
        return await asyncio.wait_for(asyncio.gather(*(one(port) for _ in range(2000)),
                                                     return_exceptions=True), 30)

    with _serve_with_nofile(1024) as (pid, grpc_port, http_port):
        started = time.monotonic()
        results = asyncio.run(flood(http_port))
        took = time.monotonic() - started
        failures = [r for r in results if isinstance(r, BaseException)]
        assert not failures, f"{len(failures)} of 2,000 got no answer: {failures[:3]}"
        statuses = {status for status, _ in results}   # type: ignore[misc]
        assert statuses <= {200, 429}, statuses
        assert max(t for _, t in results) < 10 and took < 10   # type: ignore[misc]
        assert _health(grpc_port) == health_pb2.HealthCheckResponse.SERVING


def test_http2_over_tls_by_alpn(tmp_path: Any) -> None:
    """With --tls-cert the port offers HTTP/2 by ALPN (and HTTP/1.1 to who asks for it)."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                    str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost"], check=True, capture_output=True)
    with running_server(workers=1, http_port=0, tls_cert=cert, tls_key=key) as server:
        for flag, version in (("--http2", "2"), ("--http1.1", "1.1")):
            done = subprocess.run(["curl", "-s", flag, "--cacert", str(cert), "-H",
                                   "Content-Type: application/json", "-d", '{"numPlayers": 2}',
                                   "-w", "\n%{http_version}",
                                   f"https://localhost:{server.http.port}{NEW_GAME}"],
                                  capture_output=True, text=True, timeout=30, check=True)
            body, got = done.stdout.rsplit("\n", 1)
            assert got == version and json.loads(body)["state"]["numPlayers"] == 2
