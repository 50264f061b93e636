"""What one request may ask of the server: the configurable limits and their checks.

Everything a client controls that sizes work (the budget, the bot's options, the report
interval, seeds) is checked here before it reaches a bot or the engine's C code. A value
out of range is a `RequestError` naming the field and the limit; the servicer turns it
into INVALID_ARGUMENT.

Each limit is declared once, in `LIMIT_SETTINGS`: `Limits`' defaults and checks, the
``serve`` flags, the replicas' arguments and the table of docs/operations.md come from it.
"""
from __future__ import annotations

import difflib
import math
from dataclasses import asdict, dataclass
from typing import Any

from gallerist.ai.calibration.maps import CalibrationError
from gallerist.ai.net.model_file import ModelFileError
from gallerist.ai.bots.base import Bot
from gallerist.ai.values import Budget
from gallerist.ai.bots.spec import DEFAULT_BOT, declared_options, make_bot, parse_spec
from gallerist.ai.settings.setting import Setting, Settings
from gallerist.server.status import INVALID_ARGUMENT, ServiceError

__all__ = ["LIMIT_SETTINGS", "Limits", "MAX_UINT32", "RequestError", "build_bot",
           "check_budget", "check_interval", "check_move_list", "check_query_id",
           "check_seed", "check_spec"]

#: Seeds are 0..2^63-1 (the bots add small offsets to them in 64-bit arithmetic).
MAX_SEED = 2**63 - 1
#: Largest value of a request's budget fields and report interval (uint32).
MAX_UINT32 = 2**32 - 1

#: The limits of one request, each declared once (a cap no higher than the largest value
#: of the bot option it caps, ai.bots.options). `Limits` takes its defaults and checks
#: from here, ``serve`` its flags (``--max-depth`` ...), the replicas their arguments.
LIMIT_SETTINGS = Settings(
    "limits of one request",
    Setting("max_iterations", 200_000, "most MCTS iterations one search may ask for",
            low=1, high=MAX_UINT32, metavar="N"),
    Setting("max_time_ms", 10_000, "longest search time; every search stops by then",
            low=1, high=MAX_UINT32, metavar="MS", unit="ms"),
    Setting("max_depth", 6, "deepest expectimax search, in decisions", low=1, high=64,
            metavar="N"),
    Setting("max_threads", 2, "most threads one search may use; each takes a search slot "
            "(at most --workers)", low=1, high=64, metavar="N"),
    Setting("max_nodes", 2_000_000, "largest MCTS tree, in nodes of 68 bytes", low=1,
            high=2**31 - 1, metavar="N"),
    Setting("max_tt_bits", 20, "largest expectimax transposition table, log2 of its "
            "entries of 32 bytes", low=1, high=26, metavar="BITS"),
    Setting("max_playouts", 1_000, "most root playouts (about 0.1 ms each) for the numbers "
            "of expectimax, greedy and random (their playouts option)", low=1,
            high=100_000, metavar="N"),
    Setting("default_bot", DEFAULT_BOT, "bot of requests that name none", says="a bot spec",
            metavar="SPEC"),
    Setting("default_interval_ms", 250, "AnalyzeStream's report interval when a request "
            "gives 0", low=1, high=MAX_UINT32, metavar="MS", unit="ms"),
    Setting("min_interval_ms", 20, "shortest report interval a request may ask for", low=1,
            high=MAX_UINT32, metavar="MS", unit="ms"),
    Setting("deadline_reserve_ms", 15.0, "time kept back from a client's deadline to build "
            "and send the answer, besides --deadline-reserve-fraction of the time left",
            low=0, high=3_600_000, metavar="MS", unit="ms"),
    Setting("deadline_reserve_fraction", 0.1, "share of the time to a client's deadline "
            "kept back, besides --deadline-reserve-ms", low=0, below=1, metavar="F"),
)
_LIMITS = LIMIT_SETTINGS.defaults


class RequestError(ServiceError, ValueError):
    """A request field that the server cannot accept: the message starts with the field."""

    status = INVALID_ARGUMENT

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


