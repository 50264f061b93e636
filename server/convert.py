"""Translation between the service's messages (proto/gallerist/v1/hints.proto) and engine
and bot objects. No gRPC here: a bad field is a `RequestError` naming it."""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import engine
from ai.bot import Budget, MoveInfo
from engine.actions import NOTATION, action_to_string, describe_decision, string_to_action
from proto.gallerist.v1 import hints_pb2, state_pb2
from server.limits import BOT_KINDS, Limits, RequestError, build_bot, check_budget
from server.search import Report, Search, check_position, resolve_budget
from server.state_cache import StateCache

__all__ = ["action_from_request", "bot_spec", "budget_fields", "hint_response",
           "legal_actions_response", "mover_cards_hidden", "position", "search_for_request",
           "state_from_message"]

#: Longer notation text is rejected before it is looked up (or echoed in an error).
MAX_NOTATION_CHARS = 64
_PATH = re.compile(r"[A-Za-z_][\w.\[\]|]*")


def state_error(exc: Exception, field: str = "state") -> RequestError:
    """An engine.InvalidStateError as a RequestError whose field is the full path in the
    request (`players[1].money: ...` becomes `state.players[1].money: ...`)."""
    text = str(exc)
    head, sep, rest = text.partition(": ")
    if sep and _PATH.fullmatch(head):
        path = field if head in ("state", "GameState") else f"{field}.{head}"
        return RequestError(path, rest)
    return RequestError(field, text)


def state_from_message(msg: Any, present: bool, field: str = "state",
                       cache: StateCache | None = None) -> engine.GameState:
    """The validated engine state of a request's `GameState` field.

    Args:
        msg: the `gallerist.v1.GameState` message.
        present: whether the request set the field.
        field: the field's name in the request, for errors.
        cache: validated states to reuse (None: validate every time).

    Raises:
        RequestError: missing, or not a valid state (naming the offending field).
    """
    if not present:
        raise RequestError(field, "missing (a gallerist.v1.GameState is required)")
    try:
        if cache is not None:
            return cache.get(msg)
        return engine.GameState.from_proto(msg)
    except engine.InvalidStateError as exc:
        raise state_error(exc, field) from None


def mover_cards_hidden(msg: Any, seat: int) -> None:
    """Reject a state in which the cards of the seat to move are HIDDEN: the search
    samples other players' cards, never the mover's own.

    Raises:
        RequestError: naming the hidden card.
    """
    player = msg.players[seat]
    for name, hidden in (("curator", state_pb2.CURATOR_CARD_HIDDEN),
                         ("dealer", state_pb2.DEALER_CARD_HIDDEN)):
        if getattr(player, name) == hidden:
            raise RequestError(f"state.players[{seat}].{name}",
                               f"is HIDDEN, but seat {seat} is to move and the search needs "
                               "the mover's own cards")


def bot_spec(request: Any, limits: Limits) -> tuple[str, str]:
    """The bot spec a HintRequest asks for, and the request field it came from."""
    which = request.WhichOneof("bot")
    if which == "bot_spec":
        return request.bot_spec, "bot_spec"
    if which == "bot_kind" and request.bot_kind != hints_pb2.BOT_KIND_UNSPECIFIED:
        name = BOT_KINDS.get(request.bot_kind)
        if name is None:
            raise RequestError("bot_kind", f"{request.bot_kind} is not a BotKind "
                                           f"(known: {', '.join(hints_pb2.BotKind.keys())})")
        return name, "bot_kind"
    return limits.default_bot, "bot_spec"


def budget_fields(request: Any) -> tuple[int, int, int]:
    """(iterations, time_ms, depth) of a HintRequest's budget (zeros when absent)."""
    b = request.budget
    return int(b.iterations), int(b.time_ms), int(b.depth)


def budget_message(budget: Budget) -> Any:
    """A Budget as the `gallerist.v1.Budget` message (time rounded up to whole ms)."""
    time_ms = budget.time_ms
    whole = int(time_ms) + (1 if time_ms > int(time_ms) else 0)
    return hints_pb2.Budget(iterations=int(budget.iterations), time_ms=whole,
                            depth=int(budget.depth))


def _move(m: MoveInfo) -> Any:
    return hints_pb2.MoveHint(
        action=m.action, notation=m.notation, visits=m.visits, depth=m.depth,
        expected_money=[float(x) for x in m.expected_money],
        win_probability=float(m.win_probability), value=float(m.value),
        pv=m.pv, pv_notation=[NOTATION[a] for a in m.pv])   # engine ids: always valid


