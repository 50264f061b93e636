"""Locust's statistics files (``PREFIX_stats.csv``, ``PREFIX_failures.csv``), parsed."""
from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from typing import Any

__all__ = ["RpcStats", "read_failures_csv", "read_stats_csv"]


@dataclass
class RpcStats:
    """One row of locust's ``PREFIX_stats.csv``: one rpc name, or "Aggregated".

    Times are in ms. Locust keeps response times rounded (to 1 ms below 100 ms, to 10 ms
    below 1000 ms, to 100 ms above), so its percentiles are rounded the same way.
    """

    name: str
    requests: int
    failures: int
    rps: float
    p50: float
    p95: float
    p99: float
    max: float
    average: float

    def as_dict(self) -> dict[str, Any]:
        """The row as a plain dict."""
        return dict(self.__dict__)


def _number(text: str) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        return float("nan")     # "N/A" when an rpc had no successful request


def read_stats_csv(path: str) -> dict[str, RpcStats]:
    """Parse ``PREFIX_stats.csv`` into rows by name ("Aggregated" included)."""
    rows: dict[str, RpcStats] = {}
    with open(path, newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            name = r["Name"]
            rows[name] = RpcStats(
                name=name, requests=int(r["Request Count"]), failures=int(r["Failure Count"]),
                rps=_number(r["Requests/s"]), p50=_number(r["50%"]), p95=_number(r["95%"]),
                p99=_number(r["99%"]), max=_number(r["Max Response Time"]),
                average=_number(r["Average Response Time"]))
    return rows


def read_failures_csv(path: str) -> list[dict[str, Any]]:
    """Parse ``PREFIX_failures.csv``: one dict (name, error, occurrences) per distinct error."""
    if not os.path.exists(path):
        return []
    with open(path, newline="", encoding="utf-8") as fh:
        return [{"name": r["Name"], "error": r["Error"], "occurrences": int(r["Occurrences"])}
                for r in csv.DictReader(fh)]
