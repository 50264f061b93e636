"""Calibration: the map from a search's own statistics to the numbers a hint reports
(`win_probability`, `expected_money`), so that they mean one thing whichever bot searched.

A `Calibration` applies the maps shipped as gallerist/ai/calibration/calibration.json
(override: GALLERIST_CALIBRATION or `Calibration.load(path)`) once per reported move; it
never touches the search. The maps' form, per statistic kind and player count, is in
docs/hints.md ("The calibration maps"); ``gallerist calibrate`` fits them (`fit_files`) on
the labelled positions bench/calibration.py makes.
"""
from __future__ import annotations

import functools
import json
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gallerist.engine.errors import GalleristError

FORMAT = "gallerist-calibration/1"
KINDS = ("mcts", "expectimax", "static")
PLAYER_COUNTS = (1, 2, 3, 4)
WIN_PARAMS = ("a1", "b1", "a2", "b2", "c", "q")
#: Win parameters a file may leave out (files written before they existed), and their value.
WIN_DEFAULTS = {"q": 0.0}
MONEY_PARAMS = ("alpha", "beta", "gamma", "delta")
#: The kinds whose win shares are the position's (root playouts): they get a move scale.
MOVE_KINDS = ("expectimax", "static")
#: The kinds whose win shares are the searched move's own (MCTS's means): their win map
#: takes them, and near the end the exact shares they settle to are theirs.
OWN_WIN_KINDS = ("mcts", "model", "mix")
ENV_VAR = "GALLERIST_CALIBRATION"
PACKAGED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "calibration.json")
MIN_WIN_SHARE = 0.01
MAX_STAGE = 1.2
#: The money spread ($, standard deviation over the endgame playouts, ai.calibration.endgame) at and
#: above which the win map is applied in full; below it the win probabilities move
#: toward the known shares (`Calibration.settle`).
SETTLE_WIN_SPREAD = 5.0


class CalibrationError(GalleristError, ValueError):
    """A calibration file that is missing or does not hold valid maps (names the file)."""


@dataclass(frozen=True)
class SeatMap:
    """The maps of one statistic kind and player count (win is None for solo)."""

    win: tuple[float, ...] | None
    money: tuple[float, ...]


def win_features(money: Sequence[float], win: Sequence[float] | None,
                 ) -> list[tuple[float, float]]:
    """Per seat (log raw win share, money / 10): the inputs of the win map. The win
    shares are MCTS's own for kind "mcts", the root playouts' for the others (None: 0)."""
    shares = win or None
    return [(math.log(max(shares[i], MIN_WIN_SHARE)) if shares is not None else 0.0, m / 10.0)
            for i, m in enumerate(money)]


