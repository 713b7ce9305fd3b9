"""Recorded operations sent as one Batch RPC: arrayhub.batch() blocks and pipeline segments.

A :class:`Batch` records requests and answers *pending* arrays, the results of its ops. When
it runs, the pending arrays that Python code still references are kept: each becomes, in
place, an ordinary :class:`arrayhub.ndarray`. The others were intermediates, which the server
frees as soon as no later op of the batch reads them; they never get a handle on the client.

Two things record into a Batch:

- an ``arrayhub.batch()`` block (:func:`batch`): its pending arrays have no shape or dtype
  until the block ends, and nothing reaches the server before that;
- a client's pipeline (_pipeline.py): each op answers at once a queued array whose shape,
  dtype and strides the client inferred (_infer.py); the pipeline sends its current Batch
  when a host read, a synchronous call, its size or an idle time asks for it.
"""

from __future__ import annotations

import weakref
from typing import Any, Optional

from google.protobuf.message import Message

from arrayhub import _client, _ndarray
from arrayhub._errors import ArrayHubBatchError, ArrayHubError, client_error, reissue
from arrayhub.v1 import compute_pb2

__all__ = ["Batch", "batch"]

#: The RPCs a batch can hold, by the BatchRequest.Op field that carries each.
_OP_FIELDS = {"Elementwise": "elementwise", "Matmul": "matmul", "Reduce": "reduce",
              "View": "view", "ArrayOp": "array_op", "Create": "create", "GetItem": "get_item",
              "TensorProduct": "tensor_product", "Linalg": "linalg", "Fft": "fft",
              "RunKernel": "run_kernel", "CopyToDevice": "copy_to_device",
              "RecordEvent": "record_event"}

#: The RPCs whose op gives no array (an event's record): recording one answers None.
_NO_RESULT = ("RecordEvent",)

#: ArrayOp ops that answer several arrays, whose number the client cannot know in advance.
SEVERAL_ARRAYS = ("split", "nonzero")


def _label(op: compute_pb2.BatchRequest.Op) -> str:
    """How the server names an op in its messages ("elementwise add", "view reshape")."""
    field = op.WhichOneof("op")
    request = getattr(op, field)
    if field in ("matmul", "get_item", "copy_to_device", "record_event"):
        return field
    if field in ("view", "create"):
        name = request.WhichOneof("op" if field == "view" else "kind") or ""
    elif field == "run_kernel":
        name = request.source.name
    else:
        name = request.op
    return f"{field} {name}" if name else field


