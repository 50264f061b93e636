"""The calibration fit of a data folder (``gallerist calibrate``): the labelled positions
and the bots' raw numbers on them that bench/calibration.py's generate, evaluate and moves
steps write, fitted (`fit`) on the training half into the maps of a `Calibration`, and
the file that makes them the package's (`install`).

The folder holds:

- ``evals.jsonl.gz``: one row per bot and labelled position: its statistic kind, the
  mover, the raw money and win shares of its reported move, the game's real end;
- ``final_turns.json``: every game's length in turns ("players/game" -> turns);
- ``moves.jsonl.gz``: every move of some training positions (the move scales' data);
- ``games.jsonl.gz`` (optional): the self-play games, whose bot the fit records.

Even games train the maps and odd games are held out for the bench's figures
(`held_out`); the default bot's rows are left out of the fit (`SCORED_ONLY`).
"""
from __future__ import annotations

import gzip
import json
import os
import time
from collections.abc import Iterator
from typing import Any

from gallerist.ai.calibration.fit import Sample, fit, fit_move_scales
from gallerist.ai.calibration.maps import (
    MAX_STAGE, PACKAGED, PLAYER_COUNTS, Calibration, CalibrationError,
)
from gallerist.ai.files import write_atomically

__all__ = ["EVALS", "FINAL_TURNS", "GAMES", "MOVES", "POOL_BELOW_GAMES", "SCORED_ONLY",
           "fit_folder", "held_out", "install", "read_jsonl", "sample", "training_turns",
           "write_calibration"]

EVALS = "evals.jsonl.gz"
FINAL_TURNS = "final_turns.json"
MOVES = "moves.jsonl.gz"
GAMES = "games.jsonl.gz"
#: The bench's labels of the default bot's rows: scored through the "mcts" maps (it
#: reports MCTS's statistics), never fitting them.
SCORED_ONLY = ("default 200 ms", "default 20 ms")
#: A player count with fewer training games shares the win map fitted on all of them.
POOL_BELOW_GAMES = 100
#: What makes the files (the message of a missing one).
MADE_BY = "bench/calibration.py generate, evaluate and moves write it"


def held_out(game: int) -> bool:
    """The split: odd games are held out, even games train the maps."""
    return game % 2 == 1


def read_jsonl(path: str) -> Iterator[dict[str, Any]]:
    """The rows of a gzip-compressed JSON Lines file.

    Raises:
        CalibrationError: the file is missing or not gzip-compressed JSON Lines.
    """
    if not os.path.exists(path):
        raise CalibrationError(f"{path} does not exist ({MADE_BY})")
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    yield json.loads(line)
    except (OSError, EOFError, ValueError) as exc:
        raise CalibrationError(f"{path} is not gzip-compressed JSON Lines: {exc}") from None


def sample(row: dict[str, Any], turns: dict[int, float]) -> Sample:
    """The fit's sample of an evals row, its stage from the typical game length `turns`."""
    n = row["players"]
    t = min(MAX_STAGE, row["turn"] / turns[n])
    return Sample(t=t, mover=row["mover"], money=tuple(row["money"]),
                  win=tuple(row["win"]) or None, final_money=tuple(row["final_money"]),
                  final_win=tuple(row["final_win"]), game=row["game"])


def training_turns(data: str) -> tuple[dict[int, float], dict[int, int]]:
    """Per player count: the mean length in turns of the training half's games, and how
    many there are (final_turns.json, written by the evaluate step).

    Raises:
        CalibrationError: the file is missing or unreadable.
    """
    path = os.path.join(data, FINAL_TURNS)
    try:
        with open(path, encoding="utf-8") as fh:
            final_turns = json.load(fh)
    except FileNotFoundError:
        raise CalibrationError(f"{path} does not exist ({MADE_BY})") from None
    except (OSError, ValueError) as exc:
        raise CalibrationError(f"{path} cannot be read: {exc}") from None
    turns, games = {}, {}
    for n in PLAYER_COUNTS:
        lengths = [v for k, v in final_turns.items()
                   if int(k.split("/")[0]) == n and not held_out(int(k.split("/")[1]))]
        if lengths:   # a player count with no games has no length (and no map)
            turns[n], games[n] = sum(lengths) / len(lengths), len(lengths)
    return turns, games


def _selfplay_bot(data: str) -> str | None:
    """The bot of the labelled games (the first game's first seat), if they are there."""
    path = os.path.join(data, GAMES)
    if not os.path.exists(path):
        return None
    for row in read_jsonl(path):
        return str(row["bots"][0])
    return None


def fit_folder(data: str) -> Calibration:
    """Fit every (kind, players) map, and the move scales, on the training half of the
    folder's positions.

    Raises:
        CalibrationError: a file missing or unreadable, or no training row.
    """
    rows = [r for r in read_jsonl(os.path.join(data, EVALS))
            if not held_out(r["game"]) and r["bot"] not in SCORED_ONLY]
    if not rows:
        raise CalibrationError(f"{os.path.join(data, EVALS)}: no row of a training game "
                               "(even games) to fit")
    turns, games = training_turns(data)
    pooled = [n for n in PLAYER_COUNTS if n > 1 and games.get(n, 0) < POOL_BELOW_GAMES]
    samples: dict[tuple[str, int], list[Sample]] = {}
    for r in rows:
        samples.setdefault((r["kind"], r["players"]), []).append(sample(r, turns))
    info = {"fitted_by": "gallerist calibrate", "selfplay_bot": _selfplay_bot(data),
            "bots": sorted({r["bot"] for r in rows}), "training_positions": len(rows),
            "split": "even games train, odd games are held out",
            "training_games": {str(n): games.get(n, 0) for n in PLAYER_COUNTS},
            "pooled_win_maps": pooled,
            "date": time.strftime("%Y-%m-%d")}
    cal = fit(samples, turns, info=info, pooled=pooled)
    cal.move_scales, cal.info["move_scales"] = fit_move_scales(
        list(read_jsonl(os.path.join(data, MOVES))), cal)
    return cal


def write_calibration(cal: Calibration, path: str) -> None:
    """Write `cal` as a calibration file (whole or not at all)."""
    text = json.dumps(cal.to_dict(), indent=1) + "\n"
    write_atomically(path, lambda fh: fh.write(text), "w", encoding="utf-8")


def install(path: str, target: str | None = None) -> str:
    """Make the calibration file `path` the package's (`target`, default
    ai/calibration/calibration.json), once it loads as a complete one (every kind and
    player count): bots read it at their next start, unless $GALLERIST_CALIBRATION names
    another file. Returns the file written.

    Raises:
        CalibrationError: `path` is not a complete calibration file (nothing installed).
        OSError: `target` cannot be written.
    """
    Calibration.load(path)
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    target = target or PACKAGED
    write_atomically(target, lambda out: out.write(text), "w", encoding="utf-8")
    return target
