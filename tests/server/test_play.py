"""Hosted games (GalleristPlay, play.proto): a whole game against a level over gRPC and
over HTTP, what the person's seat sees (hidden cards stay hidden), undo, the review at the
end, stale and bad requests answered with the field named, busy slots changing nothing,
and the store dropping idle games."""
from __future__ import annotations

import json
import random
import re
import time
from collections import Counter
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from server_testlib import expect_status, running_server

from gallerist import engine
from gallerist.engine.actions import action_to_string
from gallerist.server import GalleristServer
from gallerist.server.play.servicer import seat_words
from gallerist.ai.values import Budget
from gallerist.v1 import play_pb2, play_pb2_grpc, state_pb2

PLAY = "/gallerist.v1.GalleristPlay/"


@pytest.fixture(scope="module")
def served() -> Iterator[GalleristServer]:
    with running_server(workers=2, http_port=0) as server:
        yield server


@pytest.fixture()
def stub(served: GalleristServer) -> Iterator[Any]:
    with grpc.insecure_channel(f"localhost:{served.port}") as channel:
        yield play_pb2_grpc.GalleristPlayStub(channel)


def _post(server: GalleristServer, method: str, body: dict[str, Any]) -> tuple[int, Any]:
    assert server.http is not None
    request = urllib.request.Request(f"http://localhost:{server.http.port}{PLAY}{method}",
                                     data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def _only_own_cards(view: Any) -> None:
    """The view has the person's Curator and Art Dealer cards and every other seat's
    hidden, in the state and on the board."""
    for p, player in enumerate(view.state.players):
        mine = p == view.seat
        assert (player.curator == state_pb2.CURATOR_CARD_HIDDEN) != mine, (p, player.curator)
        assert (player.dealer == state_pb2.DEALER_CARD_HIDDEN) != mine, (p, player.dealer)
    others = len(view.state.players) - 1
    assert view.board_svg.count("Curator: hidden") == others
    assert view.board_svg.count("Art Dealer: hidden") == others


def test_a_whole_game_against_level_1_over_grpc(stub: Any) -> None:
    """StartGame then PlayMove to the end: the bot and chance move between the person's
    decisions (events in words, the bot's said as "their"), every view is the person's
    (the other seat's cards hidden, in the state and on the board), the history appears
    only at the end, and the decision line gives the result."""
    view = stub.StartGame(play_pb2.StartGameRequest(num_players=2, seat=1, seed=11))
    assert list(view.players) == ["Level 1", "You"] and view.seat == 1 and view.seed == 11
    assert not view.can_undo
    bot_events = 0
    moves = 0
    while view.actions:
        _only_own_cards(view)
        assert not view.history, "the history (hence the hidden cards) before the end"
        assert view.decision.startswith("You must"), view.decision
        assert view.position.player == 1
        targets = re.findall(r'class="move-target" data-target="[^"]+" data-actions="([\d,]+)"',
                             view.board_svg)
        on_board = {int(a) for t in targets for a in t.split(",")}
        assert on_board <= {a.action for a in view.actions}
        choice = view.actions[moves % len(view.actions)]
        assert choice.description and choice.notation == action_to_string(choice.action)
        view = stub.PlayMove(play_pb2.PlayMoveRequest(
            game_id=view.game_id, action=choice.action,
            actions_played=view.position.actions_played))
        moves += 1
        assert view.events[0].player == 1 and view.events[0].action == choice.action
        for e in view.events[1:]:
            assert e.description and e.notation == action_to_string(e.action)
            if e.HasField("player"):
                assert e.player == 0
                bot_events += 1
                assert not re.search(r"\byou\b", e.description), e.description
    assert view.position.kind == 3 and view.decision.startswith("Game over:")
    assert bot_events > 20 and moves > 20
    replay = engine.new_game(num_players=2, seed=11)
    for a in view.history:
        replay.apply(a)
    assert replay.is_terminal() and list(view.position.money) == [int(m) for m in replay.money()]


@pytest.mark.parametrize("players,seat", [(3, 2), (4, 1)])
def test_the_view_hides_the_other_seats_cards(stub: Any, players: int, seat: int) -> None:
    """At 3 and 4 players the person's view (state and board) has the person's Curator
    and Art Dealer cards and every other seat's hidden, through several moves."""
    view = stub.StartGame(play_pb2.StartGameRequest(num_players=players, seat=seat, seed=5))
    for _ in range(6):
        _only_own_cards(view)
        view = stub.PlayMove(play_pb2.PlayMoveRequest(game_id=view.game_id,
                                                      action=view.actions[0].action))


def test_undo_restores_the_game_exactly(stub: Any) -> None:
    """UndoMove takes back the person's move and everything after: the same view and
    legal moves as before it; with nothing to undo, FAILED_PRECONDITION."""
    first = stub.StartGame(play_pb2.StartGameRequest(num_players=2, seat=0, seed=3))
    expect_status(grpc.StatusCode.FAILED_PRECONDITION,
                  lambda: stub.UndoMove(play_pb2.GameRequest(game_id=first.game_id)),
                  "nothing to undo")
    after = stub.PlayMove(play_pb2.PlayMoveRequest(game_id=first.game_id,
                                                   action=first.actions[0].action))
    assert after.can_undo and after.position.actions_played > first.position.actions_played
    back = stub.UndoMove(play_pb2.GameRequest(game_id=first.game_id))
    assert back.state == first.state and list(back.actions) == list(first.actions)
    assert back.board_svg == first.board_svg and not back.can_undo and not back.events
    again = stub.GetGame(play_pb2.GameRequest(game_id=first.game_id))
    assert again.state == first.state


def test_requests_the_service_refuses_name_the_field(stub: Any) -> None:
    """Bad set-ups, unknown games, illegal or stale moves and early reviews: the status
    and a message naming the field; nothing is played."""
    bad = [
        (play_pb2.StartGameRequest(num_players=5), grpc.StatusCode.INVALID_ARGUMENT,
         "num_players: 5 is outside 1..4"),
        (play_pb2.StartGameRequest(num_players=2, seat=2), grpc.StatusCode.INVALID_ARGUMENT,
         "seat: 2 is not a seat"),
        (play_pb2.StartGameRequest(num_players=1, opponents=[play_pb2.Opponent()]),
         grpc.StatusCode.INVALID_ARGUMENT, "opponents: the solo game has no bot seats"),
        (play_pb2.StartGameRequest(num_players=4, opponents=[play_pb2.Opponent()] * 2),
         grpc.StatusCode.INVALID_ARGUMENT, "opponents: 2 given"),
        (play_pb2.StartGameRequest(opponents=[play_pb2.Opponent(bot_spec="level:9")]),
         grpc.StatusCode.INVALID_ARGUMENT, "opponents[0].bot_spec"),
        (play_pb2.StartGameRequest(opponents=[play_pb2.Opponent(
            budget={"time_ms": 10**9})]), grpc.StatusCode.INVALID_ARGUMENT,
         "opponents[0].budget.time_ms"),
    ]
    for request, code, fragment in bad:
        expect_status(code, lambda: stub.StartGame(request), fragment)
    expect_status(grpc.StatusCode.NOT_FOUND,
                  lambda: stub.GetGame(play_pb2.GameRequest(game_id="nosuchgame")),
                  "game_id: no game 'nosuchgame'")
    expect_status(grpc.StatusCode.INVALID_ARGUMENT,
                  lambda: stub.GetGame(play_pb2.GameRequest(game_id="../etc")),
                  "game_id: '../etc' is not a game id")
    expect_status(grpc.StatusCode.INVALID_ARGUMENT,
                  lambda: stub.GetGame(play_pb2.GameRequest()), "game_id: missing")
    view = stub.StartGame(play_pb2.StartGameRequest(num_players=2, seed=8))
    legal = {a.action for a in view.actions}
    illegal = next(a for a in range(engine.NUM_DISTINCT_ACTIONS) if a not in legal)
    expect_status(grpc.StatusCode.INVALID_ARGUMENT, lambda: stub.PlayMove(
        play_pb2.PlayMoveRequest(game_id=view.game_id, action=illegal)), "action:")
    expect_status(grpc.StatusCode.INVALID_ARGUMENT, lambda: stub.PlayMove(
        play_pb2.PlayMoveRequest(game_id=view.game_id, notation="bogus")), "notation:")
    expect_status(grpc.StatusCode.FAILED_PRECONDITION, lambda: stub.PlayMove(
        play_pb2.PlayMoveRequest(game_id=view.game_id, action=view.actions[0].action,
                                 actions_played=view.position.actions_played + 1)),
        "actions_played: the game is at")
    expect_status(grpc.StatusCode.FAILED_PRECONDITION, lambda: stub.ReviewGame(
        play_pb2.ReviewGameRequest(game_id=view.game_id)), "not over yet")
    assert stub.GetGame(play_pb2.GameRequest(game_id=view.game_id)).state == view.state


def test_busy_slots_refuse_the_move_and_change_nothing(served: GalleristServer,
                                                       stub: Any) -> None:
    """With every search slot taken, a move the bot must answer is RESOURCE_EXHAUSTED and
    the game stays where it was."""
    view = stub.StartGame(play_pb2.StartGameRequest(num_players=2, seat=0, seed=21))
    assert served.slots.try_acquire(served.slots.capacity)
    try:
        refused = 0
        for _ in range(40):
            choice = view.actions[0].action
            try:
                view = stub.PlayMove(play_pb2.PlayMoveRequest(game_id=view.game_id,
                                                              action=choice))
            except grpc.RpcError as err:
                assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, err.details()
                assert "search slots" in err.details()
                refused += 1
                now = stub.GetGame(play_pb2.GameRequest(game_id=view.game_id))
                assert now.state == view.state and list(now.actions) == list(view.actions)
                break
        assert refused == 1
    finally:
        served.slots.release(served.slots.capacity)
    stub.PlayMove(play_pb2.PlayMoveRequest(game_id=view.game_id, action=view.actions[0].action))


def test_a_solo_game_and_its_review(stub: Any) -> None:
    """Solo against Lacerda (no bot seats) played to the end; ReviewGame then gives the
    review page of the person's decisions, in words."""
    view = stub.StartGame(play_pb2.StartGameRequest(num_players=1, seed=4))
    assert list(view.players) == ["You"]
    while view.actions:
        view = stub.PlayMove(play_pb2.PlayMoveRequest(game_id=view.game_id,
                                                      action=view.actions[-1].action))
    assert view.decision.startswith("Game over: you finished with $")
    review = stub.ReviewGame(play_pb2.ReviewGameRequest(game_id=view.game_id, iterations=20))
    assert review.decisions > 20 and review.html.startswith("<!DOCTYPE html>")
    assert "Game review: solo against Lacerda" in review.html
    expect_status(grpc.StatusCode.INVALID_ARGUMENT, lambda: stub.ReviewGame(
        play_pb2.ReviewGameRequest(game_id=view.game_id, iterations=10**9)), "iterations:")


def test_over_http_json_the_same_game_and_messages(served: GalleristServer,
                                                   stub: Any) -> None:
    """The same calls as JSON over the HTTP port (Connect): a game started and a move
    played; a bad request is HTTP 400 invalid_argument with gRPC's message, an unknown
    game 404 not_found."""
    status, view = _post(served, "StartGame", {"numPlayers": 2, "seat": 0, "seed": "9"})
    assert status == 200 and view["players"] == ["You", "Level 1"]
    assert view["decision"].startswith("You must")
    status, after = _post(served, "PlayMove", {"gameId": view["gameId"],
                                               "action": view["actions"][0].get("action", 0)})
    assert status == 200 and after["events"][0]["player"] == 0
    grpc_message = expect_status(grpc.StatusCode.INVALID_ARGUMENT, lambda: stub.StartGame(
        play_pb2.StartGameRequest(num_players=9)))
    status, error = _post(served, "StartGame", {"numPlayers": 9})
    assert (status, error["code"], error["message"]) == (400, "invalid_argument", grpc_message)
    status, error = _post(served, "GetGame", {"gameId": "gone"})
    assert (status, error["code"]) == (404, "not_found")
    status, error = _post(served, "StartGame", {"players": 2})
    assert status == 400 and "players" in error["message"]


def test_words_said_to_the_mover_read_from_the_persons_seat() -> None:
    """Another seat's "your" becomes "their"; the person's own pieces become "your"."""
    said = "Move your gallerist to the Media Center, kicking out P0's gallerist"
    assert seat_words(said, 1, 0) == ("Move their gallerist to the Media Center, kicking "
                                      "out your gallerist")
    assert seat_words("End your turn", 0, 0) == "End your turn"
    assert seat_words("A VIP visitor is drawn", None, 2) == "A VIP visitor is drawn"


def test_fuzzed_requests_get_a_status_never_a_crash(served: GalleristServer, stub: Any) -> None:
    """Random field values and raw bytes sent to every GalleristPlay method: each answer
    is OK or a client error (never INTERNAL or UNKNOWN), and the server keeps serving."""
    rng = random.Random(7)
    view = stub.StartGame(play_pb2.StartGameRequest(num_players=2, seed=1))
    ints = [0, 1, 2, 3, 4, 5, 9, 182, 183, 255, 2**31 - 1, 2**32 - 1]
    texts = ["", "level:1", "level:0", "mcts:iterations=-1", "x" * 300, "greedy", "random",
             view.game_id, view.game_id[:-1] + "!", "\u00e9\u0000", "move:SO", "start:AC"]
    allowed = {grpc.StatusCode.OK, grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND,
               grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.RESOURCE_EXHAUSTED}
    seen: Counter[str] = Counter()
    with grpc.insecure_channel(f"localhost:{served.port}") as channel:
        for i in range(400):
            method = rng.choice(["StartGame", "PlayMove", "UndoMove", "GetGame", "ReviewGame"])
            if i % 5 == 0:
                body = bytes(rng.randrange(256) for _ in range(rng.randrange(40)))
            elif method == "StartGame":
                body = play_pb2.StartGameRequest(
                    num_players=rng.choice(ints), seat=rng.choice(ints), seed=rng.choice(ints),
                    opponents=[play_pb2.Opponent(bot_spec=rng.choice(texts),
                                                 budget={"time_ms": rng.choice([0, 1, 10, 10**6])})
                               for _ in range(rng.randrange(5))]).SerializeToString()
            elif method == "PlayMove":
                request = play_pb2.PlayMoveRequest(game_id=rng.choice(texts))
                if rng.random() < 0.5:
                    request.action = rng.choice(ints)
                else:
                    request.notation = rng.choice(texts)
                if rng.random() < 0.5:
                    request.actions_played = rng.choice(ints)
                body = request.SerializeToString()
            elif method == "ReviewGame":
                body = play_pb2.ReviewGameRequest(game_id=rng.choice(texts),
                                                  iterations=rng.choice(ints)).SerializeToString()
            else:
                body = play_pb2.GameRequest(game_id=rng.choice(texts)).SerializeToString()
            call = channel.unary_unary(f"{PLAY}{method}")
            try:
                call(body, timeout=30)
                code = grpc.StatusCode.OK
            except grpc.RpcError as err:
                code = err.code()
                assert code in allowed, (method, body, code, err.details())
            seen[code.name] += 1
    assert seen["OK"] > 3 and seen["INVALID_ARGUMENT"] > 50, seen
    assert stub.GetGame(play_pb2.GameRequest(game_id=view.game_id)).game_id == view.game_id
