"""The one client of the GalleristAI hint service: a channel and stub with the token and
TLS settings (`HintClient`), and `hint_request`. The remote bot (`ai.bots.remote`), the
command line, the benchmarks and the tests all talk to a service through it. A package
of its own, below both `ai` and `server`: it needs only the engine and the stubs.

>>> with HintClient("localhost:50051") as client:          # doctest: +SKIP
...     start = client.new_game(players=2, seed=1)
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import grpc

from gallerist import engine
from gallerist.v1 import hints_pb2, hints_pb2_grpc

__all__ = ["HintClient", "bearer_metadata", "hint_request"]


def bearer_metadata(token: str | None) -> tuple[tuple[str, str], ...]:
    """The call metadata that carries `token` (empty without one); the server's
    `server.auth.TokenInterceptor` expects exactly this."""
    return (("authorization", f"Bearer {token}"),) if token else ()


def hint_request(state: engine.GameState | Any, *, bot: str = "", iterations: int = 0,
                 time_ms: int = 0, depth: int = 0, max_moves: int = 0, seed: int = 0,
                 perspective: int | None = None, report_interval_ms: int = 0,
                 allow: Sequence[str | int] = (), avoid: Sequence[str | int] = (),
                 query_id: str = "") -> Any:
    """A HintRequest for `state`: an engine state, a `gallerist.v1.GameState`, or a
    `gallerist.v1.GameMoves` (a setup and its moves). `allow`/`avoid`: moves as
    notation or ids (allow_moves / avoid_moves)."""
    msg = state.to_proto() if isinstance(state, engine.GameState) else state
    position = ({"game": msg} if isinstance(msg, hints_pb2.GameMoves) else {"state": msg})
    request = hints_pb2.HintRequest(
        **position,
        budget=hints_pb2.Budget(iterations=iterations, time_ms=time_ms, depth=depth),
        max_moves=max_moves, seed=seed, report_interval_ms=report_interval_ms,
        allow_moves=[str(m) for m in allow], avoid_moves=[str(m) for m in avoid],
        query_id=query_id)
    if bot:
        request.bot_spec = bot
    if perspective is not None:
        request.perspective = perspective
    return request


class HintClient:
    """A channel and stub with the token and TLS settings applied to every call.

    Args:
        address: "host:port".
        token: the server's shared token, if it has one.
        tls: use TLS (with the system's root certificates unless `ca_file` is given).
        ca_file: PEM file of the certificate authority (or self-signed certificate) to
            trust; implies `tls`.
        server_name: the name to check the certificate against (default: from address).
    """

    def __init__(self, address: str, *, token: str | None = None, tls: bool = False,
                 ca_file: str | Path | None = None, server_name: str | None = None) -> None:
        self.address = address
        self.metadata = bearer_metadata(token)
        if tls or ca_file is not None:
            roots = Path(ca_file).read_bytes() if ca_file is not None else None
            options = [("grpc.ssl_target_name_override", server_name)] if server_name else []
            self.channel = grpc.secure_channel(address, grpc.ssl_channel_credentials(roots),
                                               options=options)
        else:
            self.channel = grpc.insecure_channel(address)
        self.stub = hints_pb2_grpc.GalleristAIStub(self.channel)  # type: ignore[no-untyped-call]

    def __enter__(self) -> "HintClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the channel."""
        self.channel.close()

    def wait_ready(self, timeout: float = 5.0) -> None:
        """Wait until the channel is connected (grpc.FutureTimeoutError otherwise)."""
        grpc.channel_ready_future(self.channel).result(timeout=timeout)

    def suggest(self, request: Any, timeout: float | None = None) -> Any:
        """SuggestMoves."""
        return self.stub.SuggestMoves(request, timeout=timeout, metadata=self.metadata)

    def analyze_stream(self, request: Any, timeout: float | None = None) -> Iterator[Any]:
        """AnalyzeStream: the reports as they come."""
        return self.stub.AnalyzeStream(request, timeout=timeout,  # type: ignore[no-any-return]
                                       metadata=self.metadata)

    def analyze_game(self, request: Any, timeout: float | None = None) -> Iterator[Any]:
        """AnalyzeGame: the analyzed positions as they come."""
        return self.stub.AnalyzeGame(request, timeout=timeout,  # type: ignore[no-any-return]
                                     metadata=self.metadata)

    def new_game(self, players: int = 2, seed: int = 0, timeout: float | None = None) -> Any:
        """NewGame."""
        return self.stub.NewGame(hints_pb2.NewGameRequest(num_players=players, seed=seed),
                                 timeout=timeout, metadata=self.metadata)

    def legal_actions(self, state: Any, timeout: float | None = None) -> Any:
        """LegalActions of a `gallerist.v1.GameState`."""
        return self.stub.LegalActions(hints_pb2.LegalActionsRequest(state=state),
                                      timeout=timeout, metadata=self.metadata)

    def apply_action(self, state: Any, *, action: int | None = None,
                     notation: str | None = None, chance_seed: int | None = None,
                     timeout: float | None = None) -> Any:
        """ApplyAction with exactly one of an action id, its notation or a chance seed."""
        request = hints_pb2.ApplyActionRequest(state=state)
        if action is not None:
            request.action = action
        elif notation is not None:
            request.notation = notation
        elif chance_seed is not None:
            request.chance_seed = chance_seed
        return self.stub.ApplyAction(request, timeout=timeout, metadata=self.metadata)
