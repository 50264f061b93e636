"""Compact self-play records (`gallerist netplay`): a game is its seed and player count, the
action ids it applied (uint8, chance outcomes included) and, per decision searched in
full, its quantised targets; positions are rebuilt by replaying the actions. The layout
is docs/records.md ("Compact self-play directory"); this module encodes a game, writes
and reads a shard, and replays shards into the training rows of ai/learn/data.py.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from gallerist import engine
from gallerist.ai.selfplay.records import MANIFEST, SEATS, SelfplayError

__all__ = ["FORMAT", "FORMAT_VERSION", "MONEY_STEP", "SHARE_STEP", "TOP", "WIN_STEP",
           "decode_targets", "encode_game", "is_compact", "join_games", "quantisation",
           "read_shard", "replay_rows", "split_games"]

FORMAT, FORMAT_VERSION = "gallerist-netplay", 1
#: Quantisation steps: a win share in 1/255 (uint8), money in $1/8 (int16, -4096..4095.9 $:
#: a network's estimate may be negative),
#: a visit share in 1/255 (uint8); the TOP most visited moves of a full search are kept.
WIN_STEP, MONEY_STEP, SHARE_STEP, TOP = 1 / 255, 1 / 8, 1 / 255, 8
NUM_ACTIONS = engine.NUM_DISTINCT_ACTIONS
#: Per-game and per-target arrays of a shard (root_win is absent when the run's leaf
#: value had no trained win head).
GAME_KEYS = ("game", "final_money")
TARGET_KEYS = ("ply", "root_win", "root_money", "policy_action", "policy_share")


def quantisation() -> dict[str, float | int]:
    """The steps as the manifest records them."""
    return {"win_step": WIN_STEP, "money_step": MONEY_STEP, "share_step": SHARE_STEP, "top": TOP}


def is_compact(folder: str | Path) -> bool:
    """Whether `folder` holds a manifest of the compact format (any version)."""
    try:
        return json.loads((Path(folder) / MANIFEST).read_text("utf-8")).get("format") == FORMAT
    except (OSError, ValueError, AttributeError):
        return False


def _quantise(x: np.ndarray, step: float, dtype: Any) -> np.ndarray:
    info = np.iinfo(dtype)
    return np.clip(np.rint(np.asarray(x, np.float64) / step), info.min, info.max).astype(dtype)


def encode_game(index: int, actions: Sequence[int], final_money: Sequence[float],
                targets: Sequence[tuple[int, Sequence[float], Sequence[float], dict[int, int]]],
                with_win: bool) -> dict[str, np.ndarray]:
    """One game's arrays: `targets` holds per full search (ply, root win share per seat,
    root expected money per seat, visits per action)."""
    t = len(targets)
    win = np.zeros((t, SEATS))
    money = np.zeros((t, SEATS))
    pa = np.zeros((t, TOP), np.uint8)
    ps = np.zeros((t, TOP), np.uint8)
    for i, (_, w, m, visits) in enumerate(targets):
        win[i, :len(w)], money[i, :len(m)] = w, m
        total = sum(visits.values())
        top = sorted(visits.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP]
        pa[i, :len(top)] = [a for a, _ in top]
        ps[i, :len(top)] = _quantise(np.array([v / total for _, v in top]), SHARE_STEP, np.uint8)
    fm = np.zeros(SEATS, np.int16)
    fm[:len(final_money)] = np.rint(final_money)
    out = {"game": np.array([index], np.int32), "final_money": fm[None, :],
           "actions": np.asarray(actions, np.uint8),
           "ply": np.array([p for p, *_ in targets], np.uint16),
           "root_money": _quantise(money, MONEY_STEP, np.int16),
           "policy_action": pa, "policy_share": ps}
    if with_win:
        out["root_win"] = _quantise(win, WIN_STEP, np.uint8)
    return out


def join_games(games: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """A shard's arrays from games encoded by `encode_game`, in order: flat arrays plus
    ``action_offsets`` and ``target_offsets`` (int64, games + 1)."""
    out = {k: np.concatenate([g[k] for g in games]) for k in games[0]}
    for key, part in (("action_offsets", "actions"), ("target_offsets", "ply")):
        out[key] = np.concatenate([[0], np.cumsum([len(g[part]) for g in games])]).astype(np.int64)
    return out


def split_games(arrays: dict[str, np.ndarray]) -> list[dict[str, np.ndarray]]:
    """The inverse of `join_games`: one `encode_game` dict per game."""
    ao, to = arrays["action_offsets"], arrays["target_offsets"]
    games = []
    for i in range(len(arrays["game"])):
        g = {k: arrays[k][i:i + 1] for k in GAME_KEYS}
        g["actions"] = arrays["actions"][ao[i]:ao[i + 1]]
        g.update({k: arrays[k][to[i]:to[i + 1]] for k in TARGET_KEYS if k in arrays})
        games.append(g)
    return games


def read_shard(path: str | Path) -> dict[str, np.ndarray]:
    """The arrays of one compact shard, their shapes checked.

    Raises:
        SelfplayError: unreadable, or an array missing or of another shape or dtype.
    """
    try:
        with np.load(path, allow_pickle=False) as npz:
            a = {k: npz[k] for k in npz.files}
    except Exception as exc:   # zipfile, OSError, ValueError: all mean a bad file
        raise SelfplayError(f"{path}: unreadable shard ({type(exc).__name__}: {exc})") from None
    want = {"game": (np.int32, 1), "final_money": (np.int16, 2), "actions": (np.uint8, 1),
            "action_offsets": (np.int64, 1), "target_offsets": (np.int64, 1),
            "ply": (np.uint16, 1), "root_money": (np.int16, 2),
            "policy_action": (np.uint8, 2), "policy_share": (np.uint8, 2)}
    if "root_win" in a:
        want["root_win"] = (np.uint8, 2)
    for key, (dtype, ndim) in want.items():
        if key not in a or a[key].dtype != dtype or a[key].ndim != ndim:
            raise SelfplayError(f"{path}: array {key!r} missing or not {np.dtype(dtype)} of "
                                f"{ndim} dimensions")
    g, t = len(a["game"]), len(a["ply"])
    if (len(a["action_offsets"]) != g + 1 or len(a["target_offsets"]) != g + 1
            or a["action_offsets"][-1] != len(a["actions"]) or a["target_offsets"][-1] != t
            or any(len(a[k]) != t for k in TARGET_KEYS if k in a)):
        raise SelfplayError(f"{path}: offsets and array lengths disagree")
    return a


def decode_targets(g: dict[str, np.ndarray],
                   steps: dict[str, Any] | None = None) -> dict[str, np.ndarray]:
    """A game's targets dequantised with `steps` (a manifest's ``quantisation``; None:
    this module's), in real seat order: ``root_win`` (NaN without a win
    head), ``root_money`` (T, 4), ``shares`` (T, num_actions: each kept move's visit share
    as stored) and ``policy`` (the same renormalised to sum to 1: the moves past the top
    TOP and the rounding take a little mass)."""
    q = steps or quantisation()
    t, top = len(g["ply"]), g["policy_action"].shape[1]
    win = (g["root_win"] * q["win_step"] if "root_win" in g
           else np.full((t, SEATS), np.nan))
    policy = np.zeros((t, NUM_ACTIONS), np.float64)
    np.add.at(policy, (np.repeat(np.arange(t), top), g["policy_action"].reshape(-1)),
              g["policy_share"].reshape(-1) * q["share_step"])
    total = policy.sum(axis=1, keepdims=True)
    return {"root_win": win, "root_money": g["root_money"] * q["money_step"], "shares": policy,
            "policy": np.where(total > 0, policy / np.where(total > 0, total, 1), 0)}


def replay(players: int, seed: int, actions: np.ndarray, plies: np.ndarray,
           where: str) -> Iterator[tuple[int, engine.GameState]]:
    """Replay a game from its seed, yielding (k, state) before the k-th targeted ply; the
    last item is (-1, final state).

    Raises:
        SelfplayError: an action that is illegal, or a targeted ply that is a chance event.
    """
    state = engine.new_game(num_players=players, seed=seed)
    wanted = iter(enumerate(plies.tolist()))
    k, ply = next(wanted, (-1, -1))
    for i, a in enumerate(actions.tolist()):
        if i == ply:
            if state.is_chance():
                raise SelfplayError(f"{where}: ply {i} is a chance event, not a decision")
            yield k, state
            k, ply = next(wanted, (-1, -1))
        try:
            state.apply(a)
        except engine.IllegalActionError as exc:
            raise SelfplayError(f"{where}: action {i} ({a}) is illegal: {exc}") from None
    if not state.is_terminal():
        raise SelfplayError(f"{where}: the game does not end after its {len(actions)} actions")
    yield -1, state


def _rotate(values: np.ndarray, player: np.ndarray, n: int) -> np.ndarray:
    """Real-seat columns (rows, 4) to tensor seat order (own seat first), absent seats 0."""
    seat = (player[:, None] + np.arange(n)[None, :]) % n
    out = np.zeros((len(player), SEATS), np.float32)
    out[:, :n] = np.take_along_axis(np.asarray(values, np.float64)[:, :n], seat, 1)
    return out


def _game_rows(g: dict[str, np.ndarray], players: int, seed: int, where: str,
               steps: dict[str, Any] | None) -> dict[str, np.ndarray]:
    """The training rows of one compact game (see `replay_rows`)."""
    dec = decode_targets(g, steps)
    t = len(g["ply"])
    movers = np.zeros(t, np.int64)
    obs = np.zeros((t, engine.OBSERVATION_SIZE), np.float32)
    legal = np.zeros((t, NUM_ACTIONS), np.bool_)
    final = None
    for k, state in replay(players, seed, g["actions"], g["ply"], where):
        if k < 0:
            final = state
            break
        movers[k] = player = state.current_player
        obs[k] = state.observation(player)
        legal[k, state.legal_actions()] = True
    assert final is not None
    if (dec["policy"][~legal] != 0).any():
        raise SelfplayError(f"{where}: a policy target on an illegal action")
    money = np.asarray(final.money(), np.float64)
    if not np.array_equal(money, g["final_money"][0, :players]):
        raise SelfplayError(f"{where}: the replay's final money differs from the record's "
                            f"(records of another engine version?)")
    share = np.zeros(players)
    winners = final.winners()
    share[winners] = 1.0 / len(winners)
    win = np.ones((t, SEATS)) if players == 1 else dec["root_win"]
    return {"obs": obs, "legal": legal, "policy": dec["policy"].astype(np.float32),
            "num_players": np.full(t, players, np.int8),
            "game": np.full(t, int(g["game"][0]), np.int32),
            "final_money": _rotate(np.tile(money, (t, 1)), movers, players),
            "win_share": _rotate(np.tile(share, (t, 1)), movers, players),
            "root_win": _rotate(win, movers, players),
            "root_money": _rotate(dec["root_money"], movers, players),
            "playout_win": np.full((t, SEATS), np.nan, np.float32)}


def replay_rows(arrays: dict[str, np.ndarray], players: int, base_seed: int,
                where: str, steps: dict[str, Any] | None = None) -> dict[str, np.ndarray]:
    """A compact shard as the training rows of ai/learn/data.py, one per full search:
    obs, policy, legal, num_players, game, final_money, win_share, root_win, root_money
    (seat columns own seat first) and playout_win (NaN), replaying each game from seed
    `base_seed` + its number; the targets dequantised with `steps` (`decode_targets`).

    Raises:
        SelfplayError: a game that does not replay, naming `where` and the game.
    """
    games = [_game_rows(g, players, base_seed + int(g["game"][0]),
                        f"{where}: game {int(g['game'][0])}", steps) for g in split_games(arrays)]
    if not games:
        raise SelfplayError(f"{where}: a shard without games")
    return {k: np.concatenate([g[k] for g in games]) for k in games[0]}


def read_directory(folder: str | Path) -> tuple[dict[str, Any], list[dict[str, np.ndarray]]]:
    """A compact directory's manifest and its shards' training rows (`replay_rows`), each
    shard checked against its sha256.

    Raises:
        SelfplayError: no such directory, a manifest of another format or version, a shard
            missing, changed or not replaying.
    """
    from gallerist.ai.selfplay.records import sha256_file

    folder = Path(folder)
    path = folder / MANIFEST
    try:
        manifest = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise SelfplayError(f"{path}: cannot read it: {exc}") from None
    if manifest.get("format") != FORMAT or manifest.get("format_version") != FORMAT_VERSION:
        raise SelfplayError(f"{path}: format {manifest.get('format')!r} version "
                            f"{manifest.get('format_version')!r}, expected {FORMAT!r} version "
                            f"{FORMAT_VERSION}")
    steps = manifest.get("quantisation")
    if not isinstance(steps, dict) or not all(
            isinstance(steps.get(k), (int, float)) and steps[k] > 0
            for k in ("win_step", "money_step", "share_step")):
        raise SelfplayError(f"{path}: quantisation {steps!r}: expected positive win_step, "
                            f"money_step and share_step")
    rows = []
    for shard in manifest.get("shards", []):
        file = folder / shard["file"]
        if not file.is_file():
            raise SelfplayError(f"{file}: listed in the manifest but missing")
        if sha256_file(file) != shard["sha256"]:
            raise SelfplayError(f"{file}: sha256 differs from the manifest's (the file is "
                                f"corrupt or was changed after the run wrote it)")
        rows.append(replay_rows(read_shard(file), int(manifest["players"]),
                                int(manifest["seed"]), str(file), steps))
    return manifest, rows
