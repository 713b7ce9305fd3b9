"""numpy.delete, numpy.insert and numpy.append on server arrays.

Which positions are kept or inserted depends only on the shape and on ``obj`` (host data), so
the client works out with NumPy's own rules (and NumPy's errors) which slices of the array and
of the values make the result, and the server joins them (_segments.gather): queued ops, no
download. Values given as host data are uploaded (one value becomes a queued Create)."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from arrayhub import _ops
from arrayhub._errors import (ArrayHubIndexError, ArrayHubTypeError, ArrayHubValueError,
                              client_error)
from arrayhub._manipulation import broadcast_to, expand_dims
from arrayhub._ndarray import ndarray
from arrayhub._numpy_checks import numpy_checks, shape_text
from arrayhub._segments import from_host, gather
from arrayhub._shape_functions import moveaxis

__all__ = ["delete", "insert", "append"]


def _host_obj(obj: Any, what: str) -> None:
    if isinstance(obj, ndarray):
        raise client_error(ArrayHubTypeError,
                           f"{what}: obj must be host data (an int, a slice, a list or a NumPy "
                           f"array), not an arrayhub.ndarray")


def _flat_and_axis(arr: ndarray, axis: Optional[int]) -> tuple[ndarray, int]:
    """NumPy's axis=None (the flattened array, its only axis) or the normalized axis."""
    if axis is None:
        if arr.ndim != 1:
            arr = arr.ravel()
        return arr, arr.ndim - 1
    with numpy_checks():
        return arr, normalize_axis_index(axis, arr.ndim)


def _kept(removed: np.ndarray, n: int) -> list[tuple[int, int, int, int]]:
    """The runs of positions of ``range(n)`` between the ``removed`` ones (sorted, unique)."""
    starts = np.concatenate([[0], removed + 1])
    stops = np.concatenate([removed, [n]])
    return [(0, int(a), 1, int(b - a)) for a, b in zip(starts, stops) if b > a]


def delete(arr: ndarray, obj: Any, axis: Optional[int] = None) -> ndarray:
    """A new array without the sub-arrays at ``obj`` (an int, a slice, integer indices or a
    boolean mask) along ``axis`` (of the flattened array when None)."""
    arr = _ops.require_array(arr, "delete")
    _host_obj(obj, "delete")
    arr, axis = _flat_and_axis(arr, axis)
    n = arr.shape[axis]
    if isinstance(obj, slice):
        start, stop, step = obj.indices(n)
        removed = range(start, stop, step)
        if len(removed) and abs(step) == 1:  # one block: no array as long as the axis
            low = min(removed[0], removed[-1])
            runs = [(0, 0, 1, low), (0, low + len(removed), 1, n - low - len(removed))]
        else:
            runs = _kept(np.sort(np.asarray(removed, dtype=np.intp)), n)
        return gather([arr], runs, axis)
    if isinstance(obj, (int, np.integer)) and not isinstance(obj, bool):
        single = True
    else:
        given, obj = obj, np.asarray(obj)
        single = obj.size == 1 and obj.dtype.kind in "ui"
        if obj.size == 0 and not isinstance(given, np.ndarray):
            obj = obj.astype(np.intp)
        elif single:
            obj = obj.item()
    if single:
        if obj < -n or obj >= n:
            raise client_error(ArrayHubIndexError, f"index {obj} is out of bounds for axis "
                                                   f"{axis} with size {n}")
        return gather([arr], _kept(np.array([obj % n]), n), axis)
    if obj.dtype == bool:
        if obj.shape != (n,):
            raise client_error(ArrayHubValueError,
                               "boolean array argument obj to delete must be one "
                               f"dimensional and match the axis length of {n}")
        keep = ~obj
    else:  # NumPy's own indexing checks the indices (and words its errors).
        keep = np.ones(n, dtype=bool)
        with numpy_checks():
            keep[obj,] = False
    return gather([arr], _kept(np.flatnonzero(~keep), n), axis)


def _values(values: Any, arr: ndarray, ndmin: int, moved_to: Optional[int]) -> ndarray:
    """``values`` in ``arr``'s dtype (NumPy's unsafe cast of numpy.array(values, dtype=...)),
    with at least ``ndmin`` axes, its first axis moved to ``moved_to`` when given."""
    if isinstance(values, ndarray):
        if values.dtype != arr.dtype:
            values = values.astype(arr.dtype)
        if values.ndim < ndmin:
            values = expand_dims(values, tuple(range(ndmin - values.ndim)))
        return values if moved_to is None else moveaxis(values, 0, moved_to)
    with numpy_checks():
        host = np.array(values, ndmin=ndmin, dtype=arr.dtype)
    if moved_to is not None:
        host = np.moveaxis(host, 0, moved_to)
    return from_host(_ops.client_for(arr), host)


def _fit(values: ndarray, shape: tuple[int, ...], fancy: bool) -> ndarray:
    """``values`` broadcast into ``shape`` as an assignment does, with its message (that of
    an assignment through an index array when ``fancy``)."""
    extra = values.ndim - len(shape)
    if extra > 0 and all(n == 1 for n in values.shape[:extra]):
        values = values.reshape(values.shape[extra:])
    if values.ndim > len(shape) or any(
            v not in (1, s) for v, s in zip(reversed(values.shape), reversed(shape))):
        raise client_error(ArrayHubValueError, (
            f"shape mismatch: value array of shape {shape_text(values.shape)} could not be "
            f"broadcast to indexing result of shape {shape_text(shape)}") if fancy else (
            f"could not broadcast input array from shape {shape_text(values.shape)} into "
            f"shape {shape_text(shape)}"))
    return values if values.shape == shape else broadcast_to(values, shape)


