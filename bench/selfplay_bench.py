"""Self-play benchmark (scale target): games/s and positions/s of `gallerist
selfplay` with 1 and 2 workers, on local processes and on a local Ray cluster, with an
iteration-budgeted MCTS (deterministic work per game, so the runs compare). Target: 2
workers >= 1.7x one worker, on both backends.

Each measurement plays the same games (same seed) into a fresh directory; the Ray cluster
is started before the clock starts (with as many CPUs as workers) and warmed up with one
game, so the figures are the steady rate, not Ray's start-up. The machine's 1-minute load average at the end of
each measurement is printed with it: other work on the cores takes CPU from the 2-worker
runs first, and a load above the core count makes the speed-up meaningless.

`--compare` measures instead, in one run, games/hour of net-guided self-play (`gallerist
netplay`: the network's own search, its budgets as given) against self-play of `--spec`
(default there mcts:iterations=200, the budget the packaged models' self-play used) on 1
and 2 local workers (target: net-guided >= 5x), the bytes a game of both record formats,
and the parts of a rollout game (search, recording, shipping its rows to the parent,
writing its shard) that bear on the two-worker speed-up.

Usage:
    python bench/selfplay_bench.py [--spec mcts:iterations=100] [--games 12] [--no-ray]
        [--out bench/data/selfplay_bench.json]
    python bench/selfplay_bench.py --compare [--games 8] [--net-games 100]
        [--fast-iterations 32 --full-iterations 200 --full-fraction 0.25] [--out FILE]
    python bench/selfplay_bench.py --two-workers 200,100 [--games 8]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time

from gallerist.ai.selfplay.run import run_selfplay


def measure(spec: str, players: int, games: int, workers: int, backend: str, seed: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        t0, c0 = time.perf_counter(), os.times()
        run = run_selfplay(spec, players=players, games=games, out=os.path.join(tmp, "sp"),
                           workers=workers, backend=backend, seed=seed, games_per_shard=games)
        seconds, c1 = time.perf_counter() - t0, os.times()
    # CPU time of this process and its worker processes (local backend; Ray's workers are
    # not our children): the same games should cost the same CPU with 1 or 2 workers.
    cpu = None if backend == "ray" else sum(getattr(c1, k) - getattr(c0, k) for k in (
        "user", "system", "children_user", "children_system"))
    return {"backend": backend, "workers": workers, "games": run.games, "positions": run.positions,
            "seconds": seconds, "load_average_1min": os.getloadavg()[0], "cpu_seconds": cpu, "games_per_s": run.games / seconds,
            "positions_per_s": run.positions / seconds}


def _shard_bytes(folder: str) -> int:
    return sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder)
               if f.startswith("shard-"))


def measure_net(players: int, games: int, workers: int, seed: int, budgets: dict) -> dict:
    """Net-guided self-play (ai.selfplay.netplay) of `games` games on local workers."""
    from gallerist.ai.selfplay.netplay import run_netplay

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "np")
        t0, c0 = time.perf_counter(), os.times()
        run = run_netplay(players=players, games=games, out=out, workers=workers, seed=seed,
                          games_per_shard=games, **budgets)
        seconds, c1 = time.perf_counter() - t0, os.times()
        size = _shard_bytes(out)
    return _row("netplay", workers, run.games, run.targets, seconds, c0, c1, size)


def _row(kind: str, workers: int, games: int, positions: int, seconds: float, c0, c1,
         size: int) -> dict:
    cpu = sum(getattr(c1, k) - getattr(c0, k) for k in (
        "user", "system", "children_user", "children_system"))
    return {"kind": kind, "workers": workers, "games": games, "positions": positions,
            "seconds": seconds, "games_per_hour": games / seconds * 3600,
            "cpu_seconds": cpu, "cpu_seconds_per_game": cpu / games,
            "bytes_per_game": size / games, "load_average_1min": os.getloadavg()[0]}


def measure_rollout(spec: str, players: int, games: int, workers: int, seed: int) -> dict:
    """`gallerist selfplay` of `spec`, as `measure`, with its shard's bytes."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "sp")
        t0, c0 = time.perf_counter(), os.times()
        run = run_selfplay(spec, players=players, games=games, out=out, workers=workers,
                           seed=seed, games_per_shard=games)
        seconds, c1 = time.perf_counter() - t0, os.times()
        size = _shard_bytes(out)
    return _row("selfplay", workers, run.games, run.positions, seconds, c0, c1, size)


