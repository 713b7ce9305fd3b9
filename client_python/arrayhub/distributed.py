"""Collectives across the server's devices, in one call on a list of arrays (one per device),
as ``torch.distributed`` and mpi4py name them, and helpers that split an array over devices
and join it back (docs/devices.md, "Collectives").

Each collective is one ``Collective`` RPC: rank ``i`` is the device of ``arrays[i]``, and the
server runs every rank's part in this session's queue on that device, after what was issued
before (queued operations are sent first), so the results can be used at once. On GPUs the
daemon runs them on NCCL, through a communicator per set of devices that it makes once and
reuses; on a CPU daemon's virtual devices (``--cpu-devices N``) it computes the same values.

The results are new C-contiguous arrays of the session, one per rank on that rank's device, in
rank order (:func:`reduce`: one, on the root's device). The reductions take the dtypes NCCL
has: bool (``"min"``, ``"max"``), int8, uint8, int32, uint32, int64, uint64, float16, float32,
float64, and complex64/complex128 for ``"sum"`` and ``"avg"``; ``"avg"`` needs a floating or
complex dtype. :func:`broadcast`, :func:`all_gather` and :func:`all_to_all` move bytes and
take every dtype. The server refuses the rest (a dtype, shapes that differ, two arrays on one
device) before anything runs.

:func:`scatter` and :func:`gather` are built from copies between devices
(:meth:`arrayhub.ndarray.to_device`), :func:`arrayhub.array_split` and
:func:`arrayhub.concatenate`: no collective of their own.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence
from typing import Any

from arrayhub import _devices, _manipulation, _ndarray, _ops, _shape_functions
from arrayhub._errors import ArrayHubTypeError, ArrayHubValueError, client_error
from arrayhub.v1 import arrays_pb2

__all__ = ["all_reduce", "reduce", "broadcast", "all_gather", "reduce_scatter", "all_to_all",
           "scatter", "gather"]

_Request = arrays_pb2.CollectiveRequest

#: The reduction ops, by the names the functions take.
_OPS = {"sum": _Request.SUM, "prod": _Request.PROD, "min": _Request.MIN,
        "max": _Request.MAX, "avg": _Request.AVG}


def _reduce_op(op: Any, what: str) -> int:
    if not isinstance(op, str) or op not in _OPS:
        choices = ", ".join(repr(name) for name in _OPS)
        raise client_error(ArrayHubValueError, f"{what}: op must be one of {choices}, not {op!r}")
    return _OPS[op]


def _sequence(values: Any, what: str, of: str) -> list[Any]:
    """``values`` as a list: a sequence of ``of``, not one array or a string."""
    if isinstance(values, (_ndarray.ndarray, str, bytes)) or not isinstance(values, Iterable):
        raise client_error(ArrayHubTypeError,
                           f"{what}: expected a sequence of {of}, got {type(values).__name__}")
    listed = list(values)
    if not listed:
        raise client_error(ArrayHubValueError, f"{what}: expected at least one of {of}, got none")
    return listed


def _ranks(arrays: Any, what: str) -> list[_ndarray.ndarray]:
    """The arrays of a collective, one per rank, checked to be arrayhub arrays."""
    listed = _sequence(arrays, what, "arrayhub.ndarray (one per device)")
    return [_ops.require_array(array, f"{what}: arrays[{i}]") for i, array in enumerate(listed)]


def _collective(kind: int, arrays: list[_ndarray.ndarray],
                **fields: Any) -> list[_ndarray.ndarray]:
    """One Collective call in the session the operation runs in; its results wrapped (each
    knows its device from its ArrayInfo)."""
    client = _ops.client_for(*arrays)
    # Named by handle: a result still queued is sent first (as CopyToDevice's source is), and
    # _rpc sends whatever else is queued before the call.
    request = _Request(kind=kind, handles=[_ops.handle_of(array) for array in arrays], **fields)
    response = client._rpc("Collective", request)
    return [_ndarray.ndarray._wrap(client, info) for info in response.results]


def all_reduce(arrays: Sequence[_ndarray.ndarray], op: str = "sum") -> list[_ndarray.ndarray]:
    """Every rank gets ``op`` over all the inputs, elementwise: one array per input, on that
    input's device, in order.

    ``arrays`` holds one array per rank, on distinct devices, all of one dtype and shape.
    ``op`` is ``"sum"``, ``"prod"``, ``"min"``, ``"max"`` (in the dtype, as NumPy's add,
    multiply, fmin and fmax: min and max ignore NaN unless every value is NaN, as NCCL does) or
    ``"avg"`` (the sum divided by the number of ranks). On GPUs this is NCCL's ncclAllReduce.
    """
    ranks = _ranks(arrays, "all_reduce")
    return _collective(_Request.ALL_REDUCE, ranks, op=_reduce_op(op, "all_reduce"))


def reduce(arrays: Sequence[_ndarray.ndarray], root: int = 0,
           op: str = "sum") -> _ndarray.ndarray:
    """``op`` over all the inputs, elementwise, as :func:`all_reduce`, given only to rank
    ``root`` (an index of ``arrays``): one array, on ``arrays[root]``'s device. On GPUs this is
    NCCL's ncclReduce."""
    ranks = _ranks(arrays, "reduce")
    code = _reduce_op(op, "reduce")
    try:
        rank = operator.index(root)
    except TypeError:
        raise client_error(ArrayHubTypeError,
                           f"reduce: root must be an integer, not {type(root).__name__}") \
            from None
    (result,) = _collective(_Request.REDUCE, ranks, op=code, root=rank)
    return result