@dataclass(frozen=True)
class Limits:
    """Limits of one request, set when the server starts (`gallerist serve --help`). Every
    field but `bots` and `local` is a setting of `LIMIT_SETTINGS` (its default and range).

    Attributes:
        max_iterations: most MCTS iterations one search may ask for.
        max_time_ms: longest search time, ms.
        max_depth: deepest expectimax search, in decisions.
        max_threads: most threads one search may use (each takes one search slot).
        max_nodes: largest MCTS tree (nodes; 68 bytes each).
        max_tt_bits: largest expectimax transposition table, log2 of its entries
            (32 bytes each).
        max_playouts: most root playouts (about 0.1 ms each) the numbers of
            expectimax, greedy and random may ask for (their `playouts` option).
        default_bot: the bot spec used when a request names none (ai.bots.spec.DEFAULT_BOT:
            MCTS with the packaged models as its prior where they were trained).
        default_interval_ms: AnalyzeStream's report interval when the request gives 0.
        min_interval_ms: the shortest report interval a request may ask for.
        bots: the bots requests may name. Others in `ai.BOTS` are refused: they may not
            honour budgets and stop(), or, like ``remote``, reach other hosts.
        deadline_reserve_ms: time kept back from the client's deadline to build and send
            the answer, ms, plus `deadline_reserve_fraction` of the time remaining.
        deadline_reserve_fraction: see `deadline_reserve_ms`.
        local: the limits of a search in this process (the command line), not a
            server's: errors then say "known bots" and "the limit", not "this server
            offers" and "the server's limit".
    """

    max_iterations: int = _LIMITS["max_iterations"]
    max_time_ms: int = _LIMITS["max_time_ms"]
    max_depth: int = _LIMITS["max_depth"]
    max_threads: int = _LIMITS["max_threads"]
    max_nodes: int = _LIMITS["max_nodes"]
    max_tt_bits: int = _LIMITS["max_tt_bits"]
    max_playouts: int = _LIMITS["max_playouts"]
    default_bot: str = _LIMITS["default_bot"]
    default_interval_ms: int = _LIMITS["default_interval_ms"]
    min_interval_ms: int = _LIMITS["min_interval_ms"]
    deadline_reserve_ms: float = _LIMITS["deadline_reserve_ms"]
    deadline_reserve_fraction: float = _LIMITS["deadline_reserve_fraction"]
    # not settings: fixed by the code, never given to `serve`
    bots: tuple[str, ...] = ("mcts", "expectimax", "greedy", "random", "level")
    local: bool = False

    @property
    def whose(self) -> str:
        """Whose limits these are, in messages: "the server's" or "the local"."""
        return "the local" if self.local else "the server's"

    def __post_init__(self) -> None:
        bad = LIMIT_SETTINGS.problem(asdict(self))
        if bad is not None:
            setting, value = bad
            raise ValueError(f"limit {setting.name} must be {setting.says}, got {value!r}")
        check_spec(self.default_bot, self, field="default_bot")  # fail at start-up
        build_bot(self.default_bot, 0, field="default_bot")

    def search_ms(self, remaining_s: float | None) -> float | None:
        """The time a search may take before the client's deadline, in ms.

        Args:
            remaining_s: `context.time_remaining()`: seconds to the deadline, or None.

        Returns:
            None without a deadline, else the time remaining less the reserve (>= 0).
        """
        if remaining_s is None:
            return None
        ms = remaining_s * 1000.0
        return max(0.0, ms - self.deadline_reserve_ms - self.deadline_reserve_fraction * ms)


#: Longest bot spec accepted (the longest useful one is about 150 characters).
MAX_SPEC_CHARS = 256


def check_spec(spec: str, limits: Limits, *, field: str = "bot_spec") -> tuple[str, dict[str, Any]]:
    """Check a bot spec against the limits, without building the bot.

    Args:
        spec: a bot spec ("mcts:iterations=500").
        limits: the server's limits.
        field: the request field named in errors.

    Returns:
        (bot name, its options as given).

    Raises:
        RequestError: unknown bot or option, a bad value, or a value above a limit.
    """
    if len(spec) > MAX_SPEC_CHARS:
        raise RequestError(field, f"{len(spec)} characters is longer than the "
                                  f"{MAX_SPEC_CHARS} allowed")
    name = spec.partition(":")[0].strip().lower()
    if name and name not in limits.bots:
        if limits.local:
            close = difflib.get_close_matches(name, limits.bots, n=1)
            guess = f"; did you mean {close[0]!r}?" if close else ""
            raise RequestError(field, f"unknown bot {name!r} (known: "
                                      f"{', '.join(limits.bots)}){guess}")
        raise RequestError(field, f"unknown bot {name!r}; this server offers "
                                  f"{', '.join(limits.bots)}")
    try:
        name, opts = parse_spec(spec)
    except ValueError as exc:
        raise RequestError(field, str(exc)) from None
    declared = declared_options(name)
    for key, value in opts.items():
        option = declared[key]
        if isinstance(value, float) and not math.isfinite(value):
            raise RequestError(field, f"option {key}={value} must be a finite number")
        if (isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0
                and (option.low is not None or option.above is not None)):
            raise RequestError(field, f"option {key}={value} must be >= 0")
        if option.above is not None and value <= option.above:
            raise RequestError(field, f"option {key}={value} must be > {option.above:g}")
        if option.refused and not limits.local and field != "default_bot":
            raise RequestError(field, f"option {key}: {option.refused}")
        if option.limit:
            limit = getattr(limits, option.limit)
            if value > limit:
                raise RequestError(field, f"option {key}={value} is above {limits.whose} "
                                          f"limit of {limit}")
    return name, opts


