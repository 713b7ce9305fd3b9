"""NumPy-style calls -> requests of compute.proto; answers -> :class:`arrayhub.ndarray`.

Each function makes one request. In a pipelined client (the default) a request a Batch can
hold whose result the client can infer (_infer.py) is queued in the client's pipeline and
answers a queued array at once (_pipeline.py); inside an ``arrayhub.batch()`` block it is
recorded in the block (_batch.py); otherwise it is one RPC, sent now (plus uploads of NumPy
scalars used as operands), whose answer describes the result.
"""

from __future__ import annotations

import math
import numbers
import operator
import warnings
from collections.abc import Sequence
from typing import Any, Callable, Optional, SupportsIndex, Union

import numpy as np
from numpy.typing import DTypeLike

from arrayhub import _batch, _client, _dtypes, _infer, _ndarray, _pipeline
from arrayhub._errors import (ArrayHubBatchError, ArrayHubIndexError, ArrayHubOverflowError,
                              ArrayHubTypeError, ArrayHubValueError, ArrayNotFoundError,
                              client_error)
from arrayhub.v1 import arrays_pb2, compute_pb2, types_pb2

#: An array operand: a server array, a weak Python scalar, or a NumPy scalar (strong).
Operand = Union["_ndarray.ndarray", bool, int, float, complex, np.generic]
AxisLike = Union[None, SupportsIndex, Sequence[SupportsIndex]]
ShapeLike = Union[SupportsIndex, Sequence[SupportsIndex]]


def is_operand(value: Any) -> bool:
    """True for values an operation accepts as an operand (see :func:`to_operand`): arrays,
    NumPy and Python scalars (one isinstance for them all: it runs for every operand)."""
    return (isinstance(value, (_ndarray.ndarray, np.generic, bool, int, float, complex))
            or (isinstance(value, np.ndarray) and value.ndim == 0))


def client_for(*values: Any) -> _client.Client:
    """The client an operation on ``values`` runs in.

    All arrays must live on one server. The result belongs to the current client (innermost
    ``with client`` / ``arrayhub.session()``) when that is on the same server, else to the
    session of the first array; with no array at all, to the current client.
    """
    arrays = [v for v in values if isinstance(v, _ndarray.ndarray)]
    if not arrays:
        return _client.get_client()
    connection = arrays[0]._client._connection
    for array in arrays[1:]:
        if array._client._connection is not connection:
            raise client_error(
                ArrayHubValueError,
                f"arrays of different connections (servers) cannot be combined: "
                f"{connection.address} and {array._client._connection.address} "
                f"(move data with x.get() and arrayhub.asarray())")
    current = _client.current_client_if_any()
    if current is not None and current._connection is connection and not current.closed:
        return current
    return arrays[0]._client


def handle_of(array: _ndarray.ndarray) -> str:
    """The array's handle (waiting for a queued array's batch), after checking that its
    session still holds it."""
    if array._client.closed:
        raise client_error(ArrayNotFoundError,
                           f"array {array.handle} was freed when its session "
                           f"{array._client.session_id} closed")
    return array.handle


def meta_of(value: Any) -> Any:
    """What inference (_infer.py) takes for an operand: an array's Meta (its queued one, or
    the server's ArrayInfo as a Meta), or the scalar itself."""
    if not isinstance(value, _ndarray.ndarray):
        return value
    meta = value._meta
    if meta is not None or value._batch is not None:
        return meta
    # Made once per array: its ArrayInfo never changes (_adopt forgets it with the info).
    info, itemsize = value._info, value._dtype.itemsize
    meta = value._meta = _infer.Meta(
        value._shape, value._dtype, tuple(s * itemsize for s in info.strides),
        info.c_contiguous, info.f_contiguous, info.owns_data, info.writable)
    return meta


#: Operand messages that ops name over and over, made once and shared: a request copies its
#: operands, so they are never changed. Batch results by index (up to a pipeline's batch)...
_RESULT_OPERANDS = tuple(compute_pb2.Operand(batch_result=i) for i in range(_pipeline.MAX_OPS))
#: ... and weak Python scalars, by exact type and value (emptied when full).
_SCALAR_OPERANDS: dict[tuple[Any, ...], compute_pb2.Operand] = {}
_MAX_SCALAR_OPERANDS = 1024


