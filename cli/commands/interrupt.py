"""Ctrl-C during a search (``gallerist hint``, ``gallerist play``): the search runs in a
worker thread while the main thread waits; the first Ctrl-C asks the search to stop, so
that it reports the best it has found so far, and a second one gives up at once
(KeyboardInterrupt, exit status 130).

The C searches run without the GIL, so the main thread stays free to take the signal;
a search run in the main thread would hold Ctrl-C back until it finished.
"""
from __future__ import annotations

import queue
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from types import FrameType
from typing import Generic, TypeVar

__all__ = ["StopOnCtrlC"]

T = TypeVar("T")

_ITEM, _ERROR, _END = range(3)


class StopOnCtrlC(Generic[T]):
    """Iterate `items` (a search's reports) in a worker thread; on the first Ctrl-C call
    `stop` and go on taking the items until they end; `interrupted` then says so.

    Args:
        items: the reports; produced in the worker thread.
        stop: asks the producer to finish soon (a search's `stop`, a call's `cancel`).
        ended_by_stop: whether an error raised by `items` after `stop` is just how the
            producer ends when stopped (a cancelled gRPC call); such an error ends the
            iteration quietly instead of being raised.
        note: printed on stderr at the first Ctrl-C.
    """

    def __init__(self, items: Iterable[T], stop: Callable[[], None], *,
                 ended_by_stop: Callable[[BaseException], bool] = lambda exc: False,
                 note: str = "interrupted: stopping the search, keeping the best move so "
                             "far (Ctrl-C again to quit at once)") -> None:
        self.items = items
        self.stop = stop
        self.ended_by_stop = ended_by_stop
        self.note = note
        self.interrupted = False

    def _on_sigint(self, signum: int, frame: FrameType | None) -> None:
        if self.interrupted:
            raise KeyboardInterrupt
        self.interrupted = True
        print(f"\n{self.note}", file=sys.stderr, flush=True)
        self.stop()

    def _pump(self, out: "queue.Queue[tuple[int, object]]") -> None:
        try:
            for item in self.items:
                out.put((_ITEM, item))
        except BaseException as exc:  # handed to the main thread, raised there
            out.put((_ERROR, exc))
        else:
            out.put((_END, None))

    def __iter__(self) -> Iterator[T]:
        out: queue.Queue[tuple[int, object]] = queue.Queue()
        worker = threading.Thread(target=self._pump, args=(out,), daemon=True,
                                  name="search")
        main = threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGINT, self._on_sigint) if main else None
        try:
            worker.start()
            while True:
                try:
                    kind, value = out.get(timeout=0.1)
                except queue.Empty:
                    continue
                if kind == _END:
                    return
                if kind == _ERROR:
                    assert isinstance(value, BaseException)
                    if self.interrupted and self.ended_by_stop(value):
                        return
                    raise value
                yield value  # type: ignore[misc]
        finally:
            if main:
                signal.signal(signal.SIGINT,
                              signal.default_int_handler if previous is None else previous)
