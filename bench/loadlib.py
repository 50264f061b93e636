"""Helpers of the load test that need neither locust nor a server: the budget mix, the
corpus, locust's CSV statistics and the memory verdict of a soak run.

`bench/locustfile.py` (run by locust, gevent-patched) and `bench/loadtest.py` (the plain
driver) both import it; so do the tests, which must not import locust (its import
monkey-patches the whole process with gevent).
"""
from __future__ import annotations

import csv
import gzip
import json
import os
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["BUDGET_FIELDS", "BudgetChoice", "BudgetMix", "CorpusState", "DEFAULT_BUDGETS",
           "DEFAULT_CORPUS", "RpcStats", "load_corpus", "memory_verdict", "parse_duration",
           "read_failures_csv", "read_stats_csv"]

BENCH = os.path.dirname(os.path.abspath(__file__))
#: The corpus written by `bench/make_corpus.py`.
DEFAULT_CORPUS = os.path.join(BENCH, "corpus", "states.jsonl.gz")
#: The default budget mix: mostly small time budgets, some larger, some fixed work.
DEFAULT_BUDGETS = "time_ms=10*2,time_ms=50,iterations=1000"
#: Budget fields of a `gallerist.v1.Budget`, as written in a mix.
BUDGET_FIELDS = ("iterations", "time_ms", "depth")


# ---------------------------------------------------------------------------- budgets


@dataclass(frozen=True)
class BudgetChoice:
    """One entry of a budget mix: a bot, a budget and a relative weight.

    Attributes:
        label: the entry as written, without its weight ("time_ms=10",
            "expectimax/depth=2"); names the entry in locust's statistics.
        bot: the bot spec sent as `HintRequest.bot_spec` ("mcts", "greedy", ...).
        iterations, time_ms, depth: the `HintRequest.budget` fields (0: unset).
        weight: how often it is picked, relative to the other entries.
    """

    label: str
    bot: str = "mcts"
    iterations: int = 0
    time_ms: int = 0
    depth: int = 0
    weight: float = 1.0


@dataclass
class BudgetMix:
    """A weighted choice of budgets, parsed from text such as
    ``"time_ms=10*2,time_ms=50,iterations=1000,expectimax/depth=2,greedy"``.

    Each comma-separated entry is ``[BOT/]FIELD=VALUE[+FIELD=VALUE...][*WEIGHT]`` or a
    bare bot name; FIELD is one of iterations, time_ms, depth; BOT defaults to mcts;
    WEIGHT defaults to 1.

    >>> mix = BudgetMix.parse("time_ms=10*3,expectimax/depth=2,greedy")
    >>> [(c.label, c.bot, c.time_ms, c.depth, c.weight) for c in mix.choices]
    [('time_ms=10', 'mcts', 10, 0, 3.0), ('expectimax/depth=2', 'expectimax', 0, 2, 1.0), ('greedy', 'greedy', 0, 0, 1.0)]
    """

    choices: list[BudgetChoice] = field(default_factory=list)

    @classmethod
    def parse(cls, text: str) -> "BudgetMix":
        """Parse a mix (ValueError naming the bad entry)."""
        choices = []
        for raw in filter(None, (x.strip() for x in text.split(","))):
            entry, _, weight_text = raw.partition("*")
            entry = entry.strip()
            try:
                weight = float(weight_text) if weight_text else 1.0
            except ValueError:
                raise ValueError(f"budget {raw!r}: weight {weight_text!r} is not a number") from None
            if weight <= 0:
                raise ValueError(f"budget {raw!r}: weight must be > 0")
            bot, slash, fields_text = entry.partition("/")
            if not slash:
                bot, fields_text = ("mcts", entry) if "=" in entry else (entry, "")
            values: dict[str, int] = {}
            for item in filter(None, fields_text.split("+")):
                key, eq, value = item.partition("=")
                key = key.strip()
                if not eq or key not in BUDGET_FIELDS:
                    raise ValueError(f"budget {raw!r}: expected FIELD=VALUE with FIELD one of "
                                     f"{', '.join(BUDGET_FIELDS)}, got {item!r}")
                try:
                    values[key] = int(value)
                except ValueError:
                    raise ValueError(f"budget {raw!r}: {key}={value!r} is not an integer") from None
                if values[key] < 0:
                    raise ValueError(f"budget {raw!r}: {key} must be >= 0")
            if not bot.strip():
                raise ValueError(f"budget {raw!r}: empty bot name")
            choices.append(BudgetChoice(label=entry, bot=bot.strip(), weight=weight, **values))
        if not choices:
            raise ValueError("the budget mix is empty")
        return cls(choices)

    def pick(self, rng: random.Random) -> BudgetChoice:
        """A random entry, by weight."""
        return rng.choices(self.choices, weights=[c.weight for c in self.choices])[0]

    def __str__(self) -> str:
        return ",".join(c.label + (f"*{c.weight:g}" if c.weight != 1 else "")
                        for c in self.choices)


# ---------------------------------------------------------------------------- corpus


@dataclass(frozen=True)
class CorpusState:
    """One recorded position (see `bench/make_corpus.py`).

    Attributes:
        state: the position as a dict in protobuf's JSON mapping of `gallerist.v1.GameState`.
        players: 2..4.
        stage: "opening", "early", "mid", "late" or "final".
        to_move: the seat to move (sent as the request's perspective).
        kind: the decision point's short name ("turn-start", "buy", ...).
    """

    state: dict[str, Any]
    players: int
    stage: str
    to_move: int
    kind: str


