"""The HTTP port's server, compared on this machine: the same service under the standard
library's wsgiref (threaded, connectrpc's WSGI application: the port as it was), granian
(embedded, the port as it is) and hypercorn (connectrpc's ASGI application, as granian
serves it). Each server runs in a child process of its own; one run measures every row.

Per server: HTTP/1.1 keep-alive, h2c (curl --http2-prior-knowledge), plain gRPC on the same
port (buf curl --protocol grpc); SuggestMoves (MCTS, 1 iteration) p50 over one kept-alive
connection; calls/s of NewGame (binary Connect, wrk: 2 threads, 16 connections, 10 s);
memory at rest, after 2,000 slow connections (one byte a second, 12 s) and after 100
connections that send 6 MB of headers each; whether the process survived.

Usage:
    python bench/http_servers.py [--servers wsgiref,granian,hypercorn] [--json OUT]
    python bench/http_servers.py --quick     # a smaller flood and shorter runs (a check)
"""
from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import psutil

SERVERS = ("wsgiref", "granian", "hypercorn")
ROOT = Path(__file__).resolve().parents[1]
BUF = ROOT / "clients" / "node" / "node_modules" / ".bin" / "buf"
NEW_GAME = "/gallerist.v1.GalleristAI/NewGame"
SUGGEST = "/gallerist.v1.GalleristAI/SuggestMoves"


# ------------------------------------------------------------------ the child: one server

def _serve(kind: str) -> None:
    """Serve GalleristAI over HTTP with `kind` on a free port; print the port; run until
    stdin closes."""
    from gallerist.server.app import create_server

    server, _ = create_server("localhost:0", workers=2, http_port=0 if kind == "granian" else None)
    server.start()
    if kind == "granian":
        assert server.http is not None
        port = server.http.port
    else:
        port = _free_port()
        threading.Thread(target=_other_server, args=(kind, server, port), daemon=True).start()
        _wait_listening(port)
    print(port, flush=True)
    sys.stdin.read()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_listening(port: int) -> None:
    for _ in range(500):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.02)
    raise RuntimeError(f"nothing listens on {port}")


class _SyncFacade:
    """connectrpc's sync protocol over the gRPC servicer (what the wsgiref port served)."""

    def __init__(self, servicer: Any) -> None:
        self._servicer = servicer

    def __getattr__(self, name: str) -> Any:
        from gallerist.server.connect_context import ConnectCall

        method = "".join(part.title() for part in name.split("_"))
        target = getattr(self._servicer, method)
        return lambda request, ctx: target(request, ConnectCall(ctx))


