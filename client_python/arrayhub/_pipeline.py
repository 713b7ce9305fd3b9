"""A client's pipeline: operations queued as CUDA queues kernel launches, sent as Batches.

An operation whose result the client can describe (_infer.py) is recorded in the pipeline's
current :class:`~arrayhub._batch.Batch` and answers at once a queued array. The pipeline
sends that Batch (a *flush*) when

- a host read needs a value: the Batch carries ``read``, so a read is one round trip (as
  does the elapsed time between two events, ``elapsed_time``: a timing loop's end record and
  its reading are one round trip);
- a call that cannot ride in a Batch is made (it waits for the queue first, keeping order);
- an op is queued whose result the client cannot describe (a shape that depends on the
  data): it rides at the end of the queue, which is sent and waited for at once;
- :meth:`Pipeline.drain` (``arrayhub.synchronize()``) is called;
- the Batch reaches :data:`MAX_OPS` ops, or no op came for :data:`IDLE_SECONDS` (a daemon
  thread sends it, so the server never waits on a quiet client);
- an op is issued on another device than the Batch's (``with arrayhub.cuda.Device(i):``): a
  Batch runs on one device, which it names in its ``device`` field when that is not the
  session's.

At most one Batch is in flight, and the next is sent only after its reply, which gives the
kept results their handles. Queueing goes on meanwhile: an op that names a result of the
Batch in flight records a stand-in that the handle replaces when its own Batch is sent, and
while a Batch is in flight the queue is sent as soon as its reply has come (whatever its
size, up to the server's max_batch_ops, where it waits for the reply). So the client queues
while the server runs, and the server gets the next Batch when it is done with one; only
a host read, or another call that needs a result itself, waits. Frees of dropped arrays
ride in the next Batch. A failed Batch makes every op queued after the failing one
fail too; the error is raised at the next point where the client waits, and then the
pipeline works again. ``arrayhub.set_sync(True)`` or ``ARRAYHUB_SYNC=1`` turns queueing off.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import threading
import time
import weakref
from typing import Any, Callable, Optional

import grpc
import numpy as np

from arrayhub import _batch, _batch_lane, _batch_stream, _dtypes, _sender
from arrayhub._errors import (ArrayHubError, batch_op_error, error_from_rpc, error_from_status,
                              reissue)
from arrayhub.v1 import arrays_pb2, compute_pb2

__all__ = ["Pipeline", "set_sync", "is_sync", "MAX_OPS", "IDLE_SECONDS"]

_log = logging.getLogger("arrayhub")

#: Ops that make the pipeline send its Batch (below every server's max_batch_ops).
MAX_OPS = 256
#: Host arrays of at most this many bytes (and at most the server's
#: ServerLimits.max_inline_create_bytes) are not uploaded on their own: their bytes ride in the
#: Batch as a Create (CreateRequest.data), so ``cp.asarray(small)`` returns at once as other
#: operations do (_ops.upload). Larger ones are uploaded (streamed, or through shared memory).
INLINE_UPLOAD_BYTES = 1 << 18
#: Seconds without a new op after which queued work is sent.
IDLE_SECONDS = 0.001
#: While a Batch is in flight, every this many queued ops the client looks whether its reply
#: has come, to send the queue then (each look lets go of the GIL, a few microseconds).
LOOK_EVERY = 8

_sync = os.environ.get("ARRAYHUB_SYNC", "") not in ("", "0")
_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def set_sync(flag: bool = True) -> None:
    """Runs every operation as one blocking call (True), as a debugger wants, or queues them
    (False, the default; ``ARRAYHUB_SYNC=1`` in the environment starts in sync mode). Work
    already queued is sent and waited for first, raising its error if it failed."""
    global _sync
    from arrayhub import _client
    _sync = bool(flag)
    for client in _client.open_clients():
        client.synchronize()


def is_sync() -> bool:
    """Whether operations run one blocking call each (see :func:`set_sync`)."""
    return _sync


def user_site() -> tuple[str, int]:
    """The file and line of the user code that called into arrayhub: the first frame outside
    the package."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
    return (frame.f_code.co_filename, frame.f_lineno) if frame is not None else ("<unknown>", 0)


