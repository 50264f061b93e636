"""Gallerist AI: the rules engine (`gallerist.engine`), the bots (`gallerist.ai`), the hint
service and command line (`gallerist.server`) and the protobuf schema (`gallerist.v1`)."""

import importlib.metadata as _metadata

try:
    #: The installed package's version (the self-play records and model files name it).
    __version__ = _metadata.version("gallerist-ai")
except _metadata.PackageNotFoundError:   # run from a source tree that is not installed
    __version__ = "unknown"
