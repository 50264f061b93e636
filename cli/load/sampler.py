"""Memory and CPU of a load test's processes over time (psutil, in a background thread)."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Sampler"]


@dataclass
class Sampler:
    """Samples the RSS and the CPU time used so far of the servers, the CPU time of
    locust and the busy time of the whole machine, every `interval` seconds in a
    background thread (psutil); with `metrics_urls`, also the search slots busy on all
    the servers (their /metrics pages)."""

    pids: list[int]
    interval: float
    locust_pid: int | None = None
    samples: list[dict[str, Any]] = field(default_factory=list)
    metrics_urls: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        import psutil  # type: ignore[import-untyped]
        self._procs = [psutil.Process(p) for p in self.pids]
        self._locust: Any = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.t0 = time.monotonic()

    def watch_locust(self, pid: int) -> None:
        """Also sample the load generator's CPU."""
        import psutil  # type: ignore[import-untyped]
        try:
            self._locust = psutil.Process(pid)
        except psutil.Error:
            self._locust = None

    def start(self) -> None:
        """Start sampling (a first sample at once)."""
        self.t0 = time.monotonic()
        self._sample()
        self._thread.start()

    def stop(self) -> None:
        """Take a last sample and stop."""
        self._stop.set()
        self._thread.join()
        self._sample()

    def _sample(self) -> None:
        import psutil  # type: ignore[import-untyped]
        row: dict[str, Any] = {"t": time.monotonic() - self.t0, "rss_mb": [], "cpu_s": []}
        for p in self._procs:
            try:
                times = p.cpu_times()
                row["rss_mb"].append(p.memory_info().rss / 2**20)
                row["cpu_s"].append(times.user + times.system)
            except psutil.Error:
                row["rss_mb"].append(float("nan"))
                row["cpu_s"].append(float("nan"))
        machine = psutil.cpu_times()
        row["machine_busy_s"] = (sum(machine) - machine.idle - getattr(machine, "iowait", 0.0)
                                 - getattr(machine, "guest", 0.0)
                                 - getattr(machine, "guest_nice", 0.0))
        if self._locust is not None:
            try:
                times = self._locust.cpu_times()
                row["locust_cpu_s"] = times.user + times.system
            except psutil.Error:
                pass
        if self.metrics_urls:
            from gallerist.cli.load.server_view import scrape
            try:
                row["slots_busy"] = scrape(self.metrics_urls, timeout=2.0).get(
                    ("gallerist_search_slots_busy", ()))
            except (OSError, ValueError):
                pass
        self.samples.append(row)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample()
