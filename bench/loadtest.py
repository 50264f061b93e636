"""Load-test the GalleristAI service with locust: start servers, run locust headless,
summarize, stop.

Usage:
    python bench/loadtest.py                                  # 60 s, 2 workers, default mix
    python bench/loadtest.py --duration 30 --workers 1 --users 1 --budgets time_ms=10
    python bench/loadtest.py --replicas 2 --workers 1         # 2 servers, round robin
    python bench/loadtest.py --soak --duration 5m             # + memory over time, verdict
    gallerist loadtest ...                                    # the same, from a checkout

It starts ``--replicas`` server processes (``python -m server serve --host 127.0.0.1
--port 0 --workers W``; each prints the port it bound), waits until each one's health
check answers SERVING, and runs ``locust -f bench/locustfile.py --headless`` against them
for ``--duration``: ``--users`` SuggestMoves clients (default: one per search slot, so the
servers run flat out without refusing work) with budgets drawn from ``--budgets``, plus
``--players`` clients playing whole games through NewGame/LegalActions/ApplyAction. With
several replicas the locust host is one gRPC target over every address with client-side
round-robin load balancing ("ipv4:127.0.0.1:P1,127.0.0.1:P2",
``grpc.lb_policy_name=round_robin``). Statistics are reset once every user is spawned.

It prints, per rpc (and per budget of the mix): requests, failures, requests/s and
p50/p95/p99/max latency (locust's CSV: latencies rounded as locust rounds them), the
hints per second, the failure count, the RESOURCE_EXHAUSTED retries, whether time budgets
met p99 <= budget + 20 ms, and the servers' memory (RSS) and CPU and the load generator's
CPU. It writes locust's CSV files (PREFIX_stats.csv, PREFIX_failures.csv,
PREFIX_stats_history.csv), its HTML report and a JSON summary into ``--out``, then stops
the servers (SIGTERM: graceful shutdown).

``--soak`` samples the servers' RSS every ``--sample-s`` seconds (default 10), prints the
series and judges it: after ``--warmup`` (default: a fifth of the run, at most 60 s)
memory must stay within 10% ((max - min) / min, and last vs first).

The exit status is 0 when the run had no failure (and, with --soak, memory was flat),
1 otherwise, 2 for bad options.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
for _path in (ROOT, BENCH):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from loadlib import (  # noqa: E402
    DEFAULT_BUDGETS,
    DEFAULT_CORPUS,
    BudgetMix,
    RpcStats,
    memory_verdict,
    parse_duration,
    read_failures_csv,
    read_stats_csv,
)

__all__ = ["DESCRIPTION", "ServerProcess", "add_arguments", "main", "run", "run_from_args"]

DESCRIPTION = __doc__.split("\n\n", 1)[0].replace("\n", " ")
LOCUSTFILE = os.path.join(BENCH, "locustfile.py")
DEFAULT_OUT = os.path.join(BENCH, "results")
#: Service name whose health is checked.
SERVICE = "gallerist.v1.GalleristAI"
#: The latency target of time budgets: p99 within budget + this many ms.
TARGET_SLACK_MS = 20.0


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))


# ---------------------------------------------------------------------------- servers


class ServerProcess:
    """``python -m server serve`` in a child process, on a free port of 127.0.0.1.

    Args:
        workers: search slots (``--workers``).
        log_path: file that receives the server's output.
        extra: more ``serve`` options.
        start_timeout: seconds to wait for the port and SERVING health.
        nice: added to the server's scheduling niceness (see `run`).
    """

    def __init__(self, workers: int, log_path: str, extra: list[str] | None = None,
                 start_timeout: float = 30.0, nice: int = 0) -> None:
        self.workers = workers
        self.log_path = log_path
        self._log = open(log_path, "w", encoding="utf-8")  # noqa: SIM115 - closed in stop()
        cmd = [sys.executable, "-m", "server", "serve", "--host", "127.0.0.1", "--port", "0",
               "--workers", str(workers), "--log-level", "WARNING", *(extra or [])]
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=_env(), stdout=self._log,
                                     stderr=subprocess.STDOUT,
                                     preexec_fn=(lambda: os.nice(nice)) if nice else None)
        try:
            self.port = self._wait_port(start_timeout)
            self.address = f"127.0.0.1:{self.port}"
            self._wait_serving(start_timeout)
        except BaseException:
            self.stop()
            raise

    def _wait_port(self, timeout: float) -> int:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with open(self.log_path, encoding="utf-8", errors="replace") as fh:
                match = re.search(r"listening on \S+:(\d+)", fh.read())
            if match:
                return int(match.group(1))
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


# ---------------------------------------------------------------------------- sampling


@dataclass
class Sampler:
    """Samples the RSS and the CPU time used so far of the servers, the CPU time of
    locust and the busy time of the whole machine, every `interval` seconds in a
    background thread (psutil)."""

    pids: list[int]
    interval: float
    locust_pid: int | None = None
    samples: list[dict[str, Any]] = field(default_factory=list)

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
        self.samples.append(row)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample()


# ---------------------------------------------------------------------------- the run


def locust_command(target: str, users: int, players: int, spawn_rate: float, seconds: float,
                   prefix: str, html: str, budgets: str, retries: int, extra_json: str,
                   corpus: str, hint_wait: float, play_wait: float,
                   invalid_share: float) -> list[str]:
    """The locust command line of a run."""
    return [sys.executable, "-m", "locust", "-f", LOCUSTFILE, "--headless",
            "-u", str(users + players), "-r", f"{spawn_rate:g}",
            "-t", f"{max(1, round(seconds))}s", "--host", target, "--csv", prefix,
            "--html", html, "--reset-stats", "--only-summary", "--stop-timeout", "0",
            "--exit-code-on-error", "0", "--budgets", budgets, "--players", str(players),
            "--retries", str(retries), "--extra-json", extra_json, "--corpus", corpus,
            "--hint-wait", f"{hint_wait:g}", "--play-wait", f"{play_wait:g}",
            "--invalid-share", f"{invalid_share:g}"]


def run(*, duration: float = 60.0, users: int | None = None, players: int = 1,
        spawn_rate: float = 10.0, workers: int = 2, replicas: int = 1,
        budgets: str = DEFAULT_BUDGETS, retries: int = 5, out: str = DEFAULT_OUT,
        name: str = "loadtest", soak: bool = False, sample_s: float | None = None,
        warmup_s: float | None = None, corpus: str = DEFAULT_CORPUS, hint_wait: float = 0.0,
        play_wait: float = 0.0, invalid_share: float = 0.0, server_args: list[str] | None = None,
        server_nice: int = 0, quiet: bool = False) -> dict[str, Any]:
    """Start the servers, run locust against them, stop them, and summarize.

    Args:
        duration: seconds of load after every user is spawned (statistics are reset then).
        users: SuggestMoves clients (default: workers * replicas, one per search slot).
        players: clients playing whole games.
        spawn_rate: users started per second.
        workers: search slots of each server.
        replicas: servers, behind one round-robin channel.
        budgets: the budget mix (see `loadlib.BudgetMix`).
        retries: retries of RESOURCE_EXHAUSTED answers.
        out: directory of the reports; files are named ``{name}_...``.
        soak: judge the memory series (see the module docstring).
        sample_s: seconds between memory samples (default 10 with soak, else 2).
        warmup_s: samples before this are not judged (default duration / 5, at most 60).
        corpus, hint_wait, play_wait, invalid_share: passed to the locustfile.
        server_args: more ``gallerist serve`` options.
        server_nice: niceness added to the servers, so that locust, sharing their cores,
            gets a core as soon as it has work: otherwise its delays while both cores
            search are counted against the servers.
        quiet: print nothing.

    Returns:
        The summary (also written to ``{out}/{name}_summary.json``).
    """
    BudgetMix.parse(budgets)      # fail early on a bad mix
    if workers < 1 or replicas < 1 or players < 0 or duration <= 0 or spawn_rate <= 0:
        raise ValueError("workers, replicas, duration and spawn rate must be positive, "
                         "players >= 0")
    users = workers * replicas if users is None else users
    if users < 0 or users + players < 1:
        raise ValueError("need at least one user")
    say = (lambda *a, **k: None) if quiet else print
    os.makedirs(out, exist_ok=True)
    prefix = os.path.join(out, name)
    html = prefix + "_report.html"
    extra_json = prefix + "_extra.json"
    for suffix in ("_stats.csv", "_failures.csv", "_extra.json"):
        if os.path.exists(prefix + suffix):
            os.remove(prefix + suffix)
    ramp_s = (users + players) / spawn_rate
    # locust's -t counts from the start, spawning included; stats are reset after it.
    run_s = duration + ramp_s
    sample_s = sample_s or (10.0 if soak else 2.0)
    if warmup_s is None:
        warmup_s = min(60.0, duration / 5.0)
    load_before = os.getloadavg()

    servers: list[ServerProcess] = []
    sampler: Sampler | None = None
    try:
        for r in range(replicas):
            servers.append(ServerProcess(workers, f"{prefix}_server{r}.log", server_args,
                                         nice=server_nice))
        target = round_robin_target([s.address for s in servers])
        say(f"{replicas} server(s) with {workers} worker(s) each at {target}; {users} "
            f"SuggestMoves user(s) [{budgets}] + {players} game player(s) for "
            f"{duration:g} s (+{ramp_s:.1f} s spawning); load average "
            f"{load_before[0]:.2f} ({os.cpu_count()} cores)", flush=True)
        cmd = locust_command(target, users, players, spawn_rate, run_s, prefix, html,
                             budgets, retries, extra_json, corpus, hint_wait, play_wait,
                             invalid_share)
        sampler = Sampler([s.proc.pid for s in servers], sample_s)
        t0 = time.monotonic()
        with open(prefix + "_locust.log", "w", encoding="utf-8") as log:
            locust = subprocess.Popen(cmd, cwd=ROOT, env=_env(), stdout=log,
                                      stderr=subprocess.STDOUT)
            sampler.watch_locust(locust.pid)
            sampler.start()
            try:
                locust_rc = locust.wait(timeout=run_s + 120)
            except subprocess.TimeoutExpired:
                locust.kill()
                locust_rc = locust.wait()
            except BaseException:
                locust.terminate()
                locust.wait()
                raise
        wall = time.monotonic() - t0
        sampler.stop()
        if locust_rc != 0 or not os.path.exists(prefix + "_stats.csv"):
            with open(prefix + "_locust.log", encoding="utf-8", errors="replace") as fh:
                tail = fh.read()[-3000:]
            raise RuntimeError(f"locust failed (exit {locust_rc}):\n{tail}")
    finally:
        if sampler is not None and sampler._thread.is_alive():
            sampler.stop()
        exit_codes = [s.stop() for s in servers]

    stats = read_stats_csv(prefix + "_stats.csv")
    failures = read_failures_csv(prefix + "_failures.csv")
    extra: dict[str, Any] = {}
    if os.path.exists(extra_json):
        with open(extra_json, encoding="utf-8") as fh:
            extra = json.load(fh)
    summary = summarize(stats, failures, extra, sampler.samples if sampler else [],
                        budgets=budgets, warmup_s=warmup_s, soak=soak,
                        cpu_from_s=min(run_s / 2, ramp_s + 3.0))
    summary.update({
        "config": {"duration_s": duration, "users": users, "players": players,
                   "spawn_rate": spawn_rate, "workers": workers, "replicas": replicas,
                   "budgets": budgets, "retries": retries, "cores": os.cpu_count(),
                   "target": target, "wall_s": wall},
        "load_average_before": load_before, "load_average_after": os.getloadavg(),
        "server_exit_codes": exit_codes,
        "files": {"stats_csv": prefix + "_stats.csv", "failures_csv": prefix + "_failures.csv",
                  "history_csv": prefix + "_stats_history.csv", "html": html,
                  "locust_log": prefix + "_locust.log"},
        "locust_command": " ".join(cmd),
    })
    with open(prefix + "_summary.json", "w", encoding="utf-8") as fh:
        json.dump(summary, fh, indent=2, default=float)
    if not quiet:
        print(format_summary(summary))
    return summary


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


# ---------------------------------------------------------------------------- command line


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of the load test (also those of ``gallerist loadtest``)."""
    p.add_argument("--duration", default="60s",
                   help="load time after spawning: 90, 90s, 5m (default 60s)")
    p.add_argument("--users", type=int, default=None,
                   help="SuggestMoves users (default: workers x replicas, one per search "
                        "slot; more get RESOURCE_EXHAUSTED answers, retried)")
    p.add_argument("--players", type=int, default=1,
                   help="users playing whole games with LegalActions/ApplyAction (default 1)")
    p.add_argument("--spawn-rate", type=float, default=10.0, help="users per second (default 10)")
    p.add_argument("--workers", type=int, default=2,
                   help="search slots of each server (default 2)")
    p.add_argument("--replicas", type=int, default=1,
                   help="servers behind one round-robin gRPC channel (default 1)")
    p.add_argument("--budgets", default=DEFAULT_BUDGETS,
                   help="SuggestMoves budget mix: [BOT/]FIELD=VALUE[*WEIGHT],... with FIELD "
                        "iterations, time_ms or depth, e.g. 'time_ms=10*3,iterations=1000,"
                        f"expectimax/depth=2,greedy' (default {DEFAULT_BUDGETS!r})")
    p.add_argument("--retries", type=int, default=5,
                   help="retries of a RESOURCE_EXHAUSTED answer (default 5; 0: a failure)")
    p.add_argument("--hint-wait", type=float, default=0.0,
                   help="seconds between one user's SuggestMoves calls (default 0)")
    p.add_argument("--play-wait", type=float, default=0.0,
                   help="seconds between one player's moves (default 0)")
    p.add_argument("--corpus", default=DEFAULT_CORPUS, help="states for SuggestMoves")
    p.add_argument("--invalid-share", type=float, default=0.0,
                   help="fraction of SuggestMoves sent with a corrupted state, to check "
                        "that failures are counted (default 0)")
    p.add_argument("--out", default=DEFAULT_OUT,
                   help="directory of the CSV, HTML and JSON reports (default bench/results)")
    p.add_argument("--name", default="loadtest", help="file name prefix (default loadtest)")
    p.add_argument("--soak", action="store_true",
                   help="sample server memory over time, print it and judge whether it "
                        "levelled off (flat within 10%% after warm-up)")
    p.add_argument("--sample-s", type=float, default=None,
                   help="seconds between memory samples (default 10 with --soak, else 2)")
    p.add_argument("--warmup", default=None,
                   help="warm-up excluded from the memory verdict (default: a fifth of "
                        "the duration, at most 60 s)")
    p.add_argument("--server-arg", action="append", default=[], metavar="ARG",
                   help="extra 'gallerist serve' option, repeatable (e.g. "
                        "--server-arg=--state-cache=0)")
    p.add_argument("--server-nice", type=int, default=0, metavar="N",
                   help="run the servers N steps nicer than locust, which shares their "
                        "cores (default 0)")
    p.add_argument("--json", metavar="FILE", help="also write the summary here")


def run_from_args(args: argparse.Namespace) -> int:
    """Run the load test from parsed options; the exit status."""
    try:
        summary = run(duration=parse_duration(args.duration), users=args.users,
                      players=args.players, spawn_rate=args.spawn_rate, workers=args.workers,
                      replicas=args.replicas, budgets=args.budgets, retries=args.retries,
                      out=args.out, name=args.name, soak=args.soak, sample_s=args.sample_s,
                      warmup_s=None if args.warmup is None else parse_duration(args.warmup),
                      corpus=args.corpus, hint_wait=args.hint_wait, play_wait=args.play_wait,
                      invalid_share=args.invalid_share, server_args=args.server_arg,
                      server_nice=args.server_nice)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(summary, fh, indent=2, default=float)
    ok = summary["failures"] == 0 and summary["requests"] > 0
    if args.soak:
        ok = ok and bool(summary["memory"].get("flat"))
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    """``python bench/loadtest.py``."""
    parser = argparse.ArgumentParser(prog="loadtest", description=DESCRIPTION,
                                     epilog="See the module docstring of bench/loadtest.py.")
    add_arguments(parser)
    return run_from_args(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
