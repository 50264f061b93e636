"""Translation between the service's messages (proto/gallerist/v1/hints.proto) and engine
and bot objects, both ways, and nothing else: no gRPC, no bots, no limits. A field that
does not translate is a `RequestError` naming it."""
from __future__ import annotations

import json
import re
from typing import Any

from gallerist import engine
from gallerist.ai.values import Budget, MoveInfo
from gallerist.ai.explain import MAX_EXPLAINED, Explanation, explain_analysis
from gallerist.engine.line_effects import Reason
from gallerist.engine.actions import NOTATION, action_to_string, describe_decision, string_to_action
from gallerist.v1 import hints_pb2
from gallerist.ai.review.games import GameInput, GameInputError, game_from_moves, game_from_record
from gallerist.server.limits import (MAX_GAME_ACTIONS, MAX_RECORD_CHARS, RequestError,
                                     check_move_list, check_seed)
from gallerist.ai.review.analysis import PositionReview, biggest_losses
from gallerist.server.search import Report
from gallerist.server.state_cache import StateCache

__all__ = ["BOT_KINDS", "action_from_request", "analyzed_mistake", "analyzed_position", "bot_spec",
           "budget_fields", "hint_position", "keep_mistake", "seat_mistakes",
           "hint_response", "legal_actions_response", "move_descriptions", "perspective",
           "position",
           "game_from_record_text", "game_input", "state_from_game", "state_from_message"]

#: Bot names by `gallerist.v1.BotKind` number (0 = the server's default bot).
BOT_KINDS: dict[int, str] = {1: "mcts", 2: "expectimax", 3: "greedy", 4: "random"}

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


def _input_error(exc: GameInputError) -> RequestError:
    head, _, rest = str(exc).partition(": ")
    return RequestError(head, rest)


def game_input(msg: Any, field: str = "game") -> GameInput:
    """The game of a `gallerist.v1.GameMoves`, every move checked.

    Raises:
        RequestError: a bad player count or seed, both lists given, too many moves, or
            an unknown or illegal move (naming its index and the move).
    """
    n = msg.num_players or 2
    if not 1 <= n <= 4:
        raise RequestError(f"{field}.num_players", f"{n} is outside 1..4 (1: solo against Lacerda)")
    check_seed(msg.seed, f"{field}.seed")
    if msg.actions and msg.notations:
        raise RequestError(field, "give actions (ids) or notations, not both")
    which = "notations" if msg.notations else "actions"
    moves = check_move_list(getattr(msg, which), f"{field}.{which}", MAX_GAME_ACTIONS)
    try:
        return game_from_moves(int(msg.seed), n, [m if isinstance(m, str) else int(m) for m in moves],
                               field_name=f"{field}.{which}")
    except GameInputError as exc:
        raise _input_error(exc) from None


def state_from_game(msg: Any, field: str = "game") -> engine.GameState:
    """The position a `gallerist.v1.GameMoves` reaches: its setup replayed with its moves
    (errors as `game_input`)."""
    game = game_input(msg, field)
    return game.state_at(len(game.actions))


def game_from_record_text(text: str, field: str = "record") -> GameInput:
    """The game of one JSON game record line (`gallerist arena` / `play`).

    Raises:
        RequestError: too long, not JSON, not a record, or an illegal action.
    """
    if len(text) > MAX_RECORD_CHARS:
        raise RequestError(field, f"{len(text)} characters is longer than the "
                                  f"{MAX_RECORD_CHARS} allowed")
    if not text.strip():
        raise RequestError(field, "missing: give a game record line or a game")
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise RequestError(field, f"not JSON ({exc})") from None
    if isinstance(data, dict) and isinstance(data.get("actions"), list) \
            and len(data["actions"]) > MAX_GAME_ACTIONS:
        raise RequestError(f"{field}.actions", f"{len(data['actions'])} moves is more than "
                                               f"the {MAX_GAME_ACTIONS} allowed")
    try:
        return game_from_record(data, field)
    except GameInputError as exc:
        raise _input_error(exc) from None


def hint_position(request: Any, cache: StateCache | None = None) -> engine.GameState:
    """The position of a HintRequest: its `state`, or its `game` replayed."""
    if request.WhichOneof("position") == "game":
        return state_from_game(request.game)
    return state_from_message(request.state, request.HasField("state"), cache=cache)


