"""The GalleristPlay servicer (play.proto): hosted games, their bots' searches in the
server's search slots, and the person's view of each game as a GameView."""
from __future__ import annotations

import hashlib
import re
import secrets
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import grpc

from gallerist import engine
from gallerist.ai.bots.base import Bot
from gallerist.ai.values import Budget
from gallerist.ai.bots.spec import bot_options
from gallerist.engine.actions import action_to_string, describe_decision
from gallerist.engine.moves_text import seat_words
from gallerist.server import convert
from gallerist.server.limits import (Limits, RequestError, build_bot, check_budget, check_seed,
                                     check_spec)
from gallerist.server.metrics import Metrics
from gallerist.server.play.games import BotSeat, GameGone, HostedGame, StaleMove, check_game_id
from gallerist.server.play.store import GameRecord, GameStore
from gallerist.ai.review.strength import Strength, StrengthModel, combine
from gallerist.server.play.review import review_game
from gallerist.server.search import Search, resolve_budget
from gallerist.server.servicer import Overloaded, grpc_unary, safe_parser, unary_method
from gallerist.server.status import RpcContext
from gallerist.server.slots import SearchSlots
from gallerist.v1 import hints_pb2, play_pb2

__all__ = ["PLAY_SERVICE_NAME", "PlayServicer", "add_play_servicer", "check_player_key",
           "client_key", "seat_words"]

PLAY_SERVICE_NAME: str = play_pb2.DESCRIPTOR.services_by_name["GalleristPlay"].full_name
#: the bot of a seat the request leaves empty: the weakest level
DEFAULT_OPPONENT = "level:1"
#: `context.time_remaining()` above this many seconds means "no deadline"
_NO_DEADLINE_S = 1e8


#: games ListGames lists by default, and at most
LIST_DEFAULT, LIST_MAX = 50, 200


def _summary(record: GameRecord) -> Any:
    """A game of the list, in the person's words."""
    names = ["You" if p == record.seat else record.bots[p]["name"]
             for p in range(record.players)]
    out = play_pb2.GameSummary(game_id=record.game_id, players=names, seat=record.seat,
                               finished=record.finished, started_unix=int(record.created),
                               updated_unix=int(record.updated),
                               actions_played=len(record.actions))
    if record.finished and record.result:
        money, winners = record.result["money"], record.result["winners"]
        if record.players == 1:
            out.result = f"Finished with ${money[0]}"
        else:
            head = ("You won" if winners == [record.seat] else "You tied for first"
                    if record.seat in winners else
                    " and ".join(names[p] for p in winners) + " won")
            out.result = f"{head} (" + ", ".join(f"{names[p]} ${money[p]}"
                                                 for p in range(record.players)) + ")"
    else:
        out.result = f"in progress, {len(record.actions)} actions played"
    if record.strength:
        s = record.strength
        out.strength.CopyFrom(hints_pb2.SeatStrength(seat=record.seat, elo=s["elo"],
                                                     elo_low=s["low"], elo_high=s["high"],
                                                     level=s.get("level", 0)))
    return out


def check_player_key(key: str) -> str:
    """A request's player key, checked for shape ("" for none)."""
    if key and not (16 <= len(key) <= 64 and re.fullmatch(r"[A-Za-z0-9_-]+", key)):
        raise RequestError("player_key", f"{key[:80]!r} is not a player key (16 to 64 "
                                         "letters, digits, '-' and '_')")
    return key


def client_key(context: RpcContext, proxies: frozenset[str] = frozenset()) -> str:
    """Whose a call is, for the caps on games: its token when it sends one, else its
    address without the port; from a proxy on this machine or in `proxies` (addresses),
    the client's address that it passes as X-Real-IP (nginx in front of replicas)."""
    forwarded = ""
    for key, value in context.invocation_metadata() or ():   # type: ignore[attr-defined]
        text = value if isinstance(value, str) else bytes(value).decode("latin-1")
        if key == "authorization" and text:
            return "token:" + hashlib.sha256(text.encode()).hexdigest()[:16]
        if key == "x-real-ip":
            forwarded = text.strip()[:64]
    host = (context.peer() or "unknown").rsplit(":", 1)[0]   # ipv4:127.0.0.1, ipv6:[::1]
    bare = host.split(":", 1)[-1].strip("[]")
    if forwarded and (bare in ("127.0.0.1", "::1") or bare in proxies):   # a proxy's word only
        return "addr:" + forwarded
    return "addr:" + host


def _budget_words(budget: Budget) -> str:
    """A bot seat's budget: "10 ms a move", "200 iterations a move"."""
    parts = [f"{budget.iterations:,} iterations"] if budget.iterations else []
    if budget.depth:
        parts.append(f"depth {budget.depth}")
    if budget.time_ms:
        ms = budget.time_ms
        parts.append(f"{ms / 1000:g} s" if ms >= 1000 else f"{ms:g} ms")
    return " or ".join(parts) + " a move"