def hint_response(report: Report, max_moves: int) -> Any:
    """A search report as a HintResponse.

    Args:
        report: the report.
        max_moves: how many moves to include (0 = all).
    """
    a = report.analysis
    moves = a.moves if max_moves <= 0 else a.moves[:max_moves]
    elapsed = report.elapsed_ms
    stats = hints_pb2.SearchStats(
        iterations=int(a.iterations), nodes=int(a.nodes), depth=int(a.depth),
        elapsed_ms=elapsed,
        nodes_per_second=a.nodes / (elapsed / 1000.0) if elapsed > 0 else 0.0)
    return hints_pb2.HintResponse(
        player=a.player, bot=a.bot, moves=[_move(m) for m in moves],
        legal_move_count=len(a.moves), stats=stats, final=report.final,
        budget=budget_message(report.budget), deadline_limited=report.deadline_limited,
        stopped=report.stopped)


def position(state: engine.GameState) -> Any:
    """The Position summary of a state."""
    if state.is_terminal():
        kind = hints_pb2.POSITION_KIND_TERMINAL
    elif state.is_chance():
        kind = hints_pb2.POSITION_KIND_CHANCE
    else:
        kind = hints_pb2.POSITION_KIND_DECISION
    msg = hints_pb2.Position(kind=kind, description=describe_decision(state),
                             money=[max(0, int(m)) for m in state.money()],
                             actions_played=len(state.history))
    if kind == hints_pb2.POSITION_KIND_DECISION:
        msg.player = int(state.current_player)
    if kind == hints_pb2.POSITION_KIND_TERMINAL:
        msg.winners.extend(int(p) for p in state.winners())
    return msg


def legal_actions_response(state: engine.GameState) -> Any:
    """LegalActionsResponse: decisions, or chance outcomes with probabilities."""
    out = hints_pb2.LegalActionsResponse(position=position(state))
    if state.is_chance():
        for a, p in state.chance_outcomes():
            out.actions.add(action=a, notation=action_to_string(a), probability=float(p))
    else:
        for a in state.legal_actions():
            out.actions.add(action=a, notation=action_to_string(a))
    return out


def action_from_request(request: Any) -> int:
    """The action an ApplyActionRequest names, checked to be an id in range; the chance
    seed is handled by the caller.

    Raises:
        RequestError: no action given, an id out of range, or unknown notation.
    """
    which = request.WhichOneof("action")
    if which == "action_id":
        a = int(request.action_id)
        if not 0 <= a < engine.NUM_DISTINCT_ACTIONS:
            raise RequestError("action_id", f"{a} is outside 0..{engine.NUM_DISTINCT_ACTIONS - 1}")
        return a
    if which == "notation":
        text = request.notation
        if len(text) > MAX_NOTATION_CHARS:
            raise RequestError("notation", f"{len(text)} characters is longer than any "
                                           "action's notation")
        try:
            return int(string_to_action(text))
        except engine.IllegalActionError as exc:
            raise RequestError("notation", str(exc)) from None
    raise RequestError("action", "missing: set action_id, notation or chance_seed")


def search_for_request(request: Any, limits: Limits,
                       search_ms: Callable[[], float | None] = lambda: None,
                       make_bot: Callable[[str, int], Any] = build_bot,
                       cache: StateCache | None = None) -> Search:
    """The search a HintRequest asks for: the state validated (and reduced to the
    perspective's view), the bot built, the budget checked and sized.

    Args:
        request: a `gallerist.v1.HintRequest` (bot spec and seed already checked).
        limits: the limits to apply.
        search_ms: returns the time left before the client's deadline less the reserve,
            ms (None: no deadline); called once the state is validated and the bot
            built, just before the search starts.
        make_bot: builds a bot from a spec and a seed.
        cache: validated states to reuse.

    Returns:
        The search, not started.

    Raises:
        RequestError: any field the server cannot accept.
    """
    state = state_from_message(request.state, request.HasField("state"), cache=cache)
    perspective = request.perspective if request.HasField("perspective") else None
    state, mover = check_position(state, perspective)
    mover_cards_hidden(request.state, mover)
    spec, field = bot_spec(request, limits)
    try:
        bot = make_bot(spec, request.seed)
    except RequestError as exc:
        raise RequestError(field, exc.problem) from None
    requested = check_budget(*budget_fields(request), limits)
    budget, deadline_limited = resolve_budget(bot, requested, limits, search_ms())
    return Search(bot, state, budget, deadline_limited=deadline_limited)
