"""Errors raised by the engine's Python API."""
from __future__ import annotations


class GalleristError(Exception):
    """Base class of every error the engine raises on purpose."""


class IllegalActionError(GalleristError, ValueError):
    """An action that is not legal at the current decision point; the message says why."""


class InvalidStateError(GalleristError, ValueError):
    """A serialized state that is malformed or breaks a rule; the message names the field."""
