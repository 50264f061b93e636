"""One table says how each failure is reported (server/status.py): its gRPC status, its
Connect code and a command's exit status; both ports answer a call's error from it."""
from __future__ import annotations

import grpc
import pytest
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from server_testlib import running_server

from gallerist.ai.net.model_file import ModelFileError
from gallerist.client import HintClient
from gallerist.server import status as st
from gallerist.server.limits import RequestError
from gallerist.server.play.games import GameGone, StaleMove
from gallerist.server.servicer import Overloaded
from gallerist.v1 import play_pb2
from gallerist.v1.play_connect import GalleristPlayClientSync
from gallerist.v1.play_pb2_grpc import GalleristPlayStub


@pytest.mark.parametrize("error, status", [
    (RequestError("seed", "-1 is negative"), st.INVALID_ARGUMENT),
    (Overloaded("server busy"), st.RESOURCE_EXHAUSTED),
    (GameGone("game_id: no game"), st.NOT_FOUND),
    (StaleMove("action: stale"), st.FAILED_PRECONDITION),
    (ModelFileError("model file x is missing"), st.FAILED_PRECONDITION),
    (ValueError("a bug"), None),
])
def test_each_error_has_one_status(error: Exception, status: st.Status | None) -> None:
    """Errors of the service declare their status; other layers' are mapped once; an
    unexpected error has none (INTERNAL)."""
    assert st.status_of(error) is status


def test_every_status_names_the_same_code_on_both_transports() -> None:
    """A status's Connect code is its gRPC code (CANCELLED is spelt CANCELED); bad input
    exits 2, an interrupted call 130, any other failure 1."""
    for status in (st.INVALID_ARGUMENT, st.NOT_FOUND, st.FAILED_PRECONDITION,
                   st.RESOURCE_EXHAUSTED, st.UNAUTHENTICATED, st.UNAVAILABLE, st.CANCELLED,
                   st.DEADLINE_EXCEEDED, st.INTERNAL):
        assert status.connect.name.replace("CANCELED", "CANCELLED") == status.grpc.name
        assert status.exit == {"INVALID_ARGUMENT": 2, "CANCELLED": 130}.get(status.name, 1)


def test_both_ports_answer_an_unknown_game_alike() -> None:
    """The core raises GameGone; gRPC answers NOT_FOUND and Connect not_found, with one
    message."""
    with running_server(workers=1, http_port=0) as server:
        request = play_pb2.GameRequest(game_id="nosuchgame")
        with HintClient(server.address) as client:
            with pytest.raises(grpc.RpcError) as over_grpc:
                GalleristPlayStub(client.channel).GetGame(request)
        web = GalleristPlayClientSync(f"http://localhost:{server.http.port}")
        with pytest.raises(ConnectError) as over_http:
            web.get_game(request)
        assert over_grpc.value.code() == grpc.StatusCode.NOT_FOUND
        assert over_http.value.code == Code.NOT_FOUND
        assert over_grpc.value.details() == over_http.value.message