def _result_operand(index: int) -> compute_pb2.Operand:
    if index < len(_RESULT_OPERANDS):
        return _RESULT_OPERANDS[index]
    return compute_pb2.Operand(batch_result=index)


def _scalar_operand(value: Any) -> compute_pb2.Operand:
    kind = type(value)
    if kind is not int and kind is not float and kind is not bool:
        return compute_pb2.Operand(scalar=_dtypes.scalar_to_proto(value))
    # 0.0 == -0.0 (and 1 == 1.0 == True): a key holds the type, and a float's sign.
    key = (kind, value, math.copysign(1.0, value)) if kind is float else (kind, value)
    operand = _SCALAR_OPERANDS.get(key)
    if operand is None:
        operand = compute_pb2.Operand(scalar=_dtypes.scalar_to_proto(value))
        if len(_SCALAR_OPERANDS) >= _MAX_SCALAR_OPERANDS:
            _SCALAR_OPERANDS.clear()
        _SCALAR_OPERANDS[key] = operand
    return operand


class _Refs:
    """Names arrays in one request: by index for results of ``target`` (the Batch the request
    is recorded in, None for a call sent now), by handle otherwise, which waits for the
    batch of a queued array, except for results of the pipeline's Batch in flight, which
    ``target`` names by a stand-in until it is sent (:meth:`Batch.forward`). Arrays named by
    handle are held by ``target`` until it has run, NumPy scalars uploaded for a call now are
    held in ``temporaries``."""

    def __init__(self, client: _client.Client, target: Any) -> None:
        self.client = client
        self.target = target
        self.temporaries: list[_ndarray.ndarray] = []

    def index(self, array: _ndarray.ndarray) -> Optional[int]:
        """The op index of ``array`` in the target, or None when it is named by handle."""
        return array._op if array._batch is not None and array._batch is self.target else None

    def handle(self, array: _ndarray.ndarray) -> str:
        target = self.target
        if target is None:
            return handle_of(array)
        target.hold(array)
        if array._batch is not None and array._batch.in_flight_before(target):
            # A result of the pipeline's Batch in flight: its handle is in that Batch's
            # reply, which comes before this one is sent. Naming it now, instead of waiting
            # here, lets the client queue while the server runs.
            return target.forward(array)
        return handle_of(array)

    def array(self, array: _ndarray.ndarray) -> compute_pb2.Operand:
        index = self.index(array)
        if index is not None:
            return _result_operand(index)
        return compute_pb2.Operand(handle=self.handle(array))

    def operand(self, value: Operand) -> compute_pb2.Operand:
        """An Operand message for ``value``.

        Python scalars are sent as weak Scalar values (NEP 50). NumPy scalars and 0-d NumPy
        arrays carry a dtype that takes part in promotion, so they are uploaded as 0-d arrays
        (held until the call is answered); in a batch they are created by the batch instead
        (a 0-d ``full``). Other NumPy arrays and lists are refused, as CuPy does: upload them
        with ``arrayhub.asarray``.
        """
        if isinstance(value, _ndarray.ndarray):
            return self.array(value)
        if _dtypes.is_python_scalar(value):
            return _scalar_operand(value)
        if isinstance(value, np.generic) or (isinstance(value, np.ndarray) and value.ndim == 0):
            value = np.asarray(value)
            if self.target is not None:
                request = arrays_pb2.CreateRequest(
                    dtype=_dtypes.to_wire(value.dtype),
                    full=arrays_pb2.FullSpec(value=_dtypes.scalar_to_proto(value.item())))
                created = self.target.record(self.client, "Create", request,
                                             meta=_infer.contiguous((), value.dtype),
                                             site=_pipeline.user_site())
                return _result_operand(created._op)
            uploaded = upload(value, self.client)
            self.temporaries.append(uploaded)
            return compute_pb2.Operand(handle=uploaded.handle)
        raise client_error(ArrayHubTypeError,
                           f"Unsupported type {type(value)}: arrayhub operations take arrayhub "
                           f"arrays and scalars; upload NumPy arrays with arrayhub.asarray()")

    def out(self, out: Optional[_ndarray.ndarray]) -> dict[str, Any]:
        """The out_array fields for NumPy's out=: an existing array, or a queued result of
        the target (when the server takes out_batch_result)."""
        if out is None:
            return {}
        index = self.index(out)
        if index is not None and self.target._pipeline.batch_fields:
            return {"out_batch_result": index}
        return {"out": self.handle(out)}

    def source(self, array: _ndarray.ndarray, by_handle: str = "handle",
               by_index: str = "batch_handle") -> dict[str, Any]:
        """The fields naming the array a View or GetItem reads."""
        index = self.index(array)
        if index is not None:
            return {by_index: index}
        return {by_handle: self.handle(array)}


