"""Output files written whole or not at all, with the mode any new file gets."""
from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from typing import Any

__all__ = ["write_atomically"]


def write_atomically(path: str | os.PathLike[str], write: Callable[[Any], None],
                     mode: str = "wb", *, encoding: str | None = None) -> None:
    """Write `path` through a temporary file in its folder, renamed into place: a reader
    sees the old file or the new one, never part of one.

    The file gets the mode `open` gives a new file (0o666 less the umask), not the
    private 0o600 of `tempfile.mkstemp`.

    Args:
        path: the file to write.
        write: called with the open temporary file.
        mode: "wb" or "w" (then `encoding`).
    """
    folder, name = os.path.split(os.path.abspath(path))
    while True:
        tmp = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(fd, mode, encoding=encoding) as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
