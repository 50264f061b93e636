"""The root of every error the project raises on purpose, and the engine's errors."""
from __future__ import annotations


class GalleristError(Exception):
    """Base class of every error the project raises on purpose (engine, bots, service,
    command line); each keeps its `ValueError`, `OSError` or `RuntimeError` base too."""


class IllegalActionError(GalleristError, ValueError):
    """An action that is not legal at the current decision point; the message says why."""


class InvalidStateError(GalleristError, ValueError):
    """A serialized state that is malformed or breaks a rule; the message names the field."""