def bot_spec(request: Any, default: str) -> tuple[str, str]:
    """The bot spec a HintRequest asks for (`default` when it names none), and the
    request field it came from."""
    which = request.WhichOneof("bot")
    if which == "bot_spec":
        return request.bot_spec, "bot_spec"
    if which == "bot_kind" and request.bot_kind != hints_pb2.BOT_KIND_UNSPECIFIED:
        name = BOT_KINDS.get(request.bot_kind)
        if name is None:
            raise RequestError("bot_kind", f"{request.bot_kind} is not a BotKind "
                                           f"(known: {', '.join(hints_pb2.BotKind.keys())})")
        return name, "bot_kind"
    return default, "bot_spec"


def budget_fields(request: Any) -> tuple[int, int, int]:
    """(iterations, time_ms, depth) of a HintRequest's budget (zeros when absent)."""
    b = request.budget
    return int(b.iterations), int(b.time_ms), int(b.depth)


def perspective(request: Any) -> int | None:
    """A HintRequest's perspective seat, or None when it has none."""
    return request.perspective if request.HasField("perspective") else None


def budget_message(budget: Budget) -> Any:
    """A Budget as the `gallerist.v1.Budget` message (time rounded up to whole ms)."""
    time_ms = budget.time_ms
    whole = int(time_ms) + (1 if time_ms > int(time_ms) else 0)
    return hints_pb2.Budget(iterations=int(budget.iterations), time_ms=whole,
                            depth=int(budget.depth))


def move_descriptions(state: engine.GameState | None, player: int) -> dict[int, str]:
    """The moves of `state` in words as `player` sees them (`engine.describe_moves` of
    that seat's view), by action id; empty without a state or at the end."""
    if state is None:
        return {}
    if 0 <= player < state.num_players:
        state = state.view(player)
    return engine.describe_moves(state)


def _reason(r: Reason) -> Any:
    return hints_pb2.Reason(kind=r.kind, subject=r.subject, before=float(r.before),
                            after=float(r.after), words=r.words)


def explanation_message(e: Explanation | None) -> Any:
    """An ai.explain.Explanation as a MoveExplanation (None: unset)."""
    if e is None:
        return None
    versus = None
    if e.versus is not None:
        v = e.versus
        versus = hints_pb2.MoveComparison(
            action=v.action, description=v.description,
            win_probability=None if v.win_probability is None else float(v.win_probability),
            expected_money=float(v.expected_money),
            differences=[_reason(r) for r in v.differences], words=v.words)
    return hints_pb2.MoveExplanation(now=[_reason(r) for r in e.now],
                                     scoring=[_reason(r) for r in e.scoring], line=e.line,
                                     versus=versus, words=e.words)


def _move(m: MoveInfo, words: dict[int, str]) -> Any:
    """A MoveInfo as a MoveHint; `words`: the position's moves in words."""
    return hints_pb2.MoveHint(
        action=m.action, notation=m.notation, description=words.get(m.action, ""),
        visits=m.visits, depth=m.depth,
        expected_money=[float(x) for x in m.expected_money],
        win_probability=None if m.win_probability is None else float(m.win_probability),
        win_probabilities=[float(x) for x in m.win_probabilities], value=float(m.value),
        pv=m.pv, pv_notation=[NOTATION[a] for a in m.pv],   # engine ids: always valid
        explanation=explanation_message(m.explanation))


def _root(a: Any) -> Any:
    if not a.moves:
        return None
    return hints_pb2.PositionSummary(win_probabilities=[float(x) for x in a.root.win_probabilities],
                                     expected_money=[float(x) for x in a.root.expected_money])


def hint_response(report: Report, max_moves: int, query_id: str = "") -> Any:
    """A search report as a HintResponse, each move with its words from the position the
    report searched (`move_descriptions`).

    Args:
        report: the report.
        max_moves: how many moves to include (0 = all).
        query_id: the request's query id, echoed.
    """
    a = report.analysis
    moves = a.moves if max_moves <= 0 else a.moves[:max_moves]
    words = move_descriptions(report.state, a.player)
    if report.state is not None and a.moves:
        explain_analysis(report.state, a, min(len(moves), MAX_EXPLAINED))
    elapsed = report.elapsed_ms
    stats = hints_pb2.SearchStats(
        iterations=int(a.iterations), nodes=int(a.nodes), depth=int(a.depth),
        elapsed_ms=elapsed,
        nodes_per_second=a.nodes / (elapsed / 1000.0) if elapsed > 0 else 0.0)
    return hints_pb2.HintResponse(
        player=a.player, bot=a.bot, moves=[_move(m, words) for m in moves],
        legal_move_count=report.legal_move_count, stats=stats, final=report.final,
        budget=budget_message(report.budget), deadline_limited=report.deadline_limited,
        stopped=report.stopped, root=_root(a), query_id=query_id,
        resolved_bot_spec=report.bot_spec, model=report.model,
        chosen=_move(a.played, words) if report.final else None)


