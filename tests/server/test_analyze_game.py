"""The service's game analysis and query options: AnalyzeGame (streamed positions, seats,
query id, errors, deadline, cancellation), positions given as a setup and moves
(HintRequest.game), allow_moves / avoid_moves restricting the search, and query_id
echoed by SuggestMoves and AnalyzeStream."""
from __future__ import annotations

import json
import time
from pathlib import Path

import grpc
import pytest

from gallerist import engine
from gallerist.ai.review.games import read_game
from gallerist.engine.actions import action_to_string
from gallerist.client import HintClient, hint_request
from gallerist.server import GalleristServer
from gallerist.v1 import hints_pb2
from server_testlib import expect_status, wait_until

DATA = Path(__file__).resolve().parents[1] / "data"
RECORD = (DATA / "analyze_game.jsonl").read_text().splitlines()[0]
GAME = read_game(str(DATA / "analyze_game.jsonl"))


def _moves(n: int, notation: bool = False) -> hints_pb2.GameMoves:
    """The first n moves of the test game as GameMoves."""
    msg = hints_pb2.GameMoves(num_players=GAME.players, seed=GAME.seed)
    if notation:
        msg.notations.extend(action_to_string(a) for a in GAME.actions[:n])
    else:
        msg.actions.extend(GAME.actions[:n])
    return msg


def _decision_ply(at_least: int) -> int:
    return next(ply for ply, _ in GAME.decisions() if ply >= at_least)


def test_hint_for_a_position_given_as_moves(client: HintClient) -> None:
    """HintRequest.game (setup seed + moves, ids or notation) is the same position as
    the state reached by replaying them: same seed and budget give the same hint."""
    ply = _decision_ply(60)
    state = GAME.state_at(ply)
    by_state = client.suggest(hint_request(state, bot="mcts", iterations=200, seed=3))
    for notation in (False, True):
        by_moves = client.suggest(hint_request(_moves(ply, notation), bot="mcts",
                                               iterations=200, seed=3))
        assert [(m.action, m.visits) for m in by_moves.moves] == \
               [(m.action, m.visits) for m in by_state.moves]


def test_illegal_move_in_the_list_names_index_and_move(client: HintClient) -> None:
    """An illegal move in HintRequest.game is INVALID_ARGUMENT naming its index and the
    move; unknown notation and both lists too."""
    bad = _moves(5)
    bad.actions.append(0)
    expect_status(grpc.StatusCode.INVALID_ARGUMENT, lambda: client.suggest(hint_request(bad)),
                  "game.actions[5]: start:SO is illegal")
    text = _moves(3, notation=True)
    text.notations.append("move:nowhere")
    expect_status(grpc.StatusCode.INVALID_ARGUMENT, lambda: client.suggest(hint_request(text)),
                  "game.notations[3]", "move:nowhere")
    both = _moves(3)
    both.notations.append("start:SO")
    expect_status(grpc.StatusCode.INVALID_ARGUMENT, lambda: client.suggest(hint_request(both)),
                  "game: give actions (ids) or notations, not both")
    players = hints_pb2.GameMoves(num_players=5)
    expect_status(grpc.StatusCode.INVALID_ARGUMENT,
                  lambda: client.suggest(hint_request(players)), "game.num_players: 5")


def test_allow_moves_restricts_the_search_and_avoid_moves_excludes(client: HintClient) -> None:
    """allow_moves (notation or decimal ids): the response ranks only them and their
    visits add up to the whole budget (the search's root had only them); avoid_moves:
    every legal move but those."""
    state = GAME.state_at(_decision_ply(60))
    legal = state.legal_actions()
    allow = [action_to_string(legal[0]), str(legal[-1])]
    r = client.suggest(hint_request(state, bot="mcts", iterations=300, allow=allow))
    assert sorted(m.action for m in r.moves) == sorted([legal[0], legal[-1]])
    assert sum(m.visits for m in r.moves) == r.stats.iterations == 300
    assert len(r.root.expected_money) == 2
    r = client.suggest(hint_request(state, bot="greedy", avoid=[action_to_string(legal[0])]))
    assert sorted(m.action for m in r.moves) == legal[1:]