def build_bot(spec: str, seed: int, *, field: str = "bot_spec") -> Bot:
    """A new bot (`ai.make_bot`) from a spec already checked by `check_spec` (bots keep
    state between calls, so every search gets its own).

    Raises:
        RequestError: the bot rejected an option value (naming the field).
    """
    try:
        return make_bot(spec, seed)  # type: ignore[no-any-return]
    except (CalibrationError, ModelFileError):   # the installation's files, not the request
        raise
    except ValueError as exc:
        raise RequestError(field, str(exc)) from None


def check_budget(iterations: int, time_ms: int, depth: int, limits: Limits) -> Budget:
    """A request's budget, checked against the limits (field names as in `Budget`).

    Raises:
        RequestError: a field above its limit, naming the field and the limit.
    """
    for field, value, limit, unit in (
            ("budget.iterations", iterations, limits.max_iterations, " iterations"),
            ("budget.time_ms", time_ms, limits.max_time_ms, " ms"),
            ("budget.depth", depth, limits.max_depth, " decisions")):
        if value < 0:
            raise RequestError(field, f"{value} must be >= 0")
        if value > limit:
            raise RequestError(field, f"{value} is above {limits.whose} limit of {limit}{unit}")
    return Budget(iterations=iterations, time_ms=float(time_ms), depth=depth)


def check_interval(interval_ms: int, limits: Limits) -> float:
    """AnalyzeStream's report interval in ms (0 = the default), checked."""
    if interval_ms == 0:
        return float(limits.default_interval_ms)
    if not limits.min_interval_ms <= interval_ms <= limits.max_time_ms:
        raise RequestError("report_interval_ms", f"{interval_ms} is outside {limits.whose} "
                           f"range {limits.min_interval_ms}..{limits.max_time_ms} ms")
    return float(interval_ms)


#: Longest query_id accepted, characters.
MAX_QUERY_ID_CHARS = 256
#: Most actions in a game's move list (GameMoves): far above any real game's history.
MAX_GAME_ACTIONS = 20_000
#: Most entries in allow_moves / avoid_moves (there are 183 actions).
MAX_MOVE_LIST = 183
#: Longest text of one move in a list (no notation is longer).
MAX_MOVE_CHARS = 64
#: Longest game record line (AnalyzeGameRequest.record), characters.
MAX_RECORD_CHARS = 1_000_000


def check_query_id(query_id: str, field: str = "query_id") -> str:
    """A client's query id, checked for length."""
    if len(query_id) > MAX_QUERY_ID_CHARS:
        raise RequestError(field, f"{len(query_id)} characters is longer than the "
                                  f"{MAX_QUERY_ID_CHARS} allowed")
    return query_id


def check_move_list(moves: Any, field: str, most: int = MAX_MOVE_LIST) -> list[Any]:
    """A list of moves from a request (ids or notation), checked for size only."""
    if len(moves) > most:
        raise RequestError(field, f"{len(moves)} moves is more than the {most} allowed")
    for i, m in enumerate(moves):
        if isinstance(m, str) and len(m) > MAX_MOVE_CHARS:
            raise RequestError(f"{field}[{i}]", f"{len(m)} characters is longer than any "
                                                "action's notation")
    return list(moves)


def check_seed(seed: int, field: str = "seed") -> int:
    """A seed, checked to be in 0..2^63-1."""
    if not 0 <= seed <= MAX_SEED:
        raise RequestError(field, f"{seed} is outside 0..2^63-1")
    return seed