def rollout_parts(spec: str, players: int, games: int, seed: int) -> dict:
    """Seconds a rollout self-play game spends, played in this process: the game with
    its recording, its rows pickled and unpickled (what a worker ships to the parent), and
    the shard of `games` such games written (what the parent does alone)."""
    import pickle

    import numpy as np

    from gallerist.ai.selfplay.run import SelfplayGame, _write_shard, game_seed, play_selfplay_game

    played, rows = [], []
    for g in range(games):
        t0 = time.perf_counter()
        _, r = play_selfplay_game(SelfplayGame(index=g, seed=game_seed(seed, g),
                                               seats=(spec,) * players))
        played.append(time.perf_counter() - t0)
        rows.append(r)
    t0 = time.perf_counter()
    blobs = [pickle.dumps((g, r), protocol=pickle.HIGHEST_PROTOCOL) for g, r in enumerate(rows)]
    for b in blobs:
        pickle.loads(b)
    shipping = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as tmp:
        from pathlib import Path

        t0 = time.perf_counter()
        _write_shard(Path(tmp), 0, 0, rows)
        writing = time.perf_counter() - t0
    return {"games": games, "game_seconds": played, "game_seconds_mean": float(np.mean(played)),
            "game_seconds_spread": [float(min(played)), float(max(played))],
            "pickle_bytes_per_game": float(np.mean([len(b) for b in blobs])),
            "ship_seconds_per_game": shipping / games, "shard_write_seconds": writing}


def _timed_play(game):   # module level: the forked pool's workers find it by name
    from gallerist.ai.selfplay.run import play_selfplay_game

    start, cpu0 = time.time(), time.process_time()
    r0 = __import__("resource").getrusage(__import__("resource").RUSAGE_SELF).ru_minflt
    play_selfplay_game(game)
    r1 = __import__("resource").getrusage(__import__("resource").RUSAGE_SELF).ru_minflt
    return {"game": game.index, "pid": os.getpid(), "start": start, "end": time.time(),
            "cpu": time.process_time() - cpu0, "page_faults": r1 - r0}


def timeline(spec: str, players: int, games: int, workers: int, seed: int) -> dict:
    """Where a rollout run's wall time goes on `workers` local workers (the games only,
    no records written): each game's wall and CPU time in its worker, the workers' idle
    time before their first game and after their last, and page faults per game."""
    from gallerist.ai.arena.tournament import run_local
    from gallerist.ai.selfplay.run import SelfplayGame, game_seed

    plan = [SelfplayGame(index=g, seed=game_seed(seed, g), seats=(spec,) * players)
            for g in range(games)]
    t0 = time.time()
    done = list(run_local(plan, workers, play=_timed_play))
    wall = time.time() - t0
    by_pid: dict[int, list[dict]] = {}
    for d in done:
        by_pid.setdefault(d["pid"], []).append(d)
    start_idle = sum(min(d["start"] for d in ds) - t0 for ds in by_pid.values())
    tail_idle = sum(wall - (max(d["end"] for d in ds) - t0) for ds in by_pid.values())
    game_wall = sum(d["end"] - d["start"] for d in done)
    return {"workers": workers, "games": games, "wall": wall, "processes": len(by_pid),
            "game_wall_mean": game_wall / games, "game_cpu_mean": sum(d["cpu"] for d in done) / games,
            "start_idle": start_idle, "tail_idle": tail_idle,
            "page_faults_per_game": sum(d["page_faults"] for d in done) / games}


