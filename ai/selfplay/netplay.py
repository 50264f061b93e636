"""Net-guided self-play (`gallerist netplay`): every seat searches with the network alone
(its value at the leaf, its policy as PUCT's prior, no rollouts), with KataGo's playout
cap randomisation: most moves a cheap search that records nothing, a fraction a full
search whose root values and visit shares are the targets. Games go to compact records
(ai.selfplay.compact), played on the arena's workers (local processes or Ray).
How-to: docs/training.md ("Net-guided self-play"); layout: docs/records.md.
"""
from __future__ import annotations

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
from gallerist.ai.selfplay import compact
from gallerist.ai.selfplay.records import MANIFEST, SelfplayError, sha256_file
from gallerist.ai.selfplay.run import _now, engine_version, write_manifest
from gallerist.ai.words import counted

__all__ = ["OPTIONS", "NetplayGame", "NetplayRun", "model_for", "play_netplay_game",
           "run_netplay", "value_kind"]

log = logging.getLogger(__name__)

#: The run's options: name -> (default, low, high, help). The command line and the
#: checks read this one table.
OPTIONS: dict[str, tuple[Any, Any, Any, str]] = {
    "fast_iterations": (32, 1, 100_000, "iterations of a cheap search (no targets recorded)"),
    "full_iterations": (200, 1, 100_000, "iterations of a full search (targets recorded)"),
    "full_fraction": (0.25, 0.0, 1.0, "share of decisions searched in full"),
    "games_per_shard": (100, 1, 1_000_000, "games per shard file"),
}
#: Mixed into the seed of each game's full-or-fast draws.
_SALT = 0x6E6574706C6179   # "netplay"


def model_for(players: int, model: str = "") -> str:
    """The model file of a `players` game: `model`, else the packaged one trained at that
    player count.

    Raises:
        SelfplayError: `model` missing, or no packaged model for `players`.
    """
    from gallerist.ai.net.packaged import auto_prior_files

    if model:
        if not os.path.isfile(model):
            raise SelfplayError(f"--model {model}: no such file")
        return os.path.abspath(model)
    files = auto_prior_files()
    if players not in files:
        raise SelfplayError(f"--players {players}: no packaged model is trained for "
                            f"{players} players (there are for {sorted(files)}); give --model PATH")
    return files[players]


def value_kind(evaluator: Any) -> str:
    """"network" when the model's win head was trained; "money" for a policy-only model
    (``gallerist train --win-weight 0``, e.g. the packaged priors), whose leaf value is
    then its money head alone (the reward: the money margin's logistic)."""
    hyper = evaluator.model.metadata.get("hyperparameters")
    if isinstance(hyper, dict) and hyper.get("win_weight") == 0 and not hyper.get("linear_value"):
        return "money"
    return "network"


@dataclass(frozen=True)
class NetplayGame(GameSpec):
    """A scheduled net-guided game: the arena's game plus the model and the budgets."""

    model: str = ""
    fast_iterations: int = 32
    full_iterations: int = 200
    full_fraction: float = 0.25


def _engine(evaluator: Any, margin_weight: float) -> Any:
    """One seat's C search: the network as leaf value and prior, the mcts bot's defaults."""
    from gallerist.ai.bots.mcts import MctsBot
    from gallerist.ai.search._mcts import MctsEngine

    o = MctsBot.OPTIONS.resolve({})
    return MctsEngine(1, evaluator, c=o["c"], c_puct=o["c_puct"], fpu_reduction=o["fpu_reduction"],
                      prior=evaluator, max_nodes=o["max_nodes"], margin_weight=margin_weight,
                      margin_scale=o["margin_scale"], solo_reference=o["solo_reference"],
                      solo_scale=o["solo_scale"])


def _search(eng: Any, state: engine.GameState, player: int, seed: int,
            iterations: int) -> tuple[int, dict[int, Any]]:
    """Search `player`'s view of `state`; the most visited move (ties: the better mean
    reward, then the lower id, as the mcts bot) and the root statistics."""
    eng.prepare(state.view(player), player, seed, True, None)
    eng.run(0, iterations, 0.0)
    children = eng.stats()["children"]
    def rank(a: int) -> tuple[int, float, int]:
        visits, reward = children[a][0], children[a][1][player]
        return -visits, -reward / max(1, visits), a

    best = min(children, key=rank)
    return int(best), children


