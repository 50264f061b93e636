"""The GalleristAI servicer: proto requests in, engine and bot calls, proto responses out.

The servicer knows no transport: its rpc methods take the request and the call's
`RpcContext` and raise a `ServiceError` whose status (server/status.py) the gRPC port
(`add_servicer`) and the HTTP port (server/connect_service.py) each report their way,
with a message that starts with the request field at fault. Each call is logged on the
``gallerist.server`` logger; the codes are listed in docs/hints.md ("The service").
"""
from __future__ import annotations

import functools
import logging
import math
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import grpc

from gallerist import engine
from gallerist.engine.actions import action_to_string, describe_decision
from gallerist.v1 import hints_pb2
from gallerist.ai.bots.base import Bot
from gallerist.ai.values import Budget
from gallerist.ai.bots.spec import bot_options
from gallerist.ai.net.model_file import ModelFileError
from gallerist.ai.review.analysis import analyze_position, position_seed
from gallerist.server import convert
from gallerist.server.hint_requests import hint_search
from gallerist.server.limits import (
    Limits,
    RequestError,
    build_bot,
    check_budget,
    check_interval,
    check_move_list,
    check_query_id,
    check_seed,
    check_spec,
)
from gallerist.server.metrics import Metrics
from gallerist.server.search import Report, Search
from gallerist.server.slots import SearchSlots
from gallerist.server.state_cache import StateCache
from gallerist.server.status import (CANCELLED, INTERNAL, RESOURCE_EXHAUSTED, RpcContext,
                                     ServiceError, status_of)

__all__ = ["GalleristServicer", "Overloaded", "SERVICE_NAME", "Undecodable", "add_servicer",
           "grpc_stream", "grpc_unary", "safe_parser", "unary_method"]

log = logging.getLogger("gallerist.server")

#: The full name of the service, from the proto descriptor.
SERVICE_NAME: str = hints_pb2.DESCRIPTOR.services_by_name["GalleristAI"].full_name
#: `context.time_remaining()` above this many seconds means "no deadline".
_NO_DEADLINE_S = 1e8


class Overloaded(ServiceError):
    """Every search slot is taken."""

    status = RESOURCE_EXHAUSTED


class Undecodable:
    """Stands in for a request whose bytes are not a valid message of its type, so that
    the servicer can answer INVALID_ARGUMENT (gRPC itself would answer INTERNAL)."""

    def __init__(self, type_name: str, error: Exception) -> None:
        self.type_name = type_name
        self.error = error


def _safe_parser(message_type: Any) -> Callable[[bytes], Any]:
    name = message_type.DESCRIPTOR.full_name

    def parse(data: bytes) -> Any:
        try:
            return message_type.FromString(data)
        except Exception as exc:  # noqa: BLE001 - any parse failure is the client's
            return Undecodable(name, exc)
    return parse


class _Call:
    """One call's log line: method, budget, elapsed, status."""

    def __init__(self, method: str, context: RpcContext, request: Any = None) -> None:
        self.method = method
        self.context = context
        self.status = ""   # the failure's status name ("": none)
        self.t0 = time.perf_counter()
        self.budget = "-"
        self.extra = ""
        self.bot = ""
        self.query_id = str(getattr(request, "query_id", "") or "")

    def done(self, failed: bool = False) -> tuple[str, float]:
        """Log the call's line; returns its status name and its duration in seconds."""
        if self.status:
            status = self.status
        elif failed:
            status = "UNKNOWN"
        elif not self.context.is_active():
            status = CANCELLED.name
        else:
            status = "OK"
        seconds = time.perf_counter() - self.t0
        fields = {"method": self.method, "status": status,
                  "elapsed_ms": round(seconds * 1000.0, 3), "bot": self.bot,
                  "budget": self.budget, "query_id": self.query_id, "peer": self._peer()}
        if self.extra:
            fields["detail"] = self.extra.strip()
        log.info("%s budget=%s elapsed=%.1fms status=%s%s", self.method, self.budget,
                 seconds * 1000.0, status, self.extra, extra={"call": fields})
        return status, seconds

    def _peer(self) -> str:
        """The caller's address as the transport gives it ("" when it gives none)."""
        try:
            return str(self.context.peer() or "")
        except Exception:   # a context without a peer (a test's stand-in)
            return ""