def broadcast(array: _ndarray.ndarray, devices: Sequence[Any]) -> list[_ndarray.ndarray]:
    """A copy of ``array`` on every device of ``devices`` (:class:`arrayhub.cuda.Device` or
    their ids, distinct, including ``array``'s own), in ``devices`` order. On GPUs this is
    NCCL's ncclBroadcast from the array's device; it takes every dtype."""
    source = _ops.require_array(array, "broadcast: array")
    indices = [_devices.device_index(device)
               for device in _sequence(devices, "broadcast", "devices")]
    return _collective(_Request.BROADCAST, [source], devices=indices)


def all_gather(arrays: Sequence[_ndarray.ndarray]) -> list[_ndarray.ndarray]:
    """Every rank gets the inputs (at least 1-d) concatenated along axis 0, in rank order: one
    array per input, on that input's device. On GPUs this is NCCL's ncclAllGather; it takes
    every dtype."""
    return _collective(_Request.ALL_GATHER, _ranks(arrays, "all_gather"))


def reduce_scatter(arrays: Sequence[_ndarray.ndarray], op: str = "sum") -> list[_ndarray.ndarray]:
    """``op`` over all the inputs, elementwise (as :func:`all_reduce`), split along axis 0
    into as many equal parts as there are ranks: rank ``i`` gets part ``i``, on its input's
    device. ``shape[0]`` must be a multiple of the number of ranks. On GPUs this is NCCL's
    ncclReduceScatter."""
    ranks = _ranks(arrays, "reduce_scatter")
    return _collective(_Request.REDUCE_SCATTER, ranks, op=_reduce_op(op, "reduce_scatter"))


def all_to_all(arrays: Sequence[_ndarray.ndarray]) -> list[_ndarray.ndarray]:
    """Each input split along axis 0 into as many equal parts as there are ranks: rank ``j``
    gets part ``j`` of every input, concatenated in rank order, on its input's device.
    ``shape[0]`` must be a multiple of the number of ranks. On GPUs this is NCCL's grouped
    sends and receives; it takes every dtype."""
    return _collective(_Request.ALL_TO_ALL, _ranks(arrays, "all_to_all"))


def scatter(array: _ndarray.ndarray, devices: Sequence[Any],
            axis: int = 0) -> list[_ndarray.ndarray]:
    """``array`` split along ``axis`` into ``len(devices)`` parts as
    :func:`numpy.array_split` splits it (the first ``shape[axis] % len(devices)`` parts one
    longer), part ``i`` copied to ``devices[i]`` (:class:`arrayhub.cuda.Device` or its id): a
    new C-contiguous array there, also on ``array``'s own device. Copies between devices go
    device to device (peer to peer between GPUs)."""
    source = _ops.require_array(array, "scatter: array")
    indices = [_devices.device_index(device)
               for device in _sequence(devices, "scatter", "devices")]
    parts = _shape_functions.array_split(source, len(indices), axis=axis)
    return [_devices.copy_to_device(part, index) for part, index in zip(parts, indices)]


def gather(arrays: Sequence[_ndarray.ndarray], device: Any = None,
           axis: int = 0) -> _ndarray.ndarray:
    """The arrays concatenated along ``axis`` on ``device`` (:class:`arrayhub.cuda.Device` or
    its id; default the current device), as :func:`numpy.concatenate`: each one of another
    device is copied there first (device to device), then joined there. The inverse of
    :func:`scatter`."""
    parts = _ranks(arrays, "gather")
    with _devices.placed(device):
        here = _ops.client_for(*parts)._current_device()
        return _manipulation.concatenate([part.to_device(here) for part in parts], axis=axis)