class Batch:
    """The operations recorded by one ``with arrayhub.batch():`` block (see :func:`batch`), or
    one segment of a client's pipeline.

    ``len(b)`` is the number of ops recorded so far.
    """

    def __init__(self, client: _client.Client, pipeline: Any = None,
                 device: Optional[int] = None) -> None:
        self._client = client
        self._pipeline = pipeline  # None for an arrayhub.batch() block
        # The device its ops run on when it is not the session's (None: the session's, and
        # nothing is sent), and the device either way: that of its results but views.
        self.device = device
        self.device_index = client._device if device is None else device
        # The ops are recorded straight into the request that will be sent: each request is
        # copied once, into its op (labels for messages are made from the ops when needed).
        self._request = compute_pb2.BatchRequest()
        # Where user code issued each op (pipeline), None for one raised at its call.
        self._sites: list[Optional[tuple[str, int]]] = []
        # Per op, its pending array while it may still be referenced (None for an op that
        # wrote into an existing array with out=).
        self._results: list[Optional[weakref.ref[_ndarray.ndarray]]] = []
        # Arrays the ops name by handle, alive until the batch is answered, so that dropping
        # one never queues its free before the op that reads it has run.
        self._held: list[_ndarray.ndarray] = []
        # Results of the pipeline's Batch in flight that ops of this one name, by the
        # stand-in each got (forward()), and the ops holding stand-ins: their handles are
        # written in when this batch is sent, after the reply of that one.
        self._forwards: dict[str, _ndarray.ndarray] = {}
        self._forwarding_ops: list[int] = []
        # new, recording, sent, ran, abandoned, failed
        self._state = "new" if pipeline is None else "recording"
        self._failure: Optional[ArrayHubError] = None
        self._token: Any = None

    def __len__(self) -> int:
        return len(self._results)

    def __enter__(self) -> Batch:
        if self._state != "new":
            raise client_error(ArrayHubBatchError, "an arrayhub.batch() runs only once")
        if _client.recording.get() is not None:
            raise client_error(ArrayHubBatchError, "arrayhub.batch() blocks do not nest")
        # Queued work of the pipeline runs first: the block may read its results.
        self._client.synchronize()
        self._token = _client.recording.set(self)
        self._state = "recording"
        return self

    def __exit__(self, exc_type: Any, exc: Any, traceback: Any) -> None:
        _client.recording.reset(self._token)
        if exc_type is not None:
            self._state = "abandoned"
            return
        self._run()

    # -- Recording ----------------------------------------------------------------------------

    @property
    def is_block(self) -> bool:
        """True for an arrayhub.batch() block, False for a pipeline segment."""
        return self._pipeline is None

    def record(self, client: _client.Client, method: str, request: Any,
               out: Optional[_ndarray.ndarray] = None, meta: Any = None,
               site: Optional[tuple[str, int]] = ("", 0)) -> Optional[_ndarray.ndarray]:
        """Records one request (a message, or its fields as a dict: made in place, without
        a copy); answers its pending result (with ``meta``, the inferred
        shape and dtype, when known), ``out`` when it writes into an existing array, or None
        for an op that gives no array (an event's record)."""
        if client._connection is not self._client._connection:
            raise client_error(
                ArrayHubBatchError,
                f"an arrayhub.batch() runs on one server ({self._client.address}); this "
                f"operation is on {client.address}")
        if self._pipeline is None and self._client._call_device() != self.device:
            raise client_error(
                ArrayHubBatchError,
                f"an arrayhub.batch() runs on one device (device {self.device_index}, current "
                f"when it began); this operation is on device "
                f"{self._client._current_device()}: change the device outside the block")
        if method == "ArrayOp" and request.op in SEVERAL_ARRAYS:
            raise client_error(
                ArrayHubBatchError,
                f"{request.op} cannot be recorded in an arrayhub.batch(): it gives several "
                f"arrays, and a batch result must be one array; call it outside the block")
        self._request.ops.add(**{_OP_FIELDS[method]: request})
        self._sites.append(site)
        if out is not None or method in _NO_RESULT:
            self._results.append(None)
            return out
        pending = _ndarray.ndarray._pending(self._client, self, len(self._results), meta)
        self._results.append(weakref.ref(pending))
        return pending

    def hold(self, array: _ndarray.ndarray) -> None:
        """Keeps an array an op names by handle alive until the batch is answered."""
        self._held.append(array)

    def in_flight_before(self, batch: Batch) -> bool:
        """Whether this is the pipeline's Batch in flight and ``batch`` a later segment of
        the same pipeline (which is sent only after this one's reply)."""
        return (self._state == "sent" and self._pipeline is not None
                and self._pipeline is batch._pipeline)

    def forward(self, array: _ndarray.ndarray) -> str:
        """A stand-in for the handle of ``array``, a result of the Batch in flight, in the
        op being recorded (see :meth:`note_forwards`). It is not a handle: a server that
        ever saw one would refuse it as unknown."""
        name = f"~{len(self._forwards)}"
        self._forwards[name] = array
        return name

    def note_forwards(self, first: int, forwards_before: int) -> None:
        """Ops ``first`` onwards were just recorded for one call: if they named results of
        the Batch in flight, their stand-ins are replaced when this batch is sent."""
        if len(self._forwards) != forwards_before:
            self._forwarding_ops.extend(range(first, len(self._results)))

    # -- Pending arrays -----------------------------------------------------------------------

    def resolve(self, array: _ndarray.ndarray) -> Any:
        """The ArrayInfo of a pending array of this batch, after the batch has run: a
        pipeline segment is sent and waited for; a block's pending arrays raise."""
        if self._pipeline is not None and self._state in ("recording", "sent"):
            self._pipeline.wait_for(self)
        if array._batch is self:
            raise self.pending_error(array._op)
        return array._info

    def pending_error(self, index: int) -> ArrayHubError:
        """The error for using op ``index``'s result for anything but a later op of the
        block, or for using a queued result whose batch failed."""
        if self._failure is not None and self._pipeline is not None:
            return reissue(self._failure)
        what = (f"this array is the pending result of ops[{index}] "
                f"({_label(self._request.ops[index])})")
        if self._pipeline is not None:
            why = "of a pipelined batch that kept no handle for it"
        elif self._state == "abandoned":
            why = "of an arrayhub.batch() block that raised an exception, so it never ran"
        elif self._state == "failed":
            why = f"of an arrayhub.batch() that failed: {self._failure}"
        elif _client.recording.get() is not self:
            why = ("of an arrayhub.batch() block that is still recording elsewhere; "
                   "only that block can use it")
        else:
            why = ("of the arrayhub.batch() block being recorded: its data, shape and dtype "
                   "exist once the block has ended (leave the block first)")
        return client_error(ArrayHubBatchError, f"{what} {why}")

    # -- Running ------------------------------------------------------------------------------

    def request(self, free: list[str] = (), read: Optional[int] = None,
                elapsed: Optional[tuple[int, int]] = None
                ) -> tuple[compute_pb2.BatchRequest, list[_ndarray.ndarray]]:
        """The BatchRequest, and the pending arrays it keeps (those still referenced, held
        until :meth:`adopt`); ``elapsed``: the start and end event ids whose elapsed time it
        asks. Marks the batch sent."""
        kept = [array for ref in self._results if ref is not None and (array := ref()) is not None]
        request = self._request
        if self._forwarding_ops:
            handles = {name: array._info.handle for name, array in self._forwards.items()}
            for index in self._forwarding_ops:
                _replace_names(request.ops[index], handles)
        request.keep[:] = [array._op for array in kept]
        request.free[:] = free
        if read is not None:
            request.read = read
        if elapsed is not None:
            request.elapsed_time.start_event_id, request.elapsed_time.end_event_id = elapsed
        if self.device is not None:
            request.device = self.device
        self._state = "sent"
        return request, kept

    def adopt(self, kept: list[_ndarray.ndarray], response: compute_pb2.BatchResponse) -> None:
        """The batch ran: its kept arrays become ordinary arrays."""
        for array, info in zip(kept, response.results):
            array._adopt(self._client, info, owned=True)
        self._state = "ran"
        self._held = []

    def fail(self, error: ArrayHubError) -> None:
        """The batch failed or was discarded: its pending arrays raise ``error`` when used."""
        self._state = "failed"
        self._failure = error
        self._held = []

    def _run(self) -> None:
        if not self._results:
            self._state = "ran"
            return
        request, kept = self.request()
        if self._client._call_device() != self.device:
            # Ended on another device than it began on: its own device overrides the call's.
            request.device = self.device_index
        try:
            response = self._client._rpc("Batch", request)
        except ArrayHubError as error:
            self.fail(error)
            raise
        self.adopt(kept, response)


