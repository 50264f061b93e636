"""The games `gallerist analyze` (and the AnalyzeGame rpc) read: a setup (seed and player
count) and every action and chance outcome played since, from an arena/`play` record, a
`gallerist selfplay` directory (chance outcomes dealt again from the game's seed) or a
move list (JSON; docs/records.md, "A move list"). An illegal move is a `GameInputError`
naming its index and the move.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

from gallerist import engine
from gallerist.engine.actions import action_to_string, string_to_action
from gallerist.engine.errors import GalleristError

__all__ = ["GameInput", "GameInputError", "game_from_moves", "game_from_record", "read_game",
           "replay_selfplay", "selfplay_game"]


class GameInputError(GalleristError, ValueError):
    """A game that cannot be read or replayed; the message says where (file, line,
    field, move index) and what is wrong."""


@dataclass
class GameInput:
    """A game to analyze.

    Attributes:
        seed: the setup seed (`engine.new_game`).
        players: the player count (1: solo against Lacerda).
        actions: every action and chance outcome since setup, as ids, checked legal.
        names: one name per seat (the record's bot specs, or the list's names).
        game: the record's game number (None for a plain move list).
        run: the record's run id ("" when none).
        setup: the setup as the analysis header gives it ({"seed", "players"}).
    """

    seed: int
    players: int
    actions: list[int]
    names: list[str]
    game: int | None = None
    run: str = ""
    setup: dict[str, Any] = field(default_factory=dict)

    def state_at(self, ply: int) -> engine.GameState:
        """The position before action number `ply` (0 = after setup)."""
        state = engine.new_game(num_players=self.players, seed=self.seed)
        for a in self.actions[:ply]:
            state.apply(a)
        return state

    def decisions(self, seats: Sequence[int] | None = None) -> list[tuple[int, int]]:
        """The (ply, seat) of every decision of `seats` (all when None), in game order;
        chance outcomes are not decisions."""
        state = engine.new_game(num_players=self.players, seed=self.seed)
        out = []
        for ply, a in enumerate(self.actions):
            if not state.is_chance():
                seat = int(state.current_player)
                if seats is None or seat in seats:
                    out.append((ply, seat))
            state.apply(a)
        return out


def _move_id(move: Any, where: str) -> int:
    if isinstance(move, bool) or not isinstance(move, (int, str)):
        raise GameInputError(f"{where}: {move!r} is not an action id or notation")
    try:
        a = string_to_action(move) if isinstance(move, str) else move
        action_to_string(a)
    except engine.IllegalActionError as exc:
        raise GameInputError(f"{where}: {exc}") from None
    return int(a)


def game_from_moves(seed: Any, players: Any, moves: Any, *, names: Any = None,
                    field_name: str = "moves", game: int | None = None,
                    run: str = "") -> GameInput:
    """A game from its setup and moves, each move checked legal where it is played.

    Args:
        seed: setup seed (0..2^63-1).
        players: 1..4.
        moves: the history, as ids or notation.
        names: one name per seat, or None.
        field_name: how errors name the move list ("moves", "game.actions").

    Raises:
        GameInputError: a bad seed or player count, or an unknown or illegal move
            (naming its index and the move).
    """
    if isinstance(players, bool) or not isinstance(players, int) or not 1 <= players <= 4:
        raise GameInputError(f"players: {players!r} is not 1..4")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise GameInputError(f"seed: {seed!r} is not an integer in 0..2^63-1")
    if not isinstance(moves, list):
        raise GameInputError(f"{field_name}: expected a list of moves, got {type(moves).__name__}")
    if names is None:
        names = [f"P{i}" for i in range(players)]
    if not isinstance(names, list) or len(names) != players or not all(isinstance(x, str) for x in names):
        raise GameInputError(f"names: expected {players} strings (one per seat), got {names!r}")
    state = engine.new_game(num_players=players, seed=seed)
    actions = []
    for i, move in enumerate(moves):
        where = f"{field_name}[{i}]"
        a = _move_id(move, where)
        if state.is_terminal():
            raise GameInputError(f"{where}: {action_to_string(a)}: the game is already over")
        try:
            state.apply(a)
        except engine.IllegalActionError as exc:
            raise GameInputError(f"{where}: {action_to_string(a)} is illegal: {exc}") from None
        actions.append(a)
    return GameInput(seed=seed, players=players, actions=actions, names=list(names),
                     game=game, run=run, setup={"seed": seed, "players": players})


def game_from_record(data: Any, where: str = "record") -> GameInput:
    """A game from one arena/`play` record (a parsed JSON object with "seed", "bots"
    and "actions").

    Raises:
        GameInputError: a field missing or wrong, or an illegal action (naming it).
    """
    if not isinstance(data, dict):
        raise GameInputError(f"{where}: expected a JSON object, got {type(data).__name__}")
    for key in ("seed", "bots", "actions"):
        if key not in data:
            raise GameInputError(f"{where}: field {key!r} is missing (not a game record)")
    bots = data["bots"]
    if not isinstance(bots, list) or not 1 <= len(bots) <= 4:
        raise GameInputError(f"{where}.bots: expected 1 to 4 bot names")
    game = data.get("game")
    return game_from_moves(data["seed"], len(bots), data["actions"],
                           names=[str(b) for b in bots], field_name=f"{where}.actions",
                           game=game if isinstance(game, int) else None,
                           run=str(data.get("run") or ""))


def _plain(data: dict[str, Any], path: str) -> GameInput:
    unknown = set(data) - {"seed", "players", "moves", "names"}
    if unknown:
        raise GameInputError(f"{path}: unknown field(s) {', '.join(sorted(unknown))} "
                             "(a move list has seed, players, moves, names)")
    if "seed" not in data or "moves" not in data:
        raise GameInputError(f"{path}: a move list needs 'seed' and 'moves'")
    return game_from_moves(data["seed"], data.get("players", 2), data["moves"],
                           names=data.get("names"), field_name=f"{path}: moves")


def replay_selfplay(players: int, seed: int, decisions: Sequence[int], movers: Sequence[int], *,
                    where: str = "game", actions: list[int] | None = None
                    ) -> Iterator[tuple[engine.GameState, int]]:
    """Replay a self-play game from its setup seed and recorded decisions, dealing the
    chance outcomes again from the seed as `ai.arena.play.play_game` dealt them: yields
    (state, i) before decision i (the state is the true one, hidden cards included; it
    is reused, copy it to keep it). `actions`, when given, receives every action applied.

    Raises:
        GameInputError: the records do not replay (a decision of another seat than the
            one to move, an illegal one, or decisions left over), naming `where` and the row.
    """
    import numpy as np

    from gallerist.ai.arena.play import draw_chance

    state = engine.new_game(num_players=players, seed=seed)
    chance, i = np.random.default_rng(seed), 0
    while not state.is_terminal():
        if state.is_chance():
            a = draw_chance(state, chance)
        elif i < len(decisions) and movers[i] == state.current_player:
            yield state, i
            a, i = int(decisions[i]), i + 1
        else:
            raise GameInputError(f"{where} does not replay from its seed at decision "
                                 f"{i} (records of another engine version?)")
        try:
            state.apply(a)
        except engine.IllegalActionError as exc:
            raise GameInputError(f"{where}, decision {i - 1}: "
                                 f"{action_to_string(a)} is illegal: {exc}") from None
        if actions is not None:
            actions.append(a)
    if i != len(decisions):
        raise GameInputError(f"{where}: the game ends after {i} of its {len(decisions)} "
                             f"recorded decisions (records of another engine version?)")


def selfplay_game(path: str, game: int | None = None) -> GameInput:
    """Game number `game` (default: the first) of a `gallerist selfplay` directory: its
    recorded decisions, with the chance outcomes dealt again from the game's seed.

    Raises:
        GameInputError: not a self-play directory, no such game, or records that do not
            replay (naming the row).
    """
    from gallerist.ai.selfplay import run as selfplay

    try:
        manifest = selfplay.read_manifest(path)
    except (OSError, ValueError) as exc:
        raise GameInputError(f"{path}: not a self-play directory ({exc})") from None
    shards = manifest.get("shards") or []
    if not shards:
        raise GameInputError(f"{path}: the self-play run has no complete shard yet")
    g = int(shards[0]["first_game"]) if game is None else game
    shard = next((s for s in shards if s["first_game"] <= g < s["first_game"] + s["games"]), None)
    if shard is None:
        raise GameInputError(f"{path}: no game {g} (the run holds games 0..{manifest['games'] - 1})")
    rows = selfplay.read_shard(os.path.join(path, shard["file"]))
    mine = rows["game"] == g
    players, seed = int(manifest["players"]), selfplay.game_seed(int(manifest["seed"]), g)
    actions: list[int] = []
    for _ in replay_selfplay(players, seed, rows["action"][mine].tolist(),
                             rows["player"][mine].tolist(), where=f"{path}: game {g}",
                             actions=actions):
        pass
    return GameInput(seed=seed, players=players, actions=actions,
                     names=[str(manifest["spec"])] * players, game=g,
                     setup={"seed": seed, "players": players})


def read_game(path: str, game: int | None = None, run: str | None = None) -> GameInput:
    """The game of a file: a plain move list (one JSON object with "moves"), game
    number `game` (default: the only or first one) of a JSON Lines file of records, or
    of a self-play directory (`selfplay_game`).

    Raises:
        OSError: the file cannot be read.
        GameInputError: not a game file, no such game, or an illegal move.
    """
    from gallerist.ai.arena.records import RecordsError, find_game

    if os.path.isdir(path):
        if run is not None:
            raise GameInputError(f"{path}: --run is for record files, not self-play directories")
        return selfplay_game(path, game)
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    try:
        whole = json.loads(text)
    except ValueError:
        whole = None
    if isinstance(whole, dict) and "moves" in whole:
        if game is not None or run is not None:
            raise GameInputError(f"{path}: a move list holds one game; --game and --run "
                                 "are for record files")
        return _plain(whole, path)
    records: list[tuple[int, dict[str, Any]]] = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as exc:
            raise GameInputError(f"{path}:{n}: not JSON ({exc})") from None
        if not isinstance(obj, dict) or "actions" not in obj:
            raise GameInputError(f"{path}:{n}: not a game record (no 'actions') nor a move "
                                 "list (no 'moves')")
        records.append((n, obj))
    if not records:
        raise GameInputError(f"{path}: no game in the file")
    if game is None and run is None:
        n, obj = records[0]
        return game_from_record(obj, f"{path}:{n}")
    from gallerist.ai.arena.records import GameRecord
    try:
        recs = [GameRecord(**obj) for _, obj in records]
    except TypeError as exc:
        raise GameInputError(f"{path}: not arena records ({exc})") from None
    try:
        if game is None:
            game = next(r.game for r in recs if r.run == run)
        found = find_game(recs, game, run, path)
    except StopIteration:
        raise GameInputError(f"{path}: no run {run!r}") from None
    except RecordsError as exc:
        raise GameInputError(str(exc)) from None
    i = recs.index(found)
    return game_from_record(records[i][1], f"{path}:{records[i][0]}")