def _bot_name(spec: str, budget: Budget, default_bot: str) -> str:
    """How the page names a bot seat: "Level 2", "Default bot (10 ms a move)"."""
    if spec == default_bot:
        spec = "Default bot"
    level = re.fullmatch(r"level:(\d)", spec)
    name = f"Level {level.group(1)}" if level else spec
    elo = re.fullmatch(r"level:elo=(\d+(?:\.\d+)?)", spec)
    if elo:
        name = f"Level at {float(elo.group(1)):,.0f} Elo"
    return name if budget == Budget() else f"{name} ({_budget_words(budget)})"


class PlayServicer:
    """The hosted games of the GalleristPlay service (play.proto).

    Args:
        limits: what a bot seat may ask for (as a hint request).
        slots: the server's search slots: the bots of a call hold theirs while they move.
        games: where the games are kept (default: a database in memory).
        make_bot: builds a bot from a checked spec and a seed.
        metrics: where calls and searches are counted.
        proxies: addresses of proxies whose X-Real-IP names the client (beside this
            machine's own).
    """

    def __init__(self, *, limits: Limits, slots: SearchSlots, games: GameStore | None = None,
                 make_bot: Callable[[str, int], Bot] | None = None,
                 metrics: Metrics | None = None, proxies: frozenset[str] = frozenset()) -> None:
        self.proxies = proxies
        self.limits = limits
        self.slots = slots
        self.games = games or GameStore()
        self.metrics = metrics or Metrics()
        self._make_bot: Callable[[str, int], Bot] = make_bot or build_bot
        # one call at a time on a game in this process (other replicas: the version check)
        self._locks: weakref.WeakValueDictionary[str, threading.Lock] = \
            weakref.WeakValueDictionary()
        self._locks_lock = threading.Lock()

    # ------------------------------------------------------------------ the rpcs

    @unary_method
    def StartGame(self, request: Any, context: RpcContext, call: Any) -> Any:
        """Start a game (play.proto)."""
        n = request.num_players or 2
        if not 1 <= n <= 4:
            raise RequestError("num_players", f"{n} is outside 1..4 (1: solo against Lacerda)")
        if not 0 <= request.seat < n:
            raise RequestError("seat", f"{request.seat} is not a seat of a {n}-player game "
                                       f"(0..{n - 1})")
        player_key = check_player_key(request.player_key)
        bots = self._bots(request, n)
        seed = (check_seed(request.seed) if request.HasField("seed")
                else secrets.randbits(63))
        owner = client_key(context, self.proxies)
        self.games.check_room(owner)   # before the bots search; checked again when stored
        record = GameRecord(game_id=secrets.token_urlsafe(16), owner=owner,
                            player_key=player_key, players=n, seat=request.seat, seed=seed,
                            bots=HostedGame.bots_record(bots))
        game = HostedGame(record)
        call.extra = f" game={game.game_id[:6]} players={n}"
        with self._bots_moving(game, context) as choose:
            game.advance(choose)
        self.games.add(game.synced())
        return self._view(game, since=0)

    @unary_method
    def PlayMove(self, request: Any, context: RpcContext, call: Any) -> Any:
        """Play the person's move, then chance and the bots (play.proto)."""
        action = convert.action_from_request(request)
        field = request.WhichOneof("choice") or "action"
        with self._game(request.game_id) as game:
            call.extra = f" game={game.game_id[:6]} action={action}"
            played = len(game.state.history)
            if request.HasField("actions_played") and request.actions_played != played:
                raise StaleMove(f"actions_played: the game is at {played} actions played, not "
                                f"{request.actions_played}: reload it (GetGame)")
            game.play(action, field)
            with self._bots_moving(game, context) as choose:   # Overloaded: nothing saved
                game.advance(choose)
            self._save(game)
            return self._view(game, since=played)

    @unary_method
    def UndoMove(self, request: Any, context: RpcContext, call: Any) -> Any:
        """Take back the person's last move (play.proto)."""
        with self._game(request.game_id) as game:
            game.undo()
            self._save(game)
            return self._view(game, since=None)

    @unary_method
    def GetGame(self, request: Any, context: RpcContext, call: Any) -> Any:
        """The game as it stands (play.proto)."""
        with self._game(request.game_id) as game:
            return self._view(game, since=None)

    @unary_method
    def ReviewGame(self, request: Any, context: RpcContext, call: Any) -> Any:
        """The review page of a finished game (play.proto)."""
        with self._game(request.game_id) as game:
            if not game.state.is_terminal():
                raise StaleMove("game_id: the game is not over yet; review it at the end")
            with self.slots.hold(1) as ok:
                if not ok:
                    self.metrics.refused()
                    raise Overloaded(f"server busy: {self.slots.in_use} of "
                                     f"{self.slots.capacity} search slots in use; retry later")
                call.budget = f"{self.limits.default_bot}/it={request.iterations}"
                review = review_game(game, request.iterations, self.limits)
            if review.HasField("strength"):   # the person's record keeps the estimate
                s = review.strength
                game.record.strength = {"elo": s.elo, "low": s.elo_low, "high": s.elo_high,
                                        "level": s.level, "bot": review.bot,
                                        "iterations": request.iterations or 0}
                self._save(game)
            return review

    @unary_method
    def ListGames(self, request: Any, context: RpcContext, call: Any) -> Any:
        """A player's games and rating (play.proto)."""
        key = check_player_key(request.player_key)
        if not key:
            raise RequestError("player_key", "missing: the key the page keeps (the same as "
                                             "StartGame's player_key)")
        limit = request.limit or LIST_DEFAULT
        if limit > LIST_MAX:
            raise RequestError("limit", f"{limit} is above the {LIST_MAX} games one call lists")
        records = self.games.games_of(key, LIST_MAX)
        out = play_pb2.PlayerGames()
        for record in records[:limit]:
            out.games.append(_summary(record))
        rated = [Strength(r.strength["elo"], (r.strength["low"], r.strength["high"]), 0)
                 for r in records if r.strength]
        model = StrengthModel.load()
        if rated and model is not None:
            rating = combine(rated, model.between_sd, model.levels)
            out.rating.CopyFrom(play_pb2.PlayerRating(
                elo=rating.elo, elo_low=rating.ci[0], elo_high=rating.ci[1],
                games=len(rated), level=rating.level))
        call.extra = f" games={len(out.games)}"
        return out

    # ------------------------------------------------------------------ parts

    @contextmanager
    def _game(self, game_id: str) -> Iterator[HostedGame]:
        """``with self._game(id) as game:`` the game read from the store, this process's
        other calls on it waiting their turn."""
        check_game_id(game_id)
        with self._locks_lock:
            lock = self._locks.get(game_id)
            if lock is None:
                lock = self._locks[game_id] = threading.Lock()
        with lock:
            record = self.games.load(game_id)
            if record is None:
                raise GameGone(f"game_id: no game {game_id!r} on this server (a game is "
                               f"deleted after {self.games.idle_days:g} idle days): start a "
                               "new one")
            yield HostedGame(record)

    def _save(self, game: HostedGame) -> None:
        """Commit the game's new actions, or StaleMove when another call moved it first."""
        if not self.games.save(game.synced()):
            raise StaleMove("game_id: another move was made in this game meanwhile (another "
                            "tab or client): nothing was played; reload it (GetGame)")

    def _bots(self, request: Any, n: int) -> dict[int, BotSeat]:
        """The bot of every seat but the person's, checked against the limits."""
        others = [p for p in range(n) if p != request.seat]
        given = list(request.opponents)
        if n == 1 and given:
            raise RequestError("opponents", "the solo game has no bot seats (Lacerda moves "
                                            "by the rules): send none")
        if len(given) not in (0, 1, len(others)):
            raise RequestError("opponents", f"{len(given)} given: send none (level 1 at every "
                                            f"other seat), one, or one per other seat "
                                            f"({len(others)})")
        seats = {}
        for i, p in enumerate(others):
            k = 0 if len(given) <= 1 else i
            o = given[k] if given else play_pb2.Opponent()
            where = f"opponents[{k}]"
            spec = o.bot_spec.strip() or DEFAULT_OPPONENT
            check_spec(spec, self.limits, field=f"{where}.bot_spec")
            try:   # the options the bot itself checks (e.g. a level's range)
                self._make_bot(spec, 0)
            except RequestError as exc:
                raise RequestError(f"{where}.bot_spec", exc.problem) from None
            try:
                budget = check_budget(o.budget.iterations, o.budget.time_ms, o.budget.depth,
                                      self.limits)
            except RequestError as exc:
                raise RequestError(f"{where}.{exc.field}", exc.problem) from None
            seats[p] = BotSeat(spec, budget, _bot_name(spec, budget, self.limits.default_bot))
        return seats

    def _slots_needed(self, game: HostedGame) -> int:
        need = 1
        for seat in game.bots.values():
            name, opts = check_spec(seat.spec, self.limits)
            need = max(need, int({**bot_options(name), **opts}.get("threads", 1)))
        return need

    @contextmanager
    def _bots_moving(self, game: HostedGame,
                     context: RpcContext) -> Iterator[Callable[..., int]]:
        """``with self._bots_moving(game, context) as choose:`` holds the bots' search
        slots (Overloaded when they are not free, before anything moved) when a bot is
        due, and gives the function that makes a bot's move."""
        s = game.state
        if s.is_terminal() or game.persons_turn() or not game.bots:
            yield self._no_bot
            return
        need = self._slots_needed(game)
        cancelled = threading.Event()
        current: list[Search] = []

        def stop() -> None:
            cancelled.set()
            for search in list(current):
                search.stop()

        def choose(p: int, view: engine.GameState, seat: BotSeat, seed: int) -> int:
            bot = self._make_bot(seat.spec, seed)
            remaining = context.time_remaining()
            search_ms = self.limits.search_ms(
                None if remaining is None or remaining > _NO_DEADLINE_S else remaining)
            budget, _ = resolve_budget(bot, seat.budget, self.limits, search_ms)
            search = Search(bot, view, budget, spec=seat.spec)
            current[:] = [search]
            if cancelled.is_set():
                search.stop()
            with self.slots.running(search):
                report = search.run()
            a = report.analysis
            self.metrics.search_done(bot.name, report.elapsed_ms / 1000.0,
                                     a.iterations or a.nodes, a.depth)
            return int(a.played.action)

        with self.slots.hold(need) as ok:
            if not ok:
                self.metrics.refused()
                raise Overloaded(f"server busy: {self.slots.in_use} of {self.slots.capacity} "
                                 "search slots in use, none free for the bots; retry later")
            context.add_callback(stop)
            yield choose

    @staticmethod
    def _no_bot(p: int, view: engine.GameState, seat: BotSeat, seed: int) -> int:
        raise AssertionError("no bot is due")   # advance() calls it only for a bot's decision

    def _view(self, game: HostedGame, since: int | None) -> Any:
        """What the person sees of the game; `since`: events from that ply (None: none)."""
        s = game.state
        view = s.view(game.seat)
        out = play_pb2.GameView(game_id=game.game_id, seat=game.seat, players=game.names(),
                                state=view.to_proto(), position=convert.position(view),
                                can_undo=bool(game.marks), seed=game.seed)
        legal = s.legal_actions() if game.persons_turn() else []
        if legal:
            words = engine.describe_moves(view)
            for a in legal:
                out.actions.add(action=a, notation=action_to_string(a), description=words[a])
        if since is not None:
            for ply, seat, a, said in game.events(since):
                event = out.events.add(action=a, notation=action_to_string(a), ply=ply,
                                       description=seat_words(said, seat, game.seat))
                if seat is not None:
                    event.player = seat
        out.board_svg = engine.svg(view, viewer=game.seat, targets=legal)
        if s.is_terminal():
            out.history.extend(int(a) for a in s.history)
            out.decision = self._result(game)
        else:
            said = seat_words(describe_decision(view), None, game.seat)
            out.decision = re.sub(rf"^player {game.seat} must\b", "You must", said)
        return out

    @staticmethod
    def _result(game: HostedGame) -> str:
        """The end of the game in words: who won, and everyone's money."""
        s, names = game.state, game.names()
        money = [int(m) for m in s.money()]
        if s.num_players == 1:
            return f"Game over: you finished with ${money[0]}"
        winners = [int(p) for p in s.winners()]
        scores = ", ".join(f"{names[p]} ${money[p]}" for p in range(s.num_players))
        if game.seat in winners:
            head = "You won" if len(winners) == 1 else "You tied for first"
        else:
            head = " and ".join(names[p] for p in winners) + (" won" if len(winners) == 1
                                                              else " tied for first")
        return f"Game over: {head} ({scores})"


def add_play_servicer(servicer: PlayServicer, server: grpc.Server) -> None:
    """Register the GalleristPlay methods on a gRPC server, with request parsers that
    never raise (as `add_servicer`)."""
    handlers = {
        name: grpc.unary_unary_rpc_method_handler(
            grpc_unary(getattr(servicer, name)), request_deserializer=safe_parser(request),
            response_serializer=response.SerializeToString)
        for name, request, response in (
            ("StartGame", play_pb2.StartGameRequest, play_pb2.GameView),
            ("PlayMove", play_pb2.PlayMoveRequest, play_pb2.GameView),
            ("UndoMove", play_pb2.GameRequest, play_pb2.GameView),
            ("GetGame", play_pb2.GameRequest, play_pb2.GameView),
            ("ReviewGame", play_pb2.ReviewGameRequest, play_pb2.GameReview),
            ("ListGames", play_pb2.ListGamesRequest, play_pb2.PlayerGames))}
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(PLAY_SERVICE_NAME,
                                                                          handlers),))
    server.add_registered_method_handlers(PLAY_SERVICE_NAME, handlers)
