"""Server reflection under grpc.reflection.v1, beside v1alpha (test_lifecycle)."""
from __future__ import annotations

from typing import Any

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from gallerist.client import HintClient
from gallerist.server.servicer import SERVICE_NAME

V1 = "grpc.reflection.v1"
#: ServerReflectionRequest{list_services: ""} on the wire: field 7, a string of length 0.
LIST_SERVICES = b"\x3a\x00"


def _v1_class(name: str) -> Any:
    pool = descriptor_pool.Default()
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{V1}.{name}"))


def _ask_v1(channel: grpc.Channel, *requests: bytes) -> list[Any]:
    """Responses of a v1 ServerReflectionInfo stream, read as v1 messages."""
    response = _v1_class("ServerReflectionResponse")
    call: Any = channel.stream_stream(f"/{V1}.ServerReflection/ServerReflectionInfo",
                                      response_deserializer=response.FromString)
    return list(call(iter(requests), timeout=10))


def test_reflection_v1_lists_the_services(client: HintClient) -> None:
    """grpc.reflection.v1 answers list_services with every service, both reflection
    versions included (tools such as grpcurl ask v1 first)."""
    (response,) = _ask_v1(client.channel, LIST_SERVICES)
    names = {s.name for s in response.list_services_response.service}
    assert {SERVICE_NAME, "grpc.health.v1.Health", f"{V1}.ServerReflection",
            "grpc.reflection.v1alpha.ServerReflection"} <= names


def test_reflection_v1_describes_the_services(client: HintClient) -> None:
    """Through v1, file_containing_symbol describes GalleristAI and v1's own service."""
    request = _v1_class("ServerReflectionRequest")
    asks = [request(file_containing_symbol=name).SerializeToString()
            for name in (SERVICE_NAME, f"{V1}.ServerReflection")]
    ours, v1 = _ask_v1(client.channel, *asks)
    files = [descriptor_pb2.FileDescriptorProto.FromString(b)
             for b in ours.file_descriptor_response.file_descriptor_proto]
    (hints,) = [f for f in files if f.name == "gallerist/v1/hints.proto"]
    assert {m.name for m in hints.service[0].method} == {
        "SuggestMoves", "AnalyzeStream", "NewGame", "LegalActions", "ApplyAction",
        "AnalyzeGame"}
    (own,) = [descriptor_pb2.FileDescriptorProto.FromString(b)
              for b in v1.file_descriptor_response.file_descriptor_proto]
    assert own.package == V1 and own.name == "grpc/reflection/v1/reflection.proto"
    (method,) = own.service[0].method
    assert method.client_streaming and method.server_streaming
    assert method.input_type == f".{V1}.ServerReflectionRequest"