_Method = Callable[[Any, Any, RpcContext, "_Call"], Any]
_Handler = Callable[[Any, Any, RpcContext], Any]


def _service_error(exc: Exception, call: _Call) -> ServiceError:
    """The error a call answers with for an exception raised while serving it; an
    unexpected one is logged with its traceback and answered INTERNAL."""
    status = status_of(exc)
    if status is None:
        log.exception("%s failed", call.method)
        return ServiceError(f"internal error: {type(exc).__name__}", INTERNAL)
    if status is not RESOURCE_EXHAUSTED:
        call.extra += f" error={exc}"
    return exc if isinstance(exc, ServiceError) else ServiceError(str(exc), status)


@contextmanager
def _serving(method: _Method, request: Any, context: RpcContext,
             metrics: Metrics, streaming: bool = False) -> Iterator[_Call]:
    """The part of every handler around the method: ``with _serving(...) as call:``
    checks that the request decoded, turns an exception into a `ServiceError`, logs the
    call's line when it ends and counts it in `metrics`."""
    call = _Call(method.__name__, context, request)
    failed = False
    metrics.call_started(call.method, streaming)
    try:
        if isinstance(request, Undecodable):
            raise RequestError("request", f"not a valid {request.type_name} message "
                                          f"({request.error})")
        yield call
    except Exception as exc:
        failed = True
        error = _service_error(exc, call)
        call.status = error.status.name
        if error is exc:
            raise
        raise error from None
    finally:
        metrics.call_ended(call.method, streaming, *call.done(failed))


def _unary(method: _Method) -> _Handler:
    """Wrap a unary handler `f(self, request, context, call)`: decode check, errors to
    status codes, one log line."""
    @functools.wraps(method)
    def handler(self: Any, request: Any, context: RpcContext) -> Any:
        with _serving(method, request, context, self.metrics) as call:
            return method(self, request, context, call)
    return handler


def _streaming(method: _Method) -> _Handler:
    """`_unary` for a server-streaming handler (a generator)."""
    @functools.wraps(method)
    def handler(self: Any, request: Any, context: RpcContext) -> Iterator[Any]:
        with _serving(method, request, context, self.metrics, streaming=True) as call:
            yield from method(self, request, context, call)
    return handler


def grpc_unary(method: Callable[[Any, Any], Any]) -> Callable[[Any, grpc.ServicerContext], Any]:
    """The gRPC port's handler of a unary rpc method: its `ServiceError` becomes the
    call's status."""
    @functools.wraps(method)
    def handler(request: Any, context: grpc.ServicerContext) -> Any:
        try:
            return method(request, context)
        except ServiceError as exc:
            context.abort(exc.status.grpc, str(exc))
    return handler


