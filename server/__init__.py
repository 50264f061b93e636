"""The GalleristAI move-hint service (gRPC, and Connect over HTTP) and the hosted games.

`create_server(address)` builds the server (returns ``(server, port)``), `serve()` runs
one until SIGTERM; `gallerist.client.HintClient` talks to one. The protocol is
proto/gallerist/v1/hints.proto.
"""
from gallerist.server.app import GalleristServer, create_server, serve
from gallerist.server.limits import Limits, RequestError
from gallerist.server.servicer import SERVICE_NAME, GalleristServicer

__all__ = ["GalleristServer", "GalleristServicer", "Limits", "RequestError", "SERVICE_NAME",
           "create_server", "serve"]
