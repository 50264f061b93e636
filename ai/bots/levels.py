"""Opponents at levels: the default bot's search at a level's budget, then a seeded pick
among its best few moves weighted by their values (Stockfish's skill level), never one the
search rates far below its best. `level:N` names a level, `level:elo=E` a rating on the
ladder's scale between them (docs/levels.md); the measured ratings are in levels.json."""
from __future__ import annotations

import bisect
import json
import math
import os
import random
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gallerist import engine
from gallerist.ai.bots.base import BaseBot
from gallerist.ai.values import Analysis, Budget, MoveInfo
from gallerist.ai.bots.mcts import MctsBot
from gallerist.ai.bots.options import Option, Options

__all__ = ["LEVELS", "LevelBot", "LevelRating", "Setting", "level_ratings", "levels_table",
           "setting_for_elo", "skill_pick"]


@dataclass(frozen=True)
class Setting:
    """How a level plays: the default bot's search of `iterations`, then a pick among
    its `candidates` most visited moves whose value is within `max_loss` of the most
    visited one's, each weighted by exp(-loss / temperature) (temperature 0: the best)."""

    iterations: int
    temperature: float
    max_loss: float
    candidates: int

    def spec(self, calibrated: bool = True) -> str:
        """The bot spec that plays exactly this setting."""
        return (f"level:iterations={self.iterations},temperature={self.temperature!r},"
                f"max_loss={self.max_loss!r},candidates={self.candidates}"
                + ("" if calibrated else ",calibrated=false"))


#: The levels, weakest first: level N is LEVELS[N - 1]. The top level is the default
#: bot at its default budget (1,000 iterations), playing its best move.
LEVELS: tuple[Setting, ...] = (
    Setting(10, 1.0, 1.0, 10),
    Setting(10, 0.4, 0.6, 8),
    Setting(10, 0.13, 0.35, 6),
    Setting(30, 0.06, 0.15, 5),
    Setting(100, 0.02, 0.08, 3),
    Setting(300, 0.02, 0.08, 3),
    Setting(1000, 0.014, 0.06, 3),
    Setting(1000, 0.0, 0.0, 1),
)

#: The measured ratings of the levels (`gallerist ladder --levels` writes them).
RATINGS_FILE = os.path.join(os.path.dirname(__file__), "levels.json")


@dataclass(frozen=True)
class LevelRating:
    """A level's measured rating on the ladder's scale, its 95% interval and games."""

    level: int
    elo: float
    ci: tuple[float, float]
    games: int
    step: float | None = None
    step_ci: tuple[float, float] | None = None


def level_ratings(path: str = RATINGS_FILE) -> list[LevelRating]:
    """The measured ratings of the levels, level 1 first ([] when not measured yet)."""
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    return [LevelRating(int(x["level"]), float(x["elo"]), (float(x["ci"][0]), float(x["ci"][1])),
                        int(x["games"]), x.get("step"),
                        tuple(x["step_ci"]) if x.get("step_ci") else None)  # type: ignore[arg-type]
            for x in data["levels"]]


def setting_for_elo(elo: float, rated: Sequence[LevelRating] | None = None) -> Setting:
    """The setting of a target rating: the levels' settings interpolated between the two
    measured levels around it (iterations and temperature on a log scale).

    Raises:
        ValueError: `elo` outside the measured levels' range, naming the range.
    """
    rated = sorted(level_ratings() if rated is None else rated, key=lambda r: r.elo)
    if len(rated) < 2:
        raise ValueError("level option elo needs the levels' measured ratings, and "
                         "levels.json has none")
    low, high = rated[0], rated[-1]
    if not (isinstance(elo, (int, float)) and math.isfinite(elo) and low.elo <= elo <= high.elo):
        raise ValueError(f"level option elo must be a rating {low.elo:.0f}..{high.elo:.0f} "
                         f"(level {low.level} to level {high.level}), got {elo!r}")
    i = max(1, bisect.bisect_left([r.elo for r in rated], elo))
    a, b = rated[i - 1], rated[i]
    f = 0.0 if b.elo == a.elo else (elo - a.elo) / (b.elo - a.elo)
    sa, sb = LEVELS[a.level - 1], LEVELS[b.level - 1]

    def log_mix(x: float, y: float) -> float:
        if x <= 0 or y <= 0:
            return x + f * (y - x)
        return math.exp(math.log(x) + f * (math.log(y) - math.log(x)))

    return Setting(iterations=max(1, round(log_mix(sa.iterations, sb.iterations))),
                   temperature=round(log_mix(sa.temperature, sb.temperature), 5),
                   max_loss=round(sa.max_loss + f * (sb.max_loss - sa.max_loss), 5),
                   candidates=max(1, round(sa.candidates + f * (sb.candidates - sa.candidates))))


def skill_pick(moves: Sequence[MoveInfo], setting: Setting, rng: random.Random) -> MoveInfo:
    """The move a level plays from a search's moves (most visited first): one of the
    first `candidates` visited moves within `max_loss` of the first's value, drawn with
    weight exp(-loss / temperature)."""
    top = moves[0]
    if setting.temperature <= 0:
        return top
    pool = [m for m in moves[:setting.candidates]
            if m.visits and top.value - m.value <= setting.max_loss] or [top]
    weights = [math.exp(-max(0.0, top.value - m.value) / setting.temperature) for m in pool]
    return rng.choices(pool, weights)[0]


