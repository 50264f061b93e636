"""The replicas: ``gallerist serve`` child processes on loopback ports, their output
passed on with a "replica N:" prefix, their health (``grpc.health.v1``) followed, and
a replica that exits started again on its port."""
from __future__ import annotations

import re
import signal
import subprocess
import sys
import threading
import time
from typing import IO, Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from gallerist.server.balancer.nginx import die_with_parent, wait_or_kill
from gallerist.server.servicer import SERVICE_NAME

__all__ = ["Replica"]

LISTENING = re.compile(r"listening on \S+:(\d+) ")
HTTP_LISTENING = re.compile(r"HTTPS? on \S+:(\d+)")
#: A health channel tries a replica that was down again within half a second.
RECONNECT = [("grpc.initial_reconnect_backoff_ms", 100), ("grpc.min_reconnect_backoff_ms", 100),
             ("grpc.max_reconnect_backoff_ms", 500)]


class Replica:
    """One ``gallerist serve`` child on 127.0.0.1.

    Args:
        number: its number (1, 2, ...), in its output's prefix.
        serve_args: the ``serve`` options but host and port.
        port: the port (0: a free one, kept for restarts).
        out: where its output goes, prefixed (default sys.stderr).
        http: whether it also serves HTTP (``--http``, on a free port kept for restarts).
    """

    def __init__(self, number: int, serve_args: list[str], port: int = 0,
                 out: IO[str] | None = None, http: bool = False) -> None:
        self.number = number
        self.serve_args = serve_args
        self.port = port
        self.http = http
        self.http_port = 0
        self.out = out or sys.stderr
        self.proc: subprocess.Popen[str] | None = None
        self._listening = threading.Event()
        self._channel: grpc.Channel | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def http_address(self) -> str:
        return f"127.0.0.1:{self.http_port}"

    def start(self, timeout: float = 60.0) -> None:
        """Start it and wait until it listens (its port is then known).

        Raises:
            RuntimeError: it exited or did not listen within `timeout` seconds.
        """
        self._listening.clear()
        cmd = [sys.executable, "-m", "gallerist.cli", "serve", "--host", "127.0.0.1",
               "--port", str(self.port), *self.serve_args]
        if self.http:
            cmd += ["--http", str(self.http_port)]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True, bufsize=1, start_new_session=True,
                                     preexec_fn=die_with_parent)
        threading.Thread(target=self._pass_output, args=(self.proc,), daemon=True).start()
        end = time.monotonic() + timeout
        while not self._listening.wait(0.05):
            if self.proc.poll() is not None or time.monotonic() > end:
                self.stop(grace=1.0)
                raise RuntimeError(f"replica {self.number} did not start (exit "
                                   f"{self.proc.returncode}); its output is above")

    def _pass_output(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            match = LISTENING.search(line)
            if match and not self._listening.is_set():
                self.port = int(match.group(1))
                web = HTTP_LISTENING.search(line)
                if web:
                    self.http_port = int(web.group(1))
                self._listening.set()
            try:
                self.out.write(f"replica {self.number}: {line}")
                self.out.flush()
            except (OSError, ValueError):   # our own output closed: keep reading
                pass

    def exit_text(self) -> str:
        """How it ended: "exit status N" or "killed by SIGNAME"."""
        code = None if self.proc is None else self.proc.returncode
        if code is not None and code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                pass
        return f"exit status {code}"

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def serving(self, timeout: float = 1.0) -> bool | None:
        """Whether its health check answers SERVING now; None: no answer within
        `timeout` seconds (it may be busy), though it runs."""
        if not self.running():
            return False
        if self._channel is None:
            self._channel = grpc.insecure_channel(self.address, options=RECONNECT)
        stub: Any = health_pb2_grpc.HealthStub(self._channel)
        try:
            status = stub.Check(health_pb2.HealthCheckRequest(service=SERVICE_NAME),
                                timeout=timeout).status
        except grpc.RpcError as exc:
            return None if exc.code() == grpc.StatusCode.DEADLINE_EXCEEDED else False
        return bool(status == health_pb2.HealthCheckResponse.SERVING)

    def wait_serving(self, timeout: float = 60.0) -> None:
        """Wait until its health is SERVING.

        Raises:
            RuntimeError: it exited first, or `timeout` seconds passed.
        """
        end = time.monotonic() + timeout
        while not self.serving():
            if not self.running() or time.monotonic() > end:
                raise RuntimeError(f"replica {self.number} on {self.address}: health "
                                   f"never turned SERVING")
            time.sleep(0.05)

    def terminate(self) -> None:
        """SIGTERM: it drains (``--drain``) and lets its calls finish (``--grace``)."""
        if self.running():
            assert self.proc is not None
            self.proc.send_signal(signal.SIGTERM)

    def stop(self, grace: float = 15.0) -> int | None:
        """SIGTERM, then SIGKILL after `grace` seconds; the exit code."""
        if self._channel is not None:
            self._channel.close()
            self._channel = None
        if self.proc is None:
            return None
        self.terminate()
        return wait_or_kill(self.proc, grace)
