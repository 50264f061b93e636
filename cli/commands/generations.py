"""``gallerist generations``: the generation loop of expert iteration with the network's
own search, for hours, resumable (the library is `ai.selfplay.generations`)."""
from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from gallerist.cli.commands import CliError
from gallerist.cli.commands.options import (add_command, float_range, int_range, key_value,
                                               worker_count)

__all__ = ["add", "run"]


_share = float_range(0.0, 1.0, above=True)
_hours = float_range(0.0, 24 * 365, "hours", above=True)


def add(sub: Any) -> None:
    """Add ``generations`` to the subcommands."""
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
    p.add_argument("--hours", type=_hours, default=1.0, metavar="H",
                   help="start no stage after H hours (default 1)")
    p.add_argument("--generations", type=int_range(1, 100_000), default=None, metavar="N",
                   help="stop after N more generations (default: only --hours)")
    p.add_argument("--players", type=int_range(1, 4), default=2, metavar="N",
                   help="1 (solo) to 4 (default 2); at 4 players no model is packaged: give "
                        "--start (e.g. ai/models/default-3p.npz, the 3-player prior, which "
                        "reads a 4-player game's observation)")
    p.add_argument("--start", default="", metavar="MODEL.npz",
                   help="generation 0's model (default: the packaged one for --players)")
    p.add_argument("--games", type=int_range(10, 1_000_000), default=6000, metavar="G",
                   help="self-play games a generation (default 6000)")
    p.add_argument("--window", type=int_range(1, 1000), default=3, metavar="W",
                   help="generations whose games train a candidate (default 3)")
    p.add_argument("--gate-games", type=int_range(2, 100_000), default=800, metavar="G",
                   help="seat-paired games of a gate (default 800)")
    p.add_argument("--gate", type=_share, default=0.53, metavar="SHARE",
                   help="the candidate's share of the gate's wins that promotes it at 2 players "
                        "(default 0.53); at 3 and 4 players, the Elo of that share on the "
                        "finishing orders (0.53: +20.9)")
    p.add_argument("--gate-iterations", type=int_range(1, 100_000), default=200, metavar="N",
                   help="each side's search in the gate, iterations a decision (default 200)")
    p.add_argument("--fast-iterations", type=int_range(1, 100_000), default=32, metavar="N",
                   help="self-play's cheap searches (default 32)")
    p.add_argument("--full-iterations", type=int_range(1, 100_000), default=200, metavar="N",
                   help="self-play's full searches, whose targets train (default 200)")
    p.add_argument("--full-fraction", type=_share, default=0.25, metavar="F",
                   help="share of decisions searched in full (default 0.25)")
    p.add_argument("--train", type=key_value, action="append", default=[],
                   metavar="KEY=VALUE",
                   help="an option of gallerist train, e.g. --train epochs=20 --train "
                        "hidden=64,64 (default: its defaults, started from the best model at "
                        "lr 0.0003, held-out games from the newest generation)")
    p.add_argument("--workers", type=worker_count, default=os.cpu_count() or 1, metavar="W",
                   help="parallel games (default: the cores)")
    p.add_argument("--backend", choices=("local", "ray"), default="local")
    p.add_argument("--seed", type=int_range(0, 2**40), default=0, metavar="S",
                   help="base seed of the run (default 0)")


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
    cfg = LoopConfig(players=args.players, games=args.games, window=args.window,
                     gate_games=args.gate_games, gate_threshold=args.gate,
                     gate_iterations=args.gate_iterations, fast_iterations=args.fast_iterations,
                     full_iterations=args.full_iterations, full_fraction=args.full_fraction,
                     seed=args.seed, start=args.start, train=train)
    try:
        result = run_generations(args.out, cfg, hours=args.hours, generations=args.generations,
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
