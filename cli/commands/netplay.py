"""``gallerist netplay``: net-guided self-play into compact records (the library is
`ai.selfplay.netplay`). A command of its own rather than ``selfplay --net``: it takes no
bot spec, its search and budgets are fixed by its own options, and it writes another
record format; in ``selfplay`` half the options would be wrong in each mode."""
from __future__ import annotations

import argparse
import contextlib
import logging
import os
import shlex
import sys
import time
from typing import Any, Callable

from gallerist.ai.words import counted
from gallerist.cli.commands import CliError
from gallerist.cli.commands.options import (MAX_GAMES, MAX_WORKERS, add_command, game_count,
                                               float_range, int_range, worker_count)
from gallerist.cli.commands.selfplay import MAX_SELFPLAY_SEED

__all__ = ["add", "run"]


_fraction = float_range(0.0, 1.0)


def add(sub: Any) -> None:
    """Add ``netplay`` to the subcommands."""
    from gallerist.ai.selfplay.netplay import OPTIONS

    p = add_command(
        sub, "netplay", run, help="net-guided self-play (the network's own search), compact records",
        description="Self-play where every seat searches with the network alone: its value at "
                    "the leaf, its policy as the prior, no rollouts. Most moves get a cheap "
                    "search that records nothing, --full-fraction of them a full search whose "
                    "root values and visit shares are recorded (KataGo's playout cap "
                    "randomisation). Games go to compact records in --out (seed, moves, "
                    "quantised targets) that 'gallerist train' reads. Running again with the "
                    "same --out continues it; Ctrl-C keeps the finished games.")
    p.add_argument("--players", type=int_range(1, 4), default=2, metavar="N",
                   help="seats per game, 1 (solo) to 4 (default 2; 4 needs --model)")
    p.add_argument("--games", type=game_count, required=True, metavar="G",
                   help=f"games the directory holds at the end, 1..{MAX_GAMES:,}")
    p.add_argument("--out", required=True, metavar="DIR", help="the records' directory")
    p.add_argument("--model", default=None, metavar="PATH",
                   help="model file (default: $GALLERIST_MODEL, else the packaged one for "
                        "--players)")
    for name, (default, low, high, text) in OPTIONS.items():
        kind: Callable[[str], Any] = _fraction if isinstance(default, float) else int_range(low, high)
        shard = name == "games_per_shard"   # default: the directory's
        p.add_argument("--" + name.replace("_", "-"), type=kind, default=None if shard else default,
                       metavar="X" if isinstance(default, float) else "N",
                       help=f"{text}, {low}..{high} (default "
                            f"{'the directory' + chr(39) + 's, ' if shard else ''}{default}"
                            f"{' for a new one' if shard else ''})")
    p.add_argument("--workers", type=worker_count, default=1, metavar="W",
                   help=f"parallel games, 1..{MAX_WORKERS} (default 1)")
    p.add_argument("--backend", choices=("local", "ray"), default="local",
                   help="local processes, or ray: Ray tasks (pip install -e '.[ray]')")
    p.add_argument("--ray-address", default=os.environ.get("RAY_ADDRESS"), metavar="ADDR",
                   help="Ray cluster to run on (default $RAY_ADDRESS, else a local cluster)")
    p.add_argument("--seed", type=int_range(0, MAX_SELFPLAY_SEED), default=0, metavar="S",
                   help="base seed: game g is set up from seed + g, 0..2^62-1 (default 0)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _resume_command(args: argparse.Namespace) -> str:
    words = ["gallerist", "netplay", "--players", args.players, "--games", args.games,
             "--out", args.out, "--seed", args.seed, "--workers", args.workers,
             "--backend", args.backend, "--fast-iterations", args.fast_iterations,
             "--full-iterations", args.full_iterations, "--full-fraction", args.full_fraction]
    if args.model:
        words += ["--model", args.model]
    if args.games_per_shard:
        words += ["--games-per-shard", args.games_per_shard]
    return " ".join(shlex.quote(str(w)) for w in words)


def run(args: argparse.Namespace) -> int:
    """``gallerist netplay``."""
    from tqdm import tqdm
    from tqdm.contrib.logging import logging_redirect_tqdm

    from gallerist.ai.selfplay.netplay import OPTIONS, run_netplay

    bars: list[Any] = []
    t0 = time.perf_counter()

    def progress(done: int, total: int, targets: int) -> None:
        if args.no_progress:
            return
        if not bars:
            bars.append(tqdm(total=total, initial=done, unit="game", desc="netplay", file=sys.stderr))
        bar = bars[0]
        bar.update(done - bar.n)
        bar.set_postfix_str(f"{targets:,} targets, {bar.n / max(1e-9, time.perf_counter() - t0) * 3600:,.0f} games/h",
                            refresh=False)

    redirect = (contextlib.nullcontext() if args.no_progress
                else logging_redirect_tqdm(loggers=[logging.getLogger("gallerist")]))
    try:
        with redirect:
            result = run_netplay(players=args.players, games=args.games, out=args.out,
                                 model=args.model or "", workers=args.workers, backend=args.backend,
                                 seed=args.seed, ray_address=args.ray_address, progress=progress,
                                 **{k: getattr(args, k) for k in OPTIONS})
    except ValueError as exc:   # SelfplayError, ModelFileError: a bad option, model or directory
        raise CliError(str(exc)) from None
    except (OSError, ConnectionError) as exc:
        raise CliError(str(exc), status=1) from None
    finally:
        for bar in bars:
            bar.close()
    shards = result.manifest["shards"]
    size = sum(s["bytes"] for s in shards)
    print(f"{args.out}: {counted(result.games, 'game')}, {counted(result.targets, 'target')} in "
          f"{counted(len(shards), 'shard')} ({size / max(1, result.games):,.0f} bytes a game; "
          f"{counted(result.played, 'game')} played now, {result.seconds:.1f} s)")
    if result.interrupted:
        why = result.error or "interrupted"
        print(f"{why}; the finished games are kept; continue with: {_resume_command(args)}",
              file=sys.stderr)
        return 1 if result.error else 130
    return 0
