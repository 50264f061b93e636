"""``gallerist generations``: the generation loop of expert iteration with the network's
own search, for hours, resumable (the library is `ai.selfplay.generations`)."""
from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from gallerist.ai.selfplay.generations import LOOP_SETTINGS, RUN_SETTINGS
from gallerist.cli.commands import CliError
from gallerist.cli.commands.options import add_command, add_settings, key_value, worker_count

__all__ = ["add", "run"]


def add(sub: Any) -> None:
    """Add ``generations`` to the subcommands: its settings are `LOOP_SETTINGS` and
    `RUN_SETTINGS` of ai.selfplay.generations, one flag each."""
    p = add_command(
        sub, "generations", run, help="expert iteration: self-play, train, gate, promote",
        description="Each generation: net-guided self-play of the best model so far "
                    "(gallerist netplay), a candidate trained from the best on the games of "
                    "the last --window generations, a seat-paired gate against the best, "
                    "and the candidate promoted when it wins at least --gate of the gate's "
                    "games. Writes --out/generations.json (every generation, its gate and "
                    "Elo) and generations.png (Elo against self-play games). Stops after "
                    "--hours or --generations, or on Ctrl-C, keeping every finished "
                    "generation; the same --out goes on from the last one.")
    p.add_argument("--out", required=True, metavar="DIR", help="the loop's directory")
    add_settings(p, RUN_SETTINGS)
    add_settings(p, LOOP_SETTINGS)
    p.add_argument("--train", type=key_value, action="append", default=[],
                   metavar="KEY=VALUE",
                   help="an option of gallerist train, e.g. --train epochs=20 --train "
                        "hidden=64,64 (default: its defaults, started from the best model at "
                        "lr 0.0003, held-out games from the newest generation)")
    p.add_argument("--workers", type=worker_count, default=os.cpu_count() or 1, metavar="W",
                   help="parallel games (default: the cores)")
    p.add_argument("--backend", choices=("local", "ray"), default="local",
                   help="where the games are played: local worker processes (the default) "
                        "or a Ray cluster")


def run(args: argparse.Namespace) -> int:
    """``gallerist generations``."""
    from gallerist.ai.learn.options import TrainingError, check_options
    from gallerist.ai.selfplay.generations import LoopConfig, run_generations
    from gallerist.ai.selfplay.records import SelfplayError

    train = dict(args.train)
    try:
        check_options({"players": args.players, **train})
    except TrainingError as exc:
        raise CliError(f"--train {exc.option}: {exc.problem}") from None
    if args.start and not os.path.isfile(args.start):
        raise CliError(f"--start {args.start}: no such file")
    if args.players == 4 and not args.start:
        raise CliError("--players 4: no model is packaged for 4 players: give --start MODEL "
                       "(e.g. ai/models/default-3p.npz, the 3-player prior)")
    cfg = LoopConfig(**LOOP_SETTINGS.from_args(args), train=train)
    try:
        result = run_generations(args.out, cfg, **RUN_SETTINGS.from_args(args),
                                 workers=args.workers, backend=args.backend,
                                 log=lambda line: print(line, flush=True))
    except SelfplayError as exc:
        raise CliError(str(exc)) from None
    except KeyboardInterrupt:
        print("interrupted: every finished generation is kept; run again to go on",
              file=sys.stderr)
        return 130
    state = result.state
    best = state["generations"][state["best"]]
    print(f"{result.finished} generations finished ({result.stopped}); best: generation "
          f"{best['generation']} ({best['model']}, {best['elo']:+.0f} "
          f"{'$ a game' if args.players == 1 else 'Elo'} over generation 0); "
          f"{os.path.join(args.out, 'generations.json')}, generations.png")
    return 130 if result.stopped == "interrupted" else 0
