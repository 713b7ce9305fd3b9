"""numpy.delete, numpy.insert and numpy.append on server arrays.

Which positions are kept or inserted depends only on the shape and on ``obj`` (host data), so
the client works out the result's index map with NumPy's own rules (and NumPy's errors) and
the server assembles it from views of the array and the values (_segments.gather): queued ops,
no download. Values given as host data are uploaded (one value becomes a queued Create)."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from arrayhub import _ops
from arrayhub._errors import (ArrayHubIndexError, ArrayHubTypeError, ArrayHubValueError,
                              client_error)
from arrayhub._manipulation import broadcast_to, expand_dims
from arrayhub._ndarray import ndarray
from arrayhub._segments import from_host, gather
from arrayhub._shape_functions import moveaxis, numpy_checks, shape_text

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


def delete(arr: ndarray, obj: Any, axis: Optional[int] = None) -> ndarray:
    """A new array without the sub-arrays at ``obj`` (an int, a slice, integer indices or a
    boolean mask) along ``axis`` (of the flattened array when None)."""
    arr = _ops.require_array(arr, "delete")
    _host_obj(obj, "delete")
    arr, axis = _flat_and_axis(arr, axis)
    n = arr.shape[axis]
    keep = np.ones(n, dtype=bool)
    if isinstance(obj, slice):
        keep[obj] = False
    else:
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
            keep[obj] = False
        elif obj.dtype == bool:
            if obj.shape != (n,):
                raise client_error(ArrayHubValueError,
                                   "boolean array argument obj to delete must be one "
                                   f"dimensional and match the axis length of {n}")
            keep = ~obj
        else:
            with numpy_checks():
                keep[obj,] = False
    kept = np.flatnonzero(keep)
    return gather([arr], np.zeros(len(kept), dtype=np.intp), kept, axis)


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
        source = np.repeat([0, 1, 0], [index, new.shape[axis], n - index])
        position = np.concatenate([np.arange(index), np.arange(new.shape[axis]),
                                   np.arange(index, n)])
        return gather([arr, new], source, position, axis)
    if indices.size == 0 and not isinstance(obj, np.ndarray):
        indices = indices.astype(np.intp)
    with numpy_checks():
        indices[indices < 0] += n
        count = len(indices)
        order = indices.argsort(kind="mergesort")
        indices[order] += np.arange(count)
        kept = np.ones(n + count, dtype=bool)
        kept[indices] = False
    values = _values(values, arr, 0, None)
    shape = arr.shape[:axis] + (count,) + arr.shape[axis + 1:]
    new = _fit(values, shape, fancy=True)
    source = np.where(kept, 0, 1)
    position = np.empty(n + count, dtype=np.intp)
    position[kept] = np.arange(n)
    position[indices] = np.arange(count)
    return gather([arr, new], source, position, axis)


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
