"""A throwaway PostgreSQL cluster for the tests: Debian's `postgresql` package's initdb
and pg_ctl in a temporary folder, on a free port of 127.0.0.1, stopped and removed at the
end (as the `postgres` user when the tests run as root, since PostgreSQL refuses root)."""
from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

__all__ = ["Cluster", "postgres"]


def _bin_dir() -> str:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return os.path.dirname(found[-1])
    on_path = shutil.which("initdb")
    if on_path:
        return os.path.dirname(on_path)
    pytest.fail("PostgreSQL's initdb not found: install Debian's postgresql package "
                "(apt-get install -y postgresql; tests/run.sh does)")


class Cluster:
    """A running cluster: `url` to connect; `stop()` and `start()` it again."""

    def __init__(self, root: str) -> None:
        self.bin = _bin_dir()
        self.root = root
        self.data = os.path.join(root, "data")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = int(probe.getsockname()[1])
        self.url = f"postgresql://gallerist@127.0.0.1:{self.port}/postgres"
        self._as = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self._as:
            shutil.chown(root, "postgres")
        self._run("initdb", "-D", self.data, "-U", "gallerist", "-A", "trust", "--no-sync",
                  "-E", "UTF8")

    def _run(self, tool: str, *args: str) -> None:
        done = subprocess.run([*self._as, os.path.join(self.bin, tool), *args],
                              capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{tool} failed: {done.stderr.strip() or done.stdout.strip()}")

    def start(self) -> None:
        self._run("pg_ctl", "-D", self.data, "-l", os.path.join(self.root, "log"), "-w", "-o",
                  f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
                  "-c max_connections=200", "start")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")


@contextmanager
def postgres() -> Iterator[Cluster]:
    """A started cluster, stopped and removed at the end."""
    root = tempfile.mkdtemp(prefix="gallerist-pg-")
    os.chmod(root, 0o755)
    cluster = None
    try:
        cluster = Cluster(root)
        cluster.start()
        yield cluster
    finally:
        if cluster is not None:
            try:
                cluster.stop()
            except RuntimeError:   # stopped already
                pass
        shutil.rmtree(root, ignore_errors=True)
