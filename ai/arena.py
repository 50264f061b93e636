"""Tournaments between bots: fair schedules, parallel play (local processes or Ray),
game records, aggregated results.

Fairness: bots meet in every combination of `players` of them; each combination plays
every seating permutation on the same setup seed (paired games), so seat order and
luck cancel out. Chance events come from the game's seed, never from the bots'.

Solo (`players=1`, each game one bot against Lacerda): every bot plays every setup seed,
and the report gives each bot's mean score (final money) and its spread instead of win
rates and ratings.
"""
from __future__ import annotations

import itertools
import json
import logging
import signal
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable, Iterator, Sequence

from gallerist import engine
from gallerist.ai.ratings import GameResult, pairwise_table, ratings, solo_summary, summarize

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class GameSpec:
    """One scheduled game: its index, setup seed and the bot spec of each seat."""

    index: int
    seed: int
    seats: tuple[str, ...]


def schedule(bots: Sequence[str], players: int, games: int, seed: int) -> list[GameSpec]:
    """Paired games: for setup seed k = 0, 1, ..., every combination of `players` bots
    plays every seating permutation on seed `seed + k`, until at least `games` games are
    scheduled (rounded up to whole blocks of one seed, so every seating is played
    equally often)."""
    if players not in (1, 2, 3, 4):
        raise ValueError(f"players must be 1 (solo), 2, 3 or 4, got {players}")
    if not bots:
        raise ValueError("an arena needs at least one bot (one bot plays itself)")
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    if len(bots) >= players:
        groups = list(itertools.combinations(bots, players))
    else:   # fewer bots than seats: every bot plays, the first ones twice
        groups = [tuple(itertools.islice(itertools.cycle(bots), players))]
    out: list[GameSpec] = []
    k = 0
    while len(out) < games:
        for group in groups:
            for seats in sorted(set(itertools.permutations(group))):
                out.append(GameSpec(index=len(out), seed=seed + k, seats=tuple(seats)))
        k += 1
    return out


@dataclass
class GameRecord:
    """What a finished game leaves behind; `replay` reproduces it exactly."""

    game: int
    seed: int
    bots: list[str]
    actions: list[int]
    money: list[int]
    returns: list[float]
    scores: list[dict[str, int]]
    seconds: float

    def result(self) -> GameResult:
        return GameResult(bots=tuple(self.bots), money=tuple(self.money), returns=tuple(self.returns))


