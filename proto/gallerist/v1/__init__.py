"""The protobuf schema, version 1: `state_pb2` (the GameState message), `hints_pb2` and
`hints_pb2_grpc` (the GalleristAI service), generated from the `.proto` files beside
this one at build time (proto/generate.py)."""
