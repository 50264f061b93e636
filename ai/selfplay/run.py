"""Self-play: games between copies of one bot, every decision recorded as a training row
(`run_selfplay`, `gallerist selfplay`), played on the arena's workers (local processes or
Ray) and written as NumPy shards with a manifest that `gallerist train` reads.

The directory layout, the manifest and the shard arrays are in docs/records.md
("Self-play directory"); what a row records and how a run continues, in docs/training.md.
"""
from __future__ import annotations

import datetime
import json
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np

from gallerist import engine
from gallerist.ai.arena.tournament import GameFailed, GameSpec, bot_seed, run_local, run_ray
from gallerist.ai.files import write_atomically
from gallerist.ai.selfplay.records import (COLUMNS as LAYOUT, FORMAT, FORMAT_VERSION, PLAYOUTS_KEY,
                                         row_shape, sha256_file)
from gallerist.ai.words import counted
from gallerist.ai.selfplay.records import (COLUMNS as LAYOUT, FORMAT, FORMAT_VERSION, MANIFEST,
                                          PLAYOUTS_KEY, SelfplayError, read_manifest, row_shape,
                                          sha256_file)

__all__ = ["COLUMNS", "FORMAT", "FORMAT_VERSION", "DEFAULT_GAMES_PER_SHARD", "NUM_ACTIONS",
           "SelfplayError", "SelfplayGame", "SelfplayRun", "engine_version", "game_seed",
           "open_existing", "play_selfplay_game",
           "read_manifest", "read_shard", "run_selfplay", "write_arrays", "write_manifest"]

log = logging.getLogger(__name__)

NUM_ACTIONS = engine.NUM_DISTINCT_ACTIONS
DEFAULT_GAMES_PER_SHARD = 100
#: Bots that play by `choose` and have no visits to record (their row is the one-hot of
#: the move played): their analysis would only cost time.
CHOOSING_BOTS = ("random", "greedy")


def engine_version() -> str:
    """The installed package's version (``gallerist.__version__``)."""
    import gallerist

    return str(gallerist.__version__)


#: The arrays of a shard: dtype and the shape of one row (ai.selfplay.records, with this
#: engine's observation size and action ids).
COLUMNS: dict[str, tuple[Any, tuple[int, ...]]] = {
    k: (dtype, row_shape(tail, engine.OBSERVATION_SIZE, NUM_ACTIONS)) for k, (dtype, tail) in LAYOUT.items()}


def game_seed(seed: int, game: int) -> int:
    """The setup and chance seed of game `game` of a run with base seed `seed`."""
    return seed + game


# ---------------------------------------------------------------------------- one game

class _Recorder:
    """A seat's bot, remembering for each of its decisions the root visits per action."""

    def __init__(self, bot: Any, analyze: bool) -> None:
        self.bot, self.analyze = bot, analyze
        self.visits: dict[int, int] | None = None
        self.root: Any = None   # the analysis' PositionSummary (None: no analysis)

    def choose(self, view: engine.GameState) -> int:
        if not self.analyze:
            self.visits = self.root = None
            return int(self.bot.choose(view))
        analysis = self.bot.analyze(view)
        self.visits = {m.action: int(m.visits) for m in analysis.moves if m.visits > 0}
        self.root = analysis.root
        return int(analysis.best.action)


@dataclass(frozen=True)
class SelfplayGame(GameSpec):
    """A scheduled self-play game: the arena's game and the playouts of its labels (0:
    none)."""

    playouts: int = 0