def test_bad_allow_or_avoid_moves_are_named(client: HintClient) -> None:
    """Unknown or illegal moves, both lists, or no move left: INVALID_ARGUMENT naming the
    field and every bad move."""
    state = GAME.state_at(_decision_ply(60))
    legal = state.legal_actions()
    illegal = action_to_string(next(a for a in range(183) if a not in legal))
    expect_status(grpc.StatusCode.INVALID_ARGUMENT,
                  lambda: client.suggest(hint_request(state, allow=["bogus", illegal])),
                  "allow_moves: 'bogus' (unknown)", f"'{illegal}' (not legal here)")
    expect_status(grpc.StatusCode.INVALID_ARGUMENT,
                  lambda: client.suggest(hint_request(state, avoid=legal)),
                  "avoid_moves: leaves no legal move")
    expect_status(grpc.StatusCode.INVALID_ARGUMENT,
                  lambda: client.suggest(hint_request(state, allow=legal[:1], avoid=legal[1:2])),
                  "not both")
    expect_status(grpc.StatusCode.INVALID_ARGUMENT,
                  lambda: client.suggest(hint_request(state, allow=["x"] * 200)),
                  "allow_moves: 200 moves is more than the 183 allowed")


@pytest.mark.parametrize("bot", ["mcts", "expectimax:depth=1", "greedy", "random"])
def test_query_id_echoed_and_root_filled_for_every_bot(client: HintClient, bot: str) -> None:
    """query_id comes back in SuggestMoves and every AnalyzeStream report; root (who is
    ahead) is filled for every bot and equals the best move's numbers."""
    state = GAME.state_at(_decision_ply(60))
    r = client.suggest(hint_request(state, bot=bot, iterations=100, query_id="q-7"))
    assert r.query_id == "q-7"
    assert list(r.root.expected_money) == list(r.moves[0].expected_money)
    assert list(r.root.win_probabilities) == list(r.moves[0].win_probabilities)
    assert sum(r.root.win_probabilities) == pytest.approx(1.0)
    reports = list(client.analyze_stream(hint_request(state, bot=bot, iterations=2000,
                                                      report_interval_ms=20, query_id="s")))
    assert reports and all(x.query_id == "s" for x in reports)
    expect_status(grpc.StatusCode.INVALID_ARGUMENT,
                  lambda: client.suggest(hint_request(state, query_id="x" * 300)),
                  "query_id: 300 characters")


def _analyze(**fields) -> hints_pb2.AnalyzeGameRequest:  # type: ignore[no-untyped-def]
    fields.setdefault("bot_spec", "mcts")
    fields.setdefault("budget", hints_pb2.Budget(iterations=60))
    return hints_pb2.AnalyzeGameRequest(**fields)


def test_analyze_game_streams_every_decision_of_the_seats(client: HintClient) -> None:
    """AnalyzeGame on a record line: one AnalyzedPosition per decision of the chosen
    seat, in game order, each with the position, root, played and best moves (in words
    as the mover sees them), a loss >= 0 matching its label, and the query id."""
    out = list(client.analyze_game(_analyze(record=RECORD, seats=[1], query_id="g1",
                                            max_moves=2), timeout=60))
    expected = [ply for ply, seat in GAME.decisions([1])]
    assert [p.ply for p in out] == expected
    assert [p.index for p in out] == list(range(len(expected)))
    for p in out:
        assert p.query_id == "g1" and p.player == 1 and p.total == len(expected)
        assert p.played.action == GAME.actions[p.ply]
        assert p.state == GAME.state_at(p.ply).to_proto()
        words = engine.describe_moves(GAME.state_at(p.ply).view(1))
        assert p.played.description == words[p.played.action]
        assert all(m.description == words[m.action] for m in (p.best, *p.moves))
        assert list(p.root.expected_money) == list(p.best.expected_money)
        assert 1 <= len(p.moves) <= 2 and p.moves[0] == p.best
        assert p.loss >= 0
        if p.loss < 0.05:
            assert p.label == hints_pb2.MOVE_LABEL_NONE
        elif p.loss >= 0.2:
            assert p.label == hints_pb2.MOVE_LABEL_BLUNDER
    assert out[0].budget.iterations == 60


