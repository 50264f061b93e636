"""A player's record (GalleristPlay.ListGames): the games started with a player key, the
most recent first, finished or not, and the rating over the reviewed ones, narrowing as
games are added."""
from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from server_testlib import running_server

from gallerist.v1 import play_pb2, play_pb2_grpc

KEY = "player-key-0123456789abcdef"


@pytest.fixture(scope="module")
def served() -> Iterator[Any]:
    with running_server(workers=1, http_port=0) as server:
        yield server


@pytest.fixture()
def stub(served: Any) -> Iterator[Any]:
    with grpc.insecure_channel(served.address) as channel:
        yield play_pb2_grpc.GalleristPlayStub(channel)


def _finish(stub: Any, view: Any) -> Any:
    """Play the person's first legal move until the end."""
    while view.actions:
        view = stub.PlayMove(play_pb2.PlayMoveRequest(game_id=view.game_id,
                                                      action=view.actions[0].action))
    return view


def _start(stub: Any, seed: int, key: str = KEY) -> Any:
    return stub.StartGame(play_pb2.StartGameRequest(
        num_players=2, seed=seed, player_key=key,
        opponents=[play_pb2.Opponent(bot_spec="level:1")]))


def test_a_players_games_are_listed_newest_first_with_their_state(stub: Any) -> None:
    """Finished and unfinished games of the key, the newest first, each with its players
    and result in words; another key sees none of them; a game without a key none."""
    key = "player-key-list-0123456789"
    first = _finish(stub, _start(stub, 1, key))
    second = _start(stub, 2, key)
    _start(stub, 3, key="")
    listed = stub.ListGames(play_pb2.ListGamesRequest(player_key=key)).games
    assert [g.game_id for g in listed] == [second.game_id, first.game_id]
    assert listed[0].finished is False and "in progress" in listed[0].result
    assert listed[1].finished is True and "$" in listed[1].result
    assert list(listed[1].players) == ["You", "Level 1"]
    assert listed[1].actions_played == len(first.history)
    assert listed[0].started_unix >= listed[1].started_unix > 0
    other = stub.ListGames(play_pb2.ListGamesRequest(player_key="another-key-0123456789"))
    assert not other.games and not other.HasField("rating")


def test_the_rating_appears_after_a_review_and_narrows_with_games(stub: Any) -> None:
    """No rating before a reviewed game; one after (the review's estimate); with a second
    reviewed game it combines both, its interval narrower."""
    key = "player-key-rating-012345678"
    games = [_finish(stub, _start(stub, seed, key)) for seed in (5, 6)]
    assert not stub.ListGames(play_pb2.ListGamesRequest(player_key=key)).HasField("rating")
    ratings = []
    for view in games:
        review = stub.ReviewGame(play_pb2.ReviewGameRequest(game_id=view.game_id,
                                                            iterations=20))
        assert review.HasField("strength")
        ratings.append(stub.ListGames(play_pb2.ListGamesRequest(player_key=key)).rating)
    one, two = ratings
    assert one.games == 1 and two.games == 2
    assert one.elo_low < one.elo < one.elo_high
    assert (two.elo_high - two.elo_low) < (one.elo_high - one.elo_low)
    listed = stub.ListGames(play_pb2.ListGamesRequest(player_key=key)).games
    assert all(g.HasField("strength") for g in listed)


@pytest.mark.parametrize("request_fields, field", [
    ({}, "player_key"),
    ({"player_key": "short"}, "player_key"),
    ({"player_key": "bad key with spaces!!"}, "player_key"),
    ({"player_key": KEY, "limit": 201}, "limit"),
])
def test_bad_list_requests_name_the_field(stub: Any, request_fields: dict[str, Any],
                                          field: str) -> None:
    with pytest.raises(grpc.RpcError) as err:
        stub.ListGames(play_pb2.ListGamesRequest(**request_fields))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert err.value.details().startswith(field)


def test_start_game_refuses_a_malformed_player_key(stub: Any) -> None:
    with pytest.raises(grpc.RpcError) as err:
        _start(stub, 1, key="no")
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert err.value.details().startswith("player_key")


def test_the_list_over_http(served: Any, stub: Any) -> None:
    """ListGames answers over Connect (JSON) as over gRPC."""
    key = "player-key-http-0123456789"
    started = _start(stub, 9, key)
    request = urllib.request.Request(
        f"http://localhost:{served.http.port}/gallerist.v1.GalleristPlay/ListGames",
        data=json.dumps({"playerKey": key}).encode(),
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as reply:
        body = json.loads(reply.read())
    assert [g["gameId"] for g in body["games"]] == [started.game_id]


class _Context:
    def __init__(self, peer: str, metadata: tuple[tuple[str, str], ...] = ()) -> None:
        self._peer, self._metadata = peer, metadata

    def peer(self) -> str:
        return self._peer

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata


def test_whose_a_call_is_for_the_caps_on_games() -> None:
    """A call's client: its token when it sends one; else its address; X-Real-IP only from
    a proxy on this machine or a trusted one (a client cannot name itself another)."""
    from gallerist.server.play.servicer import client_key
    token = client_key(_Context("ipv4:10.0.0.9:5000", (("authorization", "Bearer t"),)))
    assert token.startswith("token:") and "Bearer" not in token
    assert client_key(_Context("ipv4:10.0.0.9:5000")) == "addr:ipv4:10.0.0.9"
    relayed = (("x-real-ip", "203.0.113.7"),)
    assert client_key(_Context("ipv4:127.0.0.1:5000", relayed)) == "addr:203.0.113.7"
    assert client_key(_Context("ipv4:10.0.0.9:5000", relayed)) == "addr:ipv4:10.0.0.9"
    assert client_key(_Context("ipv4:10.0.0.9:5000", relayed),
                      frozenset({"10.0.0.9"})) == "addr:203.0.113.7"
