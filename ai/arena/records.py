"""The arena's game records (JSON Lines): what a finished game leaves behind, which run
and which arena it belongs to, reading them back, choosing a run and replaying a game.
The fields are in docs/records.md ("Arena records").
"""
from __future__ import annotations

import json
import secrets
import time
from dataclasses import MISSING, asdict, dataclass, fields
from typing import Any, Callable, Sequence

from gallerist import engine
from gallerist.ai.arena.ratings import GameResult
from gallerist.engine.errors import GalleristError

__all__ = ["ArenaSetup", "GameRecord", "RecordsError", "find_game", "new_run_id", "read_records", "record_of",
           "replay", "run_records", "runs_of"]


class RecordsError(GalleristError, ValueError):
    """Records that do not fit what was asked (another arena, no such run, an ambiguous
    game number); the message says what to do."""


@dataclass(frozen=True)
class ArenaSetup:
    """What fixes an arena's schedule: the bots (in order), players per game, games asked
    for and the first setup seed. The same setup schedules the same games."""

    bots: tuple[str, ...]
    players: int
    games: int
    seed: int

    def as_dict(self) -> dict[str, Any]:
        return {"bots": list(self.bots), "players": self.players, "games": self.games,
                "seed": self.seed}

    @classmethod
    def of(cls, data: dict[str, Any]) -> "ArenaSetup":
        return cls(bots=tuple(data["bots"]), players=int(data["players"]),
                   games=int(data["games"]), seed=int(data["seed"]))

    def describe(self) -> str:
        return (f"{' '.join(self.bots)} --players {self.players} --games {self.games} "
                f"--seed {self.seed}")


@dataclass
class GameRecord:
    """What a finished game leaves behind; `replay` reproduces it exactly. `run` and
    `arena` (an `ArenaSetup.as_dict()`) say which run and arena it belongs to."""

    game: int
    seed: int
    bots: list[str]
    actions: list[int]
    money: list[int]
    returns: list[float]
    scores: list[dict[str, int]]
    seconds: float
    run: str = ""
    arena: dict[str, Any] | None = None
    #: False for a game stopped before its end (`gallerist play` with a human seat, on
    #: quit, Ctrl-C or end of input): its actions stop where the game stopped, `money`
    #: is the money then, `scores` is empty.
    complete: bool = True

    def result(self) -> GameResult:
        return GameResult(bots=tuple(self.bots), money=tuple(self.money), returns=tuple(self.returns))

    def setup(self) -> ArenaSetup | None:
        return ArenaSetup.of(self.arena) if self.arena else None

    def to_json(self) -> str:
        return json.dumps(asdict(self))


_FIELDS = {f.name: f for f in fields(GameRecord)}
_REQUIRED = [name for name, f in _FIELDS.items() if f.default is MISSING]


def record_of(data: Any) -> GameRecord:
    """The record of one decoded JSON line.

    Raises:
        ValueError: `data` is not a game record; the message says what it lacks.
    """
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object with the fields {', '.join(_REQUIRED)}, "
                         f"got {type(data).__name__}")
    missing = [name for name in _REQUIRED if name not in data]
    if missing:
        looks = " (it looks like a game state: give a file of `gallerist arena` or `gallerist " \
                "play --record`)" if "numPlayers" in data or "players" in data else ""
        raise ValueError(f"missing the field{'s' if len(missing) > 1 else ''} "
                         f"{', '.join(missing)}{looks}")
    unknown = sorted(set(data) - set(_FIELDS))
    if unknown:
        raise ValueError(f"unknown field{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}")
    for name in ("game", "seed"):
        if not isinstance(data[name], int) or isinstance(data[name], bool):
            raise ValueError(f"{name}: expected a whole number, got {data[name]!r}")
    for name in ("bots", "actions", "money", "returns", "scores"):
        if not isinstance(data[name], list):
            raise ValueError(f"{name}: expected a list, got {type(data[name]).__name__}")
    return GameRecord(**data)


def new_run_id() -> str:
    """A run id: the start time (UTC) and a random suffix, e.g. "20261201T112233-3fa2"."""
    return time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + "-" + secrets.token_hex(2)


def read_records(path: str) -> list[GameRecord]:
    """The records of a JSON Lines file, in file order.

    Raises:
        OSError: the file cannot be read.
        ValueError: a line is not a game record (the message names the line).
    """
    out = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if line.strip():
                try:
                    out.append(record_of(json.loads(line)))
                except ValueError as exc:
                    raise ValueError(f"{path}:{n}: not a game record: {exc}") from None
    return out


def runs_of(records: Sequence[GameRecord]) -> list[str]:
    """The run ids of the records, in order of first appearance."""
    return list(dict.fromkeys(r.run for r in records))


def _run_name(run: str) -> str:
    return run or "(no run id)"


def run_records(records: Sequence[GameRecord], run: str | None, path: str) -> list[GameRecord]:
    """The records of one run: `run`, or the last run of the file when None.

    Raises:
        RecordsError: no records, or no run `run` in them.
    """
    if not records:
        raise RecordsError(f"{path}: no game records")
    runs = runs_of(records)
    if run is None:
        run = records[-1].run
    elif run not in runs:
        raise RecordsError(f"{path}: no run {run!r} (runs: {', '.join(map(_run_name, runs))})")
    return [r for r in records if r.run == run]


def find_game(records: Sequence[GameRecord], game: int, run: str | None, path: str) -> GameRecord:
    """The record of game number `game` (of run `run` when given).

    Raises:
        RecordsError: no such game, or several runs have it and no run was given.
    """
    pool = [r for r in records if r.game == game and (run is None or r.run == run)]
    if run is not None and run not in runs_of(records):
        raise RecordsError(f"{path}: no run {run!r} (runs: {', '.join(map(_run_name, runs_of(records)))})")
    if not pool:
        where = f" of run {run}" if run is not None else ""
        games = sorted({r.game for r in records if run is None or r.run == run})
        listed = ", ".join(map(str, games[:20])) + ("..." if len(games) > 20 else "")
        raise RecordsError(f"{path}: no game {game}{where} (games: {listed or 'none'})")
    runs = runs_of(pool)
    if len(runs) > 1:
        raise RecordsError(f"{path}: game {game} is in {len(runs)} runs "
                           f"({', '.join(map(_run_name, runs))}); choose one with --run")
    return pool[0]


def replay(record: GameRecord | dict[str, Any], on_action: Callable[[engine.GameState, int], None] | None = None
           ) -> engine.GameState:
    """Replay a record's actions from its setup seed; returns the final state (for an
    incomplete record, the state where the game stopped). Raises ValueError if an action
    is illegal, a complete record does not reach the end, or the money differs from the
    record."""
    rec = record if isinstance(record, GameRecord) else record_of(record)
    state = engine.new_game(num_players=len(rec.bots), seed=rec.seed)
    for i, a in enumerate(rec.actions):
        if on_action is not None:
            on_action(state, a)
        try:
            state.apply(a)
        except engine.IllegalActionError as exc:
            raise ValueError(f"record of game {rec.game}: action #{i} is illegal: {exc}") from None
    if rec.complete and not state.is_terminal():
        raise ValueError(f"record of game {rec.game}: the actions do not reach the end")
    if state.money() != list(rec.money):
        raise ValueError(f"record of game {rec.game}: final money {state.money()} != recorded {rec.money}")
    return state