class Calibration:
    """Fitted maps from raw search statistics to calibrated hint numbers.

    Args:
        maps: {(kind, players): SeatMap} for every kind and player count.
        turns: {players: typical game length in turns}.
        source: where the maps came from (a path), for messages.
        info: what the fit recorded (its data, date, held-out figures).
    """

    def __init__(self, maps: dict[tuple[str, int], SeatMap], turns: dict[int, float],
                 source: str = "<memory>", info: dict[str, Any] | None = None,
                 move_scales: dict[str, float] | None = None) -> None:
        self.maps = maps
        self.turns = turns
        self.move_scales = dict(move_scales or {})
        self.source = source
        self.info = info or {}

    # ------------------------------------------------------------------ loading

    @staticmethod
    def path() -> str:
        """The file `default()` reads: $GALLERIST_CALIBRATION, else the packaged one."""
        return os.environ.get(ENV_VAR) or PACKAGED

    @classmethod
    def default(cls) -> "Calibration":
        """The calibration bots use unless given one (loaded once per path)."""
        return _load_cached(cls.path())

    @classmethod
    def load(cls, path: str) -> "Calibration":
        """Read a calibration file; CalibrationError naming the file and the problem."""
        try:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
        except FileNotFoundError:
            raise CalibrationError(f"calibration file {path} is missing (reinstall the package, "
                                   f"or point {ENV_VAR} at a file gallerist calibrate "
                                   f"wrote)") from None
        except OSError as exc:
            raise CalibrationError(f"calibration file {path} cannot be read: {exc.strerror}") from None
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise CalibrationError(f"calibration file {path} is not valid JSON: {exc}") from None
        return cls.from_dict(data, source=path)

    @classmethod
    def from_dict(cls, data: Any, source: str = "<memory>") -> "Calibration":
        """Calibration from the file's JSON form, every field checked."""
        def fail(field: str, problem: str) -> CalibrationError:
            return CalibrationError(f"calibration file {source}: {field}: {problem}")

        if not isinstance(data, dict):
            raise fail("(top level)", "must be a JSON object")
        if data.get("format") != FORMAT:
            raise fail("format", f"must be {FORMAT!r}, got {data.get('format')!r}")
        turns = {n: _number(data, ("turns", str(n)), fail, positive=True) for n in PLAYER_COUNTS}
        maps = {}
        for kind in KINDS:
            for n in PLAYER_COUNTS:
                where = ("maps", kind, str(n))
                win = None if n == 1 else _win_numbers(data, where + ("win",), fail)
                maps[(kind, n)] = SeatMap(win=win, money=_numbers(data, where + ("money",),
                                                                  MONEY_PARAMS, fail))
        scales = {kind: _number(data, ("moves", kind, "scale"), fail, positive=True)
                  for kind in MOVE_KINDS}
        return cls(maps, turns, source=source, info=data.get("info") or {}, move_scales=scales)

    def to_dict(self) -> dict[str, Any]:
        """The file's JSON form (what `from_dict` reads)."""
        maps: dict[str, Any] = {}
        for (kind, n), m in sorted(self.maps.items()):
            entry: dict[str, Any] = {"money": dict(zip(MONEY_PARAMS, m.money))}
            if m.win is not None:
                entry["win"] = dict(zip(WIN_PARAMS, m.win))
            maps.setdefault(kind, {})[str(n)] = entry
        return {"format": FORMAT, "turns": {str(n): t for n, t in sorted(self.turns.items())},
                "maps": maps, "moves": {k: {"scale": v} for k, v in sorted(self.move_scales.items())},
                "info": self.info}

    def with_maps(self, kind: str, maps: dict[int, SeatMap], source: str = "") -> "Calibration":
        """A copy with the maps of `kind` (by player count) added, as a model's own
        (ai.calibration.model_maps)."""
        merged = {**self.maps, **{(kind, n): m for n, m in maps.items()}}
        return Calibration(merged, self.turns, source=source or self.source, info=self.info,
                           move_scales=self.move_scales)

    # ------------------------------------------------------------------ applying

    def stage(self, players: int, turn_number: int) -> float:
        """How far the game is, 0 at the start, about 1 at a typical end."""
        return min(MAX_STAGE, max(0.0, turn_number / self.turns[players]))

    def calibrate(self, kind: str, players: int, t: float, mover: int, money: Sequence[float],
                  win: Sequence[float] | None, ref: Sequence[float] | None = None
                  ) -> tuple[list[float], list[float] | None]:
        """(expected final money per seat, win probability per seat or None in solo)
        from one move's raw statistics (`ref`: the raw money of the analysis's first
        move, for the move scale of MOVE_KINDS)."""
        return self.mapper(kind, players, t, mover)(money, win, ref)

    def mapper(self, kind: str, players: int, t: float, mover: int) -> Callable[
            ..., tuple[list[float], list[float] | None]]:
        """The maps of one kind, player count, stage and mover, their coefficients
        computed once (a bot maps every move of one analysis with the same ones): the
        win map on `win_features`' inputs, and the money map."""
        m = self.maps.get((kind, players))
        if m is None:
            raise CalibrationError(f"calibration {self.source}: no map of kind {kind} for "
                                   f"{players} player{'s' if players > 1 else ''}: add "
                                   f"calibrated=false")
        alpha, beta, gamma, delta = m.money
        base, slope = alpha + gamma * t, beta + delta * t
        if m.win is None:
            return lambda money, win, ref=None: ([base + slope * x for x in money], None)
        a1, b1, a2, b2, c, q = m.win
        wa, wm = a1 + b1 * t, (a2 + b2 * t) / 10.0
        log, exp, floor = math.log, math.exp, MIN_WIN_SHARE
        scale = self.move_scales.get(kind)

        def apply(money: Sequence[float], win: Sequence[float] | None,
                  ref: Sequence[float] | None = None) -> tuple[list[float], list[float] | None]:
            u = [wm * x for x in money]
            if scale and ref is not None:
                u = [ui + (x - r) / scale for ui, x, r in zip(u, money, ref)]
            if (wa or q) and win:
                for i, w in enumerate(win):
                    lw = log(w if w > floor else floor)
                    u[i] += (wa - q * lw) * lw
            u[mover] += c
            top = max(u)
            e = [exp(x - top) for x in u]
            z = sum(e)
            return [base + slope * x for x in money], [x / z for x in e]

        return apply

    @staticmethod
    def settle(money: Sequence[float], win: Sequence[float] | None, spread: Any,
               known_win: Sequence[float] | None) -> tuple[list[float], list[float] | None]:
        """Mapped numbers bounded by what is left of the game (`spread`, an
        ai.calibration.endgame.Spread of playouts from the position after the move, near the end).

        Each seat's expected money is kept within the lowest and highest final money the
        playouts reached: a map fitted on every stage of a game must not promise what no
        continuation gives, and where every continuation ends alike (the rest forced)
        the number is the exact result. The win probabilities move from the map's
        toward `known_win` (the search's own win shares, else the playouts') by the
        weight min(1, s / SETTLE_WIN_SPREAD), s the largest money spread of any seat: the
        map's where the result is open, the exact shares where every seat's money is
        settled (nobody's hidden cards or choices can change it)."""
        out = [min(max(x, lo), hi) for x, lo, hi in zip(money, spread.low, spread.high)]
        if win is None:
            return out, None
        target = known_win or spread.win
        w = min(1.0, max(spread.sd) / SETTLE_WIN_SPREAD)
        return out, [k + w * (p - k) for p, k in zip(win, target)]


