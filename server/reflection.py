"""gRPC server reflection under both protocol versions, `grpc.reflection.v1` and `v1alpha`.

grpcio-reflection implements only `grpc.reflection.v1alpha` (grpc/grpc#38576 asks for
v1), while current tools (grpcurl, Postman, grpc-java's and grpc-go's clients) ask v1
first. The two versions are the same protocol: the same messages with the same field
numbers, only the package differs. So v1 is served by grpcio-reflection's own servicer
through v1alpha's message classes on v1's method path, and v1's file (v1alpha's with the
package renamed) is added to the descriptor pool so that reflection describes the v1
service itself as well.
"""
from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc

__all__ = ["V1_SERVICE_NAME", "V1ALPHA_SERVICE_NAME", "enable_reflection", "v1_file"]

V1ALPHA_SERVICE_NAME: str = reflection.SERVICE_NAME
V1_SERVICE_NAME = "grpc.reflection.v1.ServerReflection"
_V1ALPHA, _V1 = "grpc.reflection.v1alpha", "grpc.reflection.v1"


def _renamed(name: str) -> str:
    """A type reference of the v1alpha file, pointing into v1 instead."""
    prefix = f".{_V1ALPHA}."
    return f".{_V1}.{name[len(prefix):]}" if name.startswith(prefix) else name


def _rename_messages(messages: Iterable[descriptor_pb2.DescriptorProto]) -> None:
    for message in messages:
        for field in message.field:
            if field.HasField("type_name"):
                field.type_name = _renamed(field.type_name)
        _rename_messages(message.nested_type)


@functools.cache
def v1_file() -> descriptor_pb2.FileDescriptorProto:
    """The file of `grpc.reflection.v1` (grpc/reflection/v1/reflection.proto), made from
    v1alpha's and added to the default descriptor pool (once)."""
    file = descriptor_pb2.FileDescriptorProto.FromString(reflection_pb2.DESCRIPTOR.serialized_pb)
    file.name = "grpc/reflection/v1/reflection.proto"
    file.package = _V1
    file.ClearField("options")
    _rename_messages(file.message_type)
    for service in file.service:
        for method in service.method:
            method.input_type = _renamed(method.input_type)
            method.output_type = _renamed(method.output_type)
    descriptor_pool.Default().AddSerializedFile(file.SerializeToString())
    return file


def enable_reflection(service_names: Iterable[str], server: grpc.Server) -> None:
    """Offer reflection of `service_names` (and of both reflection services) on
    `server`, under v1alpha and v1."""
    v1_file()
    names = (*service_names, V1ALPHA_SERVICE_NAME, V1_SERVICE_NAME)
    servicer: Any = reflection.ReflectionServicer(names)
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)
    v1 = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString)
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(V1_SERVICE_NAME, {"ServerReflectionInfo": v1}),))
