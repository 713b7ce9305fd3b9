"""``cupy.cuda.Stream`` and ``Event`` over a session's single order.

A session runs its operations in the order they were issued (docs/semantics.md, "Pipelined
execution"), as one CUDA stream does, so every Stream of a process stands for the same order:
that of the current client. Waiting on a stream waits until the server has run the client's
operations, on its device too (an event recorded after them and waited for, as CUDA's stream
synchronize); ``wait_event`` holds nothing back because nothing can overtake.

An Event is an event of the server (docs/execution.md, "Events"): ``record`` queues it in the
session's order like any operation (it waits for nothing), and the server takes its time when
its work reaches it: on the GPU it is a CUDA event on the session's stream, on the CPU backend
a clock reading once the operations before it have run. ``get_elapsed_time(start, end)`` is
therefore the server's time for the work issued between the two records, as CuPy's is the
GPU's; the client's own time and the round trips are not in it.
"""

from __future__ import annotations

import contextvars
from typing import Any, Optional

from arrayhub import _client, _events
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
        """Waits until the operations issued in the current client have run on the server's
        device (as CUDA's, not only been accepted: see :func:`arrayhub.synchronize`); raises
        the error of the first that failed."""
        _events.wait_for_device(_client.get_client())

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
    """An event of the current client's session on the server (see above). ``block`` and
    ``interprocess`` are accepted for CuPy's signature and change nothing: waiting is the
    server's, and events are not shared with other processes. An Event records in the session
    of the client current at :meth:`record`."""

    def __init__(self, block: bool = False, disable_timing: bool = False,
                 interprocess: bool = False) -> None:
        self.block = block
        self.disable_timing = disable_timing
        self.interprocess = interprocess
        self._client: Optional[Any] = None  # The client of the last record, if any.
        self._id = 0  # Its event id in that client's session.

    def __repr__(self) -> str:
        state = "unrecorded" if self._client is None else f"id {self._id}"
        return f"<Event {state}>"

    def record(self, stream: Optional[Stream] = None) -> None:
        """Records the event after the operations issued so far (queued like them: nothing
        waits). Recording again moves it, as in CUDA."""
        client = _client.get_client()
        if self._client is not client:
            self._id = _events.take_id(client, self)
            self._client = client
        _events.record(client, self._id)

    def synchronize(self) -> None:
        """Waits until the server's work has reached the event (nothing for an unrecorded
        one); raises the error of an operation before it that failed."""
        if self._client is not None:
            _events.query(self._client, self._id, wait=True)

    def query(self) -> bool:
        """Whether the server's work has reached the event, without waiting for it (True for
        an unrecorded event, as in CUDA). The operations queued in the client are sent first."""
        return self._client is None or _events.query(self._client, self._id, wait=False)

    @property
    def done(self) -> bool:
        """:meth:`query`, as CuPy's property."""
        return self.query()


def get_elapsed_time(start_event: Event, end_event: Event) -> float:
    """The server's milliseconds from ``start_event`` to ``end_event`` (see the module's
    note), once its work has reached both; CUDARuntimeError (cudaErrorInvalidResourceHandle)
    when either is unrecorded or made with ``disable_timing``, or when they were recorded in
    different sessions, as CUDA's cudaEventElapsedTime for events it cannot compare."""
    for event in (start_event, end_event):
        if event._client is None or event.disable_timing:
            raise runtime.CUDARuntimeError(runtime.errorInvalidResourceHandle)
    if start_event._client is not end_event._client:
        raise runtime.CUDARuntimeError(runtime.errorInvalidResourceHandle)
    return _events.elapsed_milliseconds(start_event._client, start_event._id, end_event._id)
