"""A shared-token check on request metadata, for deployments outside localhost.

Clients send ``authorization: Bearer <token>``; any other call is answered
UNAUTHENTICATED before it reaches the servicer. Health checks stay open so that load
balancers and orchestrators can probe the server without the token. The HTTP port
(server/http_app.py) checks its calls' headers with the same `token_matches`.
"""
from __future__ import annotations

import hmac
import logging
from collections.abc import Callable, Iterable
from typing import Any

import grpc

from gallerist.client import bearer_metadata

__all__ = ["TokenInterceptor", "bearer_metadata", "deny", "token_matches"]

log = logging.getLogger("gallerist.server")

#: Methods that need no token.
OPEN_METHODS = frozenset({"/grpc.health.v1.Health/Check", "/grpc.health.v1.Health/Watch"})


def token_matches(sent: str | bytes, token: bytes) -> bool:
    """Whether an authorization value is ``Bearer <token>``: the scheme in any case (RFC
    9110), the token exactly, compared in constant time."""
    text = sent.decode("latin-1") if isinstance(sent, bytes) else sent
    scheme, _, value = text.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(value.encode("latin-1", "replace"),
                                                              token)


def deny(method: str) -> Callable[[Any, grpc.ServicerContext], Any]:
    """A handler of `method` that logs the call and aborts it UNAUTHENTICATED."""
    def refuse(request: Any, context: grpc.ServicerContext) -> Any:
        log.info("%s budget=- elapsed=0.0ms status=UNAUTHENTICATED", method.rsplit("/", 1)[-1])
        context.abort(grpc.StatusCode.UNAUTHENTICATED,
                      "authorization: missing or wrong token (send 'authorization: Bearer "
                      "<token>' in the call metadata)")
    return refuse


class TokenInterceptor(grpc.ServerInterceptor):
    """Refuses calls without the shared token (compared in constant time).

    Args:
        token: the shared token (non-empty).
        open_methods: full method names that need no token.
    """

    def __init__(self, token: str, open_methods: frozenset[str] = OPEN_METHODS) -> None:
        if not token:
            raise ValueError("the token must not be empty")
        self._token = token.encode()
        self._open = open_methods

    def intercept_service(self, continuation: Callable[[grpc.HandlerCallDetails], Any],
                          handler_call_details: grpc.HandlerCallDetails) -> Any:
        method = handler_call_details.method
        if method in self._open or self.allows(handler_call_details.invocation_metadata):
            return continuation(handler_call_details)
        return grpc.unary_unary_rpc_method_handler(deny(method))

    def allows(self, metadata: Iterable[tuple[str, Any]] | None) -> bool:
        """Whether the call's metadata (lower-case keys) carries the token."""
        for key, value in metadata or ():
            if key == "authorization":
                return token_matches(value, self._token)
        return False
