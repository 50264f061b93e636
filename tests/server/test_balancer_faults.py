"""Replicas behind nginx under load (`gallerist serve --replicas 2 --balancer nginx`, on
loopback): a replica killed with SIGKILL costs only the calls in flight on it, the others
go to the other replica, and once started again it takes calls again; a draining
replica (SIGTERM, health NOT_SERVING, --drain) gets no new calls and no call fails.
Every process started here is stopped: the group exits 0 on SIGTERM and leaves no
replica or nginx behind."""
from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import psutil
import pytest
from test_balancer import require_nginx

from gallerist import engine
from gallerist.client import HintClient, hint_request

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Group:
    """A running `serve --replicas 2 --balancer nginx` and its combined output."""

    proc: subprocess.Popen[bytes]
    out: Path
    address: str

    def text(self) -> str:
        return self.out.read_text(errors="replace")

    def wait_for(self, pattern: str, timeout: float = 30.0) -> re.Match[str]:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            match = re.search(pattern, self.text(), re.M)
            if match:
                return match
            assert self.proc.poll() is None, self.text()
            time.sleep(0.05)
        raise AssertionError(f"no {pattern!r} within {timeout} s:\n{self.text()}")

    def replica_pid(self, number: int) -> int:
        return int(self.wait_for(rf"^replica {number} on \S+ \(pid (\d+)\)").group(1))

    def replica_address(self, number: int) -> str:
        return self.wait_for(rf"^replica {number} on (\S+) \(pid").group(1)


@pytest.fixture()
def group(tmp_path: Path) -> Iterator[Group]:
    """Two replicas of two search slots each behind nginx (one replica can take the whole
    load), draining 3 s on SIGTERM."""
    require_nginx()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    out = tmp_path / "group.log"
    with open(out, "wb") as fh:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gallerist.cli", "serve", "--balancer", "nginx",
             "--replicas", "2", "--workers", "2", "--host", "127.0.0.1", "--port", str(port),
             "--drain", "3", "--grace", "5"],
            cwd=ROOT, stdout=fh, stderr=subprocess.STDOUT)
    running = Group(proc, out, f"127.0.0.1:{port}")
    try:
        running.wait_for(r"^listening on ", timeout=60)
        nginx_pid = int(running.wait_for(r"^nginx on \S+ \(pid (\d+)\)").group(1))
        yield running
    finally:
        started = [int(p) for p in re.findall(r"\(pid (\d+)\)", running.text())]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0, running.text()
    left = [p for p in started + [nginx_pid] if psutil.pid_exists(p)
            and psutil.Process(p).status() != psutil.STATUS_ZOMBIE]
    assert left == [], f"processes left running: {left}"


@dataclass
class Call:
    start: float
    end: float
    code: grpc.StatusCode


class Load:
    """Two clients on one channel, each asking SuggestMoves (100 iterations) in a loop,
    as locust's users do: one per search slot."""

    def __init__(self, address: str) -> None:
        self.client = HintClient(address)
        self.request = hint_request(engine.new_game(num_players=2, seed=3), iterations=100)
        self.calls: list[Call] = []
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._loop) for _ in range(2)]
        for thread in self.threads:
            thread.start()

    def _loop(self) -> None:
        while not self.stop.is_set():
            start = time.monotonic()
            try:
                self.client.suggest(self.request, timeout=10)
                code = grpc.StatusCode.OK
            except grpc.RpcError as exc:
                code = exc.code()
            self.calls.append(Call(start, time.monotonic(), code))

    def finish(self) -> list[Call]:
        self.stop.set()
        for thread in self.threads:
            thread.join()
        self.client.close()
        return self.calls


def calls_logged_by(text: str, number: int) -> int:
    """How many SuggestMoves calls replica `number` logged in `text`."""
    return len(re.findall(rf"^replica {number}: .*SuggestMoves", text, re.M))


def log_times(text: str, number: int, what: str) -> list[float]:
    """The times (s of the day) of replica `number`'s log lines that contain `what`."""
    found = re.findall(rf"^replica {number}: \S+ (\d+):(\d+):(\d+),(\d+) .*{what}", text, re.M)
    return [int(h) * 3600 + int(m) * 60 + int(s) + int(ms) / 1000 for h, m, s, ms in found]


def test_a_killed_replica_costs_its_calls_in_flight_then_takes_calls_again(group: Group) -> None:
    """SIGKILL one replica under load: only calls in flight on it fail (at most its two
    slots'), every call started after goes to the other replica, and once the group has
    started it again on its port it answers calls again."""
    load = Load(group.address)
    time.sleep(2.0)
    os.kill(group.replica_pid(1), signal.SIGKILL)
    killed = time.monotonic()
    group.wait_for(r"^replica 1 on \S+ started again", timeout=20)
    back = group.wait_for(r"^\S+: SERVING, back in the balancer", timeout=20)
    before_back = group.text()[:back.start()]
    time.sleep(2.0)
    calls = load.finish()
    failed = [c for c in calls if c.code != grpc.StatusCode.OK]
    assert len(failed) <= 2, [(c.start - killed, c.end - killed, c.code) for c in failed]
    # in flight: sent before the replica was gone (os.kill returns before it is)
    assert all(c.start < killed + 0.1 and c.end > killed for c in failed), (killed, failed)
    assert all(c.code == grpc.StatusCode.OK for c in calls if c.start > killed + 0.1)
    assert sum(c.start > killed for c in calls) > 20
    after_back = group.text()[back.end():]
    assert calls_logged_by(after_back, 1) > 5, after_back
    assert calls_logged_by(before_back, 2) > 5


def test_a_draining_replica_gets_no_new_calls_and_no_call_fails(group: Group) -> None:
    """SIGTERM one replica under load (--drain 3): the group sees its health turn
    NOT_SERVING (checked every 0.5 s) and takes it out of nginx; from 1.5 s after SIGTERM
    to the end of its drain it answers no call, though it still could, no call fails,
    and it is started again afterwards."""
    load = Load(group.address)
    time.sleep(2.0)
    address = group.replica_address(2)
    os.kill(group.replica_pid(2), signal.SIGTERM)
    group.wait_for(rf"^{re.escape(address)}: health not SERVING, out of the balancer")
    exited = group.wait_for(r"^replica 2 on \S+ exited \(exit status 0\)")
    group.wait_for(rf"^{re.escape(address)}: SERVING, back in the balancer", timeout=20)
    calls = load.finish()
    assert [c for c in calls if c.code != grpc.StatusCode.OK] == []
    before_exit = group.text()[:exited.start()]
    [sigterm] = log_times(before_exit, 2, "received SIGTERM")
    answered = log_times(before_exit, 2, "SuggestMoves")
    assert [t - sigterm for t in answered if t > sigterm + 1.5] == []
    assert sum(t < sigterm for t in answered) > 5   # it took calls before
    assert len(calls) > 50
