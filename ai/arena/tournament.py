"""Tournaments between bots: fair schedules (every seating of every combination on the same
setup seed; solo: every bot on every seed), parallel play (local processes or Ray), game
records, aggregated results; an arena stopped early is summarised (`summarise_records`)
or resumed (`resume_tournament`) from its records. docs/cli.md ("arena and replay").
"""
from __future__ import annotations

import itertools
import logging
import os
import time
import warnings
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable, Iterator, Sequence

from gallerist.ai.arena.records import (ArenaSetup, GameRecord, RecordsError, new_run_id, read_records,
                                        replay, run_records)
from gallerist.ai.arena.report import format_report, plot_ratings
from gallerist.ai.arena.ratings import GameResult, pairwise_table, ratings, solo_summary, summarize
from gallerist.ai.signals import signals_held, worker_signals, worker_start_method
from gallerist.ai.words import counted
from gallerist.engine.errors import GalleristError

__all__ = ["ArenaSetup", "GameFailed", "GameRecord", "GameSpec", "RecordsError", "Tournament",
           "check_specs", "format_report", "plot_ratings", "read_records", "replay", "resume_tournament",
           "run_tournament", "schedule", "summarise_records"]

log = logging.getLogger(__name__)

#: Largest setup seed of a scheduled game (the service's seeds: 0..2^63-1).
MAX_SEED = 2**63 - 1


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
    block = sum(len(set(itertools.permutations(group))) for group in groups)
    last = seed + (games + block - 1) // block - 1
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be 0..2^63-1, got {seed}")
    if last > MAX_SEED:
        raise ValueError(f"seed {seed}: the last games would be set up from seed {last}, "
                         f"above 2^63-1; give a smaller first seed")
    out: list[GameSpec] = []
    k = 0
    while len(out) < games:
        for group in groups:
            for seats in sorted(set(itertools.permutations(group))):
                out.append(GameSpec(index=len(out), seed=seed + k, seats=tuple(seats)))
        k += 1
    return out


