"""``cupy.cuda.Stream`` and ``Event`` over a session's single order.

A session runs its operations in the order they were issued (docs/semantics.md, "Pipelined
execution"), as one CUDA stream does, so every Stream of a process stands for the same order:
that of the current client. Waiting on a stream waits for the client's queued operations;
``wait_event`` holds nothing back because nothing can overtake.

The server reports no timing of its own, so an Event is a clock read on this host: ``record``
waits until every operation queued before it has run (it synchronizes the client) and then
reads ``time.perf_counter``. ``get_elapsed_time(start, end)`` is therefore the time, seen by
this process, from "everything issued before start had finished" to "everything issued before
end had finished": the server's work between them plus this process's time issuing it and the
round trips, an upper bound on the server's time.
"""

from __future__ import annotations

import contextvars
import time
from typing import Any, Optional

from arrayhub import _client
from arrayhub.cuda import runtime

__all__ = ["Stream", "Event", "get_current_stream", "get_elapsed_time"]


class Stream:
    """A stream of the current client's session (all are one order; see above)."""

    null: Stream  # The default stream, set below.

    def __init__(self, null: bool = False, non_blocking: bool = False,
                 ptds: bool = False) -> None:
        self.is_null = null

    def __repr__(self) -> str:
        return "<Stream null>" if self.is_null else f"<Stream {id(self):#x}>"

    def __enter__(self) -> Stream:
        _entered.set((*_entered.get(), _current.get()))
        _current.set(self)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        *outer, previous = _entered.get()
        _entered.set(tuple(outer))
        _current.set(previous)

    def use(self) -> Stream:
        """Makes this the current stream (outside a ``with`` block)."""
        _current.set(self)
        return self

    def synchronize(self) -> None:
        """Waits until the operations queued in the current client have run; raises the
        error of the first that failed."""
        _client.get_client().synchronize()

    @property
    def done(self) -> bool:
        """True when the current client has nothing queued or in flight."""
        pipeline = _client.get_client()._pipeline
        pipeline.collect_if_done()
        return pipeline.idle

    def record(self, event: Optional[Event] = None) -> Event:
        """Records ``event`` (a new one by default) here; see :meth:`Event.record`."""
        event = Event() if event is None else event
        event.record(self)
        return event

    def wait_event(self, event: Event) -> None:
        """Nothing to hold back: operations issued later run after those before
        ``event.record()`` in the one order of the session."""


Stream.null = Stream(null=True)
# The current stream of this thread or task, and the streams current before each of its open
# ``with stream`` blocks, innermost last (per context: one Stream may be entered in several
# threads).
_current: contextvars.ContextVar[Stream] = contextvars.ContextVar("arrayhub_stream",
                                                                 default=Stream.null)
_entered: contextvars.ContextVar[tuple[Stream, ...]] = contextvars.ContextVar(
    "arrayhub_stream_blocks", default=())


def get_current_stream() -> Stream:
    """The stream of the innermost ``with stream:`` block (Stream.null outside)."""
    return _current.get()


class Event:
    """A point in the session's order, timed on this host (see above)."""

    def __init__(self, block: bool = False, disable_timing: bool = False,
                 interprocess: bool = False) -> None:
        self.disable_timing = disable_timing
        self._time: Optional[float] = None

    def record(self, stream: Optional[Stream] = None) -> None:
        """Waits until the operations queued in the current client have run, then notes the
        time (raises the error of the first that failed)."""
        _client.get_client().synchronize()
        self._time = time.perf_counter()

    def synchronize(self) -> None:
        """Waits for the operations issued before :meth:`record`: record has waited
        already."""

    @property
    def done(self) -> bool:
        """True: the operations before :meth:`record` had run when it returned (an
        unrecorded event is done, as in CUDA)."""
        return True


def get_elapsed_time(start_event: Event, end_event: Event) -> float:
    """Milliseconds between two recorded events (see the module's note on what they
    measure); CUDARuntimeError (cudaErrorInvalidResourceHandle) when either is unrecorded or
    made with ``disable_timing``, as CUDA's cudaEventElapsedTime."""
    for event in (start_event, end_event):
        if event._time is None or event.disable_timing:
            raise runtime.CUDARuntimeError(runtime.errorInvalidResourceHandle)
    return (end_event._time - start_event._time) * 1e3