def _root_target(ply: int, children: dict[int, Any], n: int) -> tuple[Any, ...]:
    """(ply, root win share per seat, root expected money per seat, visits per move)."""
    visits = {int(a): int(c[0]) for a, c in children.items() if c[0] > 0}
    total = sum(visits.values())
    win = np.sum([c[3] for c in children.values() if c[0] > 0], axis=0) / total
    money = np.sum([c[2] for c in children.values() if c[0] > 0], axis=0) / total
    return ply, win[:n], money[:n], visits


def play_netplay_game(game: GameSpec) -> tuple[int, dict[str, np.ndarray]]:
    """Play one net-guided game (in whatever process or Ray worker runs it) and return its
    index and its compact arrays (ai.selfplay.compact.encode_game).

    Raises:
        GameFailed: anything went wrong; the message names the game and the cause.
    """
    from gallerist.ai.arena.play import draw_chance
    from gallerist.ai.net.packaged import load_evaluator

    assert isinstance(game, NetplayGame)
    try:
        evaluator = load_evaluator(game.model)
        kind = value_kind(evaluator)
        n = len(game.seats)
        engines = [_engine(evaluator, 1.0 if kind == "money" else 0.25) for _ in range(n)]
        seeds = [bot_seed(game.seed, seat, "netplay") for seat in range(n)]
        draws = np.random.default_rng([_SALT, game.seed])
        chance = np.random.default_rng(game.seed)
        state = engine.new_game(num_players=n, seed=game.seed)
        actions: list[int] = []
        targets: list[tuple[Any, ...]] = []
        calls = 0
        while not state.is_terminal() and len(actions) < engine.MAX_GAME_LENGTH:
            if state.is_chance():
                action = draw_chance(state, chance)
            else:
                player = state.current_player
                full = draws.random() < game.full_fraction
                seed = (seeds[player] * 1_000_003 + calls) & 0xFFFFFFFFFFFFFFFF
                calls += 1
                action, children = _search(engines[player], state, player, seed,
                                           game.full_iterations if full else game.fast_iterations)
                if full:
                    targets.append(_root_target(len(actions), children, n))
            actions.append(action)
            state.apply(action)
        if not state.is_terminal():
            raise RuntimeError(f"no end within {engine.MAX_GAME_LENGTH} actions")
    except Exception as exc:
        raise GameFailed(f"game {game.index} (seed {game.seed}) failed: "
                         f"{type(exc).__name__}: {exc}") from None
    return game.index, compact.encode_game(game.index, actions, state.money(), targets,
                                           with_win=kind == "network" and n > 1)


# ---------------------------------------------------------------------------- the run

@dataclass
class NetplayRun:
    """What a run did: `games` and `targets` count the directory's shards, `played` the
    games played now; `interrupted` after Ctrl-C or a failed game (`error` says which)."""

    out: str
    games: int = 0
    targets: int = 0
    played: int = 0
    interrupted: bool = False
    error: str | None = None
    seconds: float = 0.0
    manifest: dict[str, Any] = field(default_factory=dict)


