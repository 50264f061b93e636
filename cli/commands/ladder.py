"""``gallerist ladder``: the strength ladder (ai.arena.ladder): rungs from random to MCTS
and the default bot at 3,000 iterations, seat-paired games between near rungs, and their
ratings on one scale anchored at random = 0."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from gallerist.cli.commands import CliError
from gallerist.cli.commands.options import (MAX_WORKERS, add_command, check_output_path,
                                               int_range, seed_value, worker_count)

__all__ = ["add", "run"]


def add(sub: Any) -> None:
    """Add ``ladder`` to the subcommands."""
    from gallerist.ai.arena.ladder import ANCHOR, REACH, RUNGS, TABLE_RUNGS

    p = add_command(
        sub, "ladder", run, help="rate fixed rungs of bots on one Elo scale",
        description="Play seat-paired two-player games between rungs close in strength "
                    "(random, greedy, expectimax by depth, MCTS and the default bot by "
                    f"iterations) and rate them by Bradley-Terry, {ANCHOR} fixed at 0 Elo. "
                    "With --players 3 or 4, every run of that many neighbouring rungs shares "
                    "a table in every rotation of the seats, rated on finishing orders by "
                    "pairs; with --players 1, each rung plays solo against Lacerda and the "
                    "ladder is its mean money. Games already in the records file are not "
                    "played again, so a run stopped early continues, and a new rung plays "
                    "only its own games.")
    p.add_argument("--players", type=int, choices=(1, 2, 3, 4), default=2,
                   help="players per game (default 2; 1: solo against Lacerda)")
    p.add_argument("--rungs", default=None, metavar="A,B,...",
                   help=f"the rungs to play (default all: {', '.join(r.name for r in RUNGS)}; "
                        f"at 3-4 players {', '.join(TABLE_RUNGS)})")
    p.add_argument("--games-per-pair", type=int_range(1, 100_000), default=20, metavar="N",
                   help="games between each pair of near rungs, both seatings of N/2 setups "
                        "(even; default 20); at 3-4 players the games of each table (a "
                        "multiple of the players), solo the games of each rung")
    p.add_argument("--reach", type=int_range(1, len(RUNGS)), default=REACH, metavar="K",
                   help=f"each rung meets the next K rungs (default {REACH}); the ratings "
                        "use every game between the rungs in the records, so a run with "
                        "--reach 1 adds games between neighbours only")
    p.add_argument("--levels", nargs="?", const="all", default=None, metavar="N,N,...",
                   help="also play the levels (all, or these): each against the next level "
                        "(--games-per-pair games) and against the two rungs nearest it "
                        "(--tie-games), and write their ratings to --levels-out")
    p.add_argument("--tie-games", type=int_range(2, 100_000), default=20, metavar="N",
                   help="with --levels: games between a level and each rung tied to it "
                        "(even; default 20)")
    p.add_argument("--levels-out", default="levels.json", metavar="PATH",
                   help="with --levels: the levels' ratings as JSON, the file the level bot "
                        "reads (packaged: ai/bots/levels.json; default levels.json)")
    p.add_argument("--measure", default=None, metavar="SPEC",
                   help="also rate this bot (e.g. level:elo=900) on the ladder's scale: "
                        "--games-per-pair games against each rung of --against")
    p.add_argument("--against", default=None, metavar="A,B",
                   help="with --measure: the rungs it plays (those nearest its strength)")
    p.add_argument("--workers", type=worker_count, default=1,
                   help=f"games in parallel, 1..{MAX_WORKERS} (default 1)")
    p.add_argument("--backend", choices=("local", "ray"), default="local",
                   help="local processes or Ray tasks (default local)")
    p.add_argument("--ray-address", default=None, metavar="ADDRESS",
                   help="with --backend ray: a running Ray cluster (default: start one here)")
    p.add_argument("--seed", type=seed_value, default=0, help="base setup seed (default 0)")
    p.add_argument("--records", default=None,
                   help="JSON Lines file of the games, read and appended to (default "
                        "ladder-games.jsonl; ladder-3p-games.jsonl, ladder-solo-games.jsonl, ...)")
    p.add_argument("--out", default=None,
                   help="ratings as JSON (default ladder.json; ladder-3p.json, ...)")
    p.add_argument("--png", default=None,
                   help="Elo against budget, log axis (default ladder.png; ladder-3p.png, ...)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _names(players: int) -> tuple[str, str, str]:
    """The default records, ratings and picture files of a ladder of `players`."""
    stem = "ladder" if players == 2 else "ladder-solo" if players == 1 else f"ladder-{players}p"
    return f"{stem}-games.jsonl", f"{stem}.json", f"{stem}.png"


def _plan(args: argparse.Namespace) -> tuple[list[Any], list[Any]]:
    """The rungs and the games of the ladder the options ask for."""
    from gallerist.ai.arena.ladder import (TABLE_RUNGS, LadderError, ladder_games, level_games,
                                           level_rungs, measured_games, rungs_named, solo_games,
                                           table_games)

    n = args.players
    if (args.levels or args.measure) and n != 2:
        raise CliError(f"--{'levels' if args.levels else 'measure'}: the levels and measured "
                       "bots are rated at 2 players; leave --players out")
    try:
        names = args.rungs.split(",") if args.rungs else (TABLE_RUNGS if n >= 3 else None)
        rungs = rungs_named(names)
        if n == 1:
            return rungs, solo_games(rungs, args.games_per_pair, args.seed)
        if n >= 3:
            return rungs, table_games(rungs, n, args.games_per_pair, args.seed)
        if len(rungs) < 2:
            raise CliError("--rungs: a ladder needs at least two rungs")
        plan = ladder_games(rungs, args.games_per_pair, args.seed, args.reach)
        if args.measure:
            if not args.against:
                raise CliError("--measure needs --against A,B: the rungs it plays")
            against = rungs_named(args.against.split(","))
            measured, games = measured_games(args.measure, against, args.games_per_pair,
                                             args.seed)
            plan = plan + games
            rungs = rungs + [r for r in against if r not in rungs] + [measured]
        if args.levels:
            try:
                levels = level_rungs(None if args.levels == "all" else args.levels.split(","))
            except LadderError as exc:
                raise CliError(f"--levels: {exc}") from None
            plan = plan + level_games(levels, rungs, args.games_per_pair, args.tie_games,
                                      args.seed)
            rungs = rungs + levels
    except LadderError as exc:
        raise CliError(str(exc)) from None
    return rungs, plan


def run(args: argparse.Namespace) -> int:
    """``gallerist ladder``."""
    from tqdm import tqdm

    from gallerist.ai.arena.ladder import run_plan

    records_file, out_file, png_file = _names(args.players)
    args.records, args.out, args.png = (args.records or records_file, args.out or out_file,
                                        args.png or png_file)
    rungs, plan = _plan(args)
    outputs = [("--records", args.records), ("--out", args.out), ("--png", args.png)]
    if args.levels:
        outputs.append(("--levels-out", args.levels_out))
    for option, path in outputs:
        check_output_path(path, option)
    bar = None if args.no_progress else tqdm(total=None, unit="game", desc="ladder",
                                             file=sys.stderr)

    def progress(done: int, total: int) -> None:
        if bar is not None:
            bar.total = total
            bar.update(done - bar.n)

    interrupted = False
    try:
        records = run_plan(plan, rungs, records_path=args.records, workers=args.workers,
                           backend=args.backend, ray_address=args.ray_address,
                           progress=progress)
    except KeyboardInterrupt:
        interrupted = True
        from gallerist.ai.arena.records import read_records
        specs = {r.spec for r in rungs}
        records = [r for r in read_records(args.records)
                   if r.complete and all(b in specs for b in r.bots)]
    except ValueError as exc:   # a records file that is not one
        raise CliError(str(exc)) from None
    finally:
        if bar is not None:
            bar.close()
    _report(args, rungs, records)
    return 130 if interrupted else 0


def _report(args: argparse.Namespace, rungs: list[Any], records: list[Any]) -> None:
    """Print the ladder and write its JSON, picture and (with --levels) the levels."""
    from gallerist.ai.arena.ladder import (ANCHOR, format_ladder, format_solo, ladder_notes,
                                           ladder_ratings, plot_ladder, solo_results)

    n = args.players
    head: dict[str, Any] = {"anchor": ANCHOR, "players": n, "games_per_pair": args.games_per_pair}
    if n == 1:
        rated: Any = solo_results(rungs, records)
        print(format_solo(rated))
        data = {**head, "anchor": None, "rungs": [
            {"rung": x.rung.name, "family": x.rung.family, "budget": x.rung.budget,
             "spec": x.rung.spec, "mean_money": x.mean, "ci": list(x.ci), "games": x.games}
            for x in rated]}
    else:
        rated = ladder_ratings(rungs, records)
        print(format_ladder(rated, players=n))
        notes = ladder_notes(rated)
        print("\n".join(["", *notes]) if notes else "")
        head["notes"] = notes
        if not any(x.rung.name == ANCHOR for x in rated):
            head["anchor"] = None
        data = {**head, "reach": args.reach if n == 2 else n, "rungs": [
            {"rung": x.rung.name, "family": x.rung.family, "budget": x.rung.budget,
             "spec": x.rung.spec, "elo": x.elo, "ci": list(x.ci), "games": x.games}
            for x in rated]}
    try:
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1)
        if rated:
            plot_ladder(rated, args.png, players=n)
        if args.levels:
            write_levels(rated, args.levels_out, _level_steps(rungs, records))
    except OSError as exc:
        raise CliError(f"cannot write the results: {exc}; the games are in {args.records}",
                       status=1) from None
    print(f"\nratings: {args.out}  games: {args.records}  picture: {args.png}"
          + (f"  levels: {args.levels_out}" if args.levels else ""))


def _level_steps(rungs: list[Any], records: list[Any]) -> dict[int, tuple[float, tuple[float, float]]]:
    """Each level's rating less the level below's, with its 95% interval, by level."""
    from gallerist.ai.arena.ladder import adjacent_differences

    levels = sorted((r for r in rungs if r.family == "level"), key=lambda r: int(r.name[6:]))
    steps = adjacent_differences(rungs, records, levels)
    for _, b, diff, ci in steps:
        print(f"{b.name}: {diff:+.0f} Elo over the level below (95% interval {ci[0]:+.0f} to {ci[1]:+.0f})")
    return {int(b.name[6:]): (diff, ci) for _, b, diff, ci in steps}


def write_levels(rated: Any, path: str,
                 steps: dict[int, tuple[float, tuple[float, float]]] | None = None) -> None:
    """The levels' ratings (rungs "level-N") as the JSON the level bot reads, each with
    its step over the level below (`steps`)."""
    from gallerist.ai.arena.ladder import ANCHOR
    from gallerist.ai.bots.levels import LEVELS
    from gallerist.ai.files import write_atomically

    levels = sorted((int(x.rung.name.split("-")[1]), x) for x in rated if x.rung.family == "level")
    data = {"anchor": ANCHOR, "players": 2,
            "levels": [{"level": n, "elo": round(x.elo, 1),
                        "ci": [round(x.ci[0], 1), round(x.ci[1], 1)], "games": x.games,
                        "spec": x.rung.spec, **vars(LEVELS[n - 1]),
                        **({"step": round(steps[n][0], 1),
                            "step_ci": [round(steps[n][1][0], 1), round(steps[n][1][1], 1)]}
                           if steps and n in steps else {})} for n, x in levels]}
    text = json.dumps(data, indent=1) + "\n"
    write_atomically(path, lambda fh: fh.write(text), "w", encoding="utf-8")