class _Flight:
    """The Batch in flight: its request's answer and what to do with it."""

    __slots__ = ("batch", "kept", "reply")

    def __init__(self, batch: _batch.Batch, kept: list[Any], reply: Any) -> None:
        self.batch = batch
        self.kept = kept
        self.reply = reply  # A _sender.Reply


class Pipeline:
    """The queue of one client (session). Thread-safe: ops from several threads go in the
    order they take the lock."""

    def __init__(self, client: Any, batch_fields: bool, max_ops: int, max_inline: int,
                 batch_stream: bool = False, batch_lane: bool = False) -> None:
        from arrayhub._client import current_device  # _client imports this module

        self._client = client
        self._current_device = current_device
        # Whether the server takes the Batch fields of the pipelined protocol (get_item ops,
        # out_batch_result, index arrays by batch result, free, read); older servers take
        # batch_result and keep only.
        self.batch_fields = batch_fields
        self._max_ops = min(MAX_OPS, max_ops) if max_ops > 0 else MAX_OPS
        # The most ops a queue grows to while the Batch before it is in flight.
        self._most_ops = max(max_ops, self._max_ops)
        self._max_inline = max_inline
        self._lock = threading.RLock()
        self._current: Optional[_batch.Batch] = None
        self._in_flight: Optional[_Flight] = None
        self._error: Optional[ArrayHubError] = None  # To raise at the next wait.
        self._last_op = 0.0
        self._sender = _sender.Sender()  # Makes the calls of the size and idle flushes.
        # Where the Batches go: the session's batch lane when the daemon is on this host (a
        # round trip through a Unix socket), else its BatchStream when the server takes it
        # (half a unary call's round trip from Python), else one unary call each.
        stub, metadata = client._connection.stub, client._metadata
        self._stream = (_batch_stream.BatchStream(
            lambda requests: stub.BatchStream(requests, metadata=metadata),
            lambda request: stub.Batch(request, metadata=metadata)) if batch_stream else None)
        if (self._stream is not None and batch_lane
                and _batch_lane.wanted(client._connection.address)):
            self._stream = _batch_lane.BatchLane(
                lambda: stub.OpenBatchLane(compute_pb2.OpenBatchLaneRequest(),
                                           metadata=metadata),
                self._stream)

    @property
    def active(self) -> bool:
        """Whether operations are queued (not in sync mode, session open)."""
        return not _sync and not self._client.closed

    @property
    def idle(self) -> bool:
        """Nothing queued and nothing in flight."""
        return self._current is None and self._in_flight is None

    # -- Queueing -----------------------------------------------------------------------------

    def submit(self, client: Any, method: str, build: Callable[[_batch.Batch], Any],
               out: Any, meta: Any, wait: bool = False) -> Any:
        """Queues the request ``build(batch)`` makes (it names queued operands by their index
        in ``batch``); answers the queued result (described by ``meta``, when known), ``out``,
        or None for an op that gives no array.

        With ``wait`` (a result the client cannot describe) the queue is sent at once and
        waited for, and the op's error, if any, raised here with the server's message alone,
        as a unary call raises it."""
        site = None if wait else user_site()
        device = self._current_device.get()  # (Client._call_device inlined: it runs per op)
        if device is not None and device == self._client._device:
            device = None
        with self._lock:
            if self._error is not None:
                # Issued after an op that failed: discarded, as everything until the error
                # is raised.
                discarded = _batch.Batch(self._client, self, device)
                result = discarded.record(client, method, _EMPTY[method], out, meta, site)
                discarded.fail(self._error)
                if wait:  # The error is raised now.
                    self._raise()
                return result
            current = self._current
            if current is not None and current.device != device:
                # A Batch runs on one device: what was queued on another goes first.
                self._send()
                current = None
            # The queue becomes current only once the request is built: naming an operand
            # may raise (a failed array), and may wait for the Batch in flight.
            batch = current if current is not None else _batch.Batch(self._client, self, device)
            first, forwards = len(batch), len(batch._forwards)
            request = build(batch)
            if self._current is not None and self._current is not batch:
                raise RuntimeError("arrayhub: the queue was sent while an op was being built")
            self._current = batch
            result = batch.record(client, method, request, out, meta, site)
            batch.note_forwards(first, forwards)
            self._last_op = time.monotonic()
            queued = len(batch)
            if wait:
                self._send(wait=True)
                self._raise()
                return result
            if self._in_flight is None:
                send = queued >= self._max_ops
            else:  # Sent as soon as the server is done with the Batch before.
                send = queued >= self._most_ops or (queued % LOOK_EVERY == 0
                                                    and self._reply_in())
            if send:
                self._send()
            elif current is None:  # The queue's first op.
                _flusher.schedule(self)
            return result

    # -- Waiting ------------------------------------------------------------------------------

    def drain(self) -> None:
        """Sends the queue and waits for it; raises the error of a failed op, if any."""
        with self._lock:
            self._send(wait=True)
            self._raise()

    def wait_for(self, batch: _batch.Batch) -> None:
        """Waits until ``batch`` (a segment of this pipeline) has run or failed."""
        with self._lock:
            if batch is self._current:
                self._send(wait=True)
            elif self._in_flight is not None and self._in_flight.batch is batch:
                self._collect()
            self._raise()

    def read(self, array: Any) -> Optional[np.ndarray]:
        """Sends the queue with ``array``'s data asked for when it is a queued result small
        enough to come back inline; answers that data, or None when the caller must download
        (the array is an ordinary one by then, if it ran)."""
        with self._lock:
            batch = array._batch
            inline = (batch is not None and batch is self._current and self.batch_fields
                      and array.nbytes <= self._max_inline)
            if not inline:
                self.drain()
                return None
            response = self._send(read=array._op, wait=True)
            self._raise()
        if response is None or not response.HasField("read_info") or response.data_omitted:
            return None
        info = response.read_info
        dtype = _dtypes.little_endian(_dtypes.from_wire(info.dtype))
        return np.frombuffer(response.data, dtype=dtype).reshape(tuple(info.shape)).copy()

    def elapsed(self, start_id: int, end_id: int) -> Optional[float]:
        """Sends the queue asking the milliseconds from event ``start_id`` to ``end_id`` once
        its ops have run; answers them, or None when nothing is queued or the server does not
        answer the question in a Batch (the caller asks EventElapsedTime then)."""
        with self._lock:
            if self._current is None or not len(self._current) or not self.batch_fields:
                return None
            response = self._send(elapsed=(start_id, end_id), wait=True)
            self._raise()
        answer = None if response is None else response.WhichOneof("elapsed")
        if answer == "elapsed_error":
            raise error_from_status(response.elapsed_error.code, response.elapsed_error.message)
        return response.elapsed_milliseconds if answer else None

    def collect_if_done(self) -> None:
        """Takes the answer of a Batch whose reply has come, without waiting (housekeeping)."""
        if self._in_flight is not None and self._in_flight.reply.done():
            with self._lock:
                if self._in_flight is not None and self._in_flight.reply.done():
                    self._collect()

    def idle_flush(self) -> bool:
        """Sends the queue if no op came for IDLE_SECONDS; False if it should wait longer.

        A pipeline whose lock is taken is busy (an op being queued, a send or a read): the
        queue is looked at again later. Waiting for the lock would hand it to this thread
        when the user's thread lets it go, and the user's next op would wait for this
        thread (tens of microseconds after every read)."""
        if not self._lock.acquire(blocking=False):
            return False
        try:
            if self._current is None:
                return True
            if time.monotonic() - self._last_op < IDLE_SECONDS * 0.9 or not self._answered():
                return False
            self._send()
            return True
        finally:
            self._lock.release()

    def settle(self) -> None:
        """Sends the queue and waits for it, leaving an error for this pipeline's own next
        wait (another session's read waits for this queue, but its errors are not its)."""
        with self._lock:
            self._send(wait=True)

    def close(self) -> None:
        """Sends what is queued and waits for it (the session is closing): an error nobody
        will wait for any more is logged. The Batch stream, if any, is closed."""
        try:
            self.drain()
        except ArrayHubError as error:
            _log.warning("arrayhub: queued work of a closing session failed: %s", error)
        if self._stream is not None:
            self._stream.close()

    def close_idle_stream(self) -> None:
        """Closes the Batch stream if it went unused for a while (housekeeping)."""
        if self._stream is not None:
            self._stream.close_if_idle()

    # -- Internals (the lock held) ------------------------------------------------------------

    def _answered(self) -> bool:
        """Whether sending now would not wait: no Batch in flight, or its reply has come."""
        flight = self._in_flight
        return flight is None or flight.reply.done()

    def _reply_in(self) -> bool:
        """Whether the reply of the Batch in flight has come. gRPC's thread takes it only
        with the GIL, which a thread queueing ops hardly lets go (measured: the reply was
        seen 8 ms late, not 0.5): the GIL is let go first."""
        time.sleep(0)
        return self._in_flight.reply.done()

    def _send(self, read: Optional[int] = None, wait: bool = False,
              elapsed: Optional[tuple[int, int]] = None) -> Any:
        """Sends the queue (a *flush*), after taking the answer of the Batch in flight. With
        ``wait``, a blocking call whose answer is applied here (answered: the response, None
        when it failed or nothing was queued); else a call in flight, made by the sender
        thread (_sender.py), which the size and idle flushes use."""
        self._collect()
        batch, self._current = self._current, None
        if batch is None or not len(batch):
            return None
        if self._error is not None:
            batch.fail(self._error)
            return None
        frees = self._client._take_frees() if self.batch_fields else []
        request, kept = batch.request(free=frees, read=read, elapsed=elapsed)
        if not wait:
            self._in_flight = _Flight(batch, kept, self._sender.send(lambda: self._call(request)))
            return None
        try:
            response = self._call(request, waited=True)
        except grpc.RpcError as rpc_error:
            self._failed(_Flight(batch, kept, None), rpc_error)
            return None
        batch.adopt(kept, response)
        return response

    def _call(self, request: compute_pb2.BatchRequest,
              waited: bool = False) -> compute_pb2.BatchResponse:
        """One Batch, on the lane, on the stream or as a unary call; raises a grpc.RpcError if
        it failed. ``waited``: the user's thread waits in this call (not the sender's)."""
        if self._stream is not None:
            return self._stream.call(request, waited)
        return self._client._connection.stub.Batch(request, metadata=self._client._metadata)

    def _collect(self) -> None:
        """Waits for the Batch in flight and applies its answer."""
        flight, self._in_flight = self._in_flight, None
        if flight is None:
            return
        try:
            response = flight.reply.result()
        except grpc.RpcError as rpc_error:
            self._failed(flight, rpc_error)
            return
        flight.batch.adopt(flight.kept, response)

    def _failed(self, flight: _Flight, rpc_error: grpc.RpcError) -> None:
        """A Batch failed at op k: the ops before k ran, but the server freed the arrays the
        batch made. Their kept results are made again by sending ops [0, k) once more, when
        that is the same computation: when none of them wrote into an existing array (an
        out= write happened, and a rerun could read what it wrote). Every other result of
        the batch, and everything queued since, fails with the op's error."""
        code = (rpc_error.code()
                if isinstance(rpc_error, (grpc.Call, _batch_stream.BatchFailed)) else None)
        details = (rpc_error.details() if code is not None else None) or str(rpc_error)
        error = (batch_op_error(code, details, flight.batch._sites) if code is not None
                 else error_from_rpc(rpc_error))
        failed_at = _FAILED_OP.match(details)
        if self._current is not None:  # Queued after the failing op: discarded.
            self._current.fail(error)
            self._current = None
        if self._error is None:
            self._error = error
        if failed_at is not None:
            self._rerun_prefix(flight, int(failed_at.group(1)))
        flight.batch.fail(error)

    def _rerun_prefix(self, flight: _Flight, count: int) -> None:
        ops = flight.batch._request.ops[:count]
        kept = [array for array in flight.kept if array._op < count]
        if not kept or any(getattr(op, op.WhichOneof("op")).HasField("out")
                           for op in ops if op.WhichOneof("op") in _WRITERS):
            return
        request = compute_pb2.BatchRequest(ops=ops, keep=[array._op for array in kept],
                                           device=flight.batch.device)
        try:
            response = self._client._connection.stub.Batch(request,
                                                           metadata=self._client._metadata)
        except grpc.RpcError:
            return  # They fail with the batch's error.
        flight.batch.adopt(kept, response)

    def _raise(self) -> None:
        error, self._error = self._error, None
        if error is not None:
            raise reissue(error)


