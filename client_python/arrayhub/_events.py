"""A session's events on the server (proto RecordEventRequest): recorded in the session's
order between the operations they time, read back once the server's work has reached them.

An event is named by an id this client chooses, so that its record rides in the pipeline like
any queued operation, with no round trip. Ids are the session's own (1, 2, ...): an id whose
:class:`arrayhub.cuda.Event` was garbage-collected is handed to the next new Event, which
records over it, so the session holds no more ids than Events were alive at once (the server
refuses a new id past ``--max-session-events``).
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from arrayhub import _client
from arrayhub.v1 import compute_pb2

__all__ = ["take_id", "record", "query", "elapsed_milliseconds", "wait_for_device"]


class _Ids:
    """The event ids of one client: those free for reuse, and the next never used."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._free: list[int] = []
        self._next = 1

    def take(self) -> int:
        with self._lock:
            if self._free:
                return self._free.pop()
            self._next += 1
            return self._next - 1

    def give_back(self, event_id: int) -> None:
        with self._lock:
            self._free.append(event_id)


_ids: weakref.WeakKeyDictionary[Any, _Ids] = weakref.WeakKeyDictionary()
_ids_lock = threading.Lock()


def take_id(client: _client.Client, owner: Any) -> int:
    """An id of ``client``'s session for the Event ``owner``, free again once ``owner`` is
    garbage-collected."""
    with _ids_lock:
        ids = _ids.setdefault(client, _Ids())
    event_id = ids.take()
    weakref.finalize(owner, ids.give_back, event_id)
    return event_id


def record(client: _client.Client, event_id: int) -> None:
    """Records event ``event_id`` after the operations issued so far in ``client``'s session:
    in the ``arrayhub.batch()`` block being recorded, in the pipeline's queue, or (in sync
    mode) as a Batch of its own."""
    request = compute_pb2.RecordEventRequest(event_id=event_id)
    block = _client.recording.get()
    if block is not None:
        block.record(client, "RecordEvent", request)
    elif client._pipeline.active:
        client._pipeline.submit(client, "RecordEvent", lambda batch: request, None, None)
    else:
        client._rpc("Batch", compute_pb2.BatchRequest(
            ops=[compute_pb2.BatchRequest.Op(record_event=request)]))


def query(client: _client.Client, event_id: int, wait: bool) -> bool:
    """Whether the server's work has reached the event (with ``wait``, once it has). The
    queue is sent first, raising the error of a queued operation that failed."""
    return client._rpc("QueryEvent", compute_pb2.QueryEventRequest(event_id=event_id,
                                                                   wait=wait)).done


def elapsed_milliseconds(client: _client.Client, start_id: int, end_id: int) -> float:
    """The server's milliseconds from one event of the session to another, once its work has
    reached both: asked with the queued ops when there are some (one round trip, on the batch
    lane where there is one), else on its own."""
    if _client.recording.get() is None and client._pipeline.active:
        milliseconds = client._pipeline.elapsed(start_id, end_id)
        if milliseconds is not None:
            return milliseconds
    return client._rpc("EventElapsedTime", compute_pb2.EventElapsedTimeRequest(
        start_event_id=start_id, end_event_id=end_id)).milliseconds


class _Marker:
    """What a client's device-wait event id belongs to (freed with the client)."""


_markers: weakref.WeakKeyDictionary[Any, tuple[_Marker, int]] = weakref.WeakKeyDictionary()


def wait_for_device(client: _client.Client) -> None:
    """Waits until the server has run every operation issued in ``client``'s session so far,
    on the device too (CUDA's stream and device synchronize): an event of the client's own,
    recorded after them and waited for. Raises the error of a queued operation that failed."""
    with _ids_lock:
        marker, event_id = _markers.get(client, (None, 0))
    if marker is None:
        marker = _Marker()
        event_id = take_id(client, marker)
        with _ids_lock:
            _markers[client] = (marker, event_id)
    record(client, event_id)
    query(client, event_id, wait=True)