def axis_list(axis: AxisLike) -> Optional[types_pb2.AxisList]:
    """AxisList for NumPy's axis argument (None: absent, all axes)."""
    if axis is None:
        return None
    axes = axis if isinstance(axis, Sequence) else [axis]
    return types_pb2.AxisList(axes=[operator.index(a) for a in axes])


def shape_tuple(shape: ShapeLike) -> tuple[int, ...]:
    """NumPy's shape argument (an int or a sequence of ints) as a tuple."""
    if isinstance(shape, Sequence):
        return tuple(operator.index(n) for n in shape)
    return (operator.index(shape),)


def _result(client: _client.Client, info: types_pb2.ArrayInfo,
            out: Optional[_ndarray.ndarray]) -> _ndarray.ndarray:
    if out is not None and info.handle == out.handle:
        return out
    return _ndarray.ndarray._wrap(client, info)


def _out_array(out: Any) -> Optional[_ndarray.ndarray]:
    """NumPy's out= (an array, or a 1-tuple as ufuncs receive it) as an arrayhub array."""
    if isinstance(out, tuple):
        if len(out) != 1:
            raise client_error(ArrayHubValueError,
                               f"out must be a single array, got a tuple of {len(out)}")
        out = out[0]
    if out is not None and not isinstance(out, _ndarray.ndarray):
        raise client_error(ArrayHubTypeError,
                           f"out must be an arrayhub.ndarray, got {type(out).__name__}")
    if out is not None and out._batch is not None and out._batch.is_block:
        raise client_error(ArrayHubBatchError,
                           "out= (and in-place operators such as +=) cannot write into a "
                           "pending result of an arrayhub.batch(), only into an existing "
                           "array: write t = t + 1 instead of t += 1")
    return out


#: arrayhub.fuse's traced values (_fusion._Var), once _fusion is imported: ufuncs and
#: reductions given one build the fused kernel instead of calling the server.
FUSION_VALUE: Optional[type] = None


def pipelined(client: _client.Client) -> bool:
    """Whether an op of ``client`` would be queued (so inferring its result is worth it)."""
    return _client.recording.get() is None and client._pipeline.active


def _submit(client: _client.Client, method: str, build: Callable[[_Refs], Any], *,
            out: Optional[_ndarray.ndarray] = None, meta: Any = None,
            arrays: Sequence[Any] = ()) -> _ndarray.ndarray:
    """One request that gives one array (``out`` if it writes there): recorded in the
    arrayhub.batch() block being recorded, else queued in the client's pipeline, else (sync
    mode, or a server without the pipelined Batch fields) sent now. ``build(refs)`` makes the
    request (the message, or its fields as a dict, which a Batch records without copying a
    message); ``arrays`` are the arrays it names.

    ``meta`` is the inferred result. Without it (a shape that depends on the data, as
    unique's, or a request the server will refuse) the op is queued all the same, and the
    queue sent and waited for at once: one Batch round trip (on the batch lane where the
    daemon is on this host), where a drain and a unary call took up to two. Its error, if
    any, is raised here, with the server's message alone, as a unary call's."""
    block = _client.recording.get()
    if block is not None:
        refs = _Refs(client, block)
        return block.record(client, method, build(refs), out)
    pipeline = client._pipeline
    if pipeline.active and (meta is not None or pipeline.batch_fields):
        # Queued arrays this request must name by handle are waited for first: another
        # pipeline's, and an out= array where the server takes no out_batch_result.
        for array in arrays:
            if (isinstance(array, _ndarray.ndarray) and array._batch is not None
                    and (array._batch._pipeline is not pipeline
                         or array is out and not pipeline.batch_fields)):
                array._info
        return pipeline.submit(client, method, lambda batch: build(_Refs(client, batch)),
                               out, meta, wait=meta is None)
    refs = _Refs(client, None)
    request = build(refs)
    if isinstance(request, dict):
        request = _REQUESTS[method](**request)
    return _result(client, client._rpc(method, request), out)


