"""NumPy-style calls -> requests of compute.proto; answers -> :class:`arrayhub.ndarray`.

Every function here sends exactly one RPC (plus uploads of NumPy scalars used as operands)
and computes nothing on the client: shapes, dtypes and values all come from the server.
Inside an ``arrayhub.batch()`` block, the requests a batch can hold are recorded instead
(see _batch.py) and answer pending arrays.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, Optional, SupportsIndex, Union

import numpy as np
from numpy.typing import DTypeLike

from arrayhub import _client, _dtypes
from arrayhub import _ndarray
from arrayhub._errors import (ArrayHubBatchError, ArrayHubIndexError, ArrayHubTypeError,
                              ArrayHubValueError, ArrayNotFoundError, client_error)
from arrayhub.v1 import arrays_pb2, compute_pb2, types_pb2

#: An array operand: a server array, a weak Python scalar, or a NumPy scalar (strong).
Operand = Union["_ndarray.ndarray", bool, int, float, complex, np.generic]
AxisLike = Union[None, SupportsIndex, Sequence[SupportsIndex]]
ShapeLike = Union[SupportsIndex, Sequence[SupportsIndex]]


def is_operand(value: Any) -> bool:
    """True for values an operation accepts as an operand (see :func:`to_operand`)."""
    return (isinstance(value, (_ndarray.ndarray, np.generic)) or _dtypes.is_python_scalar(value)
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
    """The array's handle, after checking that its session still holds it."""
    if array._client.closed:
        raise client_error(ArrayNotFoundError,
                           f"array {array.handle} was freed when its session "
                           f"{array._client.session_id} closed")
    return array.handle


def array_operand(array: _ndarray.ndarray) -> compute_pb2.Operand:
    """An Operand naming an array: its handle, or for a pending array the op of the batch
    being recorded that makes it."""
    if array._batch is not None:
        return compute_pb2.Operand(batch_result=array._batch.index_of(array._op))
    return compute_pb2.Operand(handle=handle_of(array))


def to_operand(value: Operand, client: _client.Client,
               temporaries: list[_ndarray.ndarray]) -> compute_pb2.Operand:
    """An Operand message for ``value``.

    Python scalars are sent as weak Scalar values (NEP 50). NumPy scalars and 0-d NumPy
    arrays carry a dtype that takes part in promotion, so they are uploaded as 0-d arrays
    (appended to ``temporaries``, which the caller keeps until the call is answered); in a
    batch they are created by the batch instead (a 0-d ``full``). Other NumPy arrays and
    lists are refused, as CuPy does: upload them with ``arrayhub.asarray``.
    """
    if isinstance(value, _ndarray.ndarray):
        return array_operand(value)
    if _dtypes.is_python_scalar(value):
        return compute_pb2.Operand(scalar=_dtypes.scalar_to_proto(value))
    if isinstance(value, np.generic) or (isinstance(value, np.ndarray) and value.ndim == 0):
        if _client.recording.get() is not None:
            value = np.asarray(value)
            return array_operand(create(client, arrays_pb2.CreateRequest(
                dtype=_dtypes.to_wire(value.dtype),
                full=arrays_pb2.FullSpec(value=_dtypes.scalar_to_proto(value.item())))))
        uploaded = upload(np.asarray(value), client)
        temporaries.append(uploaded)
        return compute_pb2.Operand(handle=uploaded.handle)
    raise client_error(ArrayHubTypeError,
                       f"Unsupported type {type(value)}: arrayhub operations take arrayhub "
                       f"arrays and scalars; upload NumPy arrays with arrayhub.asarray()")


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
    if out is not None and out._batch is not None:
        raise client_error(ArrayHubBatchError,
                           "out= (and in-place operators such as +=) cannot write into a "
                           "pending result of an arrayhub.batch(), only into an existing "
                           "array: write t = t + 1 instead of t += 1")
    return out


def _send(client: _client.Client, method: str, request: Any,
          out: Optional[_ndarray.ndarray] = None) -> _ndarray.ndarray:
    """Calls ``method`` for its single array result (``out`` if it wrote there), or records
    the request in the batch being recorded."""
    batch = _client.recording.get()
    if batch is not None:
        return batch.record(client, method, request, out)
    return _result(client, client._rpc(method, request), out)


