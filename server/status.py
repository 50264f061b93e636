"""How a failed call is reported, in one place: each status with its gRPC status code, its
Connect code and the exit status of a command that meets it. Errors the service raises
declare theirs (`ServiceError.status`); errors of other layers are mapped here once
(`status_of`). The service core raises; the gRPC and Connect adapters translate.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Protocol

import grpc
from connectrpc.code import Code

from gallerist.ai.calibration.maps import CalibrationError
from gallerist.ai.net.model_file import ModelFileError
from gallerist.engine.errors import GalleristError

__all__ = ["CANCELLED", "DEADLINE_EXCEEDED", "FAILED_PRECONDITION", "INTERNAL",
           "INVALID_ARGUMENT", "NOT_FOUND", "RESOURCE_EXHAUSTED", "RpcContext",
           "ServiceError", "Status", "UNAUTHENTICATED", "UNAVAILABLE", "status_of"]


@dataclass(frozen=True)
class Status:
    """A call's failure as each transport and the command line report it."""

    grpc: grpc.StatusCode
    connect: Code
    exit: int   # the command line's exit status: 2 bad input, 1 a failure

    @property
    def name(self) -> str:
        """gRPC's name of the status, as the log lines give it."""
        return str(self.grpc.name)


def _status(name: str, exit_status: int = 1) -> Status:
    return Status(grpc.StatusCode[name], Code.CANCELED if name == "CANCELLED" else Code[name],
                  exit_status)


INVALID_ARGUMENT = _status("INVALID_ARGUMENT", 2)
NOT_FOUND = _status("NOT_FOUND")
FAILED_PRECONDITION = _status("FAILED_PRECONDITION")
RESOURCE_EXHAUSTED = _status("RESOURCE_EXHAUSTED")
UNAUTHENTICATED = _status("UNAUTHENTICATED")
UNAVAILABLE = _status("UNAVAILABLE")
CANCELLED = _status("CANCELLED", 130)
DEADLINE_EXCEEDED = _status("DEADLINE_EXCEEDED")
INTERNAL = _status("INTERNAL")


class ServiceError(GalleristError):
    """An error the service answers a call with; `status` says how (a subclass declares
    its own, or one is given)."""

    status: ClassVar[Status] = INTERNAL

    def __init__(self, message: str, status: Status | None = None) -> None:
        super().__init__(message)
        if status is not None:
            self.status = status   # type: ignore[misc]  # this instance's own


#: errors of other layers that a call can meet, and their status
_OTHERS: tuple[tuple[type[BaseException], Status], ...] = (
    (ModelFileError, FAILED_PRECONDITION),   # e.g. eval=model on a server without a model
    (CalibrationError, FAILED_PRECONDITION),
)


def status_of(exc: BaseException) -> Status | None:
    """The status of an error the service knows (None: an unexpected one, INTERNAL)."""
    if isinstance(exc, ServiceError):
        return exc.status
    for kind, status in _OTHERS:
        if isinstance(exc, kind):
            return status
    return None


class RpcContext(Protocol):
    """What the service core needs of a call, whatever carried it: gRPC's
    `grpc.ServicerContext` has it; the HTTP port's `ConnectCall` implements it."""

    def time_remaining(self) -> float | None: ...

    def is_active(self) -> bool: ...

    def add_callback(self, callback: object) -> bool: ...

    def peer(self) -> str: ...

    def invocation_metadata(self) -> object: ...
