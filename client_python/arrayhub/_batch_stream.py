"""A session's Batches over one BatchStream call, each answered in order.

From Python a message each way on an open stream costs about half a unary call (measured by
bench/user/stream_vs_unary.py: 307 against 648 us on the H200 host, 122-159 against 229-248
us on the 2-core CI machine), so a pipeline's flushes, host reads above all, go this way when
the server takes BatchStream (ServerLimits.batch_stream). The stream is opened at the first
Batch and closed after a while without one, since it holds a thread and a transfer slot of
the server; where the server refuses to open one (the tenant's --tenant-max-transfers are in
use) the Batch goes as a unary call.
"""

from __future__ import annotations

import queue
import threading
import time
from typing import Any, Callable, Iterator, Optional

import grpc

from arrayhub._errors import status_code
from arrayhub.v1 import compute_pb2

__all__ = ["BatchStream", "BatchFailed"]

#: Seconds without a Batch after which the stream is closed (it opens again when needed).
IDLE_CLOSE_SECONDS = 5.0


class BatchFailed(grpc.RpcError):
    """A Batch the server answered with an error on the stream: the code and message that the
    Batch RPC would have failed with."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self._code = code
        self._message = message

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._message




class IdleClosing:
    """Closing a session's way for batches (a stream, a lane) once it went unused for
    IDLE_CLOSE_SECONDS: while open it holds a thread and a transfer slot of the daemon.
    Subclasses hold ``_lock`` (taken by every call), ``_last_use`` (time.monotonic() of the
    last call) and say whether they are open and how they close."""

    _lock: threading.Lock
    _last_use: float

    def _is_open(self) -> bool:
        raise NotImplementedError

    def _close(self) -> None:
        raise NotImplementedError

    def close_if_idle(self) -> None:
        """Closes it when no Batch went for IDLE_CLOSE_SECONDS (housekeeping); one in use is
        left alone."""
        if not self._is_open() or not self._lock.acquire(blocking=False):
            return
        try:
            if self._is_open() and time.monotonic() - self._last_use > IDLE_CLOSE_SECONDS:
                self._close()
        finally:
            self._lock.release()


class BatchStream(IdleClosing):
    """The BatchStream call of one session. Calls are made one at a time (the pipeline's lock
    and its one Batch in flight see to that; a lock here too)."""

    def __init__(self, open_call: Callable[[Iterator[Any]], Iterator[Any]],
                 unary: Callable[[Any], Any]) -> None:
        self._open_call = open_call  # requests -> replies (the stub's BatchStream)
        self._unary = unary          # request -> response (the stub's Batch)
        self._lock = threading.Lock()
        self._requests: Optional[queue.SimpleQueue[Any]] = None
        self._replies: Optional[Iterator[Any]] = None
        self._answered = False  # Whether the open stream answered a batch yet.
        self._last_use = 0.0

    def call(self, request: compute_pb2.BatchRequest,
             waited: bool = False) -> compute_pb2.BatchResponse:
        """Runs one Batch; raises what the Batch RPC would raise (a grpc.RpcError).
        ``waited`` (a host read waits in this thread) changes nothing here: gRPC's own thread
        takes the reply."""
        with self._lock:
            if self._replies is None:
                self._requests = queue.SimpleQueue()
                self._replies = self._open_call(iter(self._requests.get, None))
                self._answered = False
            self._requests.put(request)
            try:
                reply = next(self._replies)
            except (grpc.RpcError, StopIteration) as ended:
                answered, self._answered = self._answered, False
                self._close()
                refused = (isinstance(ended, grpc.RpcError) and not answered
                           and ended.code() == grpc.StatusCode.RESOURCE_EXHAUSTED)
                if not refused:
                    if isinstance(ended, StopIteration):
                        raise BatchFailed(grpc.StatusCode.UNAVAILABLE,
                                          "the server ended the Batch stream") from None
                    raise
                # Refused at its opening (no transfer slot left), before reading the batch.
                return self._unary(request)
            self._answered = True
            self._last_use = time.monotonic()
        if reply.HasField("error"):
            raise BatchFailed(status_code(reply.error.code),
                              reply.error.message)
        return reply.response

    def _is_open(self) -> bool:
        return self._replies is not None

    def close(self) -> None:
        with self._lock:
            self._close()

    def _close(self) -> None:
        if self._requests is not None:
            # Ends the request iterator: the stream half-closes, and the server ends it.
            self._requests.put(None)
        self._requests = self._replies = None