def bot_seed(game_seed: int, seat: int, spec: str) -> int:
    """A bot's seed: fixed by the game and seat, so a game replays the same anywhere."""
    h = 1469598103934665603
    for ch in f"{game_seed}/{seat}/{spec}".encode():
        h = ((h ^ ch) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h & 0x7FFFFFFF


class GameFailed(GalleristError, RuntimeError):
    """A scheduled game could not be played (e.g. a remote bot's service died). It holds
    only its message, so it pickles: the cause reaches the user from any worker."""


def _close_all(bots: Sequence[Any]) -> None:
    for bot in bots:
        close = getattr(bot, "close", None)
        if callable(close):
            close()


def play_scheduled(game: GameSpec) -> GameRecord:
    """Play one scheduled game (in whatever process or Ray worker runs it).

    Raises:
        GameFailed: anything went wrong; the message names the game and the cause.
    """
    from gallerist.ai.arena.play import play_game
    from gallerist.ai.bots.spec import make_bot

    t0 = time.perf_counter()
    bots: list[Any] = []
    try:
        bots = [make_bot(spec, seed=bot_seed(game.seed, seat, spec)) for seat, spec in enumerate(game.seats)]
        final = play_game(bots, seed=game.seed)
    except Exception as exc:
        cause = str(exc) if isinstance(exc, ConnectionError) else f"{type(exc).__name__}: {exc}"
        raise GameFailed(f"game {game.index} (seed {game.seed}) failed: {cause}") from None
    finally:
        _close_all(bots)
    return GameRecord(game=game.index, seed=game.seed, bots=list(game.seats), actions=final.history,
                      money=final.money(), returns=final.returns(),
                      scores=final.final_scores(), seconds=time.perf_counter() - t0)


# ---------------------------------------------------------------------------- backends

FAST_BOTS = ("random", "greedy")


def run_local(games: Sequence[GameSpec], workers: int,
              play: Callable[[GameSpec], Any] | None = None) -> Iterator[Any]:
    """Play games on local processes, yielding what `play` returns (default None: the
    game's record, `play_scheduled`; self-play passes its own) as they finish. Games of fast
    bots go out in small chunks so that they do not drown in inter-process overhead;
    games of searching bots one at a time, so that Ctrl-C loses none that finished.
    Workers are forked, or spawned when a bot is remote or JAX is loaded
    (`ai.signals.worker_start_method`).
    On Ctrl-C or SIGTERM (KeyboardInterrupt, `ai.signals`) the workers are terminated at
    once."""
    play = play or play_scheduled
    if workers <= 1:
        for g in games:
            yield play(g)
        return
    import multiprocessing

    kinds = {spec.split(":")[0].strip().lower() for g in games for spec in g.seats}
    size = max(1, min(16, len(games) // (workers * 8))) if kinds <= set(FAST_BOTS) else 1
    # gRPC (the remote bots' health check) and JAX do not survive fork(): fresh workers then
    method = worker_start_method(remote="remote" in kinds)
    pool = multiprocessing.get_context(method).Pool(workers, initializer=worker_signals)
    try:
        yield from pool.imap_unordered(play, games, chunksize=size)
        pool.close()
    except BaseException:
        _stop_at_once(pool)
        raise
    pool.join()


def _stop_at_once(pool: Any) -> None:
    """Stop a process pool now: no new workers, the workers killed, nothing left to run at
    exit. Not Pool.terminate(): it first takes the task queue's lock, which an idle worker
    holds while it waits for a task, so it can wait forever once no task comes."""
    from multiprocessing.pool import TERMINATE

    pool._worker_handler._state = TERMINATE   # the pool starts no worker in place of these
    for proc in list(pool._pool):
        proc.kill()
    for proc in list(pool._pool):
        proc.join(5)
    pool._terminate.cancel()   # its own clean-up would take that lock too


def run_ray(games: Sequence[GameSpec], workers: int, address: str | None,
            play: Callable[[GameSpec], Any] | None = None) -> Iterator[Any]:
    """Play games as Ray tasks (a local Ray cluster unless `address` is given), yielding
    what `play` returns (default None: `play_scheduled`) as they finish. A cluster
    already initialised in this process (`ray.init` by the caller) is used as it is."""
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
        remote = ray.remote(num_cpus=1)(play or play_scheduled)
        pending = [remote.remote(g) for g in games]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                try:
                    yield ray.get(ref)
                except ray.exceptions.RayTaskError as exc:   # the task's GameFailed
                    raise GameFailed(str(getattr(exc, "cause", None) or exc)) from None
    finally:
        if started:
            ray.shutdown()


# ---------------------------------------------------------------------------- tournament

@dataclass
class Tournament:
    """Results of a tournament (records in game order). `scheduled` is how many games
    the schedule has; `error` says why it stopped early if a game failed."""

    bots: list[str]
    players: int
    records: list[GameRecord] = field(default_factory=list)
    interrupted: bool = False
    seconds: float = 0.0
    scheduled: int = 0
    run: str = ""
    error: str | None = None

    def results(self) -> list[GameResult]:
        return [r.result() for r in sorted(self.records, key=lambda r: r.game)]

    def report(self, bootstrap: int | None = None) -> dict[str, Any]:
        """The results: win rates, pairwise table and ratings with profile-likelihood
        intervals; solo (players == 1) the mean and spread of each bot's score ("solo")
        instead. Bots that played no game are listed as "unplayed" and left out of the
        statistics. (`bootstrap` is no longer used: the intervals are not resampled.)"""
        if bootstrap is not None:
            warnings.warn("Tournament.report(bootstrap=...) is no longer used: rating intervals "
                          "are profile-likelihood intervals", DeprecationWarning, stacklevel=2)
        res = self.results()
        seen = {b for r in res for b in r.bots}
        played = [b for b in self.bots if b in seen]
        out: dict[str, Any] = {
            "players": self.players, "bots": self.bots, "games": len(res),
            "scheduled": self.scheduled or len(res), "run": self.run,
            "interrupted": self.interrupted, "error": self.error, "seconds": self.seconds,
            "unplayed": [b for b in self.bots if b not in seen],
        }
        if self.players == 1:
            out["solo"] = [asdict(s) for s in solo_summary(res)]
            return out
        out["summary"] = [asdict(s) for s in summarize(res)]
        out["pairwise"] = {"bots": played, "table": pairwise_table(res, played)}
        if res:
            out["ratings"] = [asdict(r) for r in ratings(res, played)]
        return out


def _check_records_file(path: str, setup: ArenaSetup) -> None:
    """Refuse to append a run of `setup` to a records file of another arena."""
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return
    try:
        records = read_records(path)
    except OSError as exc:
        raise RecordsError(f"--records {path}: cannot read it: {exc}") from None
    others = {r.run: r.setup() for r in records if r.setup() != setup}
    if others:
        run, other = next(iter(others.items()))
        what = f"run {run} ({other.describe()})" if other else "games of an older arena without run ids"
        raise RecordsError(f"--records {path} already holds {what}, not this arena; give another "
                           f"--records file, or finish that arena with --resume {path}")


def check_specs(bots: Sequence[str]) -> None:
    """Check every spec by its text alone (no bot is made, no file or service touched).

    Raises:
        ValueError: the first bad spec, named, with what is wrong with it.
    """
    from gallerist.ai.bots.spec import parse_spec

    for spec in bots:
        try:
            name, _, rest = spec.strip().partition(":")
            if name.strip().lower() == "remote":
                from gallerist.ai.bots.remote import parse_remote_spec
                parse_remote_spec(rest)
            else:
                parse_spec(spec)
        except ValueError as exc:
            raise ValueError(f"bot spec {spec!r}: {exc}") from None


def _preflight(bots: Sequence[str]) -> None:
    """Check every spec before any game: a bad spec is a ValueError; a remote bot whose
    service does not answer its health check is a `RemoteError` (a ConnectionError)."""
    from gallerist.ai.bots.spec import make_bot

    for spec in bots:
        bot = make_bot(spec)
        try:
            check = getattr(bot, "check_reachable", None)
            if callable(check):
                check()
        finally:
            _close_all([bot])


def _play(t: Tournament, plan: Sequence[GameSpec], setup: ArenaSetup, *, workers: int, backend: str,
          ray_address: str | None, records_path: str | None,
          progress: Callable[[int, int], None] | None) -> Tournament:
    """Play `plan`, adding the records to `t` (and appending them to `records_path` as
    they finish). Ctrl-C, or a game that fails, stops the tournament: it is marked
    interrupted (with the failure as `error`) and keeps every finished game."""
    if backend == "local":
        source: Iterable[GameRecord] = run_local(plan, workers)
    elif backend == "ray":
        source = run_ray(plan, workers, ray_address)
    else:
        raise ValueError(f"unknown backend {backend!r}: use 'local' or 'ray'")
    t0 = time.perf_counter()
    fh = open(records_path, "a", encoding="utf-8") if records_path else None
    if progress:
        progress(len(t.records), t.scheduled)
    try:
        for rec in source:
            with signals_held():   # a finished game is kept in the report and the file
                rec.run, rec.arena = t.run, setup.as_dict()
                t.records.append(rec)
                if fh:
                    fh.write(rec.to_json() + "\n")
                    fh.flush()
            if progress:
                progress(len(t.records), t.scheduled)
    except KeyboardInterrupt:
        t.interrupted = True
        log.warning("interrupted: keeping %s", counted(len(t.records), "finished game"))
    except GameFailed as exc:
        t.interrupted, t.error = True, str(exc)
        log.warning("stopped: a game failed; keeping %s",
                    counted(len(t.records), "finished game"))
    finally:
        if fh:
            fh.close()
        t.seconds += time.perf_counter() - t0
    return t


def run_tournament(bots: Sequence[str], *, players: int = 2, games: int = 20, workers: int = 1,
                   seed: int = 0, backend: str = "local", ray_address: str | None = None,
                   records_path: str | None = None,
                   progress: Callable[[int, int], None] | None = None) -> Tournament:
    """Play a tournament. Records are appended to `records_path` (JSON Lines) as games
    finish, so Ctrl-C keeps every finished game; the tournament is then marked interrupted.
    A game that fails (e.g. a remote bot's service died) stops it the same way, with
    the cause as `error`. `progress(done, scheduled)` is called once every check has
    passed, before the first game, then after each game.

    Raises:
        ValueError: a bad spec or argument; `RecordsError` if `records_path` holds the
            records of another arena.
        ConnectionError: a remote bot's service does not answer (before any game).
    """
    bots = list(dict.fromkeys(bots))
    check_specs(bots)
    plan = schedule(bots, players, games, seed)
    setup = ArenaSetup(bots=tuple(bots), players=players, games=games, seed=seed)
    if records_path:
        _check_records_file(records_path, setup)
    _preflight(bots)
    t = Tournament(bots=bots, players=players, scheduled=len(plan), run=new_run_id())
    return _play(t, plan, setup, workers=workers, backend=backend, ray_address=ray_address,
                 records_path=records_path, progress=progress)


def summarise_records(records_path: str, run: str | None = None) -> Tournament:
    """The tournament of one run of a records file (default: its last run), as played
    so far, without playing anything. Records without an arena (written before runs
    existed) are summarised over the bots they name.

    Raises:
        OSError, ValueError: the file cannot be read or holds no such run.
    """
    records = sorted(run_records(read_records(records_path), run, records_path), key=lambda r: r.game)
    t = Tournament(bots=list(dict.fromkeys(b for r in records for b in r.bots)),
                   players=len(records[0].bots), records=records, scheduled=len(records),
                   run=records[0].run, seconds=sum(r.seconds for r in records))
    setup = records[0].setup()
    if setup is not None:
        plan = schedule(list(setup.bots), setup.players, setup.games, setup.seed)
        t.bots, t.players, t.scheduled = list(setup.bots), setup.players, len(plan)
        t.interrupted = bool({g.index for g in plan} - {r.game for r in records})
    return t


def resume_tournament(records_path: str, *, run: str | None = None, workers: int = 1,
                      backend: str = "local", ray_address: str | None = None,
                      progress: Callable[[int, int], None] | None = None) -> Tournament:
    """Finish a run of a records file (default: its last run): play only the games of
    its schedule that have no record yet, append them under the same run id, and return
    the whole tournament (the old games and the new ones). The same seeds give the same
    games as an uninterrupted run.

    Raises:
        OSError, ValueError: the file cannot be read, or its records have no schedule.
        ConnectionError: a remote bot's service does not answer (before any game).
    """
    t = summarise_records(records_path, run)
    first = t.records[0]
    setup = first.setup()
    if setup is None:
        what = ("one game's record, as 'gallerist play --record' writes it, not an arena's"
                if len(t.records) == 1 and first.game == 0 else
                "records without an arena schedule (written by an older version)")
        raise RecordsError(f"{records_path}: {what}; it can be summarised (--summarise) or "
                           f"replayed (gallerist replay) but not resumed")
    done = {r.game for r in t.records}
    missing = [g for g in schedule(list(setup.bots), setup.players, setup.games, setup.seed)
               if g.index not in done]
    t.interrupted = False
    if missing:
        _preflight(list(setup.bots))
        log.info("resuming run %s: %d of %s recorded, playing the %d missing",
                 t.run, len(done), counted(t.scheduled, "game"), len(missing))
        _play(t, missing, setup, workers=workers, backend=backend, ray_address=ray_address,
              records_path=records_path, progress=progress)
    t.records.sort(key=lambda r: r.game)
    return t
