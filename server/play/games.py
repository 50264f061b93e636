"""Hosted games (the GalleristPlay service): a person's game against bots, rebuilt from its
record (server/play/store.py) for each call, and what the person's seat sees of it."""
from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from gallerist import engine
from gallerist.ai.arena.play import draw_chance
from gallerist.ai.values import Budget
from gallerist.server.limits import RequestError
from gallerist.server.play.store import GameRecord
from gallerist.server.status import FAILED_PRECONDITION, NOT_FOUND, ServiceError

__all__ = ["BotSeat", "GameGone", "HostedGame", "StaleMove", "check_game_id"]

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
    """One game: its record and the state its actions lead to. Chance draws and the bots'
    seeds derive from the game's seed and the ply, so a game rebuilt from its record plays
    on exactly as it would have.

    Args:
        record: the game as stored (a new one: no actions yet).
    """

    def __init__(self, record: GameRecord) -> None:
        self.record = record
        self.bots = {p: BotSeat(spec=b["spec"], budget=Budget(**b["budget"]), name=b["name"])
                     for p, b in record.bots.items()}
        self.state = engine.new_game(num_players=record.players, seed=record.seed)
        for a in record.actions:
            self.state.apply(a)

    @staticmethod
    def bots_record(bots: dict[int, BotSeat]) -> dict[int, dict[str, object]]:
        """The bots of a new game as its record keeps them."""
        return {p: {"spec": b.spec, "budget": asdict(b.budget), "name": b.name}
                for p, b in bots.items()}

    @property
    def game_id(self) -> str:
        return self.record.game_id

    @property
    def seat(self) -> int:
        return self.record.seat

    @property
    def seed(self) -> int:
        return self.record.seed

    @property
    def marks(self) -> list[int]:
        """History length before each of the person's moves (what undo goes back to)."""
        return self.record.marks

    def synced(self) -> GameRecord:
        """The record, brought up to the state (actions, end, result)."""
        r, s = self.record, self.state
        r.actions = [int(a) for a in s.history]
        r.finished = bool(s.is_terminal())
        if r.finished:
            r.result = {"money": [int(m) for m in s.money()],
                        "winners": [int(p) for p in s.winners()]}
        else:
            r.result = {}
        return r

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
            if s.is_chance():   # the ply's own draw: the same whatever came before
                s.apply(draw_chance(s, np.random.default_rng([self.seed, len(s.history)])))
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