def check_options(players: Any, games: Any, workers: Any, backend: Any, seed: Any,
                  **options: Any) -> None:
    """Each argument in its range (`OPTIONS` for the budgets and the shard size).

    Raises:
        SelfplayError: naming the first bad one.
    """
    def integer(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    if not integer(players) or players not in (1, 2, 3, 4):
        raise SelfplayError(f"players must be 1 (solo), 2, 3 or 4, got {players!r}")
    for name, value in (("games", games), ("workers", workers)):
        if not integer(value) or value < 1:
            raise SelfplayError(f"{name} must be an integer >= 1, got {value!r}")
    if not integer(seed) or not 0 <= seed < 2**62:
        raise SelfplayError(f"seed must be an integer in 0..2^62-1, got {seed!r}")
    if backend not in ("local", "ray"):
        raise SelfplayError(f"unknown backend {backend!r}: use 'local' or 'ray'")
    for name, value in options.items():
        default, low, high, _ = OPTIONS[name]
        ok = (integer(value) if isinstance(default, int)
              else isinstance(value, (int, float)) and not isinstance(value, bool))
        if not ok or not low <= value <= high:
            raise SelfplayError(f"{name} must be {'an integer' if isinstance(default, int) else 'a number'} "
                                f"in {low}..{high}, got {value!r}")


def _open(out: Path, expected: dict[str, Any]) -> dict[str, Any]:
    """The manifest to continue (checked against `expected`, its shards against their
    sha256), or a new one for an empty or missing directory."""
    if out.exists() and not out.is_dir():
        raise SelfplayError(f"--out {out}: is a file; give a directory")
    if not (out / MANIFEST).exists():
        if out.is_dir() and any(not p.name.startswith(".") for p in out.iterdir()):
            raise SelfplayError(f"--out {out}: folder is not empty and holds no {MANIFEST}; "
                                f"give a new or empty folder")
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SelfplayError(f"--out {out}: cannot create it: {exc.strerror}") from None
        default = OPTIONS["games_per_shard"][0]
        manifest = {"format": compact.FORMAT, "format_version": compact.FORMAT_VERSION,
                    **expected, "games_per_shard": expected["games_per_shard"] or default, "quantisation": compact.quantisation(),
                    "num_actions": compact.NUM_ACTIONS, "shards": [], "games": 0,
                    "created": _now(), "engine_version": engine_version()}
        write_manifest(out, manifest)
        return manifest
    import json

    try:
        manifest = json.loads((out / MANIFEST).read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise SelfplayError(f"{out / MANIFEST}: cannot read it: {exc}") from None
    if manifest.get("format") != compact.FORMAT or manifest.get("format_version") != compact.FORMAT_VERSION:
        raise SelfplayError(f"--out {out} holds {manifest.get('format')!r} version "
                            f"{manifest.get('format_version')!r}, not {compact.FORMAT!r} "
                            f"version {compact.FORMAT_VERSION}; give another --out")
    for key, value in expected.items():
        if key == "games_per_shard" and value is None:   # not given: the directory's
            continue
        if manifest.get(key) != value:
            raise SelfplayError(f"--out {out} holds net-guided self-play of {key} "
                                f"{manifest.get(key)!r}, not {value!r}; give another --out "
                                f"(or the same {key} to continue it)")
    for entry in manifest["shards"]:
        path = out / entry["file"]
        if not path.is_file() or sha256_file(path) != entry["sha256"]:
            raise SelfplayError(f"{path}: missing or changed since the manifest listed it; "
                                f"restore it, or start again in another --out")
    return manifest


def _write_shard(out: Path, manifest: dict[str, Any], games: list[dict[str, np.ndarray]]) -> None:
    """Append `games` (the next ones, in order) as a shard and rewrite the manifest."""
    arrays = compact.join_games(games)
    name = f"shard-{len(manifest['shards']):05d}.npz"
    write_atomically(out / name, lambda fh: np.savez_compressed(fh, **arrays))
    manifest["shards"].append({"file": name, "first_game": manifest["games"], "games": len(games),
                               "actions": int(len(arrays["actions"])),
                               "targets": int(len(arrays["ply"])),
                               "bytes": (out / name).stat().st_size,
                               "sha256": sha256_file(out / name)})
    manifest["games"] += len(games)
    write_manifest(out, manifest)


def _flush(out: Path, manifest: dict[str, Any], finished: dict[int, dict[str, np.ndarray]],
           size: int, final: bool) -> None:
    """Write the finished games that follow the directory's last one: every complete shard,
    and with `final` the rest as a short shard (a later run completes it)."""
    while True:
        first = manifest["games"]
        ready = 0
        while first + ready in finished and ready < size:
            ready += 1
        if ready == 0 or (ready < size and not final):
            return
        _write_shard(out, manifest, [finished.pop(g) for g in range(first, first + ready)])


def _reopen_short(out: Path, manifest: dict[str, Any], size: int,
                  games: int) -> dict[int, dict[str, np.ndarray]]:
    """A short last shard, when the run wants more games: its games read back (by game
    number) and the shard taken off the manifest, to be written again complete."""
    shards = manifest["shards"]
    if not (shards and shards[-1]["games"] < size and games > manifest["games"]):
        return {}
    last = shards.pop()
    kept = compact.split_games(compact.read_shard(out / last["file"]))
    manifest["games"] -= last["games"]
    write_manifest(out, manifest)
    return {int(g["game"][0]): g for g in kept}


def _expected(players: int, seed: int, model: str, options: dict[str, Any]) -> dict[str, Any]:
    """The manifest fields a continuing run must share."""
    from gallerist.ai.net.packaged import load_evaluator

    kind = value_kind(load_evaluator(model))
    return {"players": players, "seed": seed, "model_sha256": sha256_file(model),
            "observation_version": int(engine.OBSERVATION_VERSION),
            "observation_size": int(engine.OBSERVATION_SIZE),
            "games_per_shard": options.pop("games_per_shard"),
            "options": {**options, "value": kind, "margin_weight": 1.0 if kind == "money" else 0.25}}


def _options(players: int, games: int, workers: int, backend: str, seed: int,
             options: dict[str, Any]) -> dict[str, Any]:
    """`options` checked, with the defaults of those missing (games_per_shard None
    stays None: the directory's)."""
    unknown = set(options) - set(OPTIONS)
    if unknown:
        raise SelfplayError(f"unknown option {sorted(unknown)[0]!r}: use {', '.join(OPTIONS)}")
    options = {k: options.get(k, d[0]) for k, d in OPTIONS.items()}
    shard_size = options.pop("games_per_shard")
    check_options(players, games, workers, backend, seed, **options)
    if shard_size is not None:
        check_options(players, games, workers, backend, seed, games_per_shard=shard_size)
    return {**options, "games_per_shard": shard_size}


def run_netplay(*, players: int, games: int, out: str | os.PathLike[str], model: str = "",
                workers: int = 1, backend: str = "local", seed: int = 0,
                ray_address: str | None = None,
                progress: Callable[[int, int, int], None] | None = None,
                **options: Any) -> NetplayRun:
    """Play net-guided self-play until `out` holds `games` games (continuing what it holds).

    Args:
        players: seats per game (1: solo against Lacerda).
        games: games the directory should hold at the end.
        out: the directory (created if missing).
        model: the model file ("": the packaged one for `players`).
        workers, backend, ray_address: parallel games on local processes or Ray tasks.
        seed: base seed (game g is set up and dealt from seed + g).
        progress: called as progress(games_done, games, targets_done) after every game.
        **options: `OPTIONS` (fast_iterations, full_iterations, full_fraction,
            games_per_shard); missing ones take their defaults (games_per_shard None or
            missing: the directory's, 100 for a new one).

    Returns:
        The run; Ctrl-C or a failed game stops it early (finished games kept).

    Raises:
        SelfplayError: a bad argument or model, or a directory of another run.
    """
    options = _options(players, games, workers, backend, seed, options)
    path = model_for(players, model)
    outp = Path(out)
    manifest = _open(outp, _expected(players, seed, path, dict(options)))
    if manifest.get("model") != path:   # the file's path as last given (its sha256 is checked)
        manifest["model"] = path
        write_manifest(outp, manifest)
    size = int(manifest["games_per_shard"])
    finished = _reopen_short(outp, manifest, size, games)
    start = manifest["games"]
    run = NetplayRun(out=str(outp), manifest=manifest, games=start,
                     targets=sum(s["targets"] for s in manifest["shards"]))
    o = manifest["options"]
    plan = [NetplayGame(index=g, seed=seed + g, seats=("netplay",) * players, model=path,
                        fast_iterations=o["fast_iterations"], full_iterations=o["full_iterations"],
                        full_fraction=o["full_fraction"])
            for g in range(start, games) if g not in finished]
    done = start + len(finished)
    targets = run.targets + sum(len(g["ply"]) for g in finished.values())
    if progress:
        progress(done, max(games, start), targets)
    source: Iterable[tuple[int, dict[str, np.ndarray]]] = (
        run_local(plan, workers, play=play_netplay_game) if backend == "local"
        else run_ray(plan, workers, ray_address, play=play_netplay_game))
    t0 = time.perf_counter()
    try:
        for index, arrays in source:
            finished[index] = arrays
            run.played, done, targets = run.played + 1, done + 1, targets + len(arrays["ply"])
            _flush(outp, manifest, finished, size, final=False)
            if progress:
                progress(done, games, targets)
    except KeyboardInterrupt:
        run.interrupted = True
        log.warning("interrupted: keeping the finished games")
    except GameFailed as exc:
        run.interrupted, run.error = True, str(exc)
        log.warning("stopped: a game failed; keeping the finished games")
    finally:
        close = getattr(source, "close", None)
        if callable(close):
            close()
        _flush(outp, manifest, finished, size, final=True)
        run.seconds = time.perf_counter() - t0
        run.games = manifest["games"]
        run.targets = sum(s["targets"] for s in manifest["shards"])
        if finished:
            log.warning("%s finished after a missing one are not kept",
                        counted(len(finished), "game"))
    return run
