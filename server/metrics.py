"""Prometheus metrics of the service (`gallerist serve --metrics-port`).

`Metrics` is what the servicer calls; its base class does nothing, so a server without a
metrics port pays one method call per event. `ServerMetrics` keeps the metric objects on
a registry of its own (several servers may run in one process, as in the tests), with the
process collector and the build info, and serves them on /metrics over HTTP.
"""
from __future__ import annotations

import hashlib
import importlib.metadata
import logging
import threading
from typing import Any

from prometheus_client import (CollectorRegistry, Counter, Gauge, Histogram, Info,
                               ProcessCollector, start_http_server)
from prometheus_client.core import CounterMetricFamily

from gallerist.server.slots import SearchSlots
from gallerist.server.state_cache import StateCache

__all__ = ["Metrics", "ServerMetrics", "build_labels"]

log = logging.getLogger("gallerist.server")

#: Request and search durations, seconds (a greedy hint takes ms, a deep search seconds).
_SECONDS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
            30.0, 60.0)
_ITERATIONS = (1, 10, 100, 1_000, 10_000, 100_000, 1_000_000)
_DEPTHS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32)


class Metrics:
    """Metrics off: every call is a no-op."""

    def call_started(self, method: str, streaming: bool) -> None:
        """A call began (in flight; a server stream is open)."""

    def call_ended(self, method: str, streaming: bool, code: str, seconds: float) -> None:
        """A call ended with the gRPC status `code` (its name) after `seconds`."""

    def search_done(self, bot: str, seconds: float, iterations: int, depth: int) -> None:
        """A search by a bot of kind `bot` ended (depth 0: the bot reports none)."""

    def refused(self) -> None:
        """A search was refused: every slot was taken."""


class _CacheCollector:
    """The state cache's own hit and miss counts, read at each scrape."""

    def __init__(self, cache: StateCache | None) -> None:
        self.cache = cache

    def collect(self) -> Any:
        for name, what in (("hits", "served from"), ("misses", "validated and put in")):
            family = CounterMetricFamily(f"gallerist_state_cache_{name}",
                                         f"States {what} the validated-state cache.")
            family.add_metric([], getattr(self.cache, name) if self.cache else 0)
            yield family


def build_labels() -> dict[str, str]:
    """The build info's labels: the package version and the sha256 prefixes of the packaged
    model files (priors, then value networks) and of the calibration file ("-": missing)."""
    from gallerist.ai.calibration.maps import Calibration
    from gallerist.ai.net.packaged import auto_prior_files, auto_value_files, model_label

    try:
        version = importlib.metadata.version("gallerist-ai")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    try:
        files = [*auto_prior_files().values(), *auto_value_files().values()]
        models = ",".join(model_label(path) for path in dict.fromkeys(files))
    except Exception:  # noqa: BLE001 - no packaged model: the label says so
        models = ""
    try:
        with open(Calibration.path(), "rb") as fh:
            calibration = hashlib.sha256(fh.read()).hexdigest()[:8]
    except OSError:
        calibration = ""
    return {"version": version, "model": models or "-", "calibration": calibration or "-"}


class ServerMetrics(Metrics):
    """The metrics of one server, on a registry of its own.

    Args:
        slots: the search slots (busy and free gauges read them at each scrape).
        cache: the state cache, or None.
    """

    def __init__(self, slots: SearchSlots, cache: StateCache | None) -> None:
        self.registry = r = CollectorRegistry()
        ProcessCollector(registry=r)
        r.register(_CacheCollector(cache))
        Info("gallerist_build", "The version, model files and calibration file served.",
             registry=r).info(build_labels())
        self.requests = Counter("gallerist_requests", "Calls by rpc method and gRPC status.",
                                ["method", "code"], registry=r)
        self.request_seconds = Histogram("gallerist_request_duration_seconds",
                                         "Call duration by rpc method.", ["method"],
                                         buckets=_SECONDS, registry=r)
        self.search_seconds = Histogram("gallerist_search_duration_seconds",
                                        "Search duration by bot kind.", ["bot"],
                                        buckets=_SECONDS, registry=r)
        self.search_iterations = Histogram("gallerist_search_iterations",
                                           "Search iterations (or visits) by bot kind.",
                                           ["bot"], buckets=_ITERATIONS, registry=r)
        self.search_depth = Histogram("gallerist_search_depth",
                                      "Search depth by bot kind (bots that report one).",
                                      ["bot"], buckets=_DEPTHS, registry=r)
        self.refusals = Counter("gallerist_refused", "Searches refused: every slot was taken.",
                                registry=r)
        self.in_flight = Gauge("gallerist_requests_in_flight", "Calls being served.",
                               registry=r)
        Gauge("gallerist_threads", "Python threads of the process.",
              registry=r).set_function(threading.active_count)
        self.streams = Gauge("gallerist_streams_open", "Server streams open by rpc method.",
                             ["method"], registry=r)
        Gauge("gallerist_search_slots_busy", "Search slots taken.",
              registry=r).set_function(lambda: slots.in_use)
        Gauge("gallerist_search_slots_free", "Search slots free.",
              registry=r).set_function(lambda: slots.capacity - slots.in_use)
        self._http: Any = None
        self._thread: threading.Thread | None = None

    def call_started(self, method: str, streaming: bool) -> None:
        self.in_flight.inc()
        if streaming:
            self.streams.labels(method).inc()

    def call_ended(self, method: str, streaming: bool, code: str, seconds: float) -> None:
        self.requests.labels(method, code).inc()
        self.request_seconds.labels(method).observe(seconds)
        if streaming:
            self.streams.labels(method).dec()
        self.in_flight.dec()

    def search_done(self, bot: str, seconds: float, iterations: int, depth: int) -> None:
        self.search_seconds.labels(bot).observe(seconds)
        self.search_iterations.labels(bot).observe(iterations)
        if depth > 0:
            self.search_depth.labels(bot).observe(depth)

    def refused(self) -> None:
        self.refusals.inc()

    # ------------------------------------------------------------------ the HTTP port

    @property
    def port(self) -> int | None:
        """The port /metrics is served on, or None (not started)."""
        return None if self._http is None else int(self._http.server_port)

    def start(self, host: str, port: int) -> None:
        """Serve /metrics on `host`:`port` (0 picks a free one)."""
        addr = host[1:-1] if host.startswith("[") and host.endswith("]") else host
        self._http, self._thread = start_http_server(port, addr or "0.0.0.0",
                                                     registry=self.registry)
        log.info("metrics on %s:%d/metrics", host, self.port)

    def stop(self) -> None:
        """Stop serving /metrics and free the port."""
        if self._http is not None:
            self._http.shutdown()
            self._http.server_close()
            self._http = None
