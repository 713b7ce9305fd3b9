"""NumPy 2's shape functions (stacking, splitting, axes, broadcasting, flips) composed from the
server's views and array ops: each is a few queued ops in the client's pipeline, computed where
the data lives and never downloaded. Argument checks that need no data run here, with NumPy's
own functions where NumPy has them, so the messages are NumPy's."""

from __future__ import annotations

import contextlib
import operator
import warnings
from collections.abc import Iterator, Sequence
from typing import Any, Optional, Union

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple
from numpy.typing import DTypeLike

from arrayhub import _ops
from arrayhub._errors import (ArrayHubAxisError, ArrayHubIndexError, ArrayHubOverflowError,
                              ArrayHubTypeError, ArrayHubValueError, client_error)
from arrayhub._manipulation import broadcast_to, expand_dims, flip, transpose
from arrayhub._ndarray import ndarray
from arrayhub._segments import along, new_array

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "vstack", "row_stack", "hstack",
           "dstack", "column_stack", "concat", "array_split", "hsplit", "vsplit", "dsplit",
           "moveaxis", "rollaxis", "permute_dims", "unstack", "broadcast_shapes",
           "broadcast_arrays", "flipud", "fliplr", "rot90", "resize", "block"]

_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


@contextlib.contextmanager
def numpy_checks() -> Iterator[None]:
    """Runs NumPy's argument checks; what they raise becomes the ArrayHub error of the same
    kind with NumPy's message."""
    try:
        yield
    except np.exceptions.AxisError as error:
        raise client_error(ArrayHubAxisError, str(error)) from None
    except IndexError as error:
        raise client_error(ArrayHubIndexError, str(error)) from None
    except ValueError as error:
        raise client_error(ArrayHubValueError, str(error)) from None
    except TypeError as error:
        raise client_error(ArrayHubTypeError, str(error)) from None
    except OverflowError as error:
        raise client_error(ArrayHubOverflowError, str(error)) from None


def shape_text(shape: tuple[int, ...]) -> str:
    """A shape as NumPy's C code writes it in messages: (3,1), (2,), ()."""
    return "(" + ",".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


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


def array_split(ary: ndarray, indices_or_sections: Union[int, Sequence[int]],
                axis: int = 0) -> list[ndarray]:
    """Views of ``ary`` cut along ``axis`` into ``indices_or_sections`` parts of sizes that
    differ by at most one, or at the given indices (NumPy's rules for both)."""
    ary = _ops.require_array(ary, "array_split")
    try:
        total = ary.shape[axis]
    except IndexError:
        raise client_error(ArrayHubIndexError, "tuple index out of range") from None
    axis = operator.index(axis) % ary.ndim
    try:
        points = [0, *indices_or_sections, total]
        sections = len(points) - 1
    except TypeError:
        sections = int(indices_or_sections)
        if sections <= 0:
            raise client_error(ArrayHubValueError,
                               "number sections must be larger than 0.") from None
        each, extras = divmod(total, sections)
        sizes = [0] + extras * [each + 1] + (sections - extras) * [each]
        points = np.cumsum(sizes).tolist()
    return [_ops.getitem(ary, along(axis, slice(points[i], points[i + 1])))
            for i in range(sections)]


def _split(ary: ndarray, indices_or_sections: Any, axis: int) -> list[ndarray]:
    """numpy.split on views: equal sections or the given indices."""
    try:
        len(indices_or_sections)
    except TypeError:
        if ary.shape[axis] % indices_or_sections:
            raise client_error(ArrayHubValueError,
                               "array split does not result in an equal division") from None
    return array_split(ary, indices_or_sections, axis)


def hsplit(ary: ndarray, indices_or_sections: Any) -> list[ndarray]:
    """:func:`array_split`'s views along the second axis (the first for 1-D arrays), in
    equal sections."""
    ary = _ops.require_array(ary, "hsplit")
    if ary.ndim == 0:
        raise client_error(ArrayHubValueError,
                           "hsplit only works on arrays of 1 or more dimensions")
    return _split(ary, indices_or_sections, 1 if ary.ndim > 1 else 0)


def vsplit(ary: ndarray, indices_or_sections: Any) -> list[ndarray]:
    """Views along the first axis, in equal sections; arrays of 2 or more dimensions."""
    ary = _ops.require_array(ary, "vsplit")
    if ary.ndim < 2:
        raise client_error(ArrayHubValueError,
                           "vsplit only works on arrays of 2 or more dimensions")
    return _split(ary, indices_or_sections, 0)


def dsplit(ary: ndarray, indices_or_sections: Any) -> list[ndarray]:
    """Views along the third axis, in equal sections; arrays of 3 or more dimensions."""
    ary = _ops.require_array(ary, "dsplit")
    if ary.ndim < 3:
        raise client_error(ArrayHubValueError,
                           "dsplit only works on arrays of 3 or more dimensions")
    return _split(ary, indices_or_sections, 2)