class LevelBot(BaseBot):
    """An opponent at a level: the default bot's search at the level's iterations, then
    `skill_pick`. Its analysis ranks the moves as the search does and names the move it
    plays (`Analysis.chosen`); the pick is seeded by the seed and the position."""

    name = "level"
    calibration_kind = "mcts"

    OPTIONS = Options(
        name,
        Option("level", 0, f"the level, 1 (weakest) to {len(LEVELS)} (the default bot at its "
               "default budget); 0: given by elo or by the settings below",
               low=0, high=len(LEVELS), says=f"a level 1..{len(LEVELS)}"),
        Option("elo", 0.0, "a target rating on the ladder's scale (random = 0), between "
               "level 1's and the top level's: the settings interpolated between the two "
               "levels around it (0: none)"),
        Option("iterations", 0, "the search's iterations (with neither level nor elo)", low=0,
               limit="max_iterations"),
        Option("temperature", 0.0, "the pick's temperature on the search's 0-1 values "
               "(0: the best move)", low=0),
        Option("max_loss", 0.0, "the most a picked move's value may be below the best's",
               low=0, high=1),
        Option("candidates", 1, "the most visited moves the pick is among", low=1, high=64),
        Option("calibrated", True, "report calibrated numbers (false: the search's raw means)"),
        positional="level",
    )

    def __init__(self, *, seed: int = 0, **options: Any) -> None:
        o = self.OPTIONS.resolve(options)
        given = [k for k in ("iterations", "temperature", "max_loss", "candidates")
                 if k in options]
        chosen = [k for k in ("level", "elo") if o[k] != 0]
        if len(chosen) > 1 or (chosen and given):
            raise ValueError("level: give a level (level:3), a rating (level:elo=1200) or "
                             f"the settings, one of them; got {', '.join(chosen + given)}")
        if o["level"]:
            self.setting = LEVELS[o["level"] - 1]
        elif o["elo"] != 0:
            self.setting = setting_for_elo(o["elo"])
        elif o["iterations"]:
            self.setting = Setting(o["iterations"], o["temperature"], o["max_loss"],
                                   o["candidates"])
        else:
            raise ValueError(f"level needs a level 1..{len(LEVELS)} (level:3), a rating "
                             "(level:elo=1200) or iterations=N with the pick's settings")
        self.seed = seed
        self.iterations = self.setting.iterations
        self._use_calibration(o["calibrated"])
        self.search = MctsBot(seed=seed, prior="auto", threads=1,
                              iterations=self.setting.iterations, calibrated=o["calibrated"])

    def analyze(self, state: engine.GameState, budget: "Budget | dict[str, Any] | None" = None,
                *, moves: Sequence[int] | None = None) -> Analysis:
        """The search's analysis at the level's iterations (a budget's time limit cuts it
        short; its iterations are not the level's to change), with the move it plays."""
        b = self.budget_for(Budget.of(budget))
        analysis = self.search.analyze(state, b, moves=moves)
        rng = random.Random((self.seed << 32) ^ zlib.crc32(state.state_bytes()))
        analysis.chosen = skill_pick(analysis.moves, self.setting, rng).action
        analysis.bot = self.name
        return analysis

    def stop(self) -> None:
        self._stop_requested = True
        self.search.stop()

    def default_budget(self) -> Budget:
        return Budget(iterations=self.setting.iterations)

    def budget_for(self, requested: Budget) -> Budget:
        """The level's iterations, within the requested time limit when there is one."""
        return Budget(iterations=self.setting.iterations, time_ms=requested.time_ms)

    def model_files(self, num_players: int) -> list[str]:
        return self.search.model_files(num_players)

    def resolved_options(self, options: dict[str, Any], num_players: int) -> dict[str, Any]:
        """The settings the level plays written out."""
        s = self.setting
        return dict(options, iterations=s.iterations, temperature=s.temperature,
                    max_loss=s.max_loss, candidates=s.candidates)


def levels_table(rated: Sequence[LevelRating] | None = None, *, markdown: bool = False) -> str:
    """The levels, weakest first: each one's measured rating and interval, games and
    settings, as text or a Markdown table."""
    rated = level_ratings() if rated is None else list(rated)
    by_level = {r.level: r for r in rated}
    head = ["level", "Elo", "95% interval", "over the level below", "games", "iterations",
            "temperature", "max_loss", "candidates"]
    rows = []
    for n, s in enumerate(LEVELS, 1):
        r = by_level.get(n)
        step = (f"{r.step:+.0f} ({r.step_ci[0]:+.0f} to {r.step_ci[1]:+.0f})"
                if r and r.step is not None and r.step_ci else "-")
        measured = ([f"{r.elo:.0f}", f"{r.ci[0]:.0f} to {r.ci[1]:.0f}", step, str(r.games)] if r
                    else ["-", "not measured", "-", "0"])
        rows.append([str(n), *measured, str(s.iterations), f"{s.temperature:g}",
                     f"{s.max_loss:g}", str(s.candidates)])
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "---:|" * len(head)]
        return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows]) + "\n"
    widths = [max(len(x) for x in col) for col in zip(head, *rows)]
    fmt = "  ".join(f"{{:>{w}}}" for w in widths)
    return "\n".join(fmt.format(*row) for row in [head, *rows]) + "\n"