@functools.lru_cache(maxsize=8)
def _load_cached(path: str) -> Calibration:
    return Calibration.load(path)


def _lookup(data: Any, where: tuple[str, ...], fail: Any) -> Any:
    node = data
    for i, key in enumerate(where):
        if not isinstance(node, dict) or key not in node:
            raise fail(".".join(where[:i + 1]), "missing")
        node = node[key]
    return node


def _number(data: Any, where: tuple[str, ...], fail: Any, positive: bool = False,
            nonnegative: bool = False) -> float:
    value = _lookup(data, where, fail)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise fail(".".join(where), f"must be a finite number, got {value!r}")
    if positive and value <= 0:
        raise fail(".".join(where), f"must be > 0, got {value!r}")
    if nonnegative and value < 0:
        raise fail(".".join(where), f"must be >= 0, got {value!r}")
    return float(value)


def _win_numbers(data: Any, where: tuple[str, ...], fail: Any) -> tuple[float, ...]:
    """A win map's WIN_PARAMS; those of WIN_DEFAULTS may be absent (an older file), and
    the bend q must be >= 0 (the map monotone in the win shares)."""
    node = _lookup(data, where, fail)

    def value(name: str) -> float:
        if name in WIN_DEFAULTS and isinstance(node, dict) and name not in node:
            return WIN_DEFAULTS[name]
        return _number(data, where + (name,), fail, nonnegative=name == "q")

    return tuple(value(name) for name in WIN_PARAMS)


def _numbers(data: Any, where: tuple[str, ...], names: Sequence[str], fail: Any) -> tuple[float, ...]:
    return tuple(_number(data, where + (name,), fail) for name in names)
