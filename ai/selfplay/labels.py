"""Playout labels of self-play records (the ``playout_win`` column): every seat's mean win
share over N uniform random playouts from a recorded position, from the deciding player's
view. `label_seed` makes a position's label the same whether `gallerist selfplay
--playouts` or `gallerist label` (`label_directory`) computed it; docs/training.md
("Playout labels") says more.
"""
from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from gallerist import engine
from gallerist.ai.selfplay.records import PLAYOUTS_KEY, SEATS
from gallerist.ai.words import counted
from gallerist.engine.errors import GalleristError

__all__ = ["MAX_PLAYOUTS", "LabelRun", "LabelError", "label_directory", "label_game",
           "label_position", "label_seed"]

log = logging.getLogger(__name__)

#: Most playouts per position (`playout_shares`' own limit).
MAX_PLAYOUTS = 1_000_000
#: Mixed into every label seed, so that labels do not share a stream with the bots' seeds.
_SALT = 0x706C61796F7574   # "playout"


class LabelError(GalleristError, ValueError):
    """A bad argument or a directory that cannot be labelled (the message names it)."""


def check_playouts(option: str, count: Any) -> int:
    """`count` as a number of playouts per position, 1..MAX_PLAYOUTS.

    Raises:
        LabelError: naming `option` and the value.
    """
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) \
            or not 1 <= int(count) <= MAX_PLAYOUTS:
        raise LabelError(f"{option} {count!r}: expected playouts per position in 1..{MAX_PLAYOUTS}")
    return int(count)


def label_seed(game_seed: int, decision: int) -> int:
    """The playout seed of decision `decision` (0-based, in the game's record order) of
    the game set up from `game_seed`."""
    return int(np.random.SeedSequence([_SALT, int(game_seed), int(decision)])
               .generate_state(1, np.uint64)[0])


def label_position(state: engine.GameState, player: int, count: int, seed: int) -> np.ndarray:
    """Every seat's mean win share over `count` uniform random playouts from `state`,
    played from `player`'s view (the others' hidden cards dealt anew each time), in
    tensor seat order (column k is seat (player + k) % n; absent seats 0), float32 (4,).
    Solo: [1, 0, 0, 0], as the records' win_share."""
    from gallerist.ai.search._rollout import playout_shares

    n = state.num_players
    out = np.zeros(SEATS, np.float32)
    if n == 1:
        out[0] = 1.0
        return out
    shares, _ = playout_shares(state.view(player), player, count, 0.0, seed)
    out[:n] = np.asarray(shares, np.float32)[(player + np.arange(n)) % n]
    return out


def label_game(players: int, game_seed: int, decisions: Sequence[int], movers: Sequence[int],
               count: int, *, where: str = "game",
               observations: np.ndarray | None = None) -> np.ndarray:
    """The ``playout_win`` rows of one recorded game (float32, (decisions, 4)), replaying
    it from its seed.

    Args:
        players, game_seed: the game's player count and setup seed.
        decisions, movers: its recorded actions and deciding seats, in order.
        count: playouts per position.
        where: names the game in errors.
        observations: the recorded observations, checked against the replay's (None: no
            check).

    Raises:
        GameInputError: the records do not replay, or the replay's observations differ
            from the recorded ones (naming `where` and the decision).
    """
    from gallerist.ai.review.games import GameInputError, replay_selfplay

    out = np.zeros((len(decisions), SEATS), np.float32)
    for state, i in replay_selfplay(players, game_seed, decisions, movers, where=where):
        player = int(movers[i])
        if observations is not None and not np.array_equal(state.observation(player),
                                                           observations[i]):
            raise GameInputError(f"{where}, decision {i}: the replayed position differs from "
                                 f"the recorded observation (records of another engine "
                                 f"version?)")
        out[i] = label_position(state, player, count, label_seed(game_seed, i))
    return out


def _label_task(task: tuple[Any, ...]) -> tuple[int, np.ndarray]:
    game, players, seed, decisions, movers, count, where, obs = task
    return game, label_game(players, seed, decisions, movers, count, where=where, observations=obs)


@dataclass
class LabelRun:
    """What `label_directory` did: shards labelled now, already labelled (kept), the
    positions labelled now, and whether Ctrl-C stopped it."""

    out: str
    shards_labelled: int = 0
    shards_kept: int = 0
    positions: int = 0
    seconds: float = 0.0
    interrupted: bool = False