def moveaxis(a: ndarray, source: Union[int, Sequence[int]],
             destination: Union[int, Sequence[int]]) -> ndarray:
    """A view with the axes ``source`` moved to ``destination``, the others in order."""
    a = _ops.require_array(a, "moveaxis")
    with numpy_checks():
        source = normalize_axis_tuple(source, a.ndim, "source")
        destination = normalize_axis_tuple(destination, a.ndim, "destination")
    if len(source) != len(destination):
        raise client_error(ArrayHubValueError, "`source` and `destination` arguments must "
                                               "have the same number of elements")
    order = [n for n in range(a.ndim) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return transpose(a, order)


def rollaxis(a: ndarray, axis: int, start: int = 0) -> ndarray:
    """A view with ``axis`` rolled back to position ``start`` (NumPy's older
    :func:`moveaxis`)."""
    a = _ops.require_array(a, "rollaxis")
    n = a.ndim
    with numpy_checks():
        axis = normalize_axis_index(axis, n)
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise client_error(ArrayHubAxisError, f"'start' arg requires {-n} <= start < {n + 1}, "
                                              f"but {start} was passed in")
    if axis < start:
        start -= 1
    axes = list(range(n))
    axes.remove(axis)
    axes.insert(start, axis)
    return transpose(a, axes)


def permute_dims(a: ndarray, axes: Optional[Sequence[int]] = None) -> ndarray:
    """The array API's name for :func:`transpose`."""
    return transpose(_ops.require_array(a, "permute_dims"), axes)


def unstack(x: ndarray, /, *, axis: int = 0) -> tuple[ndarray, ...]:
    """The views ``x[..., i, ...]`` along ``axis``, as a tuple (array API)."""
    x = _ops.require_array(x, "unstack")
    if x.ndim == 0:
        raise client_error(ArrayHubValueError, "Input array must be at least 1-d.")
    with numpy_checks():
        (axis,) = normalize_axis_tuple(axis, x.ndim, "source")
    return tuple(_ops.getitem(x, along(axis, i)) for i in range(x.shape[axis]))


def broadcast_shapes(*args: Any) -> tuple[int, ...]:
    """The shape that arrays of the given shapes broadcast to (computed here)."""
    with numpy_checks():
        return np.broadcast_shapes(*args)


def broadcast_arrays(*args: ndarray, subok: bool = False) -> tuple[ndarray, ...]:
    """The arrays broadcast to one shape: read-only views, except arrays already of that
    shape, given back as they are. (``subok`` changes nothing: arrayhub has no subclasses.)"""
    arrays = [_ops.require_array(a, "broadcast_arrays") for a in args]
    shape = broadcast_shapes(*(a.shape for a in arrays))
    return tuple(a if a.shape == shape else broadcast_to(a, shape) for a in arrays)


def flipud(m: ndarray) -> ndarray:
    """A view with the first axis reversed."""
    m = _ops.require_array(m, "flipud")
    if m.ndim < 1:
        raise client_error(ArrayHubValueError, "Input must be >= 1-d.")
    return flip(m, 0)


def fliplr(m: ndarray) -> ndarray:
    """A view with the second axis reversed."""
    m = _ops.require_array(m, "fliplr")
    if m.ndim < 2:
        raise client_error(ArrayHubValueError, "Input must be >= 2-d.")
    return flip(m, 1)


def rot90(m: ndarray, k: int = 1, axes: Sequence[int] = (0, 1)) -> ndarray:
    """A view of ``m`` turned by 90 degrees ``k`` times, from the first of ``axes`` towards
    the second."""
    axes = tuple(axes)
    if len(axes) != 2:
        raise client_error(ArrayHubValueError, "len(axes) must be 2.")
    m = _ops.require_array(m, "rot90")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == m.ndim:
        raise client_error(ArrayHubValueError, "Axes must be different.")
    if (axes[0] >= m.ndim or axes[0] < -m.ndim or axes[1] >= m.ndim
            or axes[1] < -m.ndim):
        raise client_error(ArrayHubValueError,
                           f"Axes={axes} out of range for array of ndim={m.ndim}.")
    k %= 4
    if k == 0:
        return _ops.getitem(m, slice(None))
    if k == 2:
        return flip(flip(m, axes[0]), axes[1])
    order = list(range(m.ndim))
    order[axes[0]], order[axes[1]] = order[axes[1]], order[axes[0]]
    if k == 1:
        return transpose(flip(m, axes[1]), order)
    return flip(transpose(m, order), axes[1])


def resize(a: ndarray, new_shape: Union[int, Sequence[int]]) -> ndarray:
    """A new array of ``new_shape`` filled with ``a``'s elements (C order), repeated as
    often as needed; zeros when ``a`` is empty."""
    a = _ops.require_array(a, "resize")
    if isinstance(new_shape, (int, np.integer)):
        new_shape = (new_shape,)
    new_size = 1
    for length in new_shape:
        new_size *= length
        if length < 0:
            raise client_error(ArrayHubValueError,
                               "all elements of `new_shape` must be non-negative")
    client = _ops.client_for(a)
    if a.size == 0 or new_size == 0:
        return new_array(client, new_shape, a.dtype, np.zeros((), a.dtype))
    # A new array even for one repeat (NumPy concatenates), never a view of ``a``.
    repeats = -(-new_size // a.size)
    flat = _ops.array_op("tile", (a.reshape(-1),), ints=[repeats])[0]
    return _ops.getitem(flat, slice(0, new_size)).reshape(tuple(new_shape))


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