def play_selfplay_game(game: GameSpec) -> tuple[int, dict[str, np.ndarray]]:
    """Play one self-play game (in whatever process or Ray worker runs it) and return
    its index and rows (the shard's arrays for this game alone; for a `SelfplayGame` with
    ``playouts`` > 0 also ``playout_win``, that many playouts per position,
    ai.selfplay.labels).

    Raises:
        GameFailed: anything went wrong; the message names the game and the cause.
    """
    from gallerist.ai.arena.tournament import _close_all
    from gallerist.ai.arena.play import play_game
    from gallerist.ai.selfplay.labels import label_position, label_seed
    from gallerist.ai.bots.spec import make_bot

    playouts = int(getattr(game, "playouts", 0))
    seats: list[_Recorder] = []
    rows: dict[str, list[Any]] = {k: [] for k in ("obs", "policy", "legal", "action", "player", "turn",
                                                 "root_win", "root_money", "playout_win")}

    def on_action(state: engine.GameState, player: int, action: int) -> None:
        if player == engine.CHANCE:
            return
        legal = np.zeros(NUM_ACTIONS, np.bool_)
        legal[state.legal_actions()] = True
        policy = np.zeros(NUM_ACTIONS, np.float32)
        visits = seats[player].visits
        if visits:
            ids = np.fromiter(visits.keys(), np.int64)
            counts = np.fromiter(visits.values(), np.float64)
            policy[ids] = (counts / counts.sum()).astype(np.float32)
        else:
            policy[action] = 1.0
        rows["obs"].append(state.observation(player))
        rows["policy"].append(policy)
        rows["legal"].append(legal)
        rows["action"].append(action)
        rows["player"].append(player)
        rows["turn"].append(state.turn_number)
        root, n = seats[player].root, state.num_players
        win = money = [np.nan] * n   # no analysis, or one without every seat's numbers
        if root is not None and len(root.expected_money) == n:
            money = list(root.expected_money)
            win = list(root.win_probabilities) if n > 1 else [1.0]   # solo: as win_share
            if len(win) != n:
                win = [np.nan] * n
        rows["root_win"].append(win)
        rows["root_money"].append(money)
        if playouts:
            seed = label_seed(game.seed, len(rows["playout_win"]))
            rows["playout_win"].append(label_position(state, player, playouts, seed))

    try:
        for seat, spec in enumerate(game.seats):
            analyze = spec.split(":")[0].strip().lower() not in CHOOSING_BOTS
            seats.append(_Recorder(make_bot(spec, seed=bot_seed(game.seed, seat, spec)), analyze))
        final = play_game(seats, seed=game.seed, on_action=on_action)
    except Exception as exc:
        raise GameFailed(f"game {game.index} (seed {game.seed}) failed: {type(exc).__name__}: {exc}") from None
    finally:
        _close_all([s.bot for s in seats])
    return game.index, _game_arrays(game.index, final, rows, playouts)


def _game_arrays(index: int, final: engine.GameState, rows: dict[str, list[Any]],
                 playouts: int) -> dict[str, np.ndarray]:
    """The shard's arrays of one finished game from its recorded rows (every seat's
    column rotated so that the deciding player's own seat comes first)."""
    n = final.num_players
    money = np.asarray(final.money(), np.float32)
    share = np.zeros(n, np.float32)
    winners = final.winners()
    share[winners] = 1.0 / len(winners)
    player = np.asarray(rows["player"], np.int64)
    # column k of a row is player (player + k) % n: its own seat first
    seat = (player[:, None] + np.arange(n)[None, :]) % n
    final_money = np.zeros((len(player), 4), np.float32)
    win_share = np.zeros((len(player), 4), np.float32)
    final_money[:, :n], win_share[:, :n] = money[seat], share[seat]
    root_win = np.zeros((len(player), 4), np.float32)
    root_money = np.zeros((len(player), 4), np.float32)
    if len(player):
        root_win[:, :n] = np.take_along_axis(np.asarray(rows["root_win"], np.float32), seat, 1)
        root_money[:, :n] = np.take_along_axis(np.asarray(rows["root_money"], np.float32), seat, 1)
    count = len(player)
    labels = ({"playout_win": np.asarray(rows["playout_win"], np.float32).reshape(count, 4)}
              if playouts else {})
    return {**labels,
        "obs": np.asarray(rows["obs"], np.float32).reshape(count, engine.OBSERVATION_SIZE),
        "policy": np.asarray(rows["policy"], np.float32).reshape(count, NUM_ACTIONS),
        "legal": np.asarray(rows["legal"], np.bool_).reshape(count, NUM_ACTIONS),
        "action": np.asarray(rows["action"], np.int16),
        "player": player.astype(np.int8),
        "num_players": np.full(count, n, np.int8),
        "turn": np.asarray(rows["turn"], np.int16),
        "game": np.full(count, index, np.int32),
        "final_money": final_money,
        "win_share": win_share,
        "root_win": root_win,
        "root_money": root_money,
    }


# ---------------------------------------------------------------------------- the directory

