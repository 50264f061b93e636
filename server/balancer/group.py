"""``gallerist serve --replicas N --balancer nginx``: N replicas on free loopback ports
and nginx in front of them, in the foreground until SIGTERM or Ctrl-C.

While it runs it checks every replica's health twice a second: a replica whose health is
not SERVING (draining after SIGTERM, or gone; or that did not answer two checks in a
row) is marked ``down`` in nginx's configuration, which nginx reloads, so it gets no new
calls; once SERVING again it is put back. A
replica that exits is started again on its port. nginx alone also takes out a replica
it cannot reach (``max_fails``), between two checks.
"""
from __future__ import annotations

import signal
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import IO

from gallerist.server.app import check_port_free
from gallerist.server.balancer.nginx import NginxProcess, find_nginx, nginx_config
from gallerist.server.balancer.replicas import Replica

__all__ = ["BalancedGroup", "run_group"]

#: Seconds between two health checks of the replicas.
CHECK_S = 0.5
#: Seconds before a replica that exited is started again (doubling while it keeps
#: exiting within a minute, up to 30 s).
RESTART_S = 1.0


class BalancedGroup:
    """Replicas and nginx in front of them (see the module docstring).

    Args:
        count: replicas.
        serve_args: their ``serve`` options but host and port (one list, or one per
            replica from a function of its number).
        host, port: where nginx listens.
        tls: (certificate, key) PEM files for nginx's port, or None.
        grace: seconds each replica and nginx may take to stop.
        out: where status lines go (default sys.stdout); replicas' output goes to stderr.
        http_port: nginx's HTTP port in front of the replicas' HTTP ports (0: a free
            one), or None: gRPC only.
    """

    def __init__(self, count: int, serve_args: list[str] | Callable[[int], list[str]], *,
                 host: str, port: int, tls: tuple[str, str] | None = None,
                 grace: float = 15.0, out: IO[str] | None = None,
                 http_port: int | None = None) -> None:
        self.host, self.port, self.tls, self.grace = host, port, tls, grace
        self.http_port = http_port
        self.out = out or sys.stdout
        args = serve_args if callable(serve_args) else (lambda n: list(serve_args))
        self.replicas = [Replica(n, args(n), http=http_port is not None)
                         for n in range(1, count + 1)]
        self.nginx: NginxProcess | None = None
        self.down: frozenset[str] = frozenset()
        self._run_dir = tempfile.TemporaryDirectory(prefix="gallerist-nginx-")
        self._restart_at: dict[int, float] = {}   # replica number: when to start it again
        self._started_at: dict[int, float] = {}
        self._backoff: dict[int, float] = {}
        self._unanswered: dict[int, int] = {}   # checks in a row without an answer

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def _config(self) -> str:
        cert, key = self.tls or (None, None)
        host = self.host.strip("[]")
        at = (lambda port: f"[{host}]:{port}") if ":" in host else (lambda port: f"{host}:{port}")
        http = None if self.http_port is None else (
            at(self.http_port), [r.http_address for r in self.replicas])
        return nginx_config([r.address for r in self.replicas], at(self.port),
                            down=sorted(self.down), tls_cert=cert, tls_key=key, http=http)

    def start(self) -> None:
        """Start the replicas, wait for their health, then start nginx.

        Raises:
            PortInUseError: nginx's port is taken; NginxError: nginx is missing or
            failed; RuntimeError: a replica did not start. What started is stopped.
        """
        try:
            find_nginx()
            check_port_free(self.host, self.port)
            if self.port == 0:   # nginx cannot pick one: a free one now
                self.port = self._free_port()
            if self.http_port is not None:
                check_port_free(self.host, self.http_port)
                self.http_port = self.http_port or self._free_port()
            for replica in self.replicas:
                replica.start()
            for replica in self.replicas:
                replica.wait_serving()
                self.say(f"replica {replica.number} on {replica.address} (pid "
                         f"{replica.proc.pid if replica.proc else '?'})")
            self.nginx = NginxProcess(self._config(), self._run_dir.name,
                                      listen=(self.host.strip("[]"), self.port))
            web = "" if self.http_port is None else f", HTTP on {self.host}:{self.http_port}"
            self.say(f"nginx on {self.host}:{self.port}{web} (pid {self.nginx.proc.pid})")
        except BaseException:
            self.stop()
            raise

    def _free_port(self) -> int:
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        with socket.socket(family) as probe:
            probe.bind((self.host.strip("[]"), 0))
            return int(probe.getsockname()[1])

    def check(self) -> None:
        """One round: start again a replica that exited, and mark in nginx those whose
        health is not SERVING.

        Raises:
            RuntimeError: nginx stopped.
        """
        assert self.nginx is not None
        if self.nginx.proc.poll() is not None:
            raise RuntimeError(f"nginx stopped (exit {self.nginx.proc.returncode})")
        now = time.monotonic()
        for replica in self.replicas:
            if not replica.running():
                self._restart(replica, now)
        down: set[str] = set()
        for replica in self.replicas:
            answer = replica.serving(timeout=CHECK_S)
            n = replica.number
            self._unanswered[n] = 0 if answer is not None else self._unanswered.get(n, 0) + 1
            # one check without an answer may be a busy replica: it counts from the second
            if answer is False or (answer is None and (self._unanswered[n] > 1
                                                       or replica.address in self.down)):
                down.add(replica.address)
        if down != self.down:
            for address in sorted(down - self.down):
                self.say(f"{address}: health not SERVING, out of the balancer")
            for address in sorted(self.down - down):
                self.say(f"{address}: SERVING, back in the balancer")
            self.down = frozenset(down)
            self.nginx.reload(self._config())

    def _restart(self, replica: Replica, now: float) -> None:
        """Start a replica that exited again (after a pause, longer while it keeps
        exiting), on its port."""
        n = replica.number
        if n not in self._restart_at:
            self._backoff[n] = RESTART_S if now - self._started_at.get(n, -1e9) > 60 else \
                min(30.0, 2 * self._backoff.get(n, RESTART_S))
            self._restart_at[n] = now + self._backoff[n]
            self.say(f"replica {n} on {replica.address} exited ({replica.exit_text()}); "
                     f"starting it again in {self._backoff[n]:g} s")
            return
        if now < self._restart_at[n]:
            return
        del self._restart_at[n]
        self._started_at[n] = now
        try:
            replica.start()
            self.say(f"replica {n} on {replica.address} started again (pid "
                     f"{replica.proc.pid if replica.proc else '?'})")
        except RuntimeError as exc:
            self.say(f"replica {n}: {exc}")

    def stop(self) -> None:
        """Stop nginx (calls in flight finish) and the replicas (each drains and lets
        its calls finish, as ``serve`` does on SIGTERM), all at once."""
        for replica in self.replicas:
            replica.terminate()
        threads = [threading.Thread(target=r.stop, args=(self.grace,)) for r in self.replicas]
        if self.nginx is not None:
            threads.append(threading.Thread(target=self.nginx.stop, args=(self.grace,)))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self._run_dir.cleanup()


def run_group(group: BalancedGroup, ready: Callable[[BalancedGroup], None] | None = None,
              ) -> None:
    """Run `group` until SIGTERM or SIGINT, then stop it.

    Raises:
        what `BalancedGroup.start` raises; RuntimeError: nginx stopped by itself.
    """
    stopping = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stopping.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        group.start()
        try:
            if ready is not None:
                ready(group)
            while not stopping.wait(CHECK_S):
                group.check()
        finally:
            group.stop()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
