"""A bot that asks a running hint service for every move:
"remote:HOST:PORT,bot=mcts,iterations=500" (options other than timeout and token are
passed on as the remote bot's spec, validated by the server). It talks to the service
through the one client, `gallerist.client.HintClient`.

A service that cannot be reached or fails a call is a `RemoteError`: one line naming
the address and the cause, and picklable, so that it crosses process boundaries (the
arena's workers) intact."""
from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import grpc

from gallerist import engine
from gallerist.ai.bots.base import BaseBot, decision_player
from gallerist.ai.values import Analysis, Budget, MoveInfo
from gallerist.engine.errors import GalleristError

_OWN_OPTIONS = ("timeout", "token")

#: Seconds `RemoteBot.check_reachable` waits for the service's health check.
CHECK_TIMEOUT = 5.0


class RemoteError(GalleristError, ConnectionError):
    """A remote bot's service is unreachable or failed a call (the message names the
    address and the cause)."""


def rpc_cause(exc: grpc.RpcError) -> str:
    """A gRPC error as one line: its status code and details."""
    code = exc.code() if hasattr(exc, "code") else None
    details = exc.details() if hasattr(exc, "details") else str(exc)
    return f"{code.name if code is not None else 'UNKNOWN'}: {' '.join(str(details).split())}"


def parse_remote_spec(rest: str) -> dict[str, Any]:
    """"HOST:PORT,bot=NAME,key=value,..." -> address, remote bot spec, timeout, token."""
    items = [x.strip() for x in rest.split(",") if x.strip()]
    if not items or "=" in items[0] or ":" not in items[0]:
        raise ValueError("remote bot spec must start with HOST:PORT, e.g. remote:localhost:50051,bot=mcts")
    address = items[0]
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"remote bot address {address!r}: expected HOST:PORT with a port 1..65535")
    bot = "mcts"
    options: list[str] = []
    out: dict[str, Any] = {"address": address, "timeout": 60.0, "token": ""}
    for item in items[1:]:
        key, eq, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not key:
            raise ValueError(f"remote option {item!r} needs a value (key=value)")
        if key == "bot":
            bot = value
        elif key == "timeout":
            try:
                out["timeout"] = float(value)
            except ValueError:
                raise ValueError(f"remote option timeout={value!r}: expected float") from None
        elif key == "token":
            out["token"] = value
        else:
            options.append(f"{key}={value}")
    out["bot_spec"] = bot + (":" + ",".join(options) if options else "")
    return out


class RemoteBot(BaseBot):
    """Asks a GalleristAI service (SuggestMoves) for each move, sending the player's view."""

    name = "remote"

    def __init__(self, *, seed: int = 0, address: str, bot_spec: str = "mcts",
                 timeout: float = 60.0, token: str = "") -> None:
        from gallerist.client import HintClient

        self.seed = seed
        self.address = address
        self.bot_spec = bot_spec
        self.timeout = timeout
        self._client = HintClient(address, token=token or None)
        self._calls = 0

    def analyze(self, state: engine.GameState, budget: "Budget | dict[str, Any] | None" = None,
                *, moves: Sequence[int] | None = None) -> Analysis:
        """The service's SuggestMoves; `moves` (the Bot protocol's restriction) goes as
        allow_moves, so the remote search restricts its root."""
        from gallerist.client import hint_request

        player = decision_player(state)
        b = Budget.of(budget)
        allow = [] if moves is None else self.root_moves(state, moves)
        self._calls += 1
        request = hint_request(
            state.view(player), bot=self.bot_spec, iterations=int(b.iterations),
            time_ms=int(b.time_ms), depth=int(b.depth),
            seed=(self.seed * 1_000_003 + self._calls) % (1 << 63), perspective=player,
            allow=allow)
        reply = self._suggest(request)
        moves = [MoveInfo(action=m.action, notation=m.notation, visits=m.visits, depth=m.depth,
                          expected_money=list(m.expected_money),
                          win_probability=m.win_probability if m.HasField("win_probability") else None,
                          win_probabilities=list(m.win_probabilities),
                          value=m.value, pv=list(m.pv)) for m in reply.moves]
        st = reply.stats
        chosen = reply.chosen.action if reply.HasField("chosen") else None
        return Analysis(player=player, bot=f"remote:{reply.bot}", moves=moves, iterations=st.iterations,
                        nodes=st.nodes, depth=st.depth, elapsed_ms=st.elapsed_ms,
                        chosen=chosen if any(m.action == chosen for m in moves) else None)

    def _suggest(self, request: Any) -> Any:
        """SuggestMoves within `timeout` seconds; a busy server (RESOURCE_EXHAUSTED: all
        its search slots in use, e.g. by more arena workers than it has) is asked again
        after a growing pause until then.

        Raises:
            RemoteError: the call failed, or the server stayed busy.
        """
        deadline = time.monotonic() + self.timeout
        pause = 0.02
        while True:
            try:
                return self._client.suggest(request, timeout=max(0.001, deadline - time.monotonic()))
            except grpc.RpcError as exc:
                busy = exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                if not busy or time.monotonic() + pause >= deadline:
                    raise RemoteError(f"remote bot {self.address}: SuggestMoves failed "
                                      f"({rpc_cause(exc)})") from None
            time.sleep(pause)
            pause = min(1.0, 2 * pause)

    def check_reachable(self, timeout: float = CHECK_TIMEOUT) -> None:
        """Ask the service's health check (within `timeout` seconds) whether it serves.

        Raises:
            RemoteError: nothing answers at the address, or the service is not serving.
        """
        from grpc_health.v1 import health_pb2, health_pb2_grpc

        stub = health_pb2_grpc.HealthStub(self._client.channel)  # type: ignore[no-untyped-call]
        try:
            reply = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=timeout)
        except grpc.RpcError as exc:
            raise RemoteError(f"remote bot {self.address}: the hint service is unreachable "
                              f"({rpc_cause(exc)}); start it (gallerist serve) or fix the "
                              f"address") from None
        if reply.status != health_pb2.HealthCheckResponse.SERVING:
            status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
            raise RemoteError(f"remote bot {self.address}: the hint service is {status}, "
                              f"not SERVING")

    def close(self) -> None:
        self._client.close()