def two_workers(iterations: list[int], players: int, games: int, seed: int) -> list[dict]:
    """The two-worker gain of rollout self-play at each budget: `measure_rollout` of
    `games` games (shard written) and the `timeline` of 2 x `games` games, on 1 and 2
    workers, with the share of the machine's CPU time stolen by the hypervisor."""
    def stolen() -> tuple[int, int]:
        with open("/proc/stat", encoding="ascii") as fh:
            f = fh.readline().split()
        return int(f[8]), sum(int(x) for x in f[1:9])

    out = []
    for it in iterations:
        spec = f"mcts:iterations={it}"
        for workers in (1, 2):
            s0 = stolen()
            row = measure_rollout(spec, players, games, workers, seed)
            s1 = stolen()
            row.update(spec=spec, steal=(s1[0] - s0[0]) / max(1, s1[1] - s0[1]))
            t = timeline(spec, players, 2 * games, workers, seed)
            t.update(spec=spec, load_average_1min=os.getloadavg()[0])
            out += [row, t]
            print(f"{spec} {workers} worker(s): {games} games {row['games'] / row['seconds']:.3f} "
                  f"games/s (CPU {row['cpu_seconds_per_game']:.3f} s a game, steal "
                  f"{row['steal']:.3f}); {2 * games} games {t['wall']:.2f} s, a game "
                  f"{t['game_wall_mean']:.3f} s wall / {t['game_cpu_mean']:.3f} s CPU, idle "
                  f"{t['start_idle']:.2f} s before and {t['tail_idle']:.2f} s after, load "
                  f"{t['load_average_1min']:.2f}", flush=True)
    return out


