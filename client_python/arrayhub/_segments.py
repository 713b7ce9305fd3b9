"""Arrays assembled along one axis from pieces of server arrays, by an index map the client
computed on the host (delete, insert, pad).

Position ``j`` of the result along ``axis`` is element ``index[j]`` of ``sources[source[j]]``
along that axis. The map is cut into runs that one basic index selects (consecutive, reversed
or repeated elements of one source), and the result is the concatenation of those views: every
op is queued in the client's pipeline, so no call waits for the server. A map of many runs
(more than :data:`MAX_PIECES`) is uploaded instead and the result is one ``take``: one upload
instead of thousands of ops.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

import numpy as np

from arrayhub import _dtypes, _ops
from arrayhub._manipulation import broadcast_to
from arrayhub._ndarray import ndarray
from arrayhub.v1 import arrays_pb2

__all__ = ["gather", "along", "new_array", "from_host", "MAX_PIECES"]

#: The most views a result is concatenated from; beyond, its index map is uploaded.
MAX_PIECES = 32


def along(axis: int, entry: Any) -> tuple[Any, ...]:
    """The index that applies ``entry`` to axis ``axis`` and takes every other axis whole."""
    return (slice(None),) * axis + (entry,)


def new_array(client: Any, shape: Sequence[int], dtype: np.dtype,
              fill: Optional[np.ndarray] = None) -> ndarray:
    """A new array of ``client`` (a queued Create): every element ``fill`` (a 0-d NumPy array
    of ``dtype``), or uninitialised when None."""
    if fill is None:
        kind: dict[str, Any] = {"empty": arrays_pb2.EmptySpec()}
    else:
        kind = {"full": arrays_pb2.FullSpec(value=_dtypes.scalar_to_proto(fill.item()))}
    request = arrays_pb2.CreateRequest(dtype=_dtypes.to_wire(dtype),
                                       shape=[int(n) for n in shape], **kind)
    return _ops.create(client, request)


def from_host(client: Any, data: np.ndarray) -> ndarray:
    """``data`` (host values an argument gave) on the server: one value is a queued Create,
    more are uploaded."""
    if data.size == 1:
        return new_array(client, data.shape, data.dtype, data.reshape(()))
    return _ops.upload(np.ascontiguousarray(data), client)


def _runs(source: np.ndarray, index: np.ndarray,
          limit: int) -> Optional[list[tuple[int, int, int, int]]]:
    """The map as runs ``(source, start, step, length)`` with step 1, -1 or 0, each as long as
    it goes (greedily, from the left); None when there are more than ``limit``."""
    m = len(index)
    if m == 0:
        return []
    step = np.diff(index)
    same = source[1:] == source[:-1]
    positions = np.arange(m - 1)
    # For each step: the first pair at or after j that does not continue a run of that step.
    ends = {}
    for s in (1, -1, 0):
        broken = np.where((step == s) & same, m - 1, positions)
        ends[s] = np.minimum.accumulate(broken[::-1])[::-1] if m > 1 else broken
    runs: list[tuple[int, int, int, int]] = []
    i = 0
    while i < m:
        if len(runs) == limit:
            return None
        s = int(step[i]) if i < m - 1 and same[i] else 1
        if i < m - 1 and same[i] and s in ends:
            end = int(ends[s][i])
            runs.append((int(source[i]), int(index[i]), s, end - i + 1))
            i = end + 1
        else:
            runs.append((int(source[i]), int(index[i]), 1, 1))
            i += 1
    return runs


def _piece(array: ndarray, axis: int, start: int, step: int, length: int) -> ndarray:
    if step == 1 or length == 1:
        return _ops.getitem(array, along(axis, slice(start, start + length)))
    if step == -1:
        stop = start - length
        return _ops.getitem(array, along(axis, slice(start, stop if stop >= 0 else None, -1)))
    one = _ops.getitem(array, along(axis, slice(start, start + 1)))
    shape = list(array.shape)
    shape[axis] = length
    return broadcast_to(one, tuple(shape))


def gather(sources: Sequence[ndarray], source: np.ndarray, index: np.ndarray,
           axis: int) -> ndarray:
    """A new C-contiguous array: ``sources`` (one dtype, equal shapes but along ``axis``)
    gathered along ``axis`` by the map ``source``, ``index`` (see the module's doc)."""
    first = sources[0]
    client = _ops.client_for(*sources)
    runs = _runs(np.asarray(source), np.asarray(index, dtype=np.intp), MAX_PIECES)
    if runs == []:
        shape = list(first.shape)
        shape[axis] = 0
        return new_array(client, shape, first.dtype)
    if runs is not None:
        pieces = [_piece(sources[s], axis, start, step, length)
                  for s, start, step, length in runs]
        return _ops.array_op("concatenate", pieces, axis=axis)[0]
    joined = (first if len(sources) == 1
              else _ops.array_op("concatenate", list(sources), axis=axis)[0])
    offsets = np.cumsum([0] + [s.shape[axis] for s in sources[:-1]])
    flat = (offsets[np.asarray(source)] + np.asarray(index)).astype(np.intp)
    return _ops.array_op("take", (joined, _ops.upload(flat, client)), axis=axis)[0]
