"""What the HTTP port adds: the round trip of the same SuggestMoves (MCTS, 1 iteration, a
known position) over gRPC and over HTTP with Connect (JSON and binary), and NewGame, in one
run against one in-process server, one call at a time, the HTTP calls on one kept-alive
connection. Target: binary Connect's p50 at most 0.3 ms above gRPC's.

Usage:
    python bench/http_bench.py [--calls 400] [--json bench/data/http_bench.json]
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import time
from collections.abc import Callable

from google.protobuf import json_format

from gallerist.client import HintClient, hint_request
from gallerist.server.app import create_server
from gallerist.server.demo_state import demo_state
from gallerist.v1 import hints_pb2

PATH = "/gallerist.v1.GalleristAI/"


def timed(call: Callable[[], object], n: int) -> list[float]:
    """Milliseconds of `n` calls, after 20 untimed ones."""
    for _ in range(20):
        call()
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        call()
        out.append((time.perf_counter() - t0) * 1000.0)
    return out


def post(conn: http.client.HTTPConnection, method: str, body: bytes, kind: str) -> bytes:
    """One Connect unary call on a kept-alive connection (a new one when the server closed it)."""
    for attempt in range(2):
        try:
            conn.request("POST", PATH + method, body, {"Content-Type": kind})
            reply = conn.getresponse()
            data = reply.read()
            if reply.status != 200:
                raise RuntimeError(f"{method}: HTTP {reply.status} {data[:200]!r}")
            if reply.getheader("Connection", "").lower() == "close" or reply.version == 10:
                conn.close()
            return data
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            conn.close()
            if attempt:
                raise
    raise AssertionError("unreachable")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=400, help="timed calls per row (default 400)")
    ap.add_argument("--json", default=None, help="write the figures as JSON here")
    args = ap.parse_args(argv)
    state = demo_state(seed=1)
    request = hint_request(state, bot="mcts", iterations=1, seed=1)
    as_json = json_format.MessageToJson(request).encode()
    as_binary = request.SerializeToString()
    new_game = hints_pb2.NewGameRequest(num_players=2, seed=1)
    server, _ = create_server("localhost:0", workers=2, http_port=0)
    server.start()
    rows: dict[str, list[float]] = {}
    try:
        assert server.http is not None
        conn = http.client.HTTPConnection("localhost", server.http.port, timeout=30)
        with HintClient(f"localhost:{server.port}") as client:
            rows["SuggestMoves over gRPC"] = timed(lambda: client.suggest(request), args.calls)
            rows["SuggestMoves over HTTP, Connect JSON"] = timed(
                lambda: post(conn, "SuggestMoves", as_json, "application/json"), args.calls)
            rows["SuggestMoves over HTTP, Connect binary"] = timed(
                lambda: post(conn, "SuggestMoves", as_binary, "application/proto"), args.calls)
            rows["NewGame over gRPC"] = timed(lambda: client.new_game(2, 1), args.calls)
            rows["NewGame over HTTP, Connect binary"] = timed(
                lambda: post(conn, "NewGame", new_game.SerializeToString(), "application/proto"),
                args.calls)
        conn.close()
    finally:
        server.stop(grace=0).wait(5)
    figures = {k: {"p50_ms": statistics.median(v), "p90_ms": sorted(v)[int(0.9 * (len(v) - 1))],
                   "calls": len(v)} for k, v in rows.items()}
    print(f"{'call':<42}{'p50 ms':>8}{'p90 ms':>8}")
    for k, f in figures.items():
        print(f"{k:<42}{f['p50_ms']:>8.2f}{f['p90_ms']:>8.2f}")
    grpc_p50 = figures["SuggestMoves over gRPC"]["p50_ms"]
    for kind in ("JSON", "binary"):
        extra = figures[f"SuggestMoves over HTTP, Connect {kind}"]["p50_ms"] - grpc_p50
        print(f"HTTP ({kind}) adds {extra:+.2f} ms p50 to SuggestMoves"
              + (" (target: at most +0.3 ms)" if kind == "binary" else ""))
    print(f"load average (1 min) {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(figures, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
