"""The GalleristAI gRPC move-hint service and the ``gallerist`` command line.

`create_server(address)` builds the server (returns ``(server, port)``), `serve()` runs
one until SIGTERM; `HintClient` talks to one. The protocol is
proto/gallerist/v1/hints.proto.
"""
from gallerist.server.app import GalleristServer, create_server, serve
from gallerist.ai.hint_client import HintClient, hint_request
from gallerist.server.limits import Limits, RequestError
from gallerist.server.servicer import SERVICE_NAME, GalleristServicer

__all__ = ["GalleristServer", "GalleristServicer", "HintClient", "Limits", "RequestError",
           "SERVICE_NAME", "create_server", "hint_request", "serve"]
