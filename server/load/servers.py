"""The servers of a load test: ``python -m gallerist.server serve`` child processes, each on a free
port of 127.0.0.1 with Prometheus metrics on another, started until their health check
answers SERVING."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["SERVICE", "ServerProcess", "round_robin_target"]

#: The repository root (the servers run there).
ROOT = str(Path(__file__).resolve().parents[2])
#: Service name whose health is checked.
SERVICE = "gallerist.v1.GalleristAI"


class ServerProcess:
    """``python -m gallerist.server serve`` in a child process, on a free port of 127.0.0.1.

    Args:
        workers: search slots (``--workers``).
        log_path: file that receives the server's output.
        extra: more ``serve`` options.
        start_timeout: seconds to wait for the port and SERVING health.
        nice: added to the server's scheduling niceness (see `run`).

    Attributes:
        address: "127.0.0.1:PORT" of the gRPC port.
        metrics_url: the server's /metrics page (``--metrics-port 0``: a free port).
    """

    def __init__(self, workers: int, log_path: str, extra: list[str] | None = None,
                 start_timeout: float = 30.0, nice: int = 0) -> None:
        self.workers = workers
        self.log_path = log_path
        self._log = open(log_path, "w", encoding="utf-8")  # noqa: SIM115 - closed in stop()
        cmd = [sys.executable, "-m", "gallerist.server", "serve", "--host", "127.0.0.1", "--port", "0",
               "--workers", str(workers), "--metrics-port", "0", "--log-level", "WARNING",
               *(extra or [])]
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=self._log,
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