def _replace_names(message: Any, handles: dict[str, str]) -> None:
    """Writes ``handles[name]`` over every string field of ``message`` (recursively) that
    holds a stand-in ``name``."""
    for field, value in message.ListFields():
        if isinstance(value, str):
            if value in handles:
                setattr(message, field.name, handles[value])
        elif isinstance(value, Message):
            _replace_names(value, handles)
        elif field.type == field.TYPE_MESSAGE:  # A repeated message field.
            for item in value:
                _replace_names(item, handles)
        elif field.type == field.TYPE_STRING:  # A repeated string field.
            value[:] = [handles.get(item, item) for item in value]


def batch(client: Optional[_client.Client] = None) -> Batch:
    """Records the operations of a ``with`` block and runs them as one Batch call at its end.

    ::

        with arrayhub.batch():
            t = x * y                  # pending: nothing has run yet
            r = arrayhub.sqrt(t + 1)   # pending, reading t
        print(r.get())                 # r is an ordinary array now; t and t + 1 are gone

    Inside the block, elementwise ops and ufuncs, ``@``/matmul, reductions, views (reshape,
    transpose, ``.T``, swapaxes, squeeze, expand_dims, broadcast_to, diagonal, ravel), array
    ops that give one array (concatenate, stack, sort, cumsum, astype, copy, ...) and array
    creation (zeros, ones, full, arange, linspace, eye, random) are recorded and return
    pending arrays. Anything that needs a pending array's data, shape or dtype (printing,
    ``.get()``, ``float()``, ``len()``, ``.shape``, comparisons in ``if``) raises
    :class:`arrayhub.ArrayHubBatchError`, as does every other call to the server (downloads,
    uploads, indexing, linalg, split, nonzero): nothing reaches the server before the block
    ends. In-place operations (``x += 1``, ``out=``) write into existing arrays only, never
    into pending ones.

    At the end of the block the pending arrays still referenced are kept (they become
    ordinary arrays, in place) and the others are freed on the server as soon as no later op
    needs them. If an op fails, the batch leaves no array behind and the error (the op's own
    exception class) names it: ``ops[3] (matmul): ...``; writes that earlier ops made into
    existing arrays stay. If the block raises, nothing runs.

    The pipelined client (the default, see docs/semantics.md) already sends runs of
    operations as batches; a block is for guaranteeing one call, with nothing sent before
    its end. Work queued before the block runs when the block starts.

    The batch runs in ``client``'s session (default: the current client), on the device
    current where it is made; its operations must all be issued on that device.
    """
    client = client or _client.get_client()
    return Batch(client, device=client._call_device())
