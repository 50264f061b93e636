"""Reading and writing a game state's JSON file for the commands (``legal``, ``apply``,
``play --state``): a missing or bad file is a one-line `CliError` naming it (exit status 2)."""
from __future__ import annotations

import sys
from pathlib import Path

from gallerist import engine
from gallerist.cli.commands import CliError

__all__ = ["read_state", "write_state"]


def read_state(path: str) -> engine.GameState:
    """The state in `path` ("-": standard input), as `gallerist new` writes it."""
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        return engine.GameState.from_json(text)
    except engine.GalleristError as exc:
        raise CliError(f"{path}: not a valid state: {exc}") from None


def write_state(state: engine.GameState, path: str) -> None:
    """Write `state` as one line of JSON to `path` ("-": standard output)."""
    text = state.to_json() + "\n"
    if path == "-":
        sys.stdout.write(text)
        return
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise CliError(f"cannot write {path}: {exc.strerror or exc}", status=1) from None
