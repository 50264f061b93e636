"""Hosted games (the GalleristPlay service): a person's game against bots, its whole state
and chance draws kept in the server's memory, and what the person's seat sees of it."""
from __future__ import annotations

import secrets
import string
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gallerist import engine
from gallerist.ai.arena.play import draw_chance
from gallerist.ai.bots.base import Budget
from gallerist.server.limits import RequestError
from gallerist.server.status import FAILED_PRECONDITION, NOT_FOUND, ServiceError

__all__ = ["BotSeat", "GameGone", "GameStore", "HostedGame", "StaleMove", "check_game_id"]

#: the characters of a game id (secrets.token_urlsafe's)
_ID_CHARS = frozenset(string.ascii_letters + string.digits + "-_")
_ID_MAX = 64


class GameGone(ServiceError):
    """No game of that id on this server (never made, dropped when idle, or the server
    restarted)."""

    status = NOT_FOUND


class StaleMove(ServiceError):
    """A move chosen in a position the game is no longer at."""

    status = FAILED_PRECONDITION


def check_game_id(game_id: str) -> str:
    """A request's game id, checked for shape (not for existence)."""
    if not game_id:
        raise RequestError("game_id", "missing: the id StartGame returned")
    if len(game_id) > _ID_MAX or not set(game_id) <= _ID_CHARS:
        raise RequestError("game_id", f"{game_id[:80]!r} is not a game id (at most {_ID_MAX} "
                                      "letters, digits, '-' and '_')")
    return game_id


@dataclass(frozen=True)
class BotSeat:
    """A bot seat: its checked spec, its budget per decision, and how a person reads it."""

    spec: str
    budget: Budget
    name: str


#: chooses a bot seat's move: (seat, the seat's view, the bot, a seed) -> action id
Chooser = Callable[[int, engine.GameState, BotSeat, int], int]


class HostedGame:
    """One game: the full state, the chance draws' generator and the person's moves.

    Args:
        game_id: its id.
        players: 1..4.
        seat: the person's seat.
        bots: the bot of every other seat.
        seed: setup and chance seed.
    """

    def __init__(self, game_id: str, players: int, seat: int, bots: dict[int, BotSeat],
                 seed: int) -> None:
        self.game_id = game_id
        self.seat = seat
        self.bots = bots
        self.seed = seed
        self.state = engine.new_game(num_players=players, seed=seed)
        self._rng = np.random.default_rng(seed)
        self.marks: list[int] = []   # history length before each of the person's moves
        self.lock = threading.Lock()
        self.touched = time.monotonic()

    @property
    def players(self) -> int:
        return int(self.state.num_players)

    def names(self) -> list[str]:
        """Each seat's name, by seat."""
        return ["You" if p == self.seat else self.bots[p].name for p in range(self.players)]

    def persons_turn(self) -> bool:
        s = self.state
        return not s.is_terminal() and not s.is_chance() and s.current_player == self.seat

    def advance(self, choose: Chooser) -> None:
        """Chance and the bots move until the person's decision or the end."""
        s = self.state
        while not s.is_terminal() and not self.persons_turn():
            if s.is_chance():
                s.apply(draw_chance(s, self._rng))
                continue
            p = int(s.current_player)
            seed = (self.seed * 1_000_003 + len(s.history) * 7919 + p) % (1 << 63)
            action = choose(p, s.view(p), self.bots[p], seed)
            s.apply(action)

    def play(self, action: int, field: str) -> None:
        """The person's move (checked legal); `field` names it in errors."""
        s = self.state
        if not self.persons_turn():
            raise StaleMove("the game is over" if s.is_terminal() else
                            "it is not your decision")
        mark = len(s.history)
        try:
            s.apply(action)
        except engine.IllegalActionError as exc:
            raise RequestError(field, str(exc)) from None
        self.marks.append(mark)

    def undo(self) -> None:
        """Back to before the person's last move."""
        if not self.marks:
            raise StaleMove("nothing to undo: you have not moved yet")
        back = self.marks.pop()
        while len(self.state.history) > back:
            self.state.undo()

    def events(self, since: int) -> list[tuple[int, int | None, int, str]]:
        """(ply, seat or None for chance, action, its words as the person's seat saw it
        then) of every action from ply `since` on."""
        history = list(self.state.history)[since:]
        replay = self.state.copy()
        for _ in history:
            replay.undo()
        out: list[tuple[int, int | None, int, str]] = []
        for i, a in enumerate(history):
            seat = None if replay.is_chance() else int(replay.current_player)
            out.append((since + i, seat, int(a),
                        engine.describe_move(replay.view(self.seat), a)))
            replay.apply(a)
        return out


class GameStore:
    """The hosted games by id: at most `capacity`, each dropped after `idle_s` seconds
    without a call; when full, the least recently used goes first."""

    def __init__(self, capacity: int = 1000, idle_s: float = 3600.0) -> None:
        self.capacity = capacity
        self.idle_s = idle_s
        self._games: OrderedDict[str, HostedGame] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._games)

    def new_id(self) -> str:
        return secrets.token_urlsafe(16)

    def add(self, game: HostedGame) -> None:
        with self._lock:
            self._drop_idle()
            while len(self._games) >= self.capacity:
                self._games.popitem(last=False)
            self._games[game.game_id] = game

    def get(self, game_id: str) -> HostedGame:
        """The game (now the most recently used), or GameGone."""
        check_game_id(game_id)
        with self._lock:
            self._drop_idle()
            game = self._games.get(game_id)
            if game is None:
                raise GameGone(f"game_id: no game {game_id!r} on this server (a game is "
                               f"dropped after {self.idle_s / 60:g} idle minutes and when the "
                               "server restarts): start a new one")
            game.touched = time.monotonic()
            self._games.move_to_end(game_id)
            return game

    def _drop_idle(self) -> None:
        limit = time.monotonic() - self.idle_s
        while self._games:
            first = next(iter(self._games.values()))
            if first.touched >= limit:
                break
            self._games.popitem(last=False)
