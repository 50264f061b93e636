"""Load-test the GalleristAI service with locust: start servers, run locust headless,
summarize, stop. ``gallerist loadtest`` and `bench/loadtest.py` run this driver; what it
starts, prints and writes, the soak verdict and its exit statuses are in bench/README.md
("Load test with locust"). Locust runs the packaged users (`users.py` beside this module)
and everything runs in the reports' folder, so an installed package needs no checkout.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gallerist.cli.load.corpus import DEFAULT_CORPUS
from gallerist.cli.load.locust_csv import read_failures_csv, read_stats_csv
from gallerist.cli.load.mix import DEFAULT_BUDGETS, BudgetMix
from gallerist.cli.load.report import format_summary, summarize
from gallerist.cli.load.sampler import Sampler
from gallerist.cli.load.server_view import scrape, server_view
from gallerist.cli.load.servers import ServerProcess, balancer_in_front, round_robin_target

__all__ = ["CLI_OUT", "DESCRIPTION", "LOCUSTFILE", "add_arguments", "parse_duration", "run",
           "run_from_args", "write_summary"]

DESCRIPTION = __doc__.split("\n\n", 1)[0].replace("\n", " ")
#: The locust users, a module of this package that locust imports by its path.
LOCUSTFILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "users.py")
#: Where ``gallerist loadtest`` writes its reports: a folder of the current directory
#: (``bench/loadtest.py`` passes bench/results).
CLI_OUT = "loadtest-results"
#: Seconds allowed for locust's start-up (imports, users' set-up) within its run time.
LOCUST_STARTUP_S = 3.0


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
        budgets: str = DEFAULT_BUDGETS, retries: int = 5, out: str = CLI_OUT,
        name: str = "loadtest", soak: bool = False, sample_s: float | None = None,
        warmup_s: float | None = None, corpus: str = DEFAULT_CORPUS, hint_wait: float = 0.0,
        play_wait: float = 0.0, invalid_share: float = 0.0, server_args: list[str] | None = None,
        server_nice: int = 0, balancer: str | None = None, quiet: bool = False,
        progress: bool = True) -> dict[str, Any]:
    """Start the servers, run locust against them, stop them, and summarize.

    Args:
        duration: seconds of load after every user is spawned (statistics are reset then).
        users: SuggestMoves clients (default: workers * replicas, one per search slot).
        players: clients playing whole games.
        spawn_rate: users started per second.
        workers: search slots of each server.
        replicas: servers, behind one round-robin channel (or `balancer`).
        budgets: the budget mix (see `server.load.mix.BudgetMix`).
        retries: retries of RESOURCE_EXHAUSTED answers.
        out: directory of the reports; files are named ``{name}_...``.
        soak: judge the memory series (see the module docstring).
        sample_s: seconds between memory samples (default 10 with soak, else 2).
        warmup_s: samples before this are not judged (default duration / 5, at most 60).
        corpus: the states of SuggestMoves (default: the packaged corpus).
        hint_wait, play_wait, invalid_share: passed to the locust users.
        server_args: more ``gallerist serve`` options.
        server_nice: niceness added to the servers, so that locust, sharing their cores,
            gets a core as soon as it has work: otherwise its delays while both cores
            search are counted against the servers.
        balancer: "nginx": the servers behind nginx (``least_conn``), which locust
            calls; None: behind locust's round-robin channel.
        quiet: print nothing.
        progress: show a progress bar on stderr while locust runs (not with `quiet`).

    Returns:
        The summary (also written to ``{out}/{name}_summary.json``).

    Raises:
        ValueError: a bad option or corpus; RuntimeError: locust missing or failed, a
            server that did not start.
    """
    users = _checked_users(budgets, users, workers, replicas, players, duration, spawn_rate)
    corpus = _checked_corpus(corpus)
    _check_locust()
    say = (lambda *a, **k: None) if quiet else print
    prefix = _fresh_prefix(out, name)
    ramp_s = (users + players) / spawn_rate
    # locust's -t counts from its own start, its imports and the spawning included; the
    # stats are reset once every user is spawned, so the measured load lasts about
    # `duration` as long as start-up takes at most LOCUST_STARTUP_S (on a busy machine
    # it took 4 s, and a short run measured nothing).
    run_s = duration + ramp_s + LOCUST_STARTUP_S
    sample_s = sample_s or (10.0 if soak else 2.0)
    warmup_s = min(60.0, duration / 5.0) if warmup_s is None else warmup_s
    load_before = os.getloadavg()

    def locust_at(target: str) -> list[str]:
        """Say what runs against `target`; locust's command line."""
        say(f"{replicas} server(s) with {workers} worker(s) each at {target}"
            f"{f' ({balancer})' if balancer else ''}; {users} "
            f"SuggestMoves user(s) [{budgets}] + {players} game player(s) for "
            f"{duration:g} s (+{ramp_s:.1f} s spawning); load average "
            f"{load_before[0]:.2f} ({os.cpu_count()} cores)", flush=True)
        return locust_command(target, users, players, spawn_rate, run_s, prefix,
                              prefix + "_report.html", budgets, retries, prefix + "_extra.json",
                              corpus, hint_wait, play_wait, invalid_share)

    done = _drive(prefix, replicas, workers, server_args, server_nice, sample_s, run_s, locust_at,
                  progress=progress and not quiet, balancer=balancer)
    config = {"duration_s": duration, "users": users, "players": players,
              "spawn_rate": spawn_rate, "workers": workers, "replicas": replicas,
              "balancer": balancer,
              "budgets": budgets, "retries": retries, "cores": os.cpu_count(),
              "target": done.target, "wall_s": done.wall_s}
    summary = _summarize_run(prefix, done, config, load_before, budgets=budgets, soak=soak,
                             warmup_s=warmup_s, cpu_from_s=min(run_s / 2, ramp_s + 3.0))
    if not quiet:
        print(format_summary(summary))
    return summary


