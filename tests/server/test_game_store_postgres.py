"""Hosted games in PostgreSQL (a throwaway cluster the tests start): replicas behind
nginx share one game, over gRPC and over HTTP, through a replica's death; a database that
goes down turns health NOT_SERVING with a clear error, never a hang."""
from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from pg_testlib import Cluster, postgres
from server_testlib import running_server, wait_until

from gallerist.server.play.store import GameRecord, GameStore, StoreError
from gallerist.v1 import play_pb2, play_pb2_grpc


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with postgres() as c:
        yield c


def _record(game_id: str) -> GameRecord:
    return GameRecord(game_id=game_id, owner="addr:ipv4:10.0.0.1", player_key="", players=2,
                      seat=0, seed=1, bots={1: {"spec": "level:1", "budget": {
                          "iterations": 0, "time_ms": 0, "depth": 0}, "name": "Level 1"}})


def test_the_version_check_holds_on_postgres(cluster: Cluster) -> None:
    """Two stores on one PostgreSQL database: the first write wins, the second writes
    nothing; the game reads back as written."""
    one, two = GameStore(cluster.url), GameStore(cluster.url)
    one.add(_record("pg-game-aaaaaaaaaa"))
    a, b = one.load("pg-game-aaaaaaaaaa"), two.load("pg-game-aaaaaaaaaa")
    assert a is not None and b is not None
    a.actions, b.actions = [3, 4], [5]
    assert one.save(a) and not two.save(b)
    assert two.load("pg-game-aaaaaaaaaa").actions == [3, 4]   # type: ignore[union-attr]


@contextmanager
def _balanced(url: str) -> Iterator[tuple[subprocess.Popen[str], int, int, list[str]]]:
    """`serve --replicas 2 --balancer nginx --http 0` on `url`: (process, gRPC port, HTTP
    port, its output lines so far)."""
    proc = subprocess.Popen([sys.executable, "-m", "gallerist.cli", "serve", "--port", "0",
                             "--http", "0", "--replicas", "2", "--balancer", "nginx",
                             "--workers", "1", "--games-db", url],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            found = re.search(r"listening on localhost:(\d+), HTTP on localhost:(\d+)", line)
            if found:
                yield proc, int(found.group(1)), int(found.group(2)), lines
                break
        else:
            raise AssertionError(f"the group did not start: {''.join(lines)}")
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _http(port: int, method: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(f"http://localhost:{port}/gallerist.v1.GalleristPlay/{method}",
                                     data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as reply:
        return json.loads(reply.read())   # type: ignore[no-any-return]


def test_replicas_behind_nginx_share_a_game_over_grpc_and_http(cluster: Cluster) -> None:
    """Two replicas on one PostgreSQL database behind nginx: one game played move by move
    alternately over gRPC and over HTTP (nginx sends each call to either replica), a
    replica killed with SIGKILL in the middle; every move is kept."""
    with _balanced(cluster.url) as (proc, grpc_port, http_port, lines):
        with grpc.insecure_channel(f"localhost:{grpc_port}") as channel:
            stub = play_pb2_grpc.GalleristPlayStub(channel)
            view = stub.StartGame(play_pb2.StartGameRequest(
                num_players=2, seed=21, opponents=[play_pb2.Opponent(bot_spec="level:1")]))
            game_id = view.game_id
            played = [view.position.actions_played]
            for turn in range(8):
                if turn == 4:   # a replica dies: nginx and its restart carry on
                    pids = [int(p) for p in re.findall(r"replica \d on \S+ \(pid (\d+)\)",
                                                       "".join(lines))]
                    subprocess.run(["kill", "-9", str(pids[0])], check=True)
                    time.sleep(1.0)
                if turn % 2 == 0:
                    view = stub.PlayMove(play_pb2.PlayMoveRequest(
                        game_id=game_id, action=view.actions[0].action))
                    count = view.position.actions_played
                else:
                    got = _http(http_port, "GetGame", {"gameId": game_id})
                    action = got["actions"][0]["action"]
                    done = _http(http_port, "PlayMove", {"gameId": game_id, "action": action})
                    count = done["position"]["actionsPlayed"]
                    view = stub.GetGame(play_pb2.GameRequest(game_id=game_id))
                assert count > played[-1]
                played.append(count)
            final = stub.GetGame(play_pb2.GameRequest(game_id=game_id))
            assert final.position.actions_played == played[-1]


def test_a_database_that_goes_down_turns_health_not_serving(cluster: Cluster) -> None:
    """With the database down, health turns NOT_SERVING within seconds and a new game is
    UNAVAILABLE with a message saying so, at once (no hang); both come back with it."""
    store = GameStore(cluster.url)
    with running_server(workers=1, games=store) as server, \
            grpc.insecure_channel(server.address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        stub = play_pb2_grpc.GalleristPlayStub(channel)

        def status() -> int:
            return health.Check(health_pb2.HealthCheckRequest(), timeout=5).status
        assert status() == health_pb2.HealthCheckResponse.SERVING
        cluster.stop()
        try:
            wait_until(lambda: status() == health_pb2.HealthCheckResponse.NOT_SERVING,
                       timeout=15, every=0.2)
            start = time.monotonic()
            with pytest.raises(grpc.RpcError) as down:
                stub.StartGame(play_pb2.StartGameRequest(num_players=2), timeout=30)
            assert time.monotonic() - start < 12
            assert down.value.code() == grpc.StatusCode.UNAVAILABLE
            assert "games database" in down.value.details()
        finally:
            cluster.start()
        wait_until(lambda: status() == health_pb2.HealthCheckResponse.SERVING,
                   timeout=15, every=0.2)
        assert stub.StartGame(play_pb2.StartGameRequest(num_players=2)).game_id


def test_a_database_that_is_down_at_start_is_named(cluster: Cluster) -> None:
    """A server given a database that does not answer stops at start with one line
    naming it (exit 1), within seconds."""
    url = f"postgresql://gallerist@127.0.0.1:{cluster.port + 1}/postgres"   # nothing there
    with pytest.raises(StoreError, match="games database postgresql"):
        GameStore(url)
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "gallerist.cli", "serve", "--port", "0",
                           "--games-db", url], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "--games-db" in done.stderr and "Traceback" not in done.stderr
    assert time.monotonic() - start < 30
