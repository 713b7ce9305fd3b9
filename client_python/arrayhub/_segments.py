"""Arrays assembled along one axis from pieces of server arrays, by runs the client worked out
on the host (delete, insert, pad).

A run ``(source, start, step, length)`` is ``length`` consecutive positions of the result
along ``axis`` taken from ``sources[source]`` at ``start``, ``start + step``, ... with step 1,
-1 or 0 (one element repeated): one basic index (a view) selects it. The result is the
concatenation of those views, every op queued in the client's pipeline, so no call waits for
the server. A result of many runs (more than :data:`MAX_PIECES`) uploads its index array
instead and is one ``take``: one upload instead of thousands of ops. The callers describe a
result by runs, not by an index per element, so that the host never holds arrays as long as
the server's for the common cases (deleting or inserting a few positions, narrow pads).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

import numpy as np

from arrayhub import _dtypes, _ops
from arrayhub._manipulation import broadcast_to
from arrayhub._ndarray import ndarray
from arrayhub.v1 import arrays_pb2

__all__ = ["gather", "runs_of_map", "along", "new_array", "from_host", "MAX_PIECES"]

#: The most views a result is concatenated from; beyond, its index array is uploaded.
MAX_PIECES = 32

Run = tuple[int, int, int, int]


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


def runs_of_map(source: np.ndarray, index: np.ndarray) -> list[Run]:
    """An index map (position ``j`` from ``sources[source[j]]`` at ``index[j]``) as runs,
    each as long as it goes, greedily from the left. For short maps: the loop is per run."""
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
        ends[s] = np.minimum.accumulate(broken[::-1])[::-1]
    runs: list[Run] = []
    i = 0
    while i < m:
        s = int(step[i]) if i < m - 1 and same[i] else 2
        end = int(ends[s][i]) if s in ends else i
        runs.append((int(source[i]), int(index[i]), s if s in ends else 1, end - i + 1))
        i = end + 1
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


def _flat_index(runs: Sequence[Run], offsets: np.ndarray) -> np.ndarray:
    """The runs as one index into the sources joined along the axis (vectorized)."""
    table = np.asarray(runs, dtype=np.intp).reshape(-1, 4)
    lengths = table[:, 3]
    run = np.repeat(np.arange(len(table)), lengths)
    within = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return (offsets[table[run, 0]] + table[run, 1] + table[run, 2] * within).astype(np.intp)


def gather(sources: Sequence[ndarray], runs: Sequence[Run], axis: int) -> ndarray:
    """A new C-contiguous array: ``sources`` (one dtype, equal shapes but along ``axis``)
    gathered along ``axis`` by ``runs`` (see the module's doc)."""
    first = sources[0]
    client = _ops.client_for(*sources)
    runs = [r for r in runs if r[3] > 0]
    if not runs:
        shape = list(first.shape)
        shape[axis] = 0
        return new_array(client, shape, first.dtype)
    if len(runs) <= MAX_PIECES:
        pieces = [_piece(sources[s], axis, start, step, length)
                  for s, start, step, length in runs]
        return _ops.array_op("concatenate", pieces, axis=axis)[0]
    joined = (first if len(sources) == 1
              else _ops.array_op("concatenate", list(sources), axis=axis)[0])
    offsets = np.cumsum([0] + [s.shape[axis] for s in sources[:-1]])
    index = _ops.upload(_flat_index(runs, offsets), client)
    return _ops.array_op("take", (joined, index), axis=axis)[0]