#: The request message of each method whose builder may answer its fields as a dict.
_REQUESTS = {"Elementwise": compute_pb2.ElementwiseRequest, "Reduce": compute_pb2.ReduceRequest,
             "View": compute_pb2.ViewRequest, "GetItem": compute_pb2.GetItemRequest,
             "CopyToDevice": arrays_pb2.CopyToDeviceRequest}


# -- Transfer ---------------------------------------------------------------------------------

def upload(data: np.ndarray, client: Optional[_client.Client] = None,
           progress: Optional[bool] = None,
           progress_min_bytes: Optional[int] = None) -> _ndarray.ndarray:
    """Uploads a NumPy array into a new server array (progress: see _progress.bar); a small
    one is queued with its bytes instead (_pipeline.INLINE_UPLOAD_BYTES), unless a progress
    bar is asked for. The bytes are copied before this returns: the caller may change ``data``."""
    client = client or _client.get_client()
    inline = client._inline_create_bytes  # 0: the server takes no inline data
    if (inline and data.nbytes <= inline and not progress and pipelined(client)
            and data.dtype != object):
        dtype = _dtypes.normalize(data.dtype)
        values = np.ascontiguousarray(data, dtype=_dtypes.little_endian(dtype)).tobytes()
        request = arrays_pb2.CreateRequest(dtype=_dtypes.to_wire(dtype), shape=data.shape,
                                           data=arrays_pb2.DataSpec(values=values))
        return _submit(client, "Create", lambda refs: request,
                       meta=_infer.contiguous(data.shape, dtype))
    return _ndarray.ndarray._wrap(client, client._upload(data, progress=progress,
                                                         progress_min_bytes=progress_min_bytes))


# -- Computation ------------------------------------------------------------------------------

def create(client: _client.Client, request: arrays_pb2.CreateRequest) -> _ndarray.ndarray:
    """Create RPC."""
    meta = _infer.created(request) if pipelined(client) else None
    return _submit(client, "Create", lambda refs: request, meta=meta)


def elementwise(op: str, args: Sequence[Operand], out: Any = None,
                dtype: DTypeLike | None = None) -> _ndarray.ndarray:
    """Elementwise RPC: a ufunc applied with broadcasting, NumPy 2 promotion, optional out.
    Operands that are all Python scalars become 0-d arrays of NumPy 2's types for them
    (int64, float64, bool, complex128) made on the server: the result is a 0-d array, as
    CuPy's (the server needs an array operand)."""
    if (not isinstance(args[0], _ndarray.ndarray)  # (the common case, tested first)
            and not any(isinstance(a, (_ndarray.ndarray, np.generic, np.ndarray)) for a in args)):
        if FUSION_VALUE is not None and any(isinstance(a, FUSION_VALUE) for a in args):
            return FUSION_VALUE.ufunc(op, tuple(args))  # Traced by arrayhub.fuse.
        args = [_default_typed(a) for a in args]
    if out is not None:
        out = _out_array(out)
    client = client_for(*args, out)
    wire_dtype = _dtypes.to_wire_or_unspecified(dtype)
    meta = None
    if pipelined(client) and all(map(is_operand, args)):
        meta = _infer.elementwise(op, [meta_of(a) for a in args], meta_of(out),
                                  None if dtype is None else _dtypes.normalize(dtype))
    if out is None:  # The common case: its fields, which a Batch records without a copy.
        return _submit(client, "Elementwise", lambda refs: {
            "op": op, "operands": [refs.operand(a) for a in args], "dtype": wire_dtype},
            meta=meta, arrays=args)
    return _submit(client, "Elementwise", lambda refs: compute_pb2.ElementwiseRequest(
        op=op, operands=[refs.operand(a) for a in args], dtype=wire_dtype, **refs.out(out)),
        out=out, meta=meta, arrays=(*args, out))


def _default_typed(value: Any) -> Any:
    """A Python scalar as the 0-d NumPy array of its default dtype (NumPy's conversion);
    anything else unchanged."""
    if not _dtypes.is_python_scalar(value):
        return value
    converted = np.asarray(value)
    if converted.dtype == object:  # An int beyond uint64: NumPy's message.
        raise client_error(ArrayHubOverflowError, "Python int too large to convert to C long")
    return converted