#: MoveLabel numbers by review label.
_LABELS = {None: hints_pb2.MOVE_LABEL_NONE, "inaccuracy": hints_pb2.MOVE_LABEL_INACCURACY,
           "mistake": hints_pb2.MOVE_LABEL_MISTAKE, "blunder": hints_pb2.MOVE_LABEL_BLUNDER}


def seat_strengths(players: int, reviews: list[tuple[int, float, str | None]]) -> list[Any]:
    """SeatStrength messages of the seats of (seat, loss, label) reviews: each seat's
    estimate (ai.review.strength), none where there is none."""
    from gallerist.ai.review.analysis import LABELS
    from gallerist.ai.review.strength import strength_of

    out = []
    for seat in sorted({r[0] for r in reviews}):
        mine = [r for r in reviews if r[0] == seat]
        counts = {name: sum(1 for r in mine if r[2] == name) for name in LABELS}
        s = strength_of(players, len(mine), sum(r[1] for r in mine) / len(mine), counts)
        if s is not None:
            out.append(hints_pb2.SeatStrength(seat=seat, elo=s.elo, elo_low=s.ci[0],
                                              elo_high=s.ci[1], level=s.level))
    return out


def analyzed_position(review: PositionReview, *, index: int, total: int, query_id: str,
                      budget: Budget, deadline_limited: bool, max_moves: int,
                      bot_spec: str = "", model: str = "", strength: Any = ()) -> Any:
    """One reviewed decision as an AnalyzedPosition (`bot_spec`, `model`: the resolved
    spec and the model files of its search, `Report`; `strength`: SeatStrength messages,
    on the last position). The moves' words are those of the mover's view; the played
    and best moves carry the explanations `analyze_position` made."""
    a = review.analysis
    words = move_descriptions(review.state, review.player)
    return hints_pb2.AnalyzedPosition(
        query_id=query_id, index=index, total=total, ply=review.ply, player=review.player,
        state=review.state.to_proto(), root=_root(a), played=_move(review.played, words),
        best=_move(review.best, words), moves=[_move(m, words) for m in a.moves[:max_moves]],
        loss=float(review.loss), label=_LABELS[review.label],
        legal_move_count=len(review.state.legal_actions()), budget=budget_message(budget),
        deadline_limited=deadline_limited, resolved_bot_spec=bot_spec, model=model,
        strength=list(strength))


def analyzed_mistake(position: Any) -> Any:
    """An AnalyzedPosition as an AnalyzedMistake (its moves played and best with their
    explanations, the loss, the label and why: the played move's explanation in words)."""
    return hints_pb2.AnalyzedMistake(
        ply=position.ply, index=position.index, played=position.played, best=position.best,
        loss=position.loss, label=position.label, why=position.played.explanation.words)


def keep_mistake(kept: dict[int, list[Any]], position: Any) -> None:
    """Add an AnalyzedPosition to `kept` (by seat: its largest losses so far, as
    AnalyzedMistakes, largest first; `ai.review.analysis.biggest_losses`) if it is one of
    them. Its seat gets a list even when it lost nothing."""
    mine = kept.setdefault(position.player, [])
    if position.loss > 0:
        mine.append(analyzed_mistake(position))
        mine[:] = biggest_losses(mine, lambda m: m.loss, lambda m: m.ply)


def seat_mistakes(kept: dict[int, list[Any]]) -> list[Any]:
    """SeatMistakes messages of what `keep_mistake` kept, in seat order."""
    return [hints_pb2.SeatMistakes(seat=seat, mistakes=kept[seat]) for seat in sorted(kept)]


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
    """LegalActionsResponse: decisions, or chance outcomes with probabilities; each in
    words (`engine.describe_moves` of the state as given)."""
    out = hints_pb2.LegalActionsResponse(position=position(state))
    words = engine.describe_moves(state)
    if state.is_chance():
        for a, p in state.chance_outcomes():
            out.actions.add(action=a, notation=action_to_string(a), probability=float(p),
                            description=words[a])
    else:
        for a in state.legal_actions():
            out.actions.add(action=a, notation=action_to_string(a), description=words[a])
    return out


def action_from_request(request: Any) -> int:
    """The action an ApplyActionRequest names, checked to be an id in range; the chance
    seed is handled by the caller.

    Raises:
        RequestError: no action given, an id out of range, or unknown notation.
    """
    which = request.WhichOneof("choice")
    if which == "action":
        a = int(request.action)
        if not 0 <= a < engine.NUM_DISTINCT_ACTIONS:
            raise RequestError("action", f"{a} is outside 0..{engine.NUM_DISTINCT_ACTIONS - 1}")
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
    raise RequestError("action", "missing: set action, notation or chance_seed")
