"""Calibration maps of one model's searches: kind "model" (MCTS with ``eval=model``) and
kind "mix" (``eval=mix``), fitted for that model file by ``python bench/calibration.py model
--model MODEL [--eval mix]``, kept beside it as MODEL.calibration.json and added to a bot's
maps. The file's form is in docs/hints.md ("Maps for a model's value search").
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from gallerist.ai.calibration.maps import (
    MONEY_PARAMS, PLAYER_COUNTS, WIN_PARAMS, CalibrationError, SeatMap,
)

__all__ = ["FORMAT", "KIND", "MODEL_KINDS", "load_model_maps", "model_maps_for",
           "side_path", "write_model_maps"]

FORMAT = "gallerist-model-calibration/2"
#: The first form: the maps of kind "model" only, by player count (still read).
FORMAT_1 = "gallerist-model-calibration/1"
#: The statistic kind a value search's numbers are mapped as.
KIND = "model"
#: The kinds a model file's maps may hold: its value search, and its mixed leaf
#: (model_weight x the network + the rest x a rollout).
MODEL_KINDS = (KIND, "mix")


def side_path(model: str | os.PathLike[str]) -> Path:
    """MODEL.npz -> MODEL.calibration.json (beside the model file)."""
    p = Path(model)
    return p.with_name((p.stem if p.suffix == ".npz" else p.name) + ".calibration.json")


def write_model_maps(model: str | os.PathLike[str], model_sha256: str,
                     maps: dict[int, SeatMap], info: dict[str, Any], kind: str = KIND) -> Path:
    """Write the maps of `kind` of `model` (one per player count) beside it, keeping the
    other kind's maps when the file holds them for the same model; returns the path."""
    if kind not in MODEL_KINDS:
        raise ValueError(f"kind must be one of {', '.join(MODEL_KINDS)}, got {kind!r}")
    players = {}
    for n, m in sorted(maps.items()):
        entry: dict[str, Any] = {"money": dict(zip(MONEY_PARAMS, m.money))}
        if m.win is not None:
            entry["win"] = dict(zip(WIN_PARAMS, m.win))
        players[str(n)] = entry
    path = side_path(model)
    kept: dict[str, Any] = {"maps": {}, "info": {}}
    try:
        old = _read(path)
        if old.get("model_sha256") == model_sha256:
            kept = {"maps": _by_kind(old, _failer(path)), "info": _info_by_kind(old)}
    except (CalibrationError, FileNotFoundError):
        pass   # nothing to keep: written anew
    kept["maps"][kind], kept["info"][kind] = players, info
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"format": FORMAT, "model_sha256": model_sha256,
                               "maps": kept["maps"], "info": kept["info"]}, indent=1) + "\n",
                   encoding="utf-8")
    os.replace(tmp, path)
    return path


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise
    except (OSError, ValueError) as exc:
        raise CalibrationError(f"calibration file {path} cannot be read: {exc}") from None


def _failer(path: Path) -> Any:
    def fail(field: str, problem: str) -> CalibrationError:
        return CalibrationError(f"calibration file {path}: {field}: {problem}")
    return fail


def _by_kind(data: Any, fail: Any) -> dict[str, Any]:
    """The file's maps as {kind: {players: entry}} (form 1: all of kind "model")."""
    if not isinstance(data, dict) or data.get("format") not in (FORMAT, FORMAT_1):
        raise fail("format", f"must be {FORMAT!r}")
    maps = data.get("maps")
    if data["format"] == FORMAT_1:
        maps = {KIND: maps}
    if not isinstance(maps, dict) or not maps:
        raise fail("maps", f"must map kinds ({', '.join(MODEL_KINDS)}) to maps by player count")
    return maps


def _info_by_kind(data: dict[str, Any]) -> dict[str, Any]:
    info = data.get("info") if isinstance(data.get("info"), dict) else {}
    return {KIND: info} if data.get("format") == FORMAT_1 else dict(info)


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


def load_model_maps(model: str | os.PathLike[str], model_sha256: str,
                    kind: str = KIND) -> dict[int, SeatMap]:
    """The maps of `kind` fitted for the model file `model` (whose sha256 is
    `model_sha256`).

    Raises:
        CalibrationError: no maps beside the model or none of `kind` (naming the command
            that fits them), maps of another model file, or a malformed field (naming it).
    """
    path = side_path(model)
    command = f"python bench/calibration.py model --model {model}" + (
        "" if kind == KIND else f" --eval {kind}")
    try:
        data = _read(path)
    except FileNotFoundError:
        raise CalibrationError(
            f"{os.path.basename(model)} has no calibration maps ({path.name} is missing): "
            f"fit them with '{command}', or add calibrated=false (the network's own "
            f"estimates, reported raw)") from None
    fail = _failer(path)
    kinds = _by_kind(data, fail)
    if data.get("model_sha256") != model_sha256:
        raise fail("model_sha256", f"the maps were fitted for another model file "
                                   f"({str(data.get('model_sha256'))[:12]}, this one is "
                                   f"{model_sha256[:12]}): fit them again with '{command}'")
    if kind not in kinds:
        raise CalibrationError(
            f"{os.path.basename(model)} has no calibration maps of kind {kind} ({path.name} "
            f"holds {', '.join(sorted(kinds))}): fit them with '{command}', or add "
            f"calibrated=false")
    entries = kinds[kind]
    where = "maps" if data["format"] == FORMAT_1 else f"maps.{kind}"
    if not isinstance(entries, dict) or not entries:
        raise fail(where, "must map player counts to maps")
    maps = {}
    for key, entry in entries.items():
        if key not in {str(n) for n in PLAYER_COUNTS}:
            raise fail(f"{where}.{key}", "is not a player count (1-4)")
        n = int(key)
        money = _params(entry.get("money") if isinstance(entry, dict) else None, MONEY_PARAMS,
                        f"{where}.{key}.money", fail)
        win = None if n == 1 else _params(entry.get("win") if isinstance(entry, dict) else None,
                                          WIN_PARAMS, f"{where}.{key}.win", fail)
        maps[n] = SeatMap(win=win, money=money)
    return maps


def model_maps_for(model: str = "", kind: str = KIND) -> dict[int, SeatMap]:
    """The maps of `kind` of the model file a bot's ``model`` option names ("" : the
    default one, ai.net.packaged.model_path), checked against its sha256
    (`load_model_maps`)."""
    from gallerist.ai.net.packaged import model_path
    from gallerist.ai.selfplay.records import sha256_file

    path = model_path(model)
    return load_model_maps(path, sha256_file(path), kind)
