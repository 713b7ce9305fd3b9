"""NumPy 2's joining functions (vstack, hstack, dstack, column_stack, row_stack, concat, block)
and atleast_1d/2d/3d, composed from the server's views and ``concatenate``: a few queued ops
in the client's pipeline each, never a download. Their argument checks and messages are
NumPy's."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, Optional

import numpy as np
from numpy.typing import DTypeLike

from arrayhub import _ops
from arrayhub._errors import ArrayHubTypeError, ArrayHubValueError, client_error
from arrayhub._manipulation import expand_dims
from arrayhub._ndarray import ndarray

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "vstack", "row_stack", "hstack",
           "dstack", "column_stack", "concat", "block"]

_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


def _sequence(arrays: Any, what: str) -> list[ndarray]:
    if not hasattr(arrays, "__getitem__"):
        raise client_error(ArrayHubTypeError, 'arrays to stack must be passed as a "sequence" '
                                              'type such as list or tuple.')
    return [_ops.require_array(a, what) for a in arrays]


def _join(arrays: Sequence[ndarray], axis: Optional[int], dtype: DTypeLike | None,
          casting: str) -> ndarray:
    """numpy.concatenate with ``casting``: the server casts under 'same_kind'; the other rules
    are checked here, and 'unsafe' casts are made first."""
    if casting not in _CASTINGS:
        raise client_error(ArrayHubValueError, "casting must be one of 'no', 'equiv', 'safe', "
                                               f"'same_kind', 'unsafe' (got {casting!r})")
    if casting == "same_kind" or not arrays:
        return _ops.array_op("concatenate", arrays, axis=axis, dtype=dtype)[0]
    target = (np.dtype(dtype) if dtype is not None
              else np.result_type(*(a.dtype for a in arrays)))
    for a in arrays:
        if not np.can_cast(a.dtype, target, casting):
            raise client_error(ArrayHubTypeError,
                               f"Cannot cast array data from {a.dtype!r} to {target!r} "
                               f"according to the rule '{casting}'")
    cast = [a if a.dtype == target else a.astype(target) for a in arrays]
    return _ops.array_op("concatenate", cast, axis=axis)[0]


def _atleast(arrays: tuple[Any, ...], ndim: int, what: str) -> Any:
    results = []
    for a in arrays:
        a = _ops.require_array(a, what)
        if a.ndim < ndim:
            # NumPy's placement of the new axes: (1,) * k + shape for 1 and 2 dimensions;
            # atleast_3d adds one in front of 1-D and one behind 1-D and 2-D arrays.
            if ndim == 3 and a.ndim in (1, 2):
                axes = (0, 2) if a.ndim == 1 else (2,)
            else:
                axes = tuple(range(ndim - a.ndim))
            a = expand_dims(a, axes)
        results.append(a)
    return results[0] if len(results) == 1 else tuple(results)


def atleast_1d(*arys: ndarray) -> Any:
    """Each array as a view with at least one axis (the array itself when it has one); one
    array for one argument, else a tuple."""
    return _atleast(arys, 1, "atleast_1d")


def atleast_2d(*arys: ndarray) -> Any:
    """Each array as a view with at least two axes (new axes in front)."""
    return _atleast(arys, 2, "atleast_2d")


def atleast_3d(*arys: ndarray) -> Any:
    """Each array as a view with at least three axes: (N,) -> (1, N, 1), (M, N) -> (M, N, 1),
    as NumPy."""
    return _atleast(arys, 3, "atleast_3d")


def _as_tuple(value: Any) -> tuple[ndarray, ...]:
    return value if isinstance(value, tuple) else (value,)


def vstack(tup: Sequence[ndarray], *, dtype: DTypeLike | None = None,
           casting: str = "same_kind") -> ndarray:
    """Arrays joined along the first axis, 1-D ones as rows."""
    arrays = _sequence(tup, "vstack")
    return _join(_as_tuple(atleast_2d(*arrays)) if arrays else [], 0, dtype, casting)


def row_stack(tup: Sequence[ndarray], *, dtype: DTypeLike | None = None,
              casting: str = "same_kind") -> ndarray:
    """Deprecated alias of :func:`vstack`, as in NumPy 2."""
    warnings.warn("`row_stack` alias is deprecated. Use `np.vstack` directly.",
                  DeprecationWarning, stacklevel=2)
    return vstack(tup, dtype=dtype, casting=casting)


def hstack(tup: Sequence[ndarray], *, dtype: DTypeLike | None = None,
           casting: str = "same_kind") -> ndarray:
    """Arrays joined along the second axis (the first for 1-D arrays)."""
    arrays = _sequence(tup, "hstack")
    arrays = list(_as_tuple(atleast_1d(*arrays))) if arrays else []
    axis = 0 if arrays and arrays[0].ndim == 1 else 1
    return _join(arrays, axis, dtype, casting)


def dstack(tup: Sequence[ndarray]) -> ndarray:
    """Arrays joined along the third axis (after :func:`atleast_3d`)."""
    arrays = _sequence(tup, "dstack")
    return _join(_as_tuple(atleast_3d(*arrays)) if arrays else [], 2, None, "same_kind")


def column_stack(tup: Sequence[ndarray]) -> ndarray:
    """1-D arrays as columns (and 2-D arrays as they are) joined along the second axis."""
    arrays = []
    for a in _sequence(tup, "column_stack"):
        if a.ndim < 2:
            a = expand_dims(a, (-1,) if a.ndim == 1 else (0, 1))
        arrays.append(a)
    return _join(arrays, 1, None, "same_kind")


def concat(arrays: Sequence[ndarray], /, axis: Optional[int] = 0, *,
           dtype: DTypeLike | None = None, casting: str = "same_kind") -> ndarray:
    """The array API's name for numpy.concatenate (no ``out``)."""
    return _join(_sequence(arrays, "concat"), axis, dtype, casting)


