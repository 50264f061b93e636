"""Calibration maps of one model's value search (MCTS with ``eval=model``): fitted for that
model file by ``python bench/calibration.py model --model MODEL``, kept beside it as
MODEL.calibration.json, and added to a bot's maps as kind "model". The file's form is in
docs/hints.md ("Maps for a model's value search").
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from gallerist.ai.calibration.maps import (
    MONEY_PARAMS, PLAYER_COUNTS, WIN_PARAMS, CalibrationError, SeatMap,
)

__all__ = ["FORMAT", "KIND", "load_model_maps", "model_maps_for", "side_path",
           "write_model_maps"]

FORMAT = "gallerist-model-calibration/1"
#: The statistic kind a value search's numbers are mapped as.
KIND = "model"


def side_path(model: str | os.PathLike[str]) -> Path:
    """MODEL.npz -> MODEL.calibration.json (beside the model file)."""
    p = Path(model)
    return p.with_name((p.stem if p.suffix == ".npz" else p.name) + ".calibration.json")


def write_model_maps(model: str | os.PathLike[str], model_sha256: str,
                     maps: dict[int, SeatMap], info: dict[str, Any]) -> Path:
    """Write the maps of `model` (one per player count) beside it; returns the path."""
    players = {}
    for n, m in sorted(maps.items()):
        entry: dict[str, Any] = {"money": dict(zip(MONEY_PARAMS, m.money))}
        if m.win is not None:
            entry["win"] = dict(zip(WIN_PARAMS, m.win))
        players[str(n)] = entry
    path = side_path(model)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"format": FORMAT, "model_sha256": model_sha256,
                               "maps": players, "info": info}, indent=1) + "\n",
                   encoding="utf-8")
    os.replace(tmp, path)
    return path


def _params(entry: Any, names: tuple[str, ...], where: str, fail: Any) -> tuple[float, ...]:
    if not isinstance(entry, dict):
        raise fail(where, "must be an object")
    out = []
    for name in names:
        v = entry.get(name, 0.0 if name == "q" else None)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v \
                or abs(v) == float("inf"):
            raise fail(f"{where}.{name}", f"must be a finite number, got {v!r}")
        out.append(float(v))
    return tuple(out)


def load_model_maps(model: str | os.PathLike[str], model_sha256: str) -> dict[int, SeatMap]:
    """The maps fitted for the model file `model` (whose sha256 is `model_sha256`).

    Raises:
        CalibrationError: no maps beside the model (naming the command that fits them),
            maps of another model file, or a malformed field (naming it).
    """
    path = side_path(model)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CalibrationError(
            f"{os.path.basename(model)} has no calibration maps ({path.name} is missing): "
            f"fit them with 'python bench/calibration.py model --model {model}', or add "
            f"calibrated=false (the network's own estimates, reported raw)") from None
    except (OSError, ValueError) as exc:
        raise CalibrationError(f"calibration file {path} cannot be read: {exc}") from None

    def fail(field: str, problem: str) -> CalibrationError:
        return CalibrationError(f"calibration file {path}: {field}: {problem}")

    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise fail("format", f"must be {FORMAT!r}")
    if data.get("model_sha256") != model_sha256:
        raise fail("model_sha256", f"the maps were fitted for another model file "
                                   f"({str(data.get('model_sha256'))[:12]}, this one is "
                                   f"{model_sha256[:12]}): fit them again with 'python "
                                   f"bench/calibration.py model --model {model}'")
    entries = data.get("maps")
    if not isinstance(entries, dict) or not entries:
        raise fail("maps", "must map player counts to maps")
    maps = {}
    for key, entry in entries.items():
        if key not in {str(n) for n in PLAYER_COUNTS}:
            raise fail(f"maps.{key}", "is not a player count (1-4)")
        n = int(key)
        money = _params(entry.get("money") if isinstance(entry, dict) else None, MONEY_PARAMS,
                        f"maps.{key}.money", fail)
        win = None if n == 1 else _params(entry.get("win") if isinstance(entry, dict) else None,
                                          WIN_PARAMS, f"maps.{key}.win", fail)
        maps[n] = SeatMap(win=win, money=money)
    return maps


def model_maps_for(model: str = "") -> dict[int, SeatMap]:
    """The maps of the model file a bot's ``model`` option names ("" : the default one,
    ai.learn.model_file.model_path), checked against its sha256 (`load_model_maps`)."""
    from gallerist.ai.learn.model_file import model_path
    from gallerist.ai.selfplay.records import sha256_file

    path = model_path(model)
    return load_model_maps(path, sha256_file(path))
