"""arrayhub.batch(): the operations of a ``with`` block, sent as one Batch RPC at its end.

Inside the block, operations that a batch can hold are recorded instead of run and return
*pending* arrays; at the end of the block one call runs them all, in order. The pending
arrays that Python code still references then are kept: each becomes, in place, an ordinary
:class:`arrayhub.ndarray`. The others were intermediates, which the server frees as soon as
no later op of the batch reads them; they never get a handle on the client.
"""

from __future__ import annotations

import weakref
from typing import Any, Optional

from arrayhub import _client, _ndarray
from arrayhub._errors import ArrayHubBatchError, client_error
from arrayhub.v1 import compute_pb2

__all__ = ["Batch", "batch"]

#: The RPCs a batch can hold, by the BatchRequest.Op field that carries each.
_OP_FIELDS = {"Elementwise": "elementwise", "Matmul": "matmul", "Reduce": "reduce",
              "View": "view", "ArrayOp": "array_op", "Create": "create"}

#: ArrayOp ops that answer several arrays, whose number the client cannot know in advance.
_SEVERAL_ARRAYS = ("split", "nonzero")


def _label(method: str, request: Any) -> str:
    """How the server names an op in its messages ("elementwise add", "view reshape")."""
    field = _OP_FIELDS[method]
    if method == "Matmul":
        return field
    if method in ("View", "Create"):
        name = request.WhichOneof("op" if method == "View" else "kind") or ""
    else:
        name = request.op
    return f"{field} {name}" if name else field


class Batch:
    """The operations recorded by one ``with arrayhub.batch():`` block (see :func:`batch`).

    ``len(b)`` is the number of ops recorded so far.
    """

    def __init__(self, client: _client.Client) -> None:
        self._client = client
        self._ops: list[compute_pb2.BatchRequest.Op] = []
        self._labels: list[str] = []
        # Per op, its pending array while it may still be referenced (None for an op that
        # wrote into an existing array with out=).
        self._results: list[Optional[weakref.ref[_ndarray.ndarray]]] = []
        self._state = "new"  # new, recording, ran, abandoned, failed
        self._failure = ""
        self._token: Any = None

    def __len__(self) -> int:
        return len(self._ops)

    def __enter__(self) -> Batch:
        if self._state != "new":
            raise client_error(ArrayHubBatchError, "an arrayhub.batch() runs only once")
        if _client.recording.get() is not None:
            raise client_error(ArrayHubBatchError, "arrayhub.batch() blocks do not nest")
        self._token = _client.recording.set(self)
        self._state = "recording"
        return self

    def __exit__(self, exc_type: Any, exc: Any, traceback: Any) -> None:
        _client.recording.reset(self._token)
        if exc_type is not None:
            self._state = "abandoned"
            return
        self._run()

    # -- Used by _ops while the block records -------------------------------------------------

    def record(self, client: _client.Client, method: str, request: Any,
               out: Optional[_ndarray.ndarray] = None) -> _ndarray.ndarray:
        """Records one request; answers its pending result, or ``out`` when it writes into an
        existing array."""
        if client._connection is not self._client._connection:
            raise client_error(
                ArrayHubBatchError,
                f"an arrayhub.batch() runs on one server ({self._client.address}); this "
                f"operation is on {client.address}")
        if method == "ArrayOp" and request.op in _SEVERAL_ARRAYS:
            raise client_error(
                ArrayHubBatchError,
                f"{request.op} cannot be recorded in an arrayhub.batch(): it gives several "
                f"arrays, and a batch result must be one array; call it outside the block")
        self._ops.append(compute_pb2.BatchRequest.Op(**{_OP_FIELDS[method]: request}))
        self._labels.append(_label(method, request))
        if out is not None:
            self._results.append(None)
            return out
        pending = _ndarray.ndarray._pending(self._client, self, len(self._ops) - 1)
        self._results.append(weakref.ref(pending))
        return pending

    def index_of(self, index: int) -> int:
        """The op index of a pending result of this batch, to read it from a later op; raises
        unless this batch is the one being recorded."""
        if self._state != "recording" or _client.recording.get() is not self:
            raise self.pending_error(index)
        return index

    def pending_error(self, index: int) -> ArrayHubBatchError:
        """The error for using op ``index``'s result for anything but a later op of the block."""
        what = f"this array is the pending result of ops[{index}] ({self._labels[index]})"
        if self._state == "abandoned":
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

    # -- The end of the block -----------------------------------------------------------------

    def _run(self) -> None:
        kept = [(index, array) for index, ref in enumerate(self._results)
                if ref is not None and (array := ref()) is not None]
        if not self._ops:
            self._state = "ran"
            return
        request = compute_pb2.BatchRequest(ops=self._ops, keep=[index for index, _ in kept])
        try:
            response = self._client._rpc("Batch", request)
        except Exception as error:
            self._state = "failed"
            self._failure = str(error)
            raise
        for (_, array), info in zip(kept, response.results):
            array._adopt(self._client, info, owned=True)
        self._state = "ran"


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

    The batch runs in ``client``'s session (default: the current client).
    """
    return Batch(client or _client.get_client())