def _checked_users(budgets: str, users: int | None, workers: int, replicas: int, players: int,
                   duration: float, spawn_rate: float) -> int:
    """The SuggestMoves users of a run (default: one per search slot), once its options
    are checked.

    Raises:
        ValueError: a bad budget mix or an option out of range.
    """
    BudgetMix.parse(budgets)      # fail early on a bad mix
    if workers < 1 or replicas < 1 or players < 0 or duration <= 0 or spawn_rate <= 0:
        raise ValueError("workers, replicas, duration and spawn rate must be positive, "
                         "players >= 0")
    users = workers * replicas if users is None else users
    if users < 0 or users + players < 1:
        raise ValueError("need at least one user")
    return users


def _check_locust() -> None:
    """Locust and gevent are there to run the users (the ``load`` extra).

    Raises:
        RuntimeError: one is missing (before any server starts)."""
    import importlib.util

    missing = [name for name in ("locust", "gevent") if importlib.util.find_spec(name) is None]
    if missing:
        raise RuntimeError(f"the load test needs {' and '.join(missing)}: "
                           "pip install 'gallerist-ai[load]'")


def _checked_corpus(path: str) -> str:
    """The corpus's absolute path (locust runs in the reports' folder), once it is a
    readable file.

    Raises:
        ValueError: no such file (before any server starts)."""
    path = os.path.abspath(path)
    if not os.path.isfile(path) or not os.access(path, os.R_OK):
        raise ValueError(f"--corpus {path}: not a readable file")
    return path


def _fresh_prefix(out: str, name: str) -> str:
    """The path prefix of a run's files in `out` (made if missing), after removing the
    files of an earlier run of that name that would be read as this run's. The prefix is
    absolute, and locust and the servers run in that folder.

    Raises:
        ValueError: `out` cannot be made or written (before any server starts)."""
    out = os.path.abspath(out)
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"--out {out}: cannot make the folder: {exc.strerror or exc}") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise ValueError(f"--out {out}: the folder is not writable; give another one")
    prefix = os.path.join(out, name)
    for suffix in ("_stats.csv", "_failures.csv", "_extra.json"):
        if os.path.exists(prefix + suffix):
            os.remove(prefix + suffix)
    return prefix


@dataclass(frozen=True)
class _Driven:
    """What a run of the servers and locust leaves for its summary."""

    target: str
    command: list[str]
    samples: list[dict[str, Any]]
    wall_s: float
    server_exit_codes: list[int | None]
    server_view: dict[str, Any]