#: A failed Batch's message: "ops[k] (label): ...".
_FAILED_OP = re.compile(r"^ops\[(\d+)\] ")
#: The ops that can write into an existing array (their out field).
_WRITERS = ("elementwise", "matmul", "reduce", "tensor_product")

# Requests recorded for discarded ops: never sent, they only give the op a label.
_EMPTY: dict[str, Any] = {
    "Elementwise": compute_pb2.ElementwiseRequest(), "Matmul": compute_pb2.MatmulRequest(),
    "Reduce": compute_pb2.ReduceRequest(), "View": compute_pb2.ViewRequest(),
    "ArrayOp": compute_pb2.ArrayOpRequest(), "Create": arrays_pb2.CreateRequest(),
    "GetItem": compute_pb2.GetItemRequest(),
    "TensorProduct": compute_pb2.TensorProductRequest(), "Linalg": compute_pb2.LinalgRequest(),
    "Fft": compute_pb2.FftRequest(), "RunKernel": compute_pb2.RunKernelRequest(),
    "CopyToDevice": arrays_pb2.CopyToDeviceRequest(),
    "RecordEvent": compute_pb2.RecordEventRequest()}


class _IdleFlusher:
    """One daemon thread for every pipeline of the process: sends a pipeline's queue once no
    op came for IDLE_SECONDS. It sleeps on a condition while no pipeline has queued work."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._waiting: weakref.WeakSet[Pipeline] = weakref.WeakSet()
        self._thread: Optional[threading.Thread] = None

    def schedule(self, pipeline: Pipeline) -> None:
        """Called when ``pipeline``'s queue gets its first op."""
        with self._condition:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="arrayhub-pipeline",
                                                daemon=True)
                self._thread.start()
            elif pipeline in self._waiting:
                # Still watched since its last queue: the thread looks at it within
                # IDLE_SECONDS anyway, and waking it costs the op a thread switch.
                return
            self._waiting.add(pipeline)
            self._condition.notify()

    def _run(self) -> None:
        while True:
            with self._condition:
                while not self._waiting:
                    self._condition.wait()
                due = list(self._waiting)
                self._waiting.clear()
            later = []
            for pipeline in due:
                try:
                    if not pipeline.idle_flush():
                        later.append(pipeline)
                except Exception:  # Never kill the thread: a failed Batch is reported at the
                    # pipeline's next wait; anything else (a closed channel) at its next call.
                    _log.debug("arrayhub: idle flush failed", exc_info=True)
            del due
            with self._condition:
                self._waiting.update(later)
                if later:
                    self._condition.wait(IDLE_SECONDS)


_flusher = _IdleFlusher()