def _block_depths(arrays: Any, index: list[Any]) -> tuple[list[Any], int]:
    """NumPy's _block_check_depths_match: the index of a leaf (ending in None where a list is
    empty) and the most dimensions of a leaf; checks that every leaf is equally deep."""
    if isinstance(arrays, tuple):
        raise client_error(ArrayHubTypeError,
                           f"{_block_index(index)} is a tuple. Only lists can be used to "
                           f"arrange blocks, and np.block does not allow implicit "
                           f"conversion from tuple to ndarray.")
    if isinstance(arrays, list) and len(arrays) > 0:
        results = [_block_depths(arr, index + [i]) for i, arr in enumerate(arrays)]
        first_index, max_ndim = results[0]
        for other_index, ndim in results[1:]:
            max_ndim = max(max_ndim, ndim)
            if len(other_index) != len(first_index):
                raise client_error(
                    ArrayHubValueError,
                    f"List depths are mismatched. First element was at depth "
                    f"{len(first_index)}, but there is an element at depth "
                    f"{len(other_index)} ({_block_index(other_index)})")
            if other_index[-1] is None:
                first_index = other_index
        return first_index, max_ndim
    if isinstance(arrays, list):
        return index + [None], 0
    return index, _ops.require_array(arrays, "block").ndim


def _block_index(index: list[Any]) -> str:
    return "arrays" + "".join(f"[{i}]" for i in index if i is not None)


def _block_join(arrays: Any, depth: int, max_depth: int, ndim: int) -> ndarray:
    if depth < max_depth:
        parts = [_block_join(a, depth + 1, max_depth, ndim) for a in arrays]
        return _ops.array_op("concatenate", parts, axis=-(max_depth - depth))[0]
    if arrays.ndim < ndim:
        arrays = expand_dims(arrays, tuple(range(ndim - arrays.ndim)))
    return arrays


def block(arrays: Any) -> ndarray:
    """A new array assembled from nested lists of blocks (arrayhub arrays), as numpy.block:
    the innermost lists join along the last axis, the next ones along the one before, ..."""
    first_index, leaf_ndim = _block_depths(arrays, [])
    depth = len(first_index)
    if first_index and first_index[-1] is None:
        raise client_error(ArrayHubValueError,
                           f"List at {_block_index(first_index)} cannot be empty")
    result = _block_join(arrays, 0, depth, max(depth, leaf_ndim))
    return result.copy() if depth == 0 else result
