"""SIGINT and SIGTERM stop a long run the same way: KeyboardInterrupt in the main process,
which keeps what it finished (the command line exits 130). Worker processes leave both
signals to it: they ignore SIGINT, and SIGTERM ends them, as the parent ends them with it.
"""
from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

__all__ = ["signals_held", "stop_on_signals", "worker_signals", "worker_start_method"]


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """While in the block, SIGTERM raises KeyboardInterrupt as SIGINT does, and SIGINT does
    so even where it was ignored (a shell without job control starts a background job
    with SIGINT ignored, so ``kill -INT`` did nothing). Outside the main thread, where
    signals cannot be handled, it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    if previous[signal.SIGINT] == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            if handler is not None:   # None: set outside Python, cannot be put back
                signal.signal(sig, handler)


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM that arrive within the block take effect when it ends, so that
    what it records (a finished game, in memory and in its file) is recorded whole."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    held = (signal.SIGINT, signal.SIGTERM)
    previous = {sig: signal.signal(sig, lambda signum, frame: caught.append(signum))
                for sig in held}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, signal.SIG_DFL if handler is None else handler)
        for signum in caught[:1]:
            signal.raise_signal(signum)   # handled as it would have been


def worker_signals() -> None:
    """The initializer of a worker process: SIGINT ignored (the parent stops the run),
    SIGTERM's default (a forked worker would inherit the parent's handler)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def worker_start_method(remote: bool = False) -> str:
    """How to start worker processes: fork (fast: the workers share what this process has
    loaded), unless this process holds threads that fork() breaks: gRPC's, once a remote
    bot was used (`remote`), or JAX's, once JAX was imported (a forked worker can hang on a
    lock such a thread held at the fork); then spawn."""
    import multiprocessing
    import sys

    if remote or "jax" in sys.modules or "fork" not in multiprocessing.get_all_start_methods():
        return "spawn"
    return "fork"