def grpc_stream(method: Callable[[Any, Any], Iterator[Any]]
                ) -> Callable[[Any, grpc.ServicerContext], Iterator[Any]]:
    """`grpc_unary` for a server-streaming rpc method."""
    @functools.wraps(method)
    def handler(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        try:
            yield from method(request, context)
        except ServiceError as exc:
            context.abort(exc.status.grpc, str(exc))
    return handler


class GalleristServicer:
    """The service. It only translates: checks in `server.limits`, searches built by
    `server.hint_requests` and run by `server.search`, messages in `server.convert`. Each rpc method takes the request
    and the context (the wrapper adds the call's log record); `add_servicer` registers
    them under the names of hints.proto.

    Args:
        limits: what one request may ask for.
        slots: the concurrent-search limit, shared with the server's shutdown.
        make_bot: builds a bot from a checked spec and a seed.
        cache: validated states to reuse (None: validate every state).
        metrics: where calls and searches are counted (default: nowhere).
    """

    def __init__(self, *, limits: Limits, slots: SearchSlots,
                 make_bot: Callable[[str, int], Bot] | None = None,
                 cache: StateCache | None = None, metrics: Metrics | None = None) -> None:
        self.limits = limits
        self.slots = slots
        self.cache = cache
        self.metrics = metrics or Metrics()
        self._make_bot: Callable[[str, int], Bot] = make_bot or build_bot

    # ------------------------------------------------------------------ searches

    def _search(self, request: Any, context: RpcContext, call: _Call) -> Search:
        """Validate the state and build the search, sized by the client's deadline."""
        def search_ms() -> float | None:
            remaining = context.time_remaining()
            return self.limits.search_ms(
                None if remaining is None or remaining > _NO_DEADLINE_S else remaining)

        state = convert.hint_position(request, cache=self.cache)
        spec, field = convert.bot_spec(request, self.limits.default_bot)
        search = hint_search(state, spec=spec, seed=request.seed,
                             budget=convert.budget_fields(request), limits=self.limits,
                             perspective=convert.perspective(request), field=field,
                             search_ms=search_ms, make_bot=self._make_bot,
                             allow=list(request.allow_moves), avoid=list(request.avoid_moves))
        b = search.budget
        call.budget = f"{search.bot.name}/it={b.iterations},ms={b.time_ms:.0f},d={b.depth}"
        call.bot = search.bot_spec
        return search

    def _check_search_request(self, request: Any, call: _Call) -> int:
        """The checks that need no state (cheap, done before taking a slot). Returns
        the slots the search needs (its threads)."""
        spec, field = convert.bot_spec(request, self.limits.default_bot)
        name, opts = check_spec(spec, self.limits, field=field)
        iterations, time_ms, depth = convert.budget_fields(request)
        call.budget = f"{spec}/it={iterations},ms={time_ms},d={depth}"
        call.bot = spec
        check_budget(iterations, time_ms, depth, self.limits)
        check_seed(request.seed)
        check_query_id(request.query_id)
        if hasattr(request, "allow_moves"):
            check_move_list(request.allow_moves, "allow_moves")
            check_move_list(request.avoid_moves, "avoid_moves")
        # a bot without a threads option searches on one
        return int({**bot_options(name), **opts}.get("threads", 1))

    def _overloaded(self) -> Overloaded:
        self.metrics.refused()
        return Overloaded(f"server busy: {self.slots.in_use} of {self.slots.capacity} search "
                          "slots in use; retry later")

    @contextmanager
    def _searching(self, request: Any, context: RpcContext, call: _Call,
                   need: int) -> Iterator[Search]:
        """``with self._searching(...) as search:`` holds `need` search slots (or raises
        Overloaded), builds the search and registers it as running for the body; the
        search stops when the call ends."""
        with self.slots.hold(need) as ok:
            if not ok:
                raise self._overloaded()
            search = self._search(request, context, call)
            with self.slots.running(search):
                if not context.add_callback(search.stop):
                    search.stop()   # the call is already over: do the least work
                yield search

    @_unary
    def SuggestMoves(self, request: Any, context: RpcContext, call: _Call) -> Any:
        """Rank the moves of the player to move (hints.proto)."""
        need = self._check_search_request(request, call)
        with self._searching(request, context, call, need) as search:
            report = self._searched(search.bot.name, search.run())
        return convert.hint_response(report, request.max_moves, request.query_id)

    @_streaming
    def AnalyzeStream(self, request: Any, context: RpcContext,
                      call: _Call) -> Iterator[Any]:
        """SuggestMoves with partial reports (hints.proto)."""
        need = self._check_search_request(request, call)
        interval = check_interval(request.report_interval_ms, self.limits)
        with self._searching(request, context, call, need) as search:
            reports = 0
            for report in search.reports(interval):
                if report.final:
                    self._searched(search.bot.name, report)
                if not context.is_active():
                    search.stop()
                    break
                reports += 1
                yield convert.hint_response(report, request.max_moves, request.query_id)
            call.extra = f" reports={reports}"

    def _analysis_plan(self, request: Any) -> tuple[Any, list[tuple[int, int]], str, str, Budget]:
        """AnalyzeGame's game, its decisions to analyze, the bot spec (and the field that
        named it) and the budget of each position, checked."""
        if request.WhichOneof("source") == "record":
            game = convert.game_from_record_text(request.record)
        elif request.HasField("game"):
            game = convert.game_input(request.game)
        else:
            raise RequestError("game", "missing: give a game (setup and moves) or a record")
        seats = list(request.seats)
        bad = [s for s in seats if s >= game.players]
        if bad or len(set(seats)) != len(seats):
            raise RequestError("seats", f"{seats} must be distinct seats in 0..{game.players - 1}")
        spec, field = convert.bot_spec(request, self.limits.default_bot)
        requested = check_budget(*convert.budget_fields(request), self.limits)
        try:
            budget = self._make_bot(spec, 0).budget_for(requested)
        except RequestError as exc:
            raise RequestError(field, exc.problem) from None
        return game, game.decisions(seats or None), spec, field, budget

    @_streaming
    def AnalyzeGame(self, request: Any, context: RpcContext,
                    call: _Call) -> Iterator[Any]:
        """Analyze every decision of a game, one AnalyzedPosition at a time (hints.proto)."""
        need = self._check_search_request(request, call)
        game, decisions, spec, field, budget = self._analysis_plan(request)
        max_moves = request.max_moves or 5
        stopped = threading.Event()
        current: list[Search] = []

        def stop() -> None:
            stopped.set()
            for search in current:
                search.stop()

        def search_ms() -> float | None:
            remaining = context.time_remaining()
            return self.limits.search_ms(
                None if remaining is None or remaining > _NO_DEADLINE_S else remaining)

        with self.slots.hold(need) as ok:
            if not ok:
                raise self._overloaded()
            if not context.add_callback(stop):
                stop()
            sent, reviews = 0, []   # reviews: (seat, loss, label) of the positions sent
            mistakes: dict[int, list[Any]] = {}   # by seat: its largest losses sent (keep_mistake)
            state = engine.new_game(num_players=game.players, seed=game.seed)
            done = 0
            for index, (ply, _seat) in enumerate(decisions):
                for a in game.actions[done:ply]:
                    state.apply(a)
                done = ply
                left = search_ms()
                if stopped.is_set() or not context.is_active() or (left is not None and left < 1.0):
                    break
                reports: list[Any] = []
                position = state.copy()

                def search(b: Budget, moves: list[int] | None) -> Any:
                    s = hint_search(position, spec=spec, seed=position_seed(request.seed, ply),
                                    budget=(int(b.iterations), int(math.ceil(b.time_ms)),
                                            int(b.depth)),
                                    limits=self.limits, field=field, search_ms=search_ms,
                                    make_bot=self._make_bot, moves=moves)
                    current[:] = [s]
                    if stopped.is_set():
                        s.stop()
                    with self.slots.running(s):
                        report = self._searched(s.bot.name, s.run())
                    reports.append(report)
                    return report.analysis

                review = analyze_position(position, game.actions[ply], search, budget, ply=ply)
                if stopped.is_set() or not context.is_active():
                    break
                sent += 1
                reviews.append((review.player, review.loss, review.label))
                last = sent == len(decisions)
                msg = convert.analyzed_position(
                    review, index=index, total=len(decisions), query_id=request.query_id,
                    budget=reports[0].budget, max_moves=max_moves,
                    deadline_limited=any(r.deadline_limited for r in reports),
                    bot_spec=reports[0].bot_spec, model=reports[0].model,
                    strength=convert.seat_strengths(game.players, reviews) if last else ())
                convert.keep_mistake(mistakes, msg)
                if last:
                    msg.biggest_mistakes.extend(convert.seat_mistakes(mistakes))
                yield msg
            call.extra = f" positions={sent}/{len(decisions)}"

    # ------------------------------------------------------------------ game play

    @_unary
    def NewGame(self, request: Any, context: RpcContext, call: _Call) -> Any:
        """A new game after setup (hints.proto)."""
        n = request.num_players or 2
        if not 1 <= n <= 4:
            raise RequestError("num_players", f"{n} is outside 1..4 (1: solo against Lacerda)")
        seed = check_seed(request.seed)
        state = engine.new_game(num_players=n, seed=seed)
        return hints_pb2.NewGameResponse(state=self._state_message(state),
                                         position=convert.position(state))

    @_unary
    def LegalActions(self, request: Any, context: RpcContext, call: _Call) -> Any:
        """The legal actions or chance outcomes of a position (hints.proto)."""
        state = convert.state_from_message(request.state, request.HasField("state"),
                                           cache=self.cache)
        return convert.legal_actions_response(state)

    @_unary
    def ApplyAction(self, request: Any, context: RpcContext, call: _Call) -> Any:
        """Apply one action or chance outcome (hints.proto)."""
        state = convert.state_from_message(request.state, request.HasField("state"),
                                           cache=self.cache)
        if request.WhichOneof("choice") == "chance_seed":
            seed = check_seed(request.chance_seed, "chance_seed")
            if not state.is_chance():
                raise RequestError("chance_seed", "the position is not at a chance event ("
                                   + describe_decision(state) + ")")
            action = state.apply_random_chance(seed)
        else:
            action = convert.action_from_request(request)
            try:
                state.apply(action)
            except engine.IllegalActionError as exc:
                raise RequestError(request.WhichOneof("choice") or "action", str(exc)) from None
        call.extra = f" action={action}"
        return hints_pb2.ApplyActionResponse(
            state=self._state_message(state), position=convert.position(state), action=action,
            notation=action_to_string(action))

    def _searched(self, bot: str, report: Report) -> Report:
        """Count a finished search in the metrics; returns its report."""
        a = report.analysis
        self.metrics.search_done(bot, report.elapsed_ms / 1000.0, a.iterations or a.nodes,
                                 a.depth)
        return report

    def _state_message(self, state: engine.GameState) -> Any:
        """The message of a state this server made, remembered in the state cache (the
        client sends it back next)."""
        msg = state.to_proto()
        if self.cache is not None:
            self.cache.put(msg, state)
        return msg


#: the wrapper of a unary rpc method, and the request parser, for the other servicers
unary_method = _unary
safe_parser = _safe_parser


def add_servicer(servicer: GalleristServicer, server: grpc.Server) -> None:
    """Register the servicer like the generated `add_GalleristAIServicer_to_server`, but
    with request parsers that never raise (undecodable bytes become INVALID_ARGUMENT)."""
    def unary(method: Any, **kwargs: Any) -> Any:
        return grpc.unary_unary_rpc_method_handler(grpc_unary(method), **kwargs)

    def stream(method: Any, **kwargs: Any) -> Any:
        return grpc.unary_stream_rpc_method_handler(grpc_stream(method), **kwargs)

    handlers = {
        "SuggestMoves": unary(servicer.SuggestMoves,
                              request_deserializer=_safe_parser(hints_pb2.HintRequest),
                              response_serializer=hints_pb2.HintResponse.SerializeToString),
        "AnalyzeStream": stream(
            servicer.AnalyzeStream,
            request_deserializer=_safe_parser(hints_pb2.HintRequest),
            response_serializer=hints_pb2.HintResponse.SerializeToString),
        "NewGame": unary(servicer.NewGame,
                         request_deserializer=_safe_parser(hints_pb2.NewGameRequest),
                         response_serializer=hints_pb2.NewGameResponse.SerializeToString),
        "LegalActions": unary(servicer.LegalActions,
                              request_deserializer=_safe_parser(hints_pb2.LegalActionsRequest),
                              response_serializer=hints_pb2.LegalActionsResponse.SerializeToString),
        "AnalyzeGame": stream(
            servicer.AnalyzeGame,
            request_deserializer=_safe_parser(hints_pb2.AnalyzeGameRequest),
            response_serializer=hints_pb2.AnalyzedPosition.SerializeToString),
        "ApplyAction": unary(servicer.ApplyAction,
                             request_deserializer=_safe_parser(hints_pb2.ApplyActionRequest),
                             response_serializer=hints_pb2.ApplyActionResponse.SerializeToString),
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE_NAME, handlers),))
    server.add_registered_method_handlers(SERVICE_NAME, handlers)
