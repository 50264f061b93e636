"""``gallerist selfplay``: games between copies of a bot, every decision recorded for
training (the library is `ai.selfplay.run`; the record layout its docstring)."""
from __future__ import annotations

import argparse
import contextlib
import logging
import os
import shlex
import sys
import time
from typing import Any

from gallerist.ai.selfplay.labels import MAX_PLAYOUTS
from gallerist.ai.words import counted
from gallerist.cli.commands import CliError
from gallerist.cli.commands.options import (MAX_GAMES, MAX_WORKERS, add_command, game_count,
                                               int_range, worker_count)

__all__ = ["MAX_SELFPLAY_SEED", "add", "run"]

#: Largest base seed of a self-play run (`ai.selfplay.run`'s bound).
MAX_SELFPLAY_SEED = 2**62 - 1


def add(sub: Any) -> None:
    """Add ``selfplay`` to the subcommands."""
    p = add_command(
        sub, "selfplay", run, help="self-play games of a bot, recorded for training",
        description="Play games between copies of the bot SPEC (one per seat, each seeing "
                    "only its view) and record every decision: the observation, the legal "
                    "moves, the search's root visit shares (the policy target), the move, and "
                    "once the game ends every seat's final money and win share, in NumPy "
                    "shards with a manifest in --out. Running again with the same --out "
                    "continues it (a larger --games extends it); Ctrl-C keeps the complete "
                    "shards.")
    p.add_argument("spec", metavar="SPEC", help='bot spec, e.g. "mcts:iterations=400"')
    p.add_argument("--players", type=int_range(1, 4), default=2, metavar="N",
                   help="seats per game, 1 (solo) to 4 (default 2)")
    p.add_argument("--games", type=game_count, required=True, metavar="G",
                   help=f"games the directory holds at the end, 1..{MAX_GAMES:,}")
    p.add_argument("--workers", type=worker_count, default=1, metavar="W",
                   help=f"parallel games, 1..{MAX_WORKERS} (default 1)")
    p.add_argument("--backend", choices=("local", "ray"), default="local",
                   help="local processes, or ray: Ray tasks (pip install -e '.[ray]')")
    p.add_argument("--out", required=True, metavar="DIR", help="the records' directory")
    p.add_argument("--seed", type=int_range(0, MAX_SELFPLAY_SEED), default=0, metavar="S",
                   help="base seed: game g is set up from seed + g, 0..2^62-1 (default 0)")
    p.add_argument("--games-per-shard", type=int_range(1, MAX_GAMES), default=None, metavar="K",
                   help="games per shard file (default: the directory's, 100 for a new one)")
    p.add_argument("--ray-address", default=os.environ.get("RAY_ADDRESS"), metavar="ADDR",
                   help="Ray cluster to run on (default $RAY_ADDRESS, else a local cluster)")
    p.add_argument("--playouts", type=int_range(0, MAX_PLAYOUTS), default=None, metavar="N",
                   help="also label every position with every seat's mean win share over N "
                        "random playouts from the deciding player's view (the playout_win "
                        "column; default: the directory's, none for a new one)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _resume_command(args: argparse.Namespace) -> str:
    words = ["gallerist", "selfplay", args.spec, "--players", args.players, "--games", args.games,
             "--out", args.out, "--seed", args.seed, "--workers", args.workers,
             "--backend", args.backend]
    if args.playouts is not None:
        words += ["--playouts", args.playouts]
    return " ".join(shlex.quote(str(w)) for w in words)


def run(args: argparse.Namespace) -> int:
    """``gallerist selfplay``."""
    from tqdm import tqdm
    from tqdm.contrib.logging import logging_redirect_tqdm

    from gallerist.ai.selfplay.run import SelfplayError, run_selfplay

    games = args.games
    # The bar starts with the first report, once the arguments and the directory were
    # checked: an error is one line, not glued to a bar.
    bars: list[Any] = []
    t0 = time.perf_counter()
    first: list[int] = []

    def progress(done: int, total: int, positions: int) -> None:
        if args.no_progress:
            return
        if not bars:
            bars.append(tqdm(total=total, initial=done, unit="game", desc="selfplay", file=sys.stderr))
            first.append(positions)
        bar = bars[0]
        bar.total = total
        bar.update(done - bar.n)
        elapsed = time.perf_counter() - t0
        rate = (positions - first[0]) / elapsed if elapsed > 0 else 0.0
        bar.set_postfix_str(f"{positions:,} positions, {rate:,.0f} positions/s", refresh=False)

    redirect = (contextlib.nullcontext() if args.no_progress
                else logging_redirect_tqdm(loggers=[logging.getLogger("gallerist")]))
    try:
        with redirect:
            result = run_selfplay(args.spec, players=args.players, games=games, out=args.out,
                                  workers=args.workers, backend=args.backend, seed=args.seed,
                                  games_per_shard=args.games_per_shard,
                                  ray_address=args.ray_address, playouts=args.playouts,
                                  progress=progress)
    except ValueError as exc:   # SelfplayError: a bad spec, argument or directory
        raise CliError(str(exc)) from None
    except (OSError, ConnectionError) as exc:   # a file not written, Ray not reached
        raise CliError(str(exc), status=1) from None
    finally:
        for bar in bars:
            bar.close()
    summary = (f"{args.out}: {counted(result.games, 'game')}, "
               f"{counted(result.positions, 'position')} in "
               f"{counted(len(result.manifest['shards']), 'shard')} "
               f"({counted(result.played, 'game')} played now, {result.seconds:.1f} s)")
    print(summary)
    if result.played == 0 and result.games > games:
        print(f"note: {args.out} already holds more games than --games {games}: nothing played")
    if result.interrupted:
        why = result.error or "interrupted"
        if result.dropped:
            print(f"{counted(result.dropped, 'finished game')} of unfinished shards not kept: "
                  f"a shard is written once all its games are done; the next run plays "
                  f"{'them' if result.dropped > 1 else 'it'} again (the same games, from "
                  f"their seeds)", file=sys.stderr)
        print(f"{why}; the complete shards are kept; continue with: {_resume_command(args)}",
              file=sys.stderr)
        return 1 if result.error else 130
    return 0