def _ddof_fields(ddof: Any) -> dict[str, Any]:
    """var/std's ``ddof`` on the wire: an integral value in ``ddof``, which every server reads,
    any other real (0.5, NaN, inf) in ``ddof_real``."""
    if isinstance(ddof, (int, np.integer)):
        return {"ddof": operator.index(ddof)}
    if not isinstance(ddof, numbers.Real):
        raise client_error(ArrayHubTypeError,
                           f"ddof must be a real number, not {type(ddof).__name__}")
    value = float(ddof)
    if value.is_integer() and abs(value) < 2**63:
        return {"ddof": int(value)}
    return {"ddof_real": value}


def _warn_no_degrees(a: _ndarray.ndarray, axis: AxisLike, ddof: Any) -> None:
    """NumPy's RuntimeWarning for var/std when ``ddof`` is at least the number of elements
    each result reduces (the result is then inf or NaN). Nothing for an array whose shape
    comes later (a pending result of a batch block) or an axis out of range, which the
    server reports."""
    if a._batch is not None and a._batch.is_block:
        return
    if axis is None:
        count = a.size
    else:
        axes = axis if isinstance(axis, (tuple, list)) else (axis,)
        if not all(-max(a.ndim, 1) <= operator.index(x) < max(a.ndim, 1) for x in axes):
            return
        count = math.prod(a.shape[operator.index(x) % a.ndim] for x in set(axes)) if a.ndim else 1
    if ddof >= count:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=4)


def reduce(op: str, a: _ndarray.ndarray, axis: AxisLike = None, *, keepdims: bool = False,
           dtype: DTypeLike | None = None, ddof: Any = 0, out: Any = None) -> _ndarray.ndarray:
    """Reduce RPC: sum, prod, min, max, mean, var, std, argmin, argmax, any, all."""
    if FUSION_VALUE is not None and isinstance(a, FUSION_VALUE):  # Traced by arrayhub.fuse.
        return a.reduce(op, axis, dtype=dtype, out=out, keepdims=keepdims)
    out = _out_array(out)
    client = client_for(require_array(a, op), out)
    axes, wire_dtype, ddof_fields = axis_list(axis), _dtypes.to_wire_or_unspecified(dtype), \
        _ddof_fields(ddof)
    if op in ("var", "std"):
        _warn_no_degrees(a, axis, ddof)
    meta = None
    if pipelined(client):
        meta = _infer.reduce(op, meta_of(a), axis, keepdims,
                             None if dtype is None else _dtypes.normalize(dtype), ddof,
                             meta_of(out))
    return _submit(client, "Reduce", lambda refs: {
        "op": op, "input": refs.array(a), "axis": axes, "keepdims": keepdims,
        "dtype": wire_dtype, **ddof_fields, **refs.out(out)}, out=out, meta=meta,
        arrays=(a, out))


def view(a: _ndarray.ndarray, **op: Any) -> _ndarray.ndarray:
    """View RPC: ``op`` names the one case of ViewRequest's oneof, e.g. ``reshape=...``."""
    kind, spec = next(iter(op.items()))
    client = client_for(require_array(a, kind))
    meta = _infer.view(meta_of(a), kind, spec) if pipelined(client) else None
    result = _submit(client, "View", lambda refs: {**refs.source(a), **op}, meta=meta,
                     arrays=(a,))
    if result._device != a._device:  # (never with one device: tested first)
        _on_base_device(result, a, meta)
    return result


def _on_base_device(result: _ndarray.ndarray, base: _ndarray.ndarray, meta: Any,
                    entries: tuple[Any, ...] = ()) -> None:
    """A queued view lies on its base's device, whatever device the call runs on (a copy,
    which a reshape or ravel may make, or fancy indexing with ``entries``, on the call's)."""
    if result._batch is None:
        return  # Sent already: the server's answer says where.
    if meta is not None:
        view = not meta.owns_data
    else:  # A result recorded in an arrayhub.batch() block: a view but by fancy indexing.
        view = not any(isinstance(e, _ndarray.ndarray) for e in entries)
    if view:
        result._device = base._device


