"""The numbers of a load-test run: per-rpc rows, hints per second, latency targets, CPU,
memory and the soak's memory verdict; and the run as text."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gallerist.cli.load.locust_csv import RpcStats
from gallerist.cli.load.mix import BudgetMix
from gallerist.cli.load.server_view import format_server_view

__all__ = ["TARGET_SLACK_MS", "format_memory", "format_summary", "memory_verdict",
           "summarize"]

#: The latency target of time budgets: p99 within budget + this many ms.
TARGET_SLACK_MS = 20.0


def summarize(stats: dict[str, RpcStats], failures: list[dict[str, Any]],
              extra: dict[str, Any], samples: list[dict[str, Any]], *, budgets: str,
              warmup_s: float, soak: bool, cpu_from_s: float = 0.0) -> dict[str, Any]:
    """The numbers of a run: per rpc rows, hints/s, failures, targets, memory, and CPU
    (average from `cpu_from_s` on, so that locust's start-up is not counted)."""
    rows = {k: v.as_dict() for k, v in stats.items()}
    hints = [v for k, v in stats.items() if k.startswith("SuggestMoves")]
    targets = []
    mix = BudgetMix.parse(budgets)
    for choice in mix.choices:
        name = f"SuggestMoves [{choice.label}]" if len(mix.choices) > 1 else "SuggestMoves"
        row = stats.get(name)
        if row is not None and choice.time_ms and not choice.iterations and not choice.depth:
            limit = choice.time_ms + TARGET_SLACK_MS
            targets.append({"name": name, "p99": row.p99, "limit": limit,
                            "met": row.p99 <= limit})
    total = stats.get("Aggregated")
    rss_total = [(s["t"], sum(s["rss_mb"])) for s in samples]
    server_each = _cpu_percent(samples, cpu_from_s)
    locust_rows = [s for s in samples if "locust_cpu_s" in s]
    locust_cpu = _cpu_percent([{"t": s["t"], "cpu_s": [s["locust_cpu_s"]]}
                               for s in locust_rows], cpu_from_s)
    machine = _cpu_percent([{"t": s["t"], "cpu_s": [s["machine_busy_s"]]}
                            for s in locust_rows], cpu_from_s)
    ours = _cpu_percent([{"t": s["t"], "cpu_s": [sum(s["cpu_s"]) + s["locust_cpu_s"]]}
                         for s in locust_rows], cpu_from_s)
    out: dict[str, Any] = {
        "rpcs": rows,
        "hints_per_s": sum(h.rps for h in hints),
        "hint_requests": sum(h.requests for h in hints),
        "requests": total.requests if total else 0,
        "failures": total.failures if total else 0,
        "failure_errors": failures,
        "retries": extra.get("retries_total", 0),
        "retries_by_rpc": extra.get("retries", {}),
        "games_finished": extra.get("games_finished", 0),
        "time_budget_targets": targets,
        "memory_samples": [{"t": round(s["t"], 1), "rss_mb": [round(x, 1) for x in s["rss_mb"]]}
                           for s in samples],
        "rss_mb_first": rss_total[0][1] if rss_total else float("nan"),
        "rss_mb_peak": max((m for _, m in rss_total), default=float("nan")),
        "rss_mb_last": rss_total[-1][1] if rss_total else float("nan"),
        "server_cpu_percent": sum(server_each) if server_each else float("nan"),
        "server_cpu_percent_each": server_each,
        "locust_cpu_percent": locust_cpu[0] if locust_cpu else float("nan"),
        "machine_cpu_percent": machine[0] if machine else float("nan"),
        # the CPU of everything else on the machine while locust ran (other users' work;
        # the samples of processes and machine are not simultaneous: +-5% of noise)
        "background_cpu_percent": (machine[0] - ours[0]) if machine and ours else float("nan"),
    }
    if soak:
        out["memory"] = memory_verdict(rss_total, warmup_s)
        out["memory"]["warmup_s"] = warmup_s
    return out


def _cpu_percent(samples: list[dict[str, Any]], from_s: float) -> list[float]:
    """Average CPU (100 = one core) of each process between the first sample at or after
    `from_s` (else the first) and the last one, from cumulative CPU seconds."""
    if len(samples) < 2:
        return []
    start = next((s for s in samples if s["t"] >= from_s), samples[0])
    if start is samples[-1]:
        start = samples[0]
    end = samples[-1]
    span = end["t"] - start["t"]
    if span <= 0:
        return []
    return [100.0 * (b - a) / span for a, b in zip(start["cpu_s"], end["cpu_s"])]


def format_summary(summary: dict[str, Any]) -> str:
    """The summary as text: a table per rpc, then the totals and checks."""
    lines = []
    cols = ("requests", "failures", "req/s", "p50", "p95", "p99", "max")
    names = sorted(summary["rpcs"], key=lambda n: (n == "Aggregated", n))
    width = max([len(n) for n in names] + [10])
    lines.append(f"\n{'rpc':<{width}}  " + "  ".join(f"{c:>9}" for c in cols)
                 + "   (latency ms)")
    for n in names:
        r = summary["rpcs"][n]
        lines.append(f"{n:<{width}}  {r['requests']:>9}  {r['failures']:>9}  {r['rps']:>9.1f}  "
                     f"{r['p50']:>9.0f}  {r['p95']:>9.0f}  {r['p99']:>9.0f}  {r['max']:>9.0f}")
    cfg = summary.get("config", {})
    lines.append("")
    lines.append(f"hints/s: {summary['hints_per_s']:.1f} ({summary['hint_requests']} "
                 f"SuggestMoves); failures: {summary['failures']} of {summary['requests']} "
                 f"requests; RESOURCE_EXHAUSTED retries: {summary['retries']}; games "
                 f"finished: {summary['games_finished']}")
    for f in summary["failure_errors"]:
        lines.append(f"  failure: {f['name']}: {f['error']} x{f['occurrences']}")
    for t in summary["time_budget_targets"]:
        lines.append(f"target p99 <= budget + {TARGET_SLACK_MS:.0f} ms: {t['name']}: p99 "
                     f"{t['p99']:.0f} ms vs {t['limit']:.0f} ms: "
                     f"{'met' if t['met'] else 'MISSED'}")
    lines.append(f"server RSS: {summary['rss_mb_first']:.1f} MB at start, peak "
                 f"{summary['rss_mb_peak']:.1f} MB, {summary['rss_mb_last']:.1f} MB at end "
                 f"(all servers); CPU: servers {summary['server_cpu_percent']:.0f}% ("
                 + " + ".join(f"{c:.0f}%" for c in summary["server_cpu_percent_each"])
                 + f"), locust {summary['locust_cpu_percent']:.0f}%, everything else "
                 f"{max(0.0, summary['background_cpu_percent']):.0f}% (100% = one core)")
    if "server_view" in summary:
        lines.extend(format_server_view(summary["server_view"]))
    if "load_average_before" in summary:
        lines.append(f"load average: {summary['load_average_before'][0]:.2f} before, "
                     f"{summary['load_average_after'][0]:.2f} after ({cfg.get('cores')} cores)")
    if "memory" in summary:
        lines.append("")
        lines.append(format_memory(summary))
    if "files" in summary:
        lines.append(f"reports: {summary['files']['stats_csv']}, {summary['files']['html']}")
    return "\n".join(lines)


def format_memory(summary: dict[str, Any]) -> str:
    """The soak's memory series and verdict."""
    mem = summary["memory"]
    lines = ["memory (RSS, MB) over time:", "      t (s)   " + "  ".join(
        f"server{i}" for i in range(len(summary["memory_samples"][0]["rss_mb"])))]
    for s in summary["memory_samples"]:
        lines.append(f"    {s['t']:>7.0f}   " + "  ".join(f"{m:>7.1f}" for m in s["rss_mb"]))
    if mem.get("samples", 0) >= 2:
        lines.append(f"after {mem['warmup_s']:.0f} s of warm-up: {mem['first_mb']:.1f} -> "
                     f"{mem['last_mb']:.1f} MB, min {mem['min_mb']:.1f}, max "
                     f"{mem['max_mb']:.1f}, spread {100 * mem['spread']:.1f}%, slope "
                     f"{mem['slope_mb_per_min']:+.2f} MB/min: "
                     f"{'levelled off (flat within 10%)' if mem['flat'] else 'NOT flat'}")
    else:
        lines.append(f"memory verdict: {mem.get('reason')}")
    return "\n".join(lines)


def memory_verdict(samples: Sequence[tuple[float, float]], warmup_s: float,
                   tolerance: float = 0.10) -> dict[str, Any]:
    """Whether memory levelled off: after the warm-up, the samples stay within
    `tolerance` of each other ((max - min) / min), and the last is within `tolerance`
    of the first.

    Args:
        samples: (seconds since start, RSS in MB), in time order.
        warmup_s: samples before this time are not judged.
        tolerance: allowed relative spread (0.10: 10%).

    Returns:
        {"flat": bool, "spread": relative spread, "first_mb", "last_mb", "min_mb",
        "max_mb", "slope_mb_per_min": least-squares slope after warm-up, "samples": n}.

    >>> memory_verdict([(0, 50), (10, 80), (20, 81), (30, 80.5), (40, 81)], 10)["flat"]
    True
    """
    kept = [(t, m) for t, m in samples if t >= warmup_s]
    if len(kept) < 2:
        return {"flat": False, "spread": float("nan"), "samples": len(kept),
                "reason": "fewer than 2 samples after the warm-up"}
    mbs = [m for _, m in kept]
    lo, hi = min(mbs), max(mbs)
    n = len(kept)
    mean_t = sum(t for t, _ in kept) / n
    mean_m = sum(mbs) / n
    var_t = sum((t - mean_t) ** 2 for t, _ in kept)
    slope = (sum((t - mean_t) * (m - mean_m) for t, m in kept) / var_t * 60.0) if var_t else 0.0
    spread = (hi - lo) / lo if lo else float("inf")
    drift = abs(mbs[-1] - mbs[0]) / mbs[0] if mbs[0] else float("inf")
    return {"flat": spread <= tolerance and drift <= tolerance, "spread": spread,
            "drift": drift, "first_mb": mbs[0], "last_mb": mbs[-1], "min_mb": lo,
            "max_mb": hi, "slope_mb_per_min": slope, "samples": n}
