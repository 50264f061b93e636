"""``gallerist calibrate``: fit the calibration maps (the numbers a hint reports) on a
data folder of labelled positions (`ai.calibration.fit_files`) and write them as a
calibration file; ``--install`` makes them the package's."""
from __future__ import annotations

import argparse
import os
from typing import Any

from gallerist.cli.commands import CliError
from gallerist.cli.commands.options import add_command

__all__ = ["add", "run"]


def add(sub: Any) -> None:
    """Add ``calibrate`` to the subcommands."""
    p = add_command(
        sub, "calibrate", run, help="fit the hint numbers' calibration maps on labelled positions",
        description="Fit the calibration maps (a bot's raw win shares and money -> the "
                    "win probability and expected money a hint reports) on the training "
                    "half (even games) of a data folder: evals.jsonl.gz, final_turns.json "
                    "and moves.jsonl.gz, as bench/calibration.py's generate, evaluate and "
                    "moves steps write them (a checkout's shipped set: "
                    "bench/data/calibration). Writes calibration.json into the folder "
                    "(--out elsewhere); --install also makes it the package's.")
    p.add_argument("data", metavar="DATA", help="the data folder")
    p.add_argument("--out", metavar="FILE", default=None,
                   help="the calibration file to write (default DATA/calibration.json)")
    p.add_argument("--install", action="store_true",
                   help="also install the fitted maps as the package's calibration.json "
                        "(bots read it at their next start unless $GALLERIST_CALIBRATION "
                        "names another file)")


def run(args: argparse.Namespace) -> int:
    """``gallerist calibrate``."""
    from gallerist.ai.calibration.fit_files import fit_folder, install, write_calibration
    from gallerist.ai.calibration.maps import ENV_VAR, CalibrationError

    if not os.path.isdir(args.data):
        raise CliError(f"{args.data}: not a folder")
    out = args.out or os.path.join(args.data, "calibration.json")
    try:
        cal = fit_folder(args.data)
    except CalibrationError as exc:
        raise CliError(str(exc)) from None
    try:
        write_calibration(cal, out)
    except OSError as exc:
        raise CliError(f"--out {out}: cannot write: {exc.strerror or exc}", status=1) from None
    print(_summary(cal.info, cal.move_scales))
    print(f"wrote {out}")
    if args.install:
        try:
            installed = install(out)
        except CalibrationError as exc:
            raise CliError(f"not installed: {exc}", status=1) from None
        except OSError as exc:
            raise CliError(f"not installed: cannot write the package's calibration.json: "
                           f"{exc}", status=1) from None
        print(f"installed as {installed}")
        if os.environ.get(ENV_VAR):
            print(f"note: ${ENV_VAR} names {os.environ[ENV_VAR]}, which the bots read instead")
    return 0


def _summary(info: dict[str, Any], scales: dict[str, float]) -> str:
    """What the fit saw and chose, a few lines."""
    games = ", ".join(f"{count} {'solo' if n == '1' else n + '-player'}"
                      for n, count in info["training_games"].items())
    lines = [f"fitted on {info['training_positions']:,} positions of the training games "
             f"({games}) by {', '.join(info['bots'])}"]
    if info.get("pooled_win_maps"):
        lines.append("win maps pooled over every player count for: "
                     + ", ".join(f"{n} players" for n in info["pooled_win_maps"]))
    lines.append("win map inputs: " + "; ".join(f"{k}: {v}"
                                                for k, v in info["win_inputs"].items()))
    lines.append("move scales: " + ", ".join(f"{k} ${v:.0f} a logit"
                                             for k, v in sorted(scales.items())))
    return "\n".join(lines)
