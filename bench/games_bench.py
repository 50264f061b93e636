"""What keeping hosted games in a database costs: a PlayMove's round trip over gRPC
against level 1 (one client, whole 2-player games) with the games in memory, in a SQLite
file and in PostgreSQL, in one run; then StartGame and PlayMove calls/s from 8 client
threads through `serve --replicas 2 --balancer nginx` on one PostgreSQL database.

Target: a move within 5 ms p50 of the same move with the games in memory.

Usage:
    python bench/games_bench.py [--postgres postgresql://user@host/db] [--games 3] \
        [--seconds 20] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

import grpc

from gallerist.server.app import create_server
from gallerist.server.play.store import GameStore
from gallerist.v1 import play_pb2, play_pb2_grpc

LEVEL1 = [play_pb2.Opponent(bot_spec="level:1")]


def _moves(stub: Any, games: int, seed: int) -> list[float]:
    """Milliseconds of every PlayMove of `games` whole games (the first legal move each
    time)."""
    out = []
    for g in range(games):
        view = stub.StartGame(play_pb2.StartGameRequest(num_players=2, seed=seed + g,
                                                        opponents=LEVEL1))
        while view.actions:
            start = time.perf_counter()
            view = stub.PlayMove(play_pb2.PlayMoveRequest(game_id=view.game_id,
                                                          action=view.actions[0].action))
            out.append((time.perf_counter() - start) * 1000)
    return out


def move_times(store: GameStore, games: int) -> dict[str, float]:
    server, _ = create_server("localhost:0", workers=2, games=store)
    server.start()
    try:
        with grpc.insecure_channel(server.address) as channel:
            stub = play_pb2_grpc.GalleristPlayStub(channel)
            _moves(stub, 1, 900)   # warm-up
            times = _moves(stub, games, 1000)
    finally:
        server.stop(0).wait(5)
    return {"moves": len(times), "p50_ms": statistics.median(times),
            "p90_ms": sorted(times)[int(0.9 * (len(times) - 1))]}


def throughput(address: str, seconds: float, threads: int = 8) -> dict[str, float]:
    """StartGame and PlayMove calls/s: each thread starts a game and plays it on."""
    counts = {"StartGame": 0, "PlayMove": 0}
    lock = threading.Lock()
    end = time.monotonic() + seconds

    def work(n: int) -> None:
        with grpc.insecure_channel(address) as channel:
            stub = play_pb2_grpc.GalleristPlayStub(channel)
            view = None
            while time.monotonic() < end:
                try:
                    if view is None or not view.actions:
                        view = stub.StartGame(play_pb2.StartGameRequest(
                            num_players=2, opponents=LEVEL1))
                        kind = "StartGame"
                    else:
                        view = stub.PlayMove(play_pb2.PlayMoveRequest(
                            game_id=view.game_id, action=view.actions[0].action))
                        kind = "PlayMove"
                except grpc.RpcError as exc:   # RESOURCE_EXHAUSTED: no free search slot
                    kind = f"refused {exc.code().name}"
                    if exc.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                        view = None
                with lock:
                    counts[kind] = counts.get(kind, 0) + 1

    workers = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return {k: v / seconds for k, v in counts.items()}


def balanced(url: str, seconds: float) -> dict[str, float]:
    proc = subprocess.Popen([sys.executable, "-m", "gallerist.cli", "serve", "--port", "0",
                             "--replicas", "2", "--balancer", "nginx", "--workers", "1",
                             "--games-db", url, "--games-per-client", "1000000"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            found = re.search(r"listening on localhost:(\d+)", line)
            if found:
                return throughput(f"localhost:{found.group(1)}", seconds)
        raise RuntimeError("the balanced group did not start")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--postgres", help="a PostgreSQL URL (its rows are left out without one)")
    ap.add_argument("--games", type=int, default=3, help="whole games timed per store")
    ap.add_argument("--seconds", type=float, default=20.0, help="of the throughput run")
    ap.add_argument("--json", help="write the figures as JSON here")
    args = ap.parse_args(argv)
    rows: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        stores = {"memory": "sqlite://", "SQLite file": os.path.join(tmp, "games.sqlite3")}
        if args.postgres:
            stores["PostgreSQL"] = args.postgres
        for name, where in stores.items():
            rows[name] = move_times(GameStore(where, per_client=10 ** 6), args.games)
            print(f"PlayMove against level 1, games in {name:<12} p50 "
                  f"{rows[name]['p50_ms']:6.2f} ms  p90 {rows[name]['p90_ms']:6.2f} ms  "
                  f"({rows[name]['moves']} moves)", flush=True)
    for name in rows:
        if name != "memory":
            extra = rows[name]["p50_ms"] - rows["memory"]["p50_ms"]
            print(f"{name} adds {extra:+.2f} ms p50 to a move (target: at most +5 ms)")
    if args.postgres:
        rows["through 2 replicas on PostgreSQL"] = balanced(args.postgres, args.seconds)
        r = rows["through 2 replicas on PostgreSQL"]
        failed = ", ".join(f"{k} {v:.1f}/s" for k, v in r.items() if k.startswith("refused"))
        print(f"through nginx and 2 replicas on one PostgreSQL, 8 clients: StartGame "
              f"{r['StartGame']:.1f}/s, PlayMove {r['PlayMove']:.1f}/s"
              + (f"; {failed}" if failed else ""))
    print(f"load average (1 min) {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