def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def read_shard(path: str | os.PathLike[str]) -> dict[str, np.ndarray]:
    """The arrays of one shard file."""
    with np.load(path, allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


def write_manifest(out: Path, manifest: dict[str, Any]) -> None:
    """Rewrite the manifest of directory `out` atomically (its ``updated`` time set)."""
    manifest["updated"] = _now()
    text = json.dumps(manifest, indent=1)
    write_atomically(out / MANIFEST, lambda fh: fh.write(text), mode="w", encoding="utf-8")


def write_arrays(path: Path, arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    """Write a shard file atomically (compressed, no pickles) and return its manifest
    entry's ``positions`` and ``sha256``."""
    write_atomically(path, lambda fh: np.savez_compressed(fh, **arrays))
    return {"positions": int(len(arrays["action"])), "sha256": sha256_file(path)}


def _write_shard(out: Path, index: int, first_game: int, games: list[dict[str, np.ndarray]],
                 playouts: int = 0) -> dict[str, Any]:
    """Write shard `index` (the rows of `games`, in game order) and return its entry."""
    arrays = {k: np.concatenate([g[k] for g in games]) for k in COLUMNS
              if k != "playout_win" or playouts}
    name = f"shard-{index:05d}.npz"
    entry = {"file": name, "first_game": first_game, "games": len(games),
             **write_arrays(out / name, arrays)}
    if playouts:
        entry[PLAYOUTS_KEY] = playouts
    return entry


def _split_games(arrays: dict[str, np.ndarray]) -> dict[int, dict[str, np.ndarray]]:
    """A shard's rows, game by game."""
    games = arrays["game"]
    return {int(g): {k: v[games == g] for k, v in arrays.items()} for g in np.unique(games)}


def _open_directory(out: Path, expected: dict[str, Any]) -> dict[str, Any]:
    """The manifest to continue: the directory's own (checked against `expected` and its
    shards against their checksums), or a new one for an empty or missing directory."""
    if out.exists() and not out.is_dir():
        raise SelfplayError(f"--out {out}: is a file; give a directory")
    if not (out / MANIFEST).exists():
        if out.is_dir() and any(p.name != MANIFEST for p in out.iterdir()
                                if not p.name.startswith(".")):
            raise SelfplayError(f"--out {out}: folder is not empty and holds no self-play "
                                f"{MANIFEST}; give a new or empty folder")
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SelfplayError(f"--out {out}: cannot create it: {exc.strerror}") from None
        if not os.access(out, os.W_OK | os.X_OK):
            raise SelfplayError(f"--out {out}: folder is not writable")
        return {"format": FORMAT, "format_version": FORMAT_VERSION, **expected,
                "num_actions": NUM_ACTIONS, "shards": [], "games": 0, "created": _now(),
                "updated": _now(), "engine_version": engine_version()}
    if not os.access(out, os.W_OK | os.X_OK):
        raise SelfplayError(f"--out {out}: folder is not writable")
    manifest = read_manifest(out)
    for key, value in expected.items():
        if key == "games_per_shard" and value is None:
            continue
        if manifest.get(key) != value:
            raise SelfplayError(f"--out {out} holds self-play of {key} {manifest.get(key)!r}, "
                                f"not {value!r}; give another --out (or the same {key} to "
                                f"continue it)")
    if manifest.get("num_actions") != NUM_ACTIONS:
        raise SelfplayError(f"--out {out} holds self-play of num_actions "
                            f"{manifest.get('num_actions')!r}, not {NUM_ACTIONS}")
    _check_shards(out, manifest)
    return manifest


def open_existing(out: str | os.PathLike[str]) -> dict[str, Any]:
    """The manifest of an existing self-play directory to rewrite (`gallerist label`),
    its shards checked against their checksums.

    Raises:
        SelfplayError: not a writable self-play directory, or a shard missing or changed.
    """
    out = Path(out)
    manifest = read_manifest(out)
    if not os.access(out, os.W_OK | os.X_OK):
        raise SelfplayError(f"{out}: folder is not writable")
    _check_shards(out, manifest)
    return manifest


def _check_shards(out: Path, manifest: dict[str, Any]) -> None:
    """Every shard of the manifest present, in game order, with its sha256."""
    first = 0
    for entry in manifest["shards"]:
        path = out / entry["file"]
        if entry["first_game"] != first:
            raise SelfplayError(f"{out / MANIFEST}: shard {entry['file']} starts at game "
                                f"{entry['first_game']}, expected {first}")
        if not path.is_file():
            raise SelfplayError(f"{path}: missing (listed in the manifest); restore it, or "
                                f"start again in another --out")
        if sha256_file(path) != entry["sha256"]:
            raise SelfplayError(f"{path}: sha256 differs from the manifest's (the file is "
                                f"corrupt or was changed); restore it, or start again in "
                                f"another --out")
        first += entry["games"]
    if first != manifest["games"]:
        raise SelfplayError(f"{out / MANIFEST}: games {manifest['games']} but its shards hold {first}")


def _playouts(out: Path, manifest: dict[str, Any], playouts: int | None) -> int:
    """The playouts per position of the run's new shards: `playouts`, or the directory's
    (0: none); a directory whose shards were labelled otherwise is refused."""
    have = int(manifest.get(PLAYOUTS_KEY) or 0)
    if playouts is None or playouts == have:
        return have
    if manifest["shards"]:
        fix = (f"label it first: gallerist label {out} --playouts {playouts}" if playouts
               else f"pass --playouts {have}")
        raise SelfplayError(f"--out {out} holds self-play with playouts {have}, not {playouts}; "
                            f"{fix}")
    manifest[PLAYOUTS_KEY] = playouts
    return playouts


@dataclass
class SelfplayRun:
    """What a run did. `games` and `positions` count the directory's complete shards;
    `played` the games this run played; `interrupted` is True after Ctrl-C or a failed
    game (`error` says which)."""

    out: str
    games: int = 0
    positions: int = 0
    played: int = 0
    shards_written: int = 0
    interrupted: bool = False
    error: str | None = None
    seconds: float = 0.0
    manifest: dict[str, Any] = field(default_factory=dict)
    dropped: int = 0   # finished games of shards left unfinished (played again next run)


def _check_arguments(spec: str, players: int, games: int, workers: int, backend: str,
                     games_per_shard: int | None, seed: int) -> None:
    from gallerist.ai.arena.tournament import _preflight

    def integer(value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool)

    if not integer(players) or players not in (1, 2, 3, 4):
        raise SelfplayError(f"players must be 1 (solo), 2, 3 or 4, got {players!r}")
    if not integer(games) or games < 1:
        raise SelfplayError(f"games must be an integer >= 1, got {games!r}")
    if not integer(workers) or workers < 1:
        raise SelfplayError(f"workers must be an integer >= 1, got {workers!r}")
    if games_per_shard is not None and (not integer(games_per_shard)
                                        or games_per_shard < 1):
        raise SelfplayError(f"games_per_shard must be an integer >= 1, got {games_per_shard!r}")
    if not integer(seed) or not 0 <= seed < 2**62:
        raise SelfplayError(f"seed must be an integer in 0..2^62-1, got {seed!r}")
    if backend not in ("local", "ray"):
        raise SelfplayError(f"unknown backend {backend!r}: use 'local' or 'ray'")
    if not isinstance(spec, str) or not spec.strip():
        raise SelfplayError(f"bot spec must be a non-empty string, got {spec!r}")
    try:
        _preflight([spec])
    except ValueError as exc:
        raise SelfplayError(f"bot spec {spec!r}: {exc}") from None


def _check_playouts(playouts: int | None) -> None:
    if playouts is not None and (isinstance(playouts, bool) or not isinstance(playouts, int)
                                 or not 0 <= playouts <= 1_000_000):
        raise SelfplayError(f"playouts must be an integer in 0..1000000 (0: no playout labels), "
                            f"got {playouts!r}")


def _reopen_short_shard(outp: Path, manifest: dict[str, Any], size: int,
                        games: int) -> dict[int, dict[str, np.ndarray]]:
    """A run that extends a directory whose last shard is short reads that shard's games
    back (returned by game index) and takes it off the manifest, to write it complete."""
    shards = manifest["shards"]
    if not (shards and shards[-1]["games"] < size and games > manifest["games"]):
        return {}
    last = shards.pop()
    finished = _split_games(read_shard(outp / last["file"]))
    manifest["games"] -= last["games"]
    write_manifest(outp, manifest)
    return finished


def _flush(outp: Path, manifest: dict[str, Any], finished: dict[int, dict[str, np.ndarray]],
           games: int, size: int, labels: int, run: SelfplayRun) -> None:
    """Write every shard whose games are all finished, in order (updating the manifest
    and `run`)."""
    shards = manifest["shards"]
    while True:
        first = manifest["games"]
        last = min(first + size, games)
        if first >= games or any(g not in finished for g in range(first, last)):
            return
        entry = _write_shard(outp, len(shards), first,
                             [finished.pop(g) for g in range(first, last)], labels)
        shards.append(entry)
        manifest["games"] = last
        write_manifest(outp, manifest)
        run.games, run.positions = last, run.positions + entry["positions"]
        run.shards_written += 1


def _open_run(outp: Path, spec: str, players: int, games: int, seed: int,
              games_per_shard: int | None, playouts: int | None
              ) -> tuple[dict[str, Any], int, int, dict[int, dict[str, np.ndarray]]]:
    """The run's directory opened (or started): its manifest, games per shard, playouts
    per position, and the games of a short last shard read back."""
    expected = {"spec": spec, "players": players, "seed": seed,
                "observation_version": int(engine.OBSERVATION_VERSION),
                "observation_size": int(engine.OBSERVATION_SIZE), "games_per_shard": games_per_shard}
    manifest = _open_directory(outp, expected)
    if manifest.get("games_per_shard") is None:
        manifest["games_per_shard"] = games_per_shard or DEFAULT_GAMES_PER_SHARD
    size = int(manifest["games_per_shard"])
    labels = _playouts(outp, manifest, playouts)
    finished = _reopen_short_shard(outp, manifest, size, games)
    if not (outp / MANIFEST).exists():
        write_manifest(outp, manifest)
    return manifest, size, labels, finished


def run_selfplay(spec: str, *, players: int, games: int, out: str | os.PathLike[str],
                 workers: int = 1, backend: str = "local", seed: int = 0,
                 games_per_shard: int | None = None, ray_address: str | None = None,
                 playouts: int | None = None,
                 progress: Callable[[int, int, int], None] | None = None) -> SelfplayRun:
    """Play self-play games of `spec` until `out` holds `games` games (continuing what it
    holds), writing shards and the manifest as shards complete.

    Args:
        spec: the bot spec every seat plays (one copy per seat).
        players: seats per game (1: solo against Lacerda).
        games: games the directory should hold at the end.
        out: the directory (created if missing).
        workers: parallel games.
        backend: "local" (processes) or "ray" (Ray tasks; `ray_address` a cluster).
        seed: base seed (game g is set up from seed + g).
        games_per_shard: games per shard (None: the directory's, or 100 for a new one).
        playouts: label every position with this many playouts (the ``playout_win``
            column, ai.selfplay.labels; 0: no column; None: the directory's, 0 for a new one).
        progress: called as progress(games_done, games, positions_done) after every game.

    Returns:
        The run; Ctrl-C or a failed game stops it early (complete shards kept).

    Raises:
        SelfplayError: a bad argument or spec, or a directory of another run.
    """
    spec = spec.strip() if isinstance(spec, str) else spec
    _check_arguments(spec, players, games, workers, backend, games_per_shard, seed)
    _check_playouts(playouts)
    outp = Path(out)
    manifest, size, labels, finished = _open_run(outp, spec, players, games, seed,
                                                 games_per_shard, playouts)
    start = manifest["games"]
    run = SelfplayRun(out=str(outp), manifest=manifest, games=start,
                      positions=sum(s["positions"] for s in manifest["shards"]))
    positions_known = run.positions + sum(len(g["action"]) for g in finished.values())
    plan = [SelfplayGame(index=g, seed=game_seed(seed, g), seats=(spec,) * players,
                         playouts=labels)
            for g in range(start, games) if g not in finished]
    if progress:
        progress(start + len(finished), max(games, start), positions_known)
    if not plan and not finished:
        return run

    source: Iterable[tuple[int, dict[str, np.ndarray]]] = (
        run_local(plan, workers, play=play_selfplay_game) if backend == "local"
        else run_ray(plan, workers, ray_address, play=play_selfplay_game))
    t0 = time.perf_counter()
    done = start + len(finished)
    try:
        _flush(outp, manifest, finished, games, size, labels, run)
        for index, rows in source:
            finished[index] = rows
            run.played += 1
            done += 1
            positions_known += len(rows["action"])
            _flush(outp, manifest, finished, games, size, labels, run)
            if progress:
                progress(done, games, positions_known)
    except KeyboardInterrupt:
        run.interrupted, run.dropped = True, len(finished)
        log.warning("interrupted: keeping %s in complete shards",
                    counted(manifest["games"], "game"))
    except GameFailed as exc:
        run.interrupted, run.error, run.dropped = True, str(exc), len(finished)
        log.warning("stopped: a game failed; keeping %s in complete shards",
                    counted(manifest["games"], "game"))
    finally:
        run.seconds += time.perf_counter() - t0
        close = getattr(source, "close", None)
        if callable(close):
            close()
    return run