# -- Transfer ---------------------------------------------------------------------------------

def upload(data: np.ndarray, client: Optional[_client.Client] = None) -> _ndarray.ndarray:
    """Uploads a NumPy array into a new server array."""
    client = client or _client.get_client()
    return _ndarray.ndarray._wrap(client, client._upload(data))


# -- Computation ------------------------------------------------------------------------------

def create(client: _client.Client, request: arrays_pb2.CreateRequest) -> _ndarray.ndarray:
    """Create RPC."""
    return _send(client, "Create", request)


def elementwise(op: str, args: Sequence[Operand], out: Any = None,
                dtype: DTypeLike | None = None) -> _ndarray.ndarray:
    """Elementwise RPC: a ufunc applied with broadcasting, NumPy 2 promotion, optional out."""
    out = _out_array(out)
    client = client_for(*args, out)
    temporaries: list[_ndarray.ndarray] = []
    request = compute_pb2.ElementwiseRequest(
        op=op, operands=[to_operand(a, client, temporaries) for a in args],
        out=handle_of(out) if out is not None else "",
        dtype=_dtypes.to_wire_or_unspecified(dtype))
    return _send(client, "Elementwise", request, out)


def reduce(op: str, a: _ndarray.ndarray, axis: AxisLike = None, *, keepdims: bool = False,
           dtype: DTypeLike | None = None, ddof: int = 0, out: Any = None) -> _ndarray.ndarray:
    """Reduce RPC: sum, prod, min, max, mean, var, std, argmin, argmax, any, all."""
    out = _out_array(out)
    client = client_for(require_array(a, op), out)
    request = compute_pb2.ReduceRequest(
        op=op, input=array_operand(a), axis=axis_list(axis),
        keepdims=keepdims, dtype=_dtypes.to_wire_or_unspecified(dtype), ddof=operator.index(ddof),
        out=handle_of(out) if out is not None else "")
    return _send(client, "Reduce", request, out)


def view(a: _ndarray.ndarray, **op: Any) -> _ndarray.ndarray:
    """View RPC: ``op`` names the one case of ViewRequest's oneof, e.g. ``reshape=...``."""
    client = client_for(require_array(a, next(iter(op))))
    source = array_operand(a)
    if source.HasField("batch_result"):
        request = compute_pb2.ViewRequest(batch_handle=source.batch_result, **op)
    else:
        request = compute_pb2.ViewRequest(handle=source.handle, **op)
    return _send(client, "View", request)


def array_op(op: str, operands: Sequence[Operand], *, dtype: DTypeLike | None = None,
             axis: AxisLike = None, ints: Sequence[SupportsIndex] = (), side: str = "",
             stable: bool = False, split_at_indices: bool = False) -> list[_ndarray.ndarray]:
    """ArrayOp RPC: copy-making manipulations (concatenate, sort, cumsum, ...)."""
    client = client_for(*operands)
    temporaries: list[_ndarray.ndarray] = []
    request = compute_pb2.ArrayOpRequest(
        op=op, operands=[to_operand(o, client, temporaries) for o in operands],
        dtype=_dtypes.to_wire_or_unspecified(dtype), axis=axis_list(axis),
        ints=[operator.index(i) for i in ints], side=side, stable=stable,
        split_at_indices=split_at_indices)
    if _client.recording.get() is not None:
        return [_send(client, "ArrayOp", request)]
    response = client._rpc("ArrayOp", request)
    return [_ndarray.ndarray._wrap(client, info) for info in response.results]


def matmul(a: Operand, b: Operand, out: Any = None) -> _ndarray.ndarray:
    """Matmul RPC with numpy.matmul's rules."""
    out = _out_array(out)
    client = client_for(a, b, out)
    temporaries: list[_ndarray.ndarray] = []
    request = compute_pb2.MatmulRequest(a=to_operand(a, client, temporaries),
                                        b=to_operand(b, client, temporaries),
                                        out=handle_of(out) if out is not None else "")
    return _send(client, "Matmul", request, out)


