"""From a hint request to a search: the checks a hint needs beyond the limits (the
position, the mover's cards), the bot built from its spec and the budget sized.

The servicer (`SuggestMoves`, `AnalyzeStream`, once `server.convert` has read the
request) and ``gallerist hint --local`` (from its options, with no request message) both
build their searches here, from engine objects.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from gallerist import engine
from gallerist.ai.bots.base import Bot, MoveRestrictionError, restrict_moves
from gallerist.v1 import state_pb2
from gallerist.server.limits import Limits, RequestError, build_bot, check_budget
from gallerist.server.search import Search, resolve_budget

__all__ = ["check_position", "hint_search", "mover_cards_hidden", "root_moves"]


def check_position(state: engine.GameState, perspective: int | None) -> tuple[engine.GameState, int]:
    """The position a hint search works on, and the seat to move.

    Args:
        state: a validated state.
        perspective: the requesting seat, or None.

    Returns:
        (the state, or `perspective`'s view of it; the seat to move).

    Raises:
        RequestError: the game is over, the state is at a chance event, or the
            perspective is out of range or not the seat to move.
    """
    if state.is_terminal():
        raise RequestError("state", "the game is over: there is no move to suggest")
    if state.is_chance():
        raise RequestError("state", "the position is at a chance event: apply an outcome "
                                    "first (LegalActions lists them)")
    mover = int(state.current_player)
    if perspective is not None:
        n = state.num_players
        if not 0 <= perspective < n:
            raise RequestError("perspective", f"{perspective} is outside 0..{n - 1} (seats)")
        if perspective != mover:
            raise RequestError("perspective", f"seat {perspective} is not the player to move "
                                              f"(seat {mover}); hints are for the player to move")
        state = state.view(perspective)
    return state, mover


def mover_cards_hidden(state: engine.GameState, seat: int) -> None:
    """Reject a state in which the cards of the seat to move are HIDDEN: the search
    samples other players' cards, never the mover's own.

    Raises:
        RequestError: naming the hidden card.
    """
    if state.hidden_known():   # every card known: the common case, decided in C
        return
    player = state.to_proto().players[seat]
    for name, hidden in (("curator", state_pb2.CURATOR_CARD_HIDDEN),
                         ("dealer", state_pb2.DEALER_CARD_HIDDEN)):
        if getattr(player, name) == hidden:
            raise RequestError(f"state.players[{seat}].{name}",
                               f"is HIDDEN, but seat {seat} is to move and the search needs "
                               "the mover's own cards")


def hint_search(state: engine.GameState, *, spec: str, seed: int,
                budget: tuple[int, int, int], limits: Limits, perspective: int | None = None,
                field: str = "bot_spec",
                search_ms: Callable[[], float | None] = lambda: None,
                make_bot: Callable[[str, int], Bot] = build_bot,
                allow: Sequence[str | int] = (), avoid: Sequence[str | int] = (),
                moves: list[int] | None = None) -> Search:
    """The search a hint asks for: the position checked (and reduced to the
    perspective's view), the bot built, the budget checked and sized.

    Args:
        state: the validated state.
        spec: the bot spec, already checked against the limits (`check_spec`).
        seed: the search seed, already checked.
        budget: the requested (iterations, time_ms, depth); zeros: the bot's defaults.
        limits: the limits to apply.
        perspective: the requesting seat, or None.
        field: the request field the spec came from, for errors.
        search_ms: returns the time left before the client's deadline less the reserve,
            ms (None: no deadline); called once the position is checked and the bot
            built, just before the search starts.
        make_bot: builds a bot from a spec and a seed.
        allow, avoid: the request's allow_moves / avoid_moves (notation, or action ids;
            decimal strings are ids); at most one of them.
        moves: the root moves already resolved (instead of allow/avoid).

    Returns:
        The search, not started.

    Raises:
        RequestError: any value the server cannot accept.
    """
    position, mover = check_position(state, perspective)
    mover_cards_hidden(state, mover)
    if moves is None:
        moves = root_moves(position, allow, avoid)
    try:
        bot = make_bot(spec, seed)
    except RequestError as exc:
        raise RequestError(field, exc.problem) from None
    requested = check_budget(*budget, limits)
    resolved, deadline_limited = resolve_budget(bot, requested, limits, search_ms())
    return Search(bot, position, resolved, deadline_limited=deadline_limited, moves=moves,
                  spec=spec)


def root_moves(state: engine.GameState, allow: Sequence[str | int],
               avoid: Sequence[str | int]) -> list[int] | None:
    """The root moves of a request's allow_moves / avoid_moves (None: every legal move).

    Raises:
        RequestError: both given, or a move unknown or illegal (naming every one).
    """
    def ids(moves: Sequence[str | int]) -> list[str | int]:
        return [int(m) if isinstance(m, str) and m.strip().isdigit() else m for m in moves]
    try:
        return restrict_moves(state, ids(allow), ids(avoid))
    except MoveRestrictionError as exc:
        raise RequestError(exc.field, exc.problem) from None
