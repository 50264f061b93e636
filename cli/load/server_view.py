"""The servers' own view of a load-test run, from their Prometheus metrics
(``serve --metrics-port``): scraped before and after the run, summed over the replicas,
the differences give each rpc method's calls and latency quantiles (from the duration
histogram's buckets, as Prometheus's ``histogram_quantile`` computes them), the refusals
and the slots busy."""
from __future__ import annotations

import math
import urllib.request
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["QUANTILES", "Samples", "format_server_view", "histogram_quantile", "scrape",
           "server_view"]

#: (sample name, sorted label pairs) -> value.
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]
#: The latency quantiles of the server's view.
QUANTILES = (0.5, 0.9, 0.99)


def scrape(urls: Iterable[str], timeout: float = 10.0) -> Samples:
    """Every sample of the /metrics pages at `urls`, summed over them by name and labels.

    Raises:
        OSError: a page could not be read.
    """
    from prometheus_client.parser import text_string_to_metric_families

    total: Samples = defaultdict(float)
    for url in urls:
        with urllib.request.urlopen(url, timeout=timeout) as reply:
            text = reply.read().decode("utf-8")
        for family in text_string_to_metric_families(text):
            for s in family.samples:
                total[(s.name, tuple(sorted(s.labels.items())))] += s.value
    return dict(total)


def histogram_quantile(q: float, buckets: Sequence[tuple[float, float]]) -> float:
    """The `q` quantile of a histogram, as Prometheus's ``histogram_quantile``: the bucket
    holding the rank q * count, linear interpolation inside it (the first bucket starts
    at 0); a rank in the +Inf bucket gives the highest finite bound; no observation: NaN.

    Args:
        q: between 0 and 1.
        buckets: (upper bound, cumulative count), the last bound +Inf.

    >>> histogram_quantile(0.5, [(1.0, 10), (2.0, 30), (math.inf, 30)])
    1.25
    """
    if q < 0:
        return -math.inf
    if q > 1:
        return math.inf
    buckets = sorted(buckets)
    if not buckets or buckets[-1][1] <= 0:
        return math.nan
    rank = q * buckets[-1][1]
    b = next(i for i, (_, count) in enumerate(buckets) if count >= rank)
    if b == len(buckets) - 1 and math.isinf(buckets[b][0]):
        return buckets[-2][0] if len(buckets) > 1 else math.nan
    end, count = buckets[b]
    if b == 0:
        if end <= 0:
            return end
        start, below = 0.0, 0.0
    else:
        start, below = buckets[b - 1]
    if count == below:
        return end
    return start + (end - start) * (rank - below) / (count - below)


def _delta(before: Samples, after: Samples, name: str) -> dict[tuple[tuple[str, str], ...], float]:
    """The increase of each labelled sample `name` between the scrapes."""
    return {labels: value - before.get((n, labels), 0.0)
            for (n, labels), value in after.items() if n == name}


def _value(samples: Samples, name: str) -> float | None:
    return samples.get((name, ()))


def server_view(before: Samples, after: Samples,
                slots_busy_samples: Sequence[float] = ()) -> dict[str, Any]:
    """The run as the servers saw it, between two scrapes.

    Returns:
        {"methods": {method: {"calls", "codes": {code: calls}, "p50_ms", "p90_ms",
        "p99_ms"}}, "refusals", "slots_busy_end", "slots_free_end", "slots_busy_peak"
        (None when not sampled)}.
    """
    methods: dict[str, dict[str, Any]] = {}
    for labels, calls in _delta(before, after, "gallerist_requests_total").items():
        d = dict(labels)
        if calls > 0:
            row = methods.setdefault(d["method"], {"calls": 0, "codes": {}})
            row["calls"] += int(round(calls))
            row["codes"][d["code"]] = int(round(calls))
    buckets: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for labels, count in _delta(before, after,
                                "gallerist_request_duration_seconds_bucket").items():
        d = dict(labels)
        buckets[d["method"]].append((float(d["le"]), count))
    for method, row in methods.items():
        for q in QUANTILES:
            row[f"p{round(100 * q)}_ms"] = 1000.0 * histogram_quantile(q, buckets[method])
    refused = _value(after, "gallerist_refused_total")
    return {
        "methods": dict(sorted(methods.items())),
        "refusals": None if refused is None else
        int(round(refused - (_value(before, "gallerist_refused_total") or 0.0))),
        "slots_busy_end": _value(after, "gallerist_search_slots_busy"),
        "slots_free_end": _value(after, "gallerist_search_slots_free"),
        "slots_busy_peak": max(slots_busy_samples) if slots_busy_samples else None,
    }


def format_server_view(view: dict[str, Any]) -> list[str]:
    """The server's view as report lines: one per method, then refusals and slots."""
    if "error" in view:
        return [f"server's view: not scraped ({view['error']})"]
    lines = []
    for method, row in view["methods"].items():
        quantiles = ", ".join(f"p{round(100 * q)} {row[f'p{round(100 * q)}_ms']:.1f} ms"
                              for q in QUANTILES)
        others = {c: n for c, n in row["codes"].items() if c != "OK"}
        lines.append(f"server's view: {method} {row['calls']:,} calls, {quantiles}"
                     + ("".join(f", {c} {n:,}" for c, n in sorted(others.items()))))
    slots = f"slots busy at the end {view['slots_busy_end']:.0f}" \
        if view["slots_busy_end"] is not None else "slots busy: -"
    if view.get("slots_busy_peak") is not None:
        slots += f", highest sampled {view['slots_busy_peak']:.0f}"
    lines.append(f"server's view: refusals {view['refusals']}, {slots} (all servers; the "
                 f"counts include locust's start-up, before its statistics reset)")
    return lines