def _drive(prefix: str, replicas: int, workers: int, server_args: list[str] | None,
           server_nice: int, sample_s: float, run_s: float,
           command: Callable[[str], list[str]], *, progress: bool = False,
           balancer: str | None = None) -> _Driven:
    """Start the servers (behind `balancer` if given), run locust (`command(target)`)
    against them while sampling them (nginx's processes count as servers), scrape their
    metrics before and after, and stop them, whatever happens.

    Raises:
        RuntimeError: a server did not start, or locust failed.
    """
    servers: list[ServerProcess] = []
    stack = contextlib.ExitStack()
    try:
        for r in range(replicas):
            servers.append(ServerProcess(workers, f"{prefix}_server{r}.log", server_args,
                                         nice=server_nice))
        pids = [s.proc.pid for s in servers]
        if balancer is not None:
            front = stack.enter_context(balancer_in_front([s.address for s in servers],
                                                          f"{prefix}_{balancer}.log"))
            target, pids = front.address, pids + front.pids
        else:
            target = round_robin_target([s.address for s in servers])
        cmd = command(target)
        urls = [s.metrics_url for s in servers]
        sampler = Sampler(pids, sample_s, metrics_urls=urls)
        before = _scrape_or_error(urls)
        wall = _sampled_locust(cmd, prefix, run_s, sampler, progress)
        after = _scrape_or_error(urls)
    finally:
        stack.close()
        exit_codes = [s.stop() for s in servers]
    if "error" in before or "error" in after:
        view = {"error": before.get("error") or after.get("error")}
    else:
        view = server_view(before, after, [s["slots_busy"] for s in sampler.samples
                                           if s.get("slots_busy") is not None])
    return _Driven(target, cmd, sampler.samples, wall, exit_codes, view)


def _scrape_or_error(urls: list[str]) -> dict[Any, Any]:
    """The servers' metrics summed (see `server_view.scrape`), or {"error": why}: a
    failed scrape costs the report its server's view, not the run."""
    try:
        return scrape(urls)
    except (OSError, ValueError) as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}


def _sampled_locust(cmd: list[str], prefix: str, run_s: float, sampler: Sampler,
                    progress: bool = False) -> float:
    """Run locust while `sampler` samples (with a progress bar of `run_s` seconds on
    stderr if `progress`); the wall time in seconds.

    Raises:
        RuntimeError: locust failed or wrote no statistics (with the end of its log).
    """
    t0 = time.monotonic()
    try:
        locust_rc = _wait_locust(cmd, prefix, run_s, sampler, progress)
        wall = time.monotonic() - t0
        sampler.stop()
    finally:
        if sampler._thread.is_alive():
            sampler.stop()
    if locust_rc != 0 or not os.path.exists(prefix + "_stats.csv"):
        with open(prefix + "_locust.log", encoding="utf-8", errors="replace") as fh:
            tail = fh.read()[-3000:]
        raise RuntimeError(f"locust failed (exit {locust_rc}):\n{tail}")
    return wall


#: Seconds locust may overrun its run time before it is killed.
LOCUST_GRACE_S = 120.0


def _wait_locust(cmd: list[str], prefix: str, run_s: float, sampler: Sampler,
                 progress: bool = False) -> int:
    """Run locust (its output into PREFIX_locust.log), starting `sampler` once it runs;
    its exit code (killed `LOCUST_GRACE_S` after `run_s` seconds; stopped if this is
    interrupted). With `progress`, a bar of the seconds run so far on stderr."""
    from tqdm import tqdm

    with open(prefix + "_locust.log", "w", encoding="utf-8") as log, \
            tqdm(total=round(run_s), unit="s", desc="loadtest", file=sys.stderr,
                 disable=not progress, leave=False,
                 bar_format="{desc}: {percentage:3.0f}%|{bar}| {n}/{total} s") as bar:
        # in the reports' folder: locust puts its working directory on sys.path
        locust = subprocess.Popen(cmd, cwd=os.path.dirname(prefix), stdout=log,
                                  stderr=subprocess.STDOUT)
        sampler.watch_locust(locust.pid)
        sampler.start()
        t0 = time.monotonic()
        try:
            while True:
                try:
                    return locust.wait(timeout=1.0)
                except subprocess.TimeoutExpired:
                    elapsed = time.monotonic() - t0
                    if elapsed > run_s + LOCUST_GRACE_S:
                        locust.kill()
                        return locust.wait()
                    bar.update(min(round(elapsed), bar.total) - bar.n)
        except BaseException:
            locust.terminate()
            locust.wait()
            raise


def _summarize_run(prefix: str, done: _Driven, config: dict[str, Any],
                   load_before: tuple[float, float, float], *, budgets: str,
                   warmup_s: float, soak: bool, cpu_from_s: float) -> dict[str, Any]:
    """The summary of a run from locust's files and the samples, with the run's facts;
    also written to PREFIX_summary.json."""
    stats = read_stats_csv(prefix + "_stats.csv")
    failures = read_failures_csv(prefix + "_failures.csv")
    extra: dict[str, Any] = {}
    if os.path.exists(prefix + "_extra.json"):
        with open(prefix + "_extra.json", encoding="utf-8") as fh:
            extra = json.load(fh)
    summary = summarize(stats, failures, extra, done.samples, budgets=budgets,
                        warmup_s=warmup_s, soak=soak, cpu_from_s=cpu_from_s)
    summary.update({
        "config": config,
        "load_average_before": load_before, "load_average_after": os.getloadavg(),
        "server_exit_codes": done.server_exit_codes,
        "server_view": done.server_view,
        "files": {"stats_csv": prefix + "_stats.csv", "failures_csv": prefix + "_failures.csv",
                  "history_csv": prefix + "_stats_history.csv",
                  "html": prefix + "_report.html", "locust_log": prefix + "_locust.log"},
        "locust_command": " ".join(done.command),
    })
    write_summary(prefix + "_summary.json", summary)
    return summary


