"""Hosted games in a database (server/play/store.py), SQLite here: a game survives a
server killed mid-game and plays on identically; two moves at once, one wins; caps on
unfinished games refuse, never evict; idle games expire by age; a database of another
schema version, a corrupt file or a full disk get a clear error."""
from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import grpc
import pytest
import sqlalchemy as sa
from server_testlib import running_server

from gallerist.server.play.store import SCHEMA_VERSION, GameRecord, GameStore, StoreError
from gallerist.v1 import play_pb2, play_pb2_grpc

LEVEL1 = [play_pb2.Opponent(bot_spec="level:1")]


@contextmanager
def _serve(db: Path, *options: str) -> Iterator[tuple[subprocess.Popen[str], Any]]:
    """`gallerist serve` on `db` in a child process; (the process, a GalleristPlay stub)."""
    proc = subprocess.Popen([sys.executable, "-m", "gallerist.cli", "serve", "--port", "0",
                             "--workers", "1", "--games-db", str(db), *options],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        port = re.search(r"listening on localhost:(\d+)", line)
        assert port, f"unexpected start line {line!r}"
        with grpc.insecure_channel(f"localhost:{port.group(1)}") as channel:
            yield proc, play_pb2_grpc.GalleristPlayStub(channel)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def _play(stub: Any, game_id: str, view: Any, moves: int) -> tuple[Any, list[int]]:
    played = []
    for _ in range(moves):
        if not view.actions:
            break
        action = view.actions[len(view.actions) // 2].action
        view = stub.PlayMove(play_pb2.PlayMoveRequest(game_id=game_id, action=action))
        played.append(action)
    return view, played


@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
def test_a_killed_server_comes_back_with_the_game_and_plays_on_identically(tmp_path: Path,
                                                                           how: str) -> None:
    """A server stopped mid-game (SIGTERM, or SIGKILL with no chance to tidy up) comes
    back with the game at the last move it answered, and the next move plays on exactly
    as in a game that was never interrupted (same chance draws, same bot moves)."""
    db = tmp_path / "games.sqlite3"
    start = play_pb2.StartGameRequest(num_players=3, seed=11, opponents=LEVEL1)
    with _serve(db) as (proc, stub):
        view = stub.StartGame(start)
        view, _ = _play(stub, view.game_id, view, 6)
        before = stub.GetGame(play_pb2.GameRequest(game_id=view.game_id))
        proc.send_signal(getattr(__import__("signal"), how))
        proc.wait(20)
    with _serve(db) as (_, stub):
        again = stub.GetGame(play_pb2.GameRequest(game_id=view.game_id))
        assert again.state == before.state and again.position == before.position
        after, _ = _play(stub, view.game_id, again, 4)
    with running_server(workers=1) as server:   # the same game, never interrupted
        with grpc.insecure_channel(server.address) as channel:
            control = play_pb2_grpc.GalleristPlayStub(channel)
            other = control.StartGame(start)
            other, _ = _play(control, other.game_id, other, 10)
    assert after.state == other.state


def test_two_moves_at_once_one_wins_the_other_is_told(tmp_path: Path) -> None:
    """Two clients moving in one game at once: one move is played, the other gets
    FAILED_PRECONDITION; the game is one of the two, never a mix."""
    with running_server(workers=2) as server, grpc.insecure_channel(server.address) as channel:
        stub = play_pb2_grpc.GalleristPlayStub(channel)
        view = stub.StartGame(play_pb2.StartGameRequest(num_players=2, seed=5, opponents=LEVEL1))
        played = view.position.actions_played
        results: list[Any] = []

        def move(i: int) -> None:
            try:
                results.append(stub.PlayMove(play_pb2.PlayMoveRequest(
                    game_id=view.game_id, action=view.actions[i].action, actions_played=played)))
            except grpc.RpcError as exc:
                results.append(exc.code())
        threads = [threading.Thread(target=move, args=(i,)) for i in (0, -1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(map(str, results)).count(str(grpc.StatusCode.FAILED_PRECONDITION)) == 1
        won = next(r for r in results if not isinstance(r, grpc.StatusCode))
        assert stub.GetGame(play_pb2.GameRequest(game_id=view.game_id)).state == won.state


def _record(game_id: str, owner: str = "addr:ipv4:10.0.0.1") -> GameRecord:
    return GameRecord(game_id=game_id, owner=owner, player_key="", players=2, seat=0, seed=1,
                      bots={1: {"spec": "level:1", "budget": {"iterations": 0, "time_ms": 0,
                                                              "depth": 0}, "name": "Level 1"}})


def test_a_write_from_another_replica_wins_the_version_check(tmp_path: Path) -> None:
    """Two servers on one database read the same game; the first write goes in, the
    second finds the version moved and writes nothing."""
    one, two = GameStore(tmp_path / "g.sqlite3"), GameStore(tmp_path / "g.sqlite3")
    one.add(_record("game-aaaaaaaaaaaa"))
    a, b = one.load("game-aaaaaaaaaaaa"), two.load("game-aaaaaaaaaaaa")
    assert a is not None and b is not None
    a.actions, b.actions = [1], [2]
    assert one.save(a) is True
    assert two.save(b) is False
    assert one.load("game-aaaaaaaaaaaa").actions == [1]   # type: ignore[union-attr]


def test_caps_refuse_new_games_and_evict_none(tmp_path: Path) -> None:
    """Past the per-client cap StartGame is RESOURCE_EXHAUSTED naming the limit, for that
    client only; past the store's cap for everyone; no game is ever evicted."""
    store = GameStore(tmp_path / "g.sqlite3", per_client=2, capacity=3)
    with running_server(workers=1, games=store) as server:
        stubs = []
        for token in ("a", "b"):
            channel = grpc.insecure_channel(server.address)
            stubs.append((channel, [("authorization", f"Bearer {token}")]))
        ids = []
        start = play_pb2.StartGameRequest(num_players=2, seed=3, opponents=LEVEL1)
        stub_a = play_pb2_grpc.GalleristPlayStub(stubs[0][0])
        stub_b = play_pb2_grpc.GalleristPlayStub(stubs[1][0])
        for _ in range(2):
            ids.append(stub_a.StartGame(start, metadata=stubs[0][1]).game_id)
        with pytest.raises(grpc.RpcError) as refused:
            stub_a.StartGame(start, metadata=stubs[0][1])
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "limit per client (2)" in refused.value.details()
        ids.append(stub_b.StartGame(start, metadata=stubs[1][1]).game_id)
        with pytest.raises(grpc.RpcError) as full:
            stub_b.StartGame(start, metadata=stubs[1][1])
        assert full.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "its limit (3)" in full.value.details()
        for game_id in ids:   # every game is still there
            assert stub_a.GetGame(play_pb2.GameRequest(game_id=game_id)).game_id == game_id
        for channel, _ in stubs:
            channel.close()


def test_idle_games_expire_by_age_only(tmp_path: Path) -> None:
    """A game untouched for longer than the idle limit is deleted; games others start do
    not push a game out."""
    store = GameStore(tmp_path / "g.sqlite3", idle_days=1.0)
    store.add(_record("game-old-aaaaaaaa"))
    store.add(_record("game-new-aaaaaaaa"))
    with store._engine.begin() as db:   # the first was last touched two days ago
        db.execute(sa.text("UPDATE gallerist_games SET updated = :t WHERE game_id = :g"),
                   {"t": time.time() - 2 * 86400, "g": "game-old-aaaaaaaa"})
    for i in range(5):
        store.add(_record(f"game-more-{i:07d}", owner=f"addr:ipv4:10.0.0.{i + 2}"))
    assert store.load("game-old-aaaaaaaa") is None
    assert store.load("game-new-aaaaaaaa") is not None


def test_another_schema_version_is_refused_naming_both(tmp_path: Path) -> None:
    """A database written by another version of the schema stops the server at start,
    saying which versions and what to do; the CLI exits 1 with that line."""
    db = tmp_path / "g.sqlite3"
    GameStore(db).close()
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE gallerist_info SET value = ? WHERE key = 'schema_version'",
                     (str(SCHEMA_VERSION + 1),))
    with pytest.raises(StoreError, match=rf"schema version {SCHEMA_VERSION + 1}; this "
                                         rf"gallerist reads version {SCHEMA_VERSION}.*newer"):
        GameStore(db)
    done = subprocess.run([sys.executable, "-m", "gallerist.cli", "serve", "--port", "0",
                           "--games-db", str(db)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "newer gallerist" in done.stderr


def test_a_corrupt_file_is_refused_at_start(tmp_path: Path) -> None:
    """A file that is not a database: one line naming the file, exit 1, no traceback."""
    db = tmp_path / "g.sqlite3"
    db.write_bytes(b"not a database at all" * 100)
    done = subprocess.run([sys.executable, "-m", "gallerist.cli", "serve", "--port", "0",
                           "--games-db", str(db)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert str(db) in done.stderr and "not a database" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_full_disk_refuses_new_games_and_keeps_the_others(tmp_path: Path) -> None:
    """A database that cannot grow (a size limit standing in for a full disk): StartGame
    is RESOURCE_EXHAUSTED saying so, and the games already stored still play."""
    store = GameStore(tmp_path / "g.sqlite3")
    with running_server(workers=1, games=store) as server, \
            grpc.insecure_channel(server.address) as channel:
        stub = play_pb2_grpc.GalleristPlayStub(channel)
        first = stub.StartGame(play_pb2.StartGameRequest(num_players=2, seed=2, opponents=LEVEL1))

        def no_room(dbapi_connection: Any, record: Any) -> None:
            pages = dbapi_connection.execute("PRAGMA page_count").fetchone()[0]
            dbapi_connection.execute(f"PRAGMA max_page_count = {pages}")
        sa.event.listen(store._engine, "connect", no_room)
        store._engine.dispose()
        refused = None
        for seed in range(40):   # fills the last free pages, then finds none
            try:
                stub.StartGame(play_pb2.StartGameRequest(num_players=4, seed=100 + seed,
                                                         opponents=LEVEL1))
            except grpc.RpcError as exc:
                refused = exc
                break
        assert refused is not None
        assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "full" in refused.details()
        assert stub.GetGame(play_pb2.GameRequest(game_id=first.game_id)).game_id == first.game_id


def test_a_read_only_database_is_refused_at_start(tmp_path: Path) -> None:
    """A database file that cannot be written (immutable for root, read-only otherwise):
    one line naming it and the problem at start, exit 1, not a failure at the first move."""
    import os
    db = tmp_path / "g.sqlite3"
    GameStore(db).close()
    for extra in tmp_path.glob("g.sqlite3-*"):
        extra.unlink()
    if os.geteuid() == 0:   # root writes through file modes: the immutable attribute
        done = subprocess.run(["chattr", "+i", str(db)], capture_output=True, text=True)
        assert done.returncode == 0, f"chattr +i failed here: {done.stderr}"
    else:
        db.chmod(0o444)
        tmp_path.chmod(0o555)
    try:
        with pytest.raises(StoreError, match="readonly|read-only|read only"):
            GameStore(db)
        run = subprocess.run([sys.executable, "-m", "gallerist.cli", "serve", "--port", "0",
                              "--games-db", str(db)], capture_output=True, text=True, timeout=60)
        assert run.returncode == 1 and str(db) in run.stderr and "Traceback" not in run.stderr
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(db)], check=True)
        else:
            tmp_path.chmod(0o755)
            db.chmod(0o644)