def load_corpus(path: str = DEFAULT_CORPUS) -> list[CorpusState]:
    """Read a corpus (JSON Lines, gzip-compressed if the name ends in .gz)."""
    opener: Any = gzip.open if path.endswith(".gz") else open
    out = []
    with opener(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                row = json.loads(line)
                out.append(CorpusState(state=row["state"], players=int(row["players"]),
                                       stage=str(row["stage"]), to_move=int(row["to_move"]),
                                       kind=str(row.get("kind", ""))))
    if not out:
        raise ValueError(f"{path}: no states")
    return out


# ---------------------------------------------------------------------------- locust CSV


@dataclass
class RpcStats:
    """One row of locust's ``PREFIX_stats.csv``: one rpc name, or "Aggregated".

    Times are in ms. Locust keeps response times rounded (to 1 ms below 100 ms, to 10 ms
    below 1000 ms, to 100 ms above), so its percentiles are rounded the same way.
    """

    name: str
    requests: int
    failures: int
    rps: float
    p50: float
    p95: float
    p99: float
    max: float
    average: float

    def as_dict(self) -> dict[str, Any]:
        """The row as a plain dict."""
        return dict(self.__dict__)


def _number(text: str) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        return float("nan")     # "N/A" when an rpc had no successful request


def read_stats_csv(path: str) -> dict[str, RpcStats]:
    """Parse ``PREFIX_stats.csv`` into rows by name ("Aggregated" included)."""
    rows: dict[str, RpcStats] = {}
    with open(path, newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            name = r["Name"]
            rows[name] = RpcStats(
                name=name, requests=int(r["Request Count"]), failures=int(r["Failure Count"]),
                rps=_number(r["Requests/s"]), p50=_number(r["50%"]), p95=_number(r["95%"]),
                p99=_number(r["99%"]), max=_number(r["Max Response Time"]),
                average=_number(r["Average Response Time"]))
    return rows


def read_failures_csv(path: str) -> list[dict[str, Any]]:
    """Parse ``PREFIX_failures.csv``: one dict (name, error, occurrences) per distinct error."""
    if not os.path.exists(path):
        return []
    with open(path, newline="", encoding="utf-8") as fh:
        return [{"name": r["Name"], "error": r["Error"], "occurrences": int(r["Occurrences"])}
                for r in csv.DictReader(fh)]


# ---------------------------------------------------------------------------- misc


def parse_duration(text: str | float) -> float:
    """Seconds from "90", "90s", "5m", "1h30m" (locust's own forms).

    >>> parse_duration("1m30s"), parse_duration("45"), parse_duration(2)
    (90.0, 45.0, 2.0)
    """
    if isinstance(text, (int, float)):
        return float(text)
    s = text.strip().lower()
    try:
        return float(s)
    except ValueError:
        pass
    total, number = 0.0, ""
    units = {"h": 3600.0, "m": 60.0, "s": 1.0}
    for ch in s:
        if ch.isdigit() or ch == ".":
            number += ch
        elif ch in units and number:
            total += float(number) * units[ch]
            number = ""
        else:
            raise ValueError(f"bad duration {text!r} (e.g. 30, 30s, 5m, 1h30m)")
    if number:
        raise ValueError(f"bad duration {text!r}: a number without a unit at the end")
    return total


def memory_verdict(samples: Sequence[tuple[float, float]], warmup_s: float,
                   tolerance: float = 0.10) -> dict[str, Any]:
    """Whether memory levelled off: after the warm-up, the samples stay within
    `tolerance` of each other ((max - min) / min), and the last is within `tolerance`
    of the first.

    Args:
        samples: (seconds since start, RSS in MB), in time order.
        warmup_s: samples before this time are not judged.
        tolerance: allowed relative spread (0.10: 10%).

    Returns:
        {"flat": bool, "spread": relative spread, "first_mb", "last_mb", "min_mb",
        "max_mb", "slope_mb_per_min": least-squares slope after warm-up, "samples": n}.

    >>> memory_verdict([(0, 50), (10, 80), (20, 81), (30, 80.5), (40, 81)], 10)["flat"]
    True
    """
    kept = [(t, m) for t, m in samples if t >= warmup_s]
    if len(kept) < 2:
        return {"flat": False, "spread": float("nan"), "samples": len(kept),
                "reason": "fewer than 2 samples after the warm-up"}
    mbs = [m for _, m in kept]
    lo, hi = min(mbs), max(mbs)
    n = len(kept)
    mean_t = sum(t for t, _ in kept) / n
    mean_m = sum(mbs) / n
    var_t = sum((t - mean_t) ** 2 for t, _ in kept)
    slope = (sum((t - mean_t) * (m - mean_m) for t, m in kept) / var_t * 60.0) if var_t else 0.0
    spread = (hi - lo) / lo if lo else float("inf")
    drift = abs(mbs[-1] - mbs[0]) / mbs[0] if mbs[0] else float("inf")
    return {"flat": spread <= tolerance and drift <= tolerance, "spread": spread,
            "drift": drift, "first_mb": mbs[0], "last_mb": mbs[-1], "min_mb": lo,
            "max_mb": hi, "slope_mb_per_min": slope, "samples": n}