def _other_server(kind: str, server: Any, port: int) -> None:
    from connectrpc.compat import google_protobuf_binary_codec, google_protobuf_json_codec

    codecs = [google_protobuf_binary_codec(), google_protobuf_json_codec()]
    if kind == "wsgiref":
        from socketserver import ThreadingMixIn
        from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

        from gallerist.v1.hints_connect import GalleristAIWSGIApplication

        class Threaded(ThreadingMixIn, WSGIServer):
            daemon_threads = True

        class Quiet(WSGIRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

        app = GalleristAIWSGIApplication(_SyncFacade(server.servicer), codecs=codecs)
        make_server("127.0.0.1", port, app, server_class=Threaded,
                    handler_class=Quiet).serve_forever()
    elif kind == "hypercorn":
        from hypercorn.asyncio import serve
        from hypercorn.config import Config

        from gallerist.server.connect_service import ConnectService
        from gallerist.server.http_app import HttpAppOptions, asgi_app

        config = Config()
        config.bind = [f"127.0.0.1:{port}"]
        config.backlog = 1024
        config.loglevel = "ERROR"
        from gallerist.v1.hints_connect import GalleristAIASGIApplication

        service = ConnectService(server.servicer)
        ours = asgi_app(service, HttpAppOptions())
        grpc_app = GalleristAIASGIApplication(service, codecs=codecs)   # gRPC needs trailers

        async def app(scope: Any, receive: Any, send: Any) -> None:
            kinds = [v for k, v in scope.get("headers", ()) if k == b"content-type"]
            if kinds and kinds[0].startswith(b"application/grpc") and b"web" not in kinds[0]:
                return await grpc_app(scope, receive, send)
            return await ours(scope, receive, send)
        asyncio.run(serve(app, config, shutdown_trigger=asyncio.Event().wait))  # type: ignore[arg-type]


# ------------------------------------------------------------------ the parent: measures

def _start(kind: str) -> tuple[subprocess.Popen[str], int]:
    # util-linux's prlimit: no Python between fork and exec (this process has gRPC's threads)
    proc = subprocess.Popen(["prlimit", "--nofile=1024:1024", sys.executable, __file__,
                             "--child", kind], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    return proc, int(proc.stdout.readline())


def _rss_mb(proc: subprocess.Popen[str]) -> float:
    return psutil.Process(proc.pid).memory_info().rss / 1e6


def _keep_alive(port: int) -> bool:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    socks = set()
    for _ in range(3):
        conn.request("POST", NEW_GAME, b'{"numPlayers": 2}', {"Content-Type": "application/json"})
        reply = conn.getresponse()
        reply.read()
        socks.add(id(conn.sock))
        if reply.version == 10 or reply.getheader("connection", "").lower() == "close":
            return False
    return len(socks) == 1


def _h2c(port: int) -> bool:
    done = subprocess.run(["curl", "-s", "--http2-prior-knowledge", "-o", "/dev/null", "-w",
                           "%{http_version} %{http_code}", "-H", "Content-Type: application/json",
                           "-d", '{"numPlayers": 2}', f"http://localhost:{port}{NEW_GAME}"],
                          capture_output=True, text=True, timeout=30)
    return done.stdout.strip() == "2 200"


def _grpc_same_port(port: int) -> bool:
    if not BUF.exists():
        return False
    done = subprocess.run([str(BUF), "curl", "--protocol", "grpc", "--http2-prior-knowledge",
                           "--schema", str(ROOT / "proto"), "-d", '{"numPlayers": 2}',
                           f"http://localhost:{port}{NEW_GAME}"],
                          capture_output=True, text=True, timeout=30)
    return done.returncode == 0


def _suggest_p50(port: int, calls: int) -> float:
    from gallerist.client import hint_request
    from gallerist.server.demo_state import demo_state

    body = hint_request(demo_state(seed=1), bot="mcts", iterations=1, seed=1).SerializeToString()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    times = []
    for i in range(calls + 20):
        start = time.perf_counter()
        conn.request("POST", SUGGEST, body, {"Content-Type": "application/proto"})
        reply = conn.getresponse()
        reply.read()
        assert reply.status == 200, reply.status
        if reply.version == 10:
            conn.close()
        if i >= 20:
            times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _grpc_suggest_p50(calls: int) -> float:
    """The same SuggestMoves over gRPC, in-process server (the reference row)."""
    from gallerist.client import HintClient, hint_request
    from gallerist.server.app import create_server
    from gallerist.server.demo_state import demo_state

    request = hint_request(demo_state(seed=1), bot="mcts", iterations=1, seed=1)
    server, _ = create_server("localhost:0", workers=2)
    server.start()
    try:
        with HintClient(f"localhost:{server.port}") as client:
            times = []
            for i in range(calls + 20):
                start = time.perf_counter()
                client.suggest(request)
                if i >= 20:
                    times.append((time.perf_counter() - start) * 1000)
        return statistics.median(times)
    finally:
        server.stop(0).wait(5)


def _wrk(port: int, seconds: int) -> float | None:
    from gallerist.v1 import hints_pb2

    body = hints_pb2.NewGameRequest(num_players=2, seed=1).SerializeToString()
    escaped = "".join("\\%03d" % b for b in body)   # a Lua string of the bytes
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/proto"\n'
                     f'wrk.body = "{escaped}"\n')
    if shutil.which("wrk") is None:   # Debian's wrk package
        print("wrk is missing (apt-get install wrk): no calls/s", file=sys.stderr)
        return None
    done = subprocess.run(["wrk", "-t2", "-c16", f"-d{seconds}s", "-s", script.name,
                           f"http://127.0.0.1:{port}{NEW_GAME}"],
                          capture_output=True, text=True, timeout=60)
    os.unlink(script.name)
    match = re.search(r"Requests/sec:\s+([\d.]+)", done.stdout)
    return float(match.group(1)) if match else 0.0


def _slow_connections(port: int, n: int = 2000, seconds: float = 12.0) -> None:
    conns = []
    for _ in range(n):
        conn = socket.socket()
        conn.setblocking(False)
        conn.connect_ex(("127.0.0.1", port))
        conns.append(conn)
    end = time.monotonic() + seconds
    first = True
    while time.monotonic() < end:
        for conn in conns:
            try:
                conn.send(b"POST / HTTP/1.1\r\n" if first else b"X")
            except OSError:
                pass
        first = False
        time.sleep(1.0)
    for conn in conns:
        conn.close()


def _header_flood(port: int, n: int = 100, size: int = 6 << 20) -> None:
    def one() -> None:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=20) as conn:
                conn.sendall(b"POST / HTTP/1.1\r\nHost: localhost\r\nX-Big: ")
                chunk = b"a" * 65536
                for _ in range(size // len(chunk)):
                    conn.sendall(chunk)
        except OSError:
            pass
    threads = [threading.Thread(target=one) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def _alive(proc: subprocess.Popen[str], port: int) -> bool:
    if proc.poll() is not None:
        return False
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request("POST", NEW_GAME, b'{"numPlayers": 2}', {"Content-Type": "application/json"})
        return conn.getresponse().status == 200
    except OSError:
        return False


def _peak_during(proc: subprocess.Popen[str], work: Any) -> float:
    """The child's largest RSS (MB, sampled every 0.1 s) while `work()` runs."""
    peak = [_rss_mb(proc)]
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            try:
                peak[0] = max(peak[0], _rss_mb(proc))
            except psutil.Error:   # the child died
                return
            stop.wait(0.1)
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        work()
    finally:
        stop.set()
        watcher.join()
    return peak[0]


def measure(kind: str, calls: int, quick: bool = False) -> dict[str, Any]:
    proc, port = _start(kind)
    try:
        row: dict[str, Any] = {"keep_alive": _keep_alive(port), "h2c": _h2c(port),
                               "grpc_same_port": _grpc_same_port(port),
                               "suggest_p50_ms": _suggest_p50(port, calls),
                               "calls_per_s": _wrk(port, 2 if quick else 10),
                               "rss_mb_rest": _rss_mb(proc)}
        slow = (200, 3.0) if quick else (2000, 12.0)
        row["rss_mb_slow"] = _peak_during(proc, lambda: _slow_connections(port, *slow))
        row["alive_after_slow"] = _alive(proc, port)
        if row["alive_after_slow"]:
            flood = (10, 1 << 20) if quick else (100, 6 << 20)
            row["rss_mb_headers"] = _peak_during(proc, lambda: _header_flood(port, *flood))
            row["alive_after_headers"] = _alive(proc, port)
        return row
    finally:
        if proc.stdin:
            proc.stdin.close()
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--servers", default=",".join(SERVERS))
    ap.add_argument("--calls", type=int, default=300, help="timed SuggestMoves calls (300)")
    ap.add_argument("--json", help="write the rows as JSON here")
    ap.add_argument("--quick", action="store_true",
                    help="200 slow connections for 3 s, 10 x 1 MB of headers, wrk 2 s")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        _serve(args.child)
        return 0
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
    rows = {"gRPC port (reference)": {"suggest_p50_ms": _grpc_suggest_p50(args.calls)}}
    for kind in args.servers.split(","):
        rows[kind] = measure(kind, args.calls, args.quick)
        print(kind, json.dumps(rows[kind]), flush=True)
    keys = ("keep_alive", "h2c", "grpc_same_port", "suggest_p50_ms", "calls_per_s",
            "rss_mb_rest", "rss_mb_slow", "alive_after_slow", "rss_mb_headers",
            "alive_after_headers")
    print("| server | " + " | ".join(keys) + " |")
    for name, row in rows.items():
        cells = [f"{row[k]:.2f}" if isinstance(row.get(k), float) else str(row.get(k, "-"))
                 for k in keys]
        print(f"| {name} | " + " | ".join(cells) + " |")
    print(f"load average (1 min) {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