def array_op(op: str, operands: Sequence[Operand], *, dtype: DTypeLike | None = None,
             axis: AxisLike = None, ints: Sequence[SupportsIndex] = (), side: str = "",
             stable: bool = False, split_at_indices: bool = False) -> list[_ndarray.ndarray]:
    """ArrayOp RPC: copy-making manipulations (concatenate, sort, cumsum, ...)."""
    client = client_for(*operands)
    ints = [operator.index(i) for i in ints]

    def build(refs: _Refs) -> compute_pb2.ArrayOpRequest:
        return compute_pb2.ArrayOpRequest(
            op=op, operands=[refs.operand(o) for o in operands],
            dtype=_dtypes.to_wire_or_unspecified(dtype), axis=axis_list(axis), ints=ints,
            side=side, stable=stable, split_at_indices=split_at_indices)

    meta = None
    queued = pipelined(client)
    if queued and all(is_operand(o) for o in operands):
        meta = _infer.array_op(op, [meta_of(o) for o in operands],
                               None if dtype is None else _dtypes.normalize(dtype), axis, ints)
    if (_client.recording.get() is not None or meta is not None
            or queued and client._pipeline.batch_fields and op not in _batch.SEVERAL_ARRAYS):
        # (An op of several arrays, split or nonzero, cannot be a Batch's op: sent now.)
        return [_submit(client, "ArrayOp", build, meta=meta, arrays=operands)]
    refs = _Refs(client, None)
    response = client._rpc("ArrayOp", build(refs))
    return [_ndarray.ndarray._wrap(client, info) for info in response.results]


def matmul(a: Operand, b: Operand, out: Any = None) -> _ndarray.ndarray:
    """Matmul RPC with numpy.matmul's rules."""
    out = _out_array(out)
    client = client_for(a, b, out)
    meta = (_infer.matmul(meta_of(a), meta_of(b), meta_of(out)) if pipelined(client)
            else None)
    return _submit(client, "Matmul", lambda refs: compute_pb2.MatmulRequest(
        a=refs.operand(a), b=refs.operand(b), **refs.out(out)),
        out=out, meta=meta, arrays=(a, b, out))


def tensor_product(op: str, a: Operand, b: Operand, *, axes: int = 0,
                   out: Any = None) -> _ndarray.ndarray:
    """TensorProduct RPC: dot, vdot, inner, outer, tensordot."""
    out = _out_array(out)
    client = client_for(a, b, out)
    meta = (_infer.tensor_product(op, meta_of(a), meta_of(b), axes, meta_of(out))
            if pipelined(client) else None)
    return _submit(client, "TensorProduct", lambda refs: compute_pb2.TensorProductRequest(
        op=op, a=refs.operand(a), b=refs.operand(b), axes=axes, **refs.out(out)),
        out=out, meta=meta, arrays=(a, b, out))


def _linalg_gives_several(op: str, fields: dict[str, Any]) -> bool:
    """Whether a routine answers a tuple (the server's LinalgGivesSeveral, linalg_rules.cc):
    svd with compute_uv, qr but in mode "r", eigh, eig, slogdet, lstsq."""
    if op == "svd":
        return bool(fields.get("compute_uv", False))
    if op == "qr":
        return fields.get("mode", "") != "r"
    return op in ("eigh", "eig", "slogdet", "lstsq")


def linalg(op: str, *operands: _ndarray.ndarray, **fields: Any) -> list[_ndarray.ndarray]:
    """Linalg RPC: results in NumPy's order. A routine giving one array is queued like any op
    (norm, det, inv and eigvals with their result inferred; solve, cholesky, eigvalsh and the
    like waited for at once, see _submit); the routines giving tuples are sent now."""
    client = client_for(*(require_array(o, op) for o in operands))
    meta = None
    queued = pipelined(client)
    if queued and len(operands) == 1:
        axis = fields.get("axis")
        meta = _infer.linalg(op, meta_of(operands[0]),
                             None if axis is None else tuple(axis.axes),
                             bool(fields.get("keepdims", False)), fields.get("ord", ""))
    if (meta is not None or queued and client._pipeline.batch_fields
            and not _linalg_gives_several(op, fields)):
        return [_submit(client, "Linalg", lambda refs: compute_pb2.LinalgRequest(
            op=op, operands=[refs.array(o) for o in operands], **fields),
            meta=meta, arrays=operands)]
    request = compute_pb2.LinalgRequest(
        op=op, operands=[compute_pb2.Operand(handle=handle_of(o)) for o in operands], **fields)
    response = client._rpc("Linalg", request)
    return [_ndarray.ndarray._wrap(client, info) for info in response.results]


# -- Indexing ---------------------------------------------------------------------------------