def _shard_tasks(file: Path, arrays: dict[str, np.ndarray], players: int, base: int,
                 count: int) -> list[tuple[Any, ...]]:
    """One `_label_task` per game of a shard: its replay and its rows' observations."""
    from gallerist.ai.selfplay import run as selfplay

    games = arrays["game"]
    tasks = []
    for g in np.unique(games):
        rows = games == g
        tasks.append((int(g), players, selfplay.game_seed(base, int(g)),
                      arrays["action"][rows].tolist(), arrays["player"][rows].tolist(), count,
                      f"{file}: game {int(g)}", arrays["obs"][rows]))
    return tasks


def _label_shard(file: Path, players: int, base: int, count: int, pool: Any,
                 on_game: Callable[[int], None]) -> dict[str, np.ndarray]:
    """The arrays of the shard `file` with its ``playout_win`` column computed, game by
    game (on `pool`'s processes when given); `on_game(positions)` after each game."""
    from gallerist.ai.selfplay import run as selfplay

    arrays = selfplay.read_shard(file)
    games = arrays["game"]
    tasks = _shard_tasks(file, arrays, players, base, count)
    labels = np.zeros((len(games), SEATS), np.float32)
    results = pool.imap_unordered(_label_task, tasks) if pool else map(_label_task, tasks)
    for g, rows_labels in results:
        labels[games == g] = rows_labels
        on_game(len(rows_labels))
    arrays["playout_win"] = labels
    return arrays


def label_directory(path: str | os.PathLike[str], count: int, *, workers: int = 1,
                    progress: Callable[[int, int], None] | None = None) -> LabelRun:
    """Add the ``playout_win`` column with `count` playouts per position to every shard of
    the self-play directory `path` that lacks it (or has it with another count), and set
    the manifest's ``playouts`` to `count` (so that `gallerist selfplay` labels the
    shards it adds alike).

    Args:
        path: a `gallerist selfplay` directory (its shards are checked against the
            manifest's sha256 first).
        count: playouts per position.
        workers: processes labelling games in parallel.
        progress: called as progress(positions_done, positions_total) after every game.

    Returns:
        The run; Ctrl-C stops it after the last complete shard (kept, with its sha256).

    Raises:
        LabelError: a bad argument, not a self-play directory, a corrupt shard, or records
            that do not replay (naming the file and game).
    """
    from gallerist.ai.selfplay import run as selfplay
    from gallerist.ai.review.games import GameInputError

    count = check_playouts("playouts", count)
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise LabelError(f"workers {workers!r}: expected an integer >= 1")
    out = Path(path)
    try:
        manifest = selfplay.open_existing(out)
    except ValueError as exc:
        raise LabelError(str(exc)) from None
    run = LabelRun(out=str(out))
    manifest[PLAYOUTS_KEY] = count
    selfplay.write_manifest(out, manifest)
    todo = [s for s in manifest["shards"] if s.get(PLAYOUTS_KEY) != count]
    run.shards_kept = len(manifest["shards"]) - len(todo)
    total = sum(int(s["positions"]) for s in todo)
    done = 0

    def on_game(positions: int) -> None:
        nonlocal done
        done += positions
        if progress:
            progress(done, total)

    on_game(0)
    players, base = int(manifest["players"]), int(manifest["seed"])
    pool = None
    if workers > 1 and todo:
        import multiprocessing

        from gallerist.ai.signals import worker_signals

        # spawned, not forked: the caller may have threads (JAX's) that fork() would copy
        pool = multiprocessing.get_context("spawn").Pool(workers, initializer=worker_signals)
    t0 = time.perf_counter()
    try:
        for entry in todo:
            file = out / entry["file"]
            arrays = _label_shard(file, players, base, count, pool, on_game)
            entry.update(selfplay.write_arrays(file, arrays))
            entry[PLAYOUTS_KEY] = count
            selfplay.write_manifest(out, manifest)
            run.shards_labelled += 1
            run.positions += len(arrays["game"])
    except KeyboardInterrupt:
        run.interrupted = True
        log.warning("interrupted: %s labelled now, the rest keep their records",
                    counted(run.shards_labelled, "shard"))
    except GameInputError as exc:
        raise LabelError(str(exc)) from None
    finally:
        run.seconds = time.perf_counter() - t0
        if pool is not None:
            pool.terminate()
            pool.join()
    return run
