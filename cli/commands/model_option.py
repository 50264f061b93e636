"""The ``--model PATH`` option of the commands that search with the default bot (``serve``,
``hint --local``, ``demo``, ``play``, ``analyze``): another model file instead of the
packaged ai/models/default.npz, for the default bot and for every bot spec that takes a
model without naming one (``model=PATH`` in a spec still wins)."""
from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from contextlib import contextmanager

from gallerist.ai.net.model_file import ModelFileError, load_model
from gallerist.ai.net.packaged import ENV_VAR
from gallerist.cli.commands import CliError

__all__ = ["add_model_option", "model_option"]


def add_model_option(p: argparse.ArgumentParser) -> None:
    """Add ``--model PATH`` to a command's parser."""
    p.add_argument("--model", default=None, metavar="PATH",
                   help="model file of the default bot (and of bot specs that take a model "
                        "but name none) instead of the packaged one; checked at start-up "
                        f"(sets ${ENV_VAR})")


@contextmanager
def model_option(args: argparse.Namespace) -> Iterator[None]:
    """Run a command with its ``--model``: the file is read and checked first (a missing,
    corrupt or mismatched file is a CliError naming the option, the file and the
    mismatch, before any search starts; so is ``--model`` on a ``hint`` that asks a
    server), then named by $GALLERIST_MODEL for the
    command's bots (and the processes they start); the variable is restored afterwards."""
    path = getattr(args, "model", None)
    if path is None:
        yield
        return
    if getattr(args, "local", True) is False:   # `hint` asking a server
        raise CliError("--model needs --local: a server searches with its own model "
                       "(gallerist serve --model PATH)")
    if not path.strip():
        raise CliError("--model: give a model file (PATH is empty)")
    full = os.path.abspath(path)
    try:
        load_model(full)
    except ModelFileError as exc:
        raise CliError(f"--model: {exc}") from None
    old = os.environ.get(ENV_VAR)
    os.environ[ENV_VAR] = full
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(ENV_VAR, None)
        else:
            os.environ[ENV_VAR] = old