def bot_seed(game_seed: int, seat: int, spec: str) -> int:
    """A bot's seed: fixed by the game and seat, so a game replays the same anywhere."""
    h = 1469598103934665603
    for ch in f"{game_seed}/{seat}/{spec}".encode():
        h = ((h ^ ch) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h & 0x7FFFFFFF


def play_scheduled(game: GameSpec) -> GameRecord:
    """Play one scheduled game (in whatever process or Ray worker runs it)."""
    from gallerist.ai.play import play_game
    from gallerist.ai.spec import make_bot

    t0 = time.perf_counter()
    bots = [make_bot(spec, seed=bot_seed(game.seed, seat, spec)) for seat, spec in enumerate(game.seats)]
    final = play_game(bots, seed=game.seed)
    return GameRecord(game=game.index, seed=game.seed, bots=list(game.seats), actions=final.history,
                      money=final.money(), returns=final.returns(),
                      scores=final.final_scores(), seconds=time.perf_counter() - t0)


def replay(record: GameRecord | dict[str, Any], on_action: Callable[[engine.GameState, int], None] | None = None
           ) -> engine.GameState:
    """Replay a record's actions from its setup seed; returns the final state. Raises
    ValueError if an action is illegal or the final money differs from the record."""
    rec = record if isinstance(record, GameRecord) else GameRecord(**record)
    state = engine.new_game(num_players=len(rec.bots), seed=rec.seed)
    for i, a in enumerate(rec.actions):
        if on_action is not None:
            on_action(state, a)
        try:
            state.apply(a)
        except engine.IllegalActionError as exc:
            raise ValueError(f"record of game {rec.game}: action #{i} is illegal: {exc}") from None
    if not state.is_terminal():
        raise ValueError(f"record of game {rec.game}: the actions do not reach the end")
    if state.money() != list(rec.money):
        raise ValueError(f"record of game {rec.game}: final money {state.money()} != recorded {rec.money}")
    return state


def read_records(path: str) -> list[GameRecord]:
    out = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if line.strip():
                try:
                    out.append(GameRecord(**json.loads(line)))
                except (ValueError, TypeError) as exc:
                    raise ValueError(f"{path}:{n}: not a game record: {exc}") from None
    return out


# ---------------------------------------------------------------------------- backends

def _init_worker() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the parent's to handle


FAST_BOTS = ("random", "greedy")


def run_local(games: Sequence[GameSpec], workers: int) -> Iterator[GameRecord]:
    """Play games on local processes, yielding records as they finish. Games of fast
    bots go out in small chunks so that they do not drown in inter-process overhead;
    games of searching bots one at a time, so that Ctrl-C loses none that finished.
    On Ctrl-C (KeyboardInterrupt) the workers are terminated at once."""
    if workers <= 1:
        for g in games:
            yield play_scheduled(g)
        return
    import multiprocessing

    fast = all(spec.split(":")[0] in FAST_BOTS for g in games for spec in g.seats)
    size = max(1, min(16, len(games) // (workers * 8))) if fast else 1
    pool = multiprocessing.get_context("fork").Pool(workers, initializer=_init_worker)
    try:
        yield from pool.imap_unordered(play_scheduled, games, chunksize=size)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()


def run_ray(games: Sequence[GameSpec], workers: int, address: str | None) -> Iterator[GameRecord]:
    """Play games as Ray tasks (a local Ray cluster unless `address` is given)."""
    try:
        import ray
    except ImportError:
        raise ValueError("the Ray backend needs Ray: pip install -e \".[ray]\"") from None
    started = False
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if address:
            kwargs["address"] = address
        else:
            kwargs["num_cpus"] = max(1, workers)
        ray.init(**kwargs)
        started = True
    try:
        remote = ray.remote(num_cpus=1)(play_scheduled)
        pending = [remote.remote(g) for g in games]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                yield ray.get(ref)
    finally:
        if started:
            ray.shutdown()


# ---------------------------------------------------------------------------- tournament

@dataclass
class Tournament:
    """Results of a tournament (records in game order)."""

    bots: list[str]
    players: int
    records: list[GameRecord] = field(default_factory=list)
    interrupted: bool = False
    seconds: float = 0.0

    def results(self) -> list[GameResult]:
        return [r.result() for r in sorted(self.records, key=lambda r: r.game)]

    def report(self, bootstrap: int = 200) -> dict[str, Any]:
        """The results: win rates, pairwise table and ratings; solo (players == 1) the
        mean and spread of each bot's score ("solo") instead."""
        res = self.results()
        out: dict[str, Any] = {
            "players": self.players, "bots": self.bots, "games": len(res),
            "interrupted": self.interrupted, "seconds": self.seconds,
        }
        if self.players == 1:
            out["solo"] = [asdict(s) for s in solo_summary(res)]
            return out
        out["summary"] = [asdict(s) for s in summarize(res)]
        out["pairwise"] = {"bots": self.bots, "table": pairwise_table(res, self.bots)}
        if res:
            out["ratings"] = [asdict(r) for r in ratings(res, self.bots, bootstrap=bootstrap)]
        return out


def run_tournament(bots: Sequence[str], *, players: int = 2, games: int = 20, workers: int = 1,
                   seed: int = 0, backend: str = "local", ray_address: str | None = None,
                   records_path: str | None = None,
                   progress: Callable[[int, int], None] | None = None) -> Tournament:
    """Play a tournament. Records are appended to `records_path` (JSON Lines) as games
    finish, so Ctrl-C keeps every finished game; the tournament is then marked interrupted.
    """
    from gallerist.ai.spec import make_bot

    bots = list(dict.fromkeys(bots))
    for spec in bots:
        make_bot(spec)        # a bad spec fails here, before any game starts
    plan = schedule(bots, players, games, seed)
    t = Tournament(bots=bots, players=players)
    t0 = time.perf_counter()
    if backend == "local":
        source: Iterable[GameRecord] = run_local(plan, workers)
    elif backend == "ray":
        source = run_ray(plan, workers, ray_address)
    else:
        raise ValueError(f"unknown backend {backend!r}: use 'local' or 'ray'")
    fh = open(records_path, "a", encoding="utf-8") if records_path else None
    try:
        for rec in source:
            t.records.append(rec)
            if fh:
                fh.write(json.dumps(asdict(rec)) + "\n")
                fh.flush()
            if progress:
                progress(len(t.records), len(plan))
    except KeyboardInterrupt:
        t.interrupted = True
        log.warning("interrupted: keeping %d finished games", len(t.records))
    finally:
        if fh:
            fh.close()
        t.seconds = time.perf_counter() - t0
    return t


def format_report(report: dict[str, Any]) -> str:
    """The report as readable tables."""
    players = "solo against Lacerda" if report["players"] == 1 else f"{report['players']} players"
    lines = [f"{report['games']} games, {players}"
             + (" (interrupted)" if report["interrupted"] else "") + f", {report['seconds']:.1f} s"]
    if "solo" in report:
        lines.append(f"{'bot':<36} {'games':>5} {'mean':>7} {'std':>6} {'95% CI of mean':>15} "
                     f"{'min':>5} {'max':>5}")
        for s in report["solo"]:
            lo, hi = s["mean_ci"]
            lines.append(f"{s['bot']:<36} {s['games']:>5} {s['mean_score']:>7.1f} "
                         f"{s['std_score']:>6.1f} {f'{lo:.1f}-{hi:.1f}':>15} "
                         f"{s['min_score']:>5} {s['max_score']:>5}")
        return "\n".join(lines)
    lines.append(f"{'bot':<36} {'games':>5} {'wins':>6} {'win rate':>9} {'95% CI':>15} {'money':>7} {'margin':>7}")
    for s in report["summary"]:
        lo, hi = s["win_rate_ci"]
        lines.append(f"{s['bot']:<36} {s['games']:>5} {s['wins']:>6.1f} {100 * s['win_rate']:>8.1f}% "
                     f"{f'{100 * lo:.1f}-{100 * hi:.1f}%':>15} {s['mean_money']:>7.1f} {s['mean_margin']:>7.1f}")
    bots = report["pairwise"]["bots"]
    lines.append("")
    lines.append("pairwise: row finished ahead of column")
    lines.append(" " * 28 + "".join(f"{i + 1:>8}" for i in range(len(bots))))
    for i, b in enumerate(bots):
        cells = "".join(f"{'-':>8}" if v is None else f"{100 * v:>7.0f}%" for v in report["pairwise"]["table"][i])
        lines.append(f"{i + 1:>2} {b[:25]:<25}{cells}")
    if "ratings" in report:
        lines.append("")
        lines.append(f"{'rating (Bradley-Terry, Elo scale)':<36} {'elo':>7} {'95% CI':>17}")
        for r in report["ratings"]:
            lines.append(f"{r['bot']:<36} {r['elo']:>7.0f} {r['ci'][0]:>8.0f} {r['ci'][1]:>8.0f}")
    return "\n".join(lines)


def plot_ratings(report: dict[str, Any], path: str) -> None:
    """Draw the ratings with their intervals to a PNG (solo: each bot's mean score with
    its 95% interval and a bar of one standard deviation)."""
    if "solo" in report:
        _plot_solo(report, path)
        return
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rs = report.get("ratings", [])
    fig, ax = plt.subplots(figsize=(7, 0.6 * max(2, len(rs)) + 1.2))
    ys = list(range(len(rs)))[::-1]
    for y, r in zip(ys, rs):
        ax.errorbar(r["elo"], y, xerr=[[r["elo"] - r["ci"][0]], [r["ci"][1] - r["elo"]]],
                    fmt="o", capsize=4, color="tab:blue")
    ax.set_yticks(ys, [r["bot"] for r in rs])
    ax.axvline(0, color="grey", lw=0.5)
    ax.set_xlabel("rating (Bradley-Terry, Elo scale; 95% bootstrap interval)")
    ax.set_title(f"{report['games']} games, {report['players']} players")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _plot_solo(report: dict[str, Any], path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rs = report["solo"]
    fig, ax = plt.subplots(figsize=(7, 0.6 * max(2, len(rs)) + 1.2))
    ys = list(range(len(rs)))[::-1]
    for y, r in zip(ys, rs):
        ax.errorbar(r["mean_score"], y, xerr=r["std_score"], fmt="none", ecolor="lightgrey",
                    elinewidth=6)
        lo, hi = r["mean_ci"]
        ax.errorbar(r["mean_score"], y, xerr=[[r["mean_score"] - lo], [hi - r["mean_score"]]],
                    fmt="o", capsize=4, color="tab:blue")
    ax.set_yticks(ys, [r["bot"] for r in rs])
    ax.set_xlabel("solo score, $ (mean, 95% interval; grey: one standard deviation)")
    ax.set_title(f"{report['games']} games, solo against Lacerda")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