def write_summary(path: str, summary: dict[str, Any]) -> None:
    """Write a run's summary as JSON (numpy numbers as floats)."""
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(summary, fh, indent=2, default=float)


def parse_duration(text: str | float) -> float:
    """Seconds from "90", "90s", "5m", "1h30m" (locust's own forms).

    >>> parse_duration("1m30s"), parse_duration("45"), parse_duration(2)
    (90.0, 45.0, 2.0)
    """
    if isinstance(text, (int, float)):
        return float(text)
    s = text.strip().lower()
    try:
        return float(s)
    except ValueError:
        pass
    total, number = 0.0, ""
    units = {"h": 3600.0, "m": 60.0, "s": 1.0}
    for ch in s:
        if ch.isdigit() or ch == ".":
            number += ch
        elif ch in units and number:
            total += float(number) * units[ch]
            number = ""
        else:
            raise ValueError(f"bad duration {text!r} (e.g. 30, 30s, 5m, 1h30m)")
    if number:
        raise ValueError(f"bad duration {text!r}: a number without a unit at the end")
    return total


def add_arguments(p: argparse.ArgumentParser, *, out: str = CLI_OUT,
                  fail_on_missed_targets: bool = False) -> None:
    """The options of the load test: those of ``gallerist loadtest`` with
    `fail_on_missed_targets`, those of ``bench/loadtest.py`` with `out` = bench/results."""
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
    p.add_argument("--balancer", choices=("nginx",), default=None,
                   help="put the servers behind nginx (least connections; Debian's nginx "
                        "package) instead of locust's round-robin channel")
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
    p.add_argument("--corpus", default=DEFAULT_CORPUS,
                   help="states for SuggestMoves, gzip-compressed JSON Lines as "
                        "bench/make_corpus.py writes them (default: the packaged corpus, "
                        "120 positions of 2-4 player games)")
    p.add_argument("--invalid-share", type=float, default=0.0,
                   help="fraction of SuggestMoves sent with a corrupted state, to check "
                        "that failures are counted (default 0)")
    p.add_argument("--out", default=out,
                   help=f"directory of the CSV, HTML and JSON reports, made if missing "
                        f"(default {_shown(out)})")
    p.add_argument("--fail-on-missed-targets", action=argparse.BooleanOptionalAction,
                   default=fail_on_missed_targets,
                   help="exit with status 1 when a time budget misses its latency target "
                        "(p99 <= budget + 20 ms); --no-fail-on-missed-targets only reports "
                        "it")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar on stderr while the load runs")
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


def _shown(path: str) -> str:
    """`path` as a help text shows it: relative to the current directory if inside it."""
    relative = os.path.relpath(path) if os.path.isabs(path) else path
    return path if relative.startswith("..") else relative


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
                      server_nice=args.server_nice, balancer=args.balancer,
                      progress=not args.no_progress)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.json:
        write_summary(args.json, summary)
    return run_status(summary, soak=args.soak, fail_on_missed_targets=args.fail_on_missed_targets)


def run_status(summary: dict[str, Any], *, soak: bool, fail_on_missed_targets: bool) -> int:
    """The exit status of a finished run: 1 (with an error line saying why) for failed
    requests, no request at all, memory that did not level off (`soak`) or, with
    `fail_on_missed_targets`, a missed latency target; else 0."""
    problems = []
    if summary["requests"] == 0:
        problems.append("no request was made")
    if summary["failures"]:
        problems.append(f"{summary['failures']} of {summary['requests']} requests failed")
    if soak and not summary["memory"].get("flat"):
        problems.append("server memory did not level off")
    missed = [t["name"] for t in summary["time_budget_targets"] if not t["met"]]
    if missed and fail_on_missed_targets:
        problems.append(f"latency target missed: {', '.join(missed)} (use "
                        f"--no-fail-on-missed-targets to only report it)")
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    return 1 if problems else 0