def tensor_product(op: str, a: Operand, b: Operand, *, axes: int = 0,
                   out: Any = None) -> _ndarray.ndarray:
    """TensorProduct RPC: dot, vdot, inner, outer, tensordot."""
    out = _out_array(out)
    client = client_for(a, b, out)
    temporaries: list[_ndarray.ndarray] = []
    request = compute_pb2.TensorProductRequest(
        op=op, a=to_operand(a, client, temporaries), b=to_operand(b, client, temporaries),
        axes=axes, out=handle_of(out) if out is not None else "")
    return _result(client, client._rpc("TensorProduct", request), out)


def linalg(op: str, *operands: _ndarray.ndarray, **fields: Any) -> list[_ndarray.ndarray]:
    """Linalg RPC: results in NumPy's order."""
    client = client_for(*(require_array(o, op) for o in operands))
    request = compute_pb2.LinalgRequest(
        op=op, operands=[compute_pb2.Operand(handle=handle_of(o)) for o in operands], **fields)
    response = client._rpc("Linalg", request)
    return [_ndarray.ndarray._wrap(client, info) for info in response.results]


# -- Indexing ---------------------------------------------------------------------------------

def _index_items(key: Any, client: _client.Client,
                 temporaries: list[_ndarray.ndarray]) -> list[compute_pb2.IndexItem]:
    """NumPy's index expression as IndexItem messages. Lists and NumPy arrays used as fancy
    indices are uploaded (and kept in ``temporaries`` until the call is answered)."""
    items = []
    for entry in key if isinstance(key, tuple) else (key,):
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
            items.append(compute_pb2.IndexItem(array=handle_of(entry)))
        elif isinstance(entry, (int, np.integer)) and not isinstance(entry, (bool, np.bool_)):
            items.append(compute_pb2.IndexItem(index=operator.index(entry)))
        else:
            index = np.asarray(entry)
            if index.size == 0 and index.dtype.kind == "f":
                index = index.astype(np.intp)  # [] indexes nothing, as in NumPy.
            if index.dtype.kind not in "biu":
                raise client_error(
                    ArrayHubIndexError,
                    "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) "
                    "and integer or boolean arrays are valid indices")
            uploaded = upload(index, client)
            temporaries.append(uploaded)
            items.append(compute_pb2.IndexItem(array=uploaded.handle))
    return items


def getitem(a: _ndarray.ndarray, key: Any) -> _ndarray.ndarray:
    """GetItem RPC: a view for basic indexing, a copy for fancy indexing."""
    client = client_for(a, *(key if isinstance(key, tuple) else (key,)))
    temporaries: list[_ndarray.ndarray] = []
    request = compute_pb2.GetItemRequest(handle=handle_of(a),
                                         index=_index_items(key, client, temporaries))
    return _ndarray.ndarray._wrap(client, client._rpc("GetItem", request))


def setitem(a: _ndarray.ndarray, key: Any, value: Any) -> None:
    """SetItem RPC: ``a[key] = value`` with the value broadcast to the selection. NumPy
    arrays and lists given as values are uploaded first (CuPy accepts them too)."""
    client = client_for(a, value, *(key if isinstance(key, tuple) else (key,)))
    temporaries: list[_ndarray.ndarray] = []
    if not is_operand(value):
        value = upload(np.asarray(value), client)
        temporaries.append(value)
    request = compute_pb2.SetItemRequest(handle=handle_of(a),
                                         index=_index_items(key, client, temporaries),
                                         value=to_operand(value, client, temporaries))
    client._rpc("SetItem", request)


def require_array(value: Any, what: str) -> _ndarray.ndarray:
    """``value`` if it is an arrayhub array; TypeError (as CuPy raises) otherwise."""
    if not isinstance(value, _ndarray.ndarray):
        raise client_error(ArrayHubTypeError,
                           f"{what}: expected an arrayhub.ndarray, got {type(value).__name__} "
                           f"(upload host data with arrayhub.asarray())")
    return value