def compare(args: argparse.Namespace) -> dict:
    """The --compare measurement: both kinds on 1 and 2 workers, then the parts."""
    budgets = {"fast_iterations": args.fast_iterations, "full_iterations": args.full_iterations,
               "full_fraction": args.full_fraction}
    print(f"net-guided ({budgets}, {args.net_games} games) against {args.spec} "
          f"({args.games} games), {args.players} players, {os.cpu_count()} cores, "
          f"load before {os.getloadavg()[0]:.2f}")
    print(f"{'kind':<9} {'workers':>7} {'games':>6} {'seconds':>8} {'games/h':>9} {'cpu s/game':>10} "
          f"{'bytes/game':>11} {'load':>5}")
    rows = []
    for workers in (1, 2):
        for kind in ("selfplay", "netplay"):
            row = (measure_rollout(args.spec, args.players, args.games, workers, args.seed)
                   if kind == "selfplay" else
                   measure_net(args.players, args.net_games, workers, args.seed, budgets))
            rows.append(row)
            print(f"{kind:<9} {workers:>7} {row['games']:>6} {row['seconds']:>8.2f} "
                  f"{row['games_per_hour']:>9,.0f} {row['cpu_seconds_per_game']:>10.3f} "
                  f"{row['bytes_per_game']:>11,.0f} {row['load_average_1min']:>5.2f}")
    rate = {(r["kind"], r["workers"]): r["games_per_hour"] for r in rows}
    ratios = {w: rate[("netplay", w)] / rate[("selfplay", w)] for w in (1, 2)}
    for w in (1, 2):
        print(f"{w} worker{'s' if w > 1 else ''}: net-guided {ratios[w]:.1f}x the games/hour (target >= 5x)")
    for kind in ("selfplay", "netplay"):
        print(f"{kind}: 2 workers {rate[(kind, 2)] / rate[(kind, 1)]:.2f}x one worker")
    parts = rollout_parts(args.spec, args.players, args.games, args.seed)
    print(f"a rollout game in this process: {parts['game_seconds_mean']:.2f} s "
          f"({parts['game_seconds_spread'][0]:.2f}-{parts['game_seconds_spread'][1]:.2f}); "
          f"its rows {parts['pickle_bytes_per_game'] / 1e6:.1f} MB pickled, "
          f"{parts['ship_seconds_per_game'] * 1000:.0f} ms to pickle and unpickle; the shard of "
          f"{args.games} games written in {parts['shard_write_seconds']:.2f} s")
    lines = [timeline(args.spec, args.players, args.games, w, args.seed) for w in (1, 2)]
    for t in lines:
        print(f"rollout games on {t['workers']} worker(s): wall {t['wall']:.2f} s; a game "
              f"{t['game_wall_mean']:.3f} s wall, {t['game_cpu_mean']:.3f} s CPU, "
              f"{t['page_faults_per_game']:,.0f} page faults; idle before the first game "
              f"{t['start_idle']:.2f} s, after the last {t['tail_idle']:.2f} s (summed over workers)")
    return {"rows": rows, "net_over_rollout": ratios, "rollout_parts": parts, "budgets": budgets,
            "rollout_timeline": lines}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--spec", default="mcts:iterations=100", help="bot spec (an iteration budget)")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=12, help="games per measurement")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-ray", action="store_true", help="skip the Ray backend")
    ap.add_argument("--out", default=None, help="write the figures as JSON here")
    ap.add_argument("--compare", action="store_true",
                    help="net-guided self-play against --spec (then mcts:iterations=200 by default)")
    ap.add_argument("--net-games", type=int, default=100, help="net-guided games per measurement")
    ap.add_argument("--fast-iterations", type=int, default=32)
    ap.add_argument("--full-iterations", type=int, default=200)
    ap.add_argument("--full-fraction", type=float, default=0.25)
    ap.add_argument("--two-workers", metavar="ITERS", default="",
                    help="rollout self-play's two-worker gain at these budgets, e.g. 100,200: "
                         "--games games with their shard, then the timeline of twice as many")
    args = ap.parse_args(argv)
    if args.two_workers:
        rows = two_workers([int(x) for x in args.two_workers.split(",")], args.players,
                           args.games, args.seed)
        if args.out:
            with open(args.out, "w", encoding="utf-8") as fh:
                json.dump({"when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                           "rows": rows}, fh, indent=1)
        return 0
    if args.compare:
        if "--spec" not in (argv if argv is not None else __import__("sys").argv):
            args.spec = "mcts:iterations=200"
        result = compare(args)
        if args.out:
            with open(args.out, "w", encoding="utf-8") as fh:
                json.dump({"spec": args.spec, "players": args.players, "games": args.games,
                           "net_games": args.net_games, "seed": args.seed,
                           "cores": os.cpu_count(), "machine": platform.machine(),
                           "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                           **result}, fh, indent=1)
        return 0
    configs = [("local", 1), ("local", 2)] + ([] if args.no_ray else [("ray", 1), ("ray", 2)])
    rows = []
    print(f"{args.spec}, {args.players} players, {args.games} games per measurement, "
          f"{os.cpu_count()} cores")
    print(f"{'backend':<8} {'workers':>7} {'games':>6} {'positions':>9} {'seconds':>8} "
          f"{'games/s':>8} {'positions/s':>11} {'load':>5} {'cpu s':>6}")
    for backend, workers in configs:
        if backend == "ray":
            import ray
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
            measure(args.spec, args.players, workers, workers, "ray", args.seed + 10_000)  # warm-up
        try:
            row = measure(args.spec, args.players, args.games, workers, backend, args.seed)
        finally:
            if backend == "ray":
                ray.shutdown()
        rows.append(row)
        cpu = row["cpu_seconds"]
        print(f"{backend:<8} {workers:>7} {row['games']:>6} {row['positions']:>9} {row['seconds']:>8.2f} "
              f"{row['games_per_s']:>8.3f} {row['positions_per_s']:>11.1f} {row['load_average_1min']:>5.1f} "
              f"{'-' if cpu is None else f'{cpu:.1f}':>6}")
    speedups = {}
    for backend in ("local", "ray"):
        one = [r for r in rows if r["backend"] == backend and r["workers"] == 1]
        two = [r for r in rows if r["backend"] == backend and r["workers"] == 2]
        if one and two:
            speedups[backend] = two[0]["games_per_s"] / one[0]["games_per_s"]
            print(f"{backend}: 2 workers {speedups[backend]:.2f}x one worker (target >= 1.7x)")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump({"spec": args.spec, "players": args.players, "games": args.games,
                       "seed": args.seed, "cores": os.cpu_count(), "machine": platform.machine(),
                       "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                       "rows": rows, "speedup_2_workers": speedups}, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