def insert(arr: ndarray, obj: Any, values: Any, axis: Optional[int] = None) -> ndarray:
    """A new array with ``values`` inserted before the positions ``obj`` (an int, a slice or
    a sequence of ints) along ``axis`` (of the flattened array when None)."""
    arr = _ops.require_array(arr, "insert")
    _host_obj(obj, "insert")
    arr, axis = _flat_and_axis(arr, axis)
    n = arr.shape[axis]
    if isinstance(obj, slice):
        indices = np.arange(*obj.indices(n), dtype=np.intp)
    else:
        indices = np.array(obj)
        if indices.dtype == bool:
            if indices.ndim != 1:
                raise client_error(ArrayHubValueError, "boolean array argument obj to insert "
                                                       "must be one dimensional")
            indices = np.flatnonzero(indices)
        elif indices.ndim > 1:
            raise client_error(ArrayHubValueError, "index array argument obj to insert must be "
                                                   "one dimensional or scalar")
    if indices.size == 1:
        index = indices.item()
        if index < -n or index > n:
            raise client_error(ArrayHubIndexError,
                               f"index {obj} is out of bounds for axis {axis} with size {n}")
        if index < 0:
            index += n
        values = _values(values, arr, arr.ndim, axis if indices.ndim == 0 else None)
        shape = arr.shape[:axis] + (values.shape[axis],) + arr.shape[axis + 1:]
        new = _fit(values, shape, fancy=False)
        runs = [(0, 0, 1, index), (1, 0, 1, new.shape[axis]), (0, index, 1, n - index)]
        return gather([arr, new], runs, axis)
    if indices.size == 0 and not isinstance(obj, np.ndarray):
        indices = indices.astype(np.intp)
    with numpy_checks():
        indices[indices < 0] += n
        count = len(indices)
        order = indices.argsort(kind="mergesort")
        indices[order] += np.arange(count)
    # NumPy marks the old elements' places with a mask of the result's length, indexed by
    # ``indices`` (negative ones count from its end): its checks, without the mask.
    total = n + count
    if indices.dtype.kind not in "iu":
        raise client_error(ArrayHubIndexError, "arrays used as indices must be of integer (or "
                                               "boolean) type")
    outside = (indices >= total) | (indices < -total)
    if outside.any():
        raise client_error(ArrayHubIndexError, f"index {indices[np.argmax(outside)]} is out of "
                                               f"bounds for axis 0 with size {total}")
    values = _values(values, arr, 0, None)
    new = _fit(values, arr.shape[:axis] + (count,) + arr.shape[axis + 1:], fancy=True)
    positions = indices % total
    places = total - len(np.unique(positions))  # two values in one place leave one more
    if places != n:
        raise client_error(ArrayHubValueError, (
            f"NumPy boolean array indexing assignment cannot assign {n} input values to the "
            f"{places} output values where the mask is true") if arr.ndim == 1 else (
            f"shape mismatch: value array of shape {shape_text(arr.shape)} could not be "
            f"broadcast to indexing result of shape "
            f"{shape_text(arr.shape[:axis] + (places,) + arr.shape[axis + 1:])}"))
    return gather([arr, new], _merged(_inserted(positions, n)), axis)


def _inserted(positions: np.ndarray, n: int) -> list[tuple[int, int, int, int]]:
    """Runs of ``arr`` (source 0) and of the values (source 1) where value ``j`` lands at
    ``positions[j]`` (unique) of the result, ``arr``'s elements filling the others in order."""
    runs = []
    taken = 0  # elements of arr placed so far
    for k, j in enumerate(np.argsort(positions, kind="stable")):
        before = int(positions[j]) - k  # arr's elements before the k-th inserted value
        if before > taken:
            runs.append((0, taken, 1, before - taken))
            taken = before
        runs.append((1, int(j), 1, 1))
    runs.append((0, taken, 1, n - taken))
    return runs


def _merged(runs: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Adjacent runs of step 1 that continue each other, as one."""
    merged = runs[:1]
    for source, start, step, length in runs[1:]:
        last = merged[-1]
        if source == last[0] and step == last[2] == 1 and start == last[1] + last[3]:
            merged[-1] = (source, last[1], 1, last[3] + length)
        else:
            merged.append((source, start, step, length))
    return merged


def append(arr: ndarray, values: Any, axis: Optional[int] = None) -> ndarray:
    """A new array: ``arr`` followed by ``values`` along ``axis`` (both flattened when None).
    Host values are uploaded with NumPy's dtype for them (numpy.asarray)."""
    arr = _ops.require_array(arr, "append")
    if not isinstance(values, ndarray):
        values = from_host(_ops.client_for(arr), np.asarray(values))
    if axis is None:
        if arr.ndim != 1:
            arr = arr.ravel()
        values = values.ravel()
        axis = arr.ndim - 1
    return _ops.array_op("concatenate", (arr, values), axis=axis)[0]
