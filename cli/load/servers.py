"""The servers of a load test: ``python -m gallerist.cli serve`` child processes, each on a free
port of 127.0.0.1 with Prometheus metrics on another, started until their health check
answers SERVING; and nginx in front of them, when a run compares it with round robin."""
from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

__all__ = ["SERVICE", "Front", "ServerProcess", "balancer_in_front", "round_robin_target"]

#: Service name whose health is checked.
SERVICE = "gallerist.v1.GalleristAI"


class ServerProcess:
    """``python -m gallerist.cli serve`` in a child process, on a free port of 127.0.0.1.

    Args:
        workers: search slots (``--workers``).
        log_path: file that receives the server's output.
        extra: more ``serve`` options.
        start_timeout: seconds to wait for the port and SERVING health.
        nice: added to the server's scheduling niceness (see `run`).
        cwd: the server's working directory (default: the log file's folder).

    Attributes:
        address: "127.0.0.1:PORT" of the gRPC port.
        metrics_url: the server's /metrics page (``--metrics-port 0``: a free port).
    """

    def __init__(self, workers: int, log_path: str, extra: list[str] | None = None,
                 start_timeout: float = 30.0, nice: int = 0, cwd: str | None = None) -> None:
        self.workers = workers
        self.log_path = log_path
        self._log = open(log_path, "w", encoding="utf-8")  # noqa: SIM115 - closed in stop()
        cmd = [sys.executable, "-m", "gallerist.cli", "serve", "--host", "127.0.0.1", "--port", "0",
               "--workers", str(workers), "--metrics-port", "0", "--log-level", "WARNING",
               *(extra or [])]
        cwd = cwd or os.path.dirname(os.path.abspath(log_path))
        self.proc = subprocess.Popen(cmd, cwd=cwd, stdout=self._log,
                                     stderr=subprocess.STDOUT,
                                     preexec_fn=(lambda: os.nice(nice)) if nice else None)
        try:
            self.port, metrics_port = self._wait_port(start_timeout)
            self.address = f"127.0.0.1:{self.port}"
            self.metrics_url = f"http://127.0.0.1:{metrics_port}/metrics"
            self._wait_serving(start_timeout)
        except BaseException:
            self.stop()
            raise

    def _wait_port(self, timeout: float) -> tuple[int, int]:
        """The gRPC and metrics ports, from the server's "listening on" line."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with open(self.log_path, encoding="utf-8", errors="replace") as fh:
                match = re.search(r"listening on \S+:(\d+) .*metrics on \S+:(\d+)", fh.read())
            if match:
                return int(match.group(1)), int(match.group(2))
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        with open(self.log_path, encoding="utf-8", errors="replace") as fh:
            raise RuntimeError(f"the server did not start (exit {self.proc.poll()}): "
                               f"{fh.read()[-2000:]}")

    def _wait_serving(self, timeout: float) -> None:
        import grpc
        from grpc_health.v1 import health_pb2, health_pb2_grpc

        end = time.monotonic() + timeout
        with grpc.insecure_channel(self.address) as channel:
            stub: Any = health_pb2_grpc.HealthStub(channel)  # type: ignore[no-untyped-call]
            while True:
                try:
                    status = stub.Check(health_pb2.HealthCheckRequest(service=SERVICE),
                                        timeout=2.0).status
                    if status == health_pb2.HealthCheckResponse.SERVING:
                        return
                except grpc.RpcError:
                    pass
                if time.monotonic() > end or self.proc.poll() is not None:
                    raise RuntimeError(f"{self.address}: health never turned SERVING")
                time.sleep(0.05)

    def stop(self, grace: float = 15.0) -> int | None:
        """SIGTERM (graceful shutdown), then SIGKILL after `grace` seconds; the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if not self._log.closed:
            self._log.close()
        return self.proc.returncode


def round_robin_target(addresses: list[str]) -> str:
    """One gRPC target over several "127.0.0.1:PORT" addresses (the ipv4 resolver), or
    the address itself when there is one.

    >>> round_robin_target(["127.0.0.1:5001", "127.0.0.1:5002"])
    'ipv4:127.0.0.1:5001,127.0.0.1:5002'
    """
    return addresses[0] if len(addresses) == 1 else "ipv4:" + ",".join(addresses)


@dataclass(frozen=True)
class Front:
    """A balancer in front of the servers: its "127.0.0.1:PORT" and its processes."""

    address: str
    pids: list[int]


@contextlib.contextmanager
def balancer_in_front(addresses: list[str], log_path: str) -> Iterator[Front]:
    """nginx (`server.balancer.nginx`) on a free port of 127.0.0.1 in front of
    `addresses`, its messages into `log_path`; stopped on leaving.

    Raises:
        NginxError: nginx is missing or failed to start.
    """
    import psutil  # type: ignore[import-untyped]

    from gallerist.server.balancer.nginx import NginxProcess, nginx_config

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with tempfile.TemporaryDirectory(prefix="gallerist-nginx-") as run_dir, \
            open(log_path, "w", encoding="utf-8") as log:
        nginx = NginxProcess(nginx_config(addresses, f"127.0.0.1:{port}"), run_dir,
                             listen=("127.0.0.1", port), log=log.fileno())
        try:
            workers = [c.pid for c in psutil.Process(nginx.proc.pid).children()]
            yield Front(f"127.0.0.1:{port}", [nginx.proc.pid, *workers])
        finally:
            nginx.stop()