def test_analyze_game_explains_moves_and_ends_with_each_seats_biggest_mistakes(
        client: HintClient) -> None:
    """Every AnalyzedPosition's played and best MoveHints carry an explanation (the played
    move against the best, the best against the played); only the last position of the
    complete stream carries biggest_mistakes: for each analyzed seat, its largest positive
    losses of the stream, largest first, at most 5, each with the position's played and
    best moves, loss and label, and why (the played move's explanation in words)."""
    out = list(client.analyze_game(_analyze(game=_moves(70)), timeout=60))
    assert out and out[-1].index == out[-1].total - 1 == len(out) - 1
    for p in out:
        assert p.played.HasField("explanation") and p.played.explanation.words
        assert p.best.HasField("explanation") and p.best.explanation.words
        if p.played.action != p.best.action:
            assert p.played.explanation.versus.action == p.best.action
            assert p.best.explanation.versus.action == p.played.action
            assert p.played.explanation.versus.description == p.best.description
    assert all(not p.biggest_mistakes for p in out[:-1])
    last = out[-1]
    assert [s.seat for s in last.biggest_mistakes] == [0, 1]
    for seat in last.biggest_mistakes:
        mine = [p for p in out if p.player == seat.seat and p.loss > 0]
        ranked = sorted(mine, key=lambda p: (-p.loss, p.ply))[:5]
        assert ranked, "the game's first 70 moves should have moves that lose something"
        assert [m.ply for m in seat.mistakes] == [p.ply for p in ranked]
        for m, p in zip(seat.mistakes, ranked):
            assert (m.index, m.loss, m.label) == (p.index, p.loss, p.label)
            assert m.played == p.played and m.best == p.best
            assert m.why == p.played.explanation.words and m.why


def test_analyze_game_from_moves_finds_the_planted_mistake(client: HintClient) -> None:
    """AnalyzeGame on GameMoves (the planted mistake of tests/data: the last move)
    labels the last position a mistake or blunder."""
    planted = json.loads((DATA / "planted_mistake.json").read_text())
    game = hints_pb2.GameMoves(num_players=2, seed=planted["seed"], notations=planted["moves"])
    out = list(client.analyze_game(_analyze(game=game, seats=[1],
                                            budget=hints_pb2.Budget(iterations=1000)),
                                   timeout=120))
    last = out[-1]
    assert last.ply == len(planted["moves"]) - 1 and last.played.notation == "action:A"
    assert last.label in (hints_pb2.MOVE_LABEL_MISTAKE, hints_pb2.MOVE_LABEL_BLUNDER)


def test_analyze_game_bad_requests(client: HintClient) -> None:
    """Bad games, records, seats, budgets and query ids are INVALID_ARGUMENT naming the
    field."""
    bad = _moves(5)
    bad.actions.append(0)
    cases = [
        (_analyze(game=bad), "game.actions[5]: start:SO is illegal"),
        (_analyze(record="{not json"), "record: not JSON"),
        (_analyze(record=json.dumps({"seed": 1})), "field 'bots' is missing"),
        (_analyze(), "game: missing"),
        (_analyze(record=RECORD, seats=[2]), "seats: [2] must be distinct seats in 0..1"),
        (_analyze(record=RECORD, seats=[0, 0]), "seats"),
        (_analyze(record=RECORD, budget=hints_pb2.Budget(iterations=10**9)), "budget.iterations"),
        (_analyze(record=RECORD, bot_spec="nobot"), "bot_spec: unknown bot 'nobot'"),
        (_analyze(record=RECORD, query_id="q" * 257), "query_id"),
    ]
    for request, fragment in cases:
        expect_status(grpc.StatusCode.INVALID_ARGUMENT,
                      lambda r=request: client.analyze_game(r, timeout=10), fragment)


def test_analyze_game_deadline_ends_the_stream_in_time(client: HintClient) -> None:
    """A deadline shorter than the whole analysis: the positions analyzed by then
    arrive, fewer than the total, and the call ends about at the deadline."""
    t0 = time.perf_counter()
    got = []
    stream = client.analyze_game(_analyze(record=RECORD, budget=hints_pb2.Budget(time_ms=100)),
                                 timeout=0.8)
    try:
        for p in stream:
            got.append(p)
    except grpc.RpcError as exc:
        assert exc.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert time.perf_counter() - t0 < 2.0
    assert 1 <= len(got) < got[0].total


def test_cancelled_analysis_frees_its_slot(client: HintClient, service: GalleristServer) -> None:
    """Cancelling AnalyzeGame after its first position stops the running search and
    frees the search slot."""
    stream = client.analyze_game(_analyze(record=RECORD, budget=hints_pb2.Budget(time_ms=300)))
    first = next(stream)
    assert first.index == 0
    stream.cancel()
    wait_until(lambda: service.slots.in_use == 0, timeout=1.0)


def test_terminal_position_in_hint_moves_is_refused(client: HintClient) -> None:
    """The whole game as HintRequest.game ends at the end: no move to suggest."""
    whole = _moves(len(GAME.actions))
    expect_status(grpc.StatusCode.INVALID_ARGUMENT, lambda: client.suggest(hint_request(whole)),
                  "state: the game is over")
