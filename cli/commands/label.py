"""``gallerist label``: add playout labels (the ``playout_win`` column) to the shards of a
self-play directory (the library is `ai.selfplay.labels`)."""
from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
import time
from typing import Any

from gallerist.cli.commands import CliError
from gallerist.ai.selfplay.labels import MAX_PLAYOUTS
from gallerist.ai.words import counted, plural
from gallerist.cli.commands.options import MAX_WORKERS, add_command, int_range, worker_count

__all__ = ["add", "run"]


def add(sub: Any) -> None:
    """Add ``label`` to the subcommands."""
    p = add_command(
        sub, "label", run, help="add playout labels to self-play records",
        description="Label every recorded position of the self-play directory DIR with every "
                    "seat's mean win share over N uniform random playouts from the deciding "
                    "player's view (the playout_win column; the same numbers 'gallerist "
                    "selfplay --playouts N' records), replaying each game from its seed. Each "
                    "shard is rewritten in place with its sha256 in the manifest; running "
                    "again continues (shards labelled with N are kept), and later 'gallerist "
                    "selfplay' runs in DIR label their shards alike. Train on the labels "
                    "with 'gallerist train --value-target playouts'.")
    p.add_argument("dir", metavar="DIR", help="a gallerist selfplay directory")
    p.add_argument("--playouts", type=int_range(1, MAX_PLAYOUTS), default=100, metavar="N",
                   help=f"playouts per position, 1..{MAX_PLAYOUTS:,} (default 100; about 85 us "
                        f"each)")
    p.add_argument("--workers", type=worker_count, default=None, metavar="W",
                   help=f"processes labelling games in parallel, 1..{MAX_WORKERS} (default: "
                        f"all cores)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    """``gallerist label``."""
    from tqdm import tqdm
    from tqdm.contrib.logging import logging_redirect_tqdm

    from gallerist.ai.selfplay.labels import label_directory

    playouts = args.playouts
    workers = args.workers or min(os.cpu_count() or 1, MAX_WORKERS)
    bars: list[Any] = []

    def progress(done: int, total: int) -> None:
        if args.no_progress or not total:
            return
        if not bars:
            bars.append(tqdm(total=total, unit="position", desc="label", file=sys.stderr))
        bars[0].update(done - bars[0].n)

    redirect = (contextlib.nullcontext() if args.no_progress
                else logging_redirect_tqdm(loggers=[logging.getLogger("gallerist")]))
    t0 = time.perf_counter()
    try:
        with redirect:
            result = label_directory(args.dir, playouts, workers=workers, progress=progress)
    except ValueError as exc:   # LabelError: not a self-play directory, a changed shard
        raise CliError(str(exc)) from None
    except OSError as exc:   # a shard not written
        raise CliError(str(exc), status=1) from None
    finally:
        for bar in bars:
            bar.close()
    print(f"{args.dir}: {counted(result.shards_labelled, 'shard')} labelled with "
          f"{playouts} {plural(playouts, 'playout')} a position ({counted(result.positions, 'position')}, "
          f"{time.perf_counter() - t0:.1f} s), {result.shards_kept} already labelled")
    if result.interrupted:
        print(f"interrupted; the labelled shards are kept; continue with: gallerist label "
              f"{args.dir} --playouts {playouts}", file=sys.stderr)
        return 130
    return 0