def _index_entries(key: Any, client: _client.Client) -> tuple[Any, ...]:
    """NumPy's index expression as a tuple whose lists and NumPy arrays (fancy indices) are
    uploaded as arrayhub arrays."""
    entries = []
    for entry in key if isinstance(key, tuple) else (key,):
        if (entry is Ellipsis or entry is None or isinstance(entry, (slice, _ndarray.ndarray))
                or isinstance(entry, (int, np.integer)) and not isinstance(entry,
                                                                          (bool, np.bool_))):
            entries.append(entry)
            continue
        index = np.asarray(entry)
        if index.size == 0 and index.dtype.kind == "f":
            index = index.astype(np.intp)  # [] indexes nothing, as in NumPy.
        if index.dtype.kind not in "biu":
            raise client_error(
                ArrayHubIndexError,
                "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) "
                "and integer or boolean arrays are valid indices")
        entries.append(upload(index, client))
    return tuple(entries)


def _index_items(entries: tuple[Any, ...], refs: _Refs) -> list[compute_pb2.IndexItem]:
    """Index entries (see _index_entries) as IndexItem messages."""
    items = []
    for entry in entries:
        if entry is Ellipsis:
            items.append(compute_pb2.IndexItem(ellipsis=True))
        elif entry is None:
            items.append(compute_pb2.IndexItem(new_axis=True))
        elif isinstance(entry, slice):
            items.append(compute_pb2.IndexItem(slice=compute_pb2.Slice(
                has_start=entry.start is not None,
                start=operator.index(entry.start) if entry.start is not None else 0,
                has_stop=entry.stop is not None,
                stop=operator.index(entry.stop) if entry.stop is not None else 0,
                step=operator.index(entry.step) if entry.step is not None else 0)))
        elif isinstance(entry, _ndarray.ndarray):
            items.append(compute_pb2.IndexItem(**refs.source(entry, "array", "batch_array")))
        else:
            items.append(compute_pb2.IndexItem(index=operator.index(entry)))
    return items


def getitem(a: _ndarray.ndarray, key: Any) -> _ndarray.ndarray:
    """GetItem RPC: a view for basic indexing, a copy for fancy indexing."""
    client = client_for(a, *(key if isinstance(key, tuple) else (key,)))
    entries = _index_entries(key, client)
    meta = None
    queued = pipelined(client) and client._pipeline.batch_fields
    if queued:
        meta = _infer.getitem(meta_of(a), tuple(meta_of(e) for e in entries))
    if not queued:  # Sync mode, an older server, or an arrayhub.batch() block (which raises).
        refs = _Refs(client, None)
        request = compute_pb2.GetItemRequest(handle=refs.handle(a),
                                             index=_index_items(entries, refs))
        return _ndarray.ndarray._wrap(client, client._rpc("GetItem", request))
    result = _submit(client, "GetItem", lambda refs: {
        **refs.source(a), "index": _index_items(entries, refs)}, meta=meta, arrays=(a, *entries))
    if result._device != a._device:  # (never with one device: tested first)
        _on_base_device(result, a, meta, entries)
    return result


def setitem(a: _ndarray.ndarray, key: Any, value: Any, combine: str = "") -> None:
    """SetItem RPC: ``a[key] = value`` with the value broadcast to the selection. NumPy
    arrays and lists given as values are uploaded first (CuPy accepts them too). With
    ``combine`` (a ufunc's name: add, subtract, multiply, maximum, minimum, fmax, fmin), NumPy's
    ``ufunc.at(a, key, value)``: each selected element is combined with its value, as many
    times as the key selects it, in C order."""
    client = client_for(a, value, *(key if isinstance(key, tuple) else (key,)))
    if not is_operand(value):
        value = upload(np.asarray(value), client)
    entries = _index_entries(key, client)
    refs = _Refs(client, None)
    request = compute_pb2.SetItemRequest(handle=handle_of(a), index=_index_items(entries, refs),
                                         value=refs.operand(value), combine=combine)
    client._rpc("SetItem", request)


def require_array(value: Any, what: str) -> _ndarray.ndarray:
    """``value`` if it is an arrayhub array; TypeError (as CuPy raises) otherwise."""
    if not isinstance(value, _ndarray.ndarray):
        raise client_error(ArrayHubTypeError,
                           f"{what}: expected an arrayhub.ndarray, got {type(value).__name__} "
                           f"(upload host data with arrayhub.asarray())")
    return value
