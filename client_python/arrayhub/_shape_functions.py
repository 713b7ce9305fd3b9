"""NumPy 2's splitting, axis and broadcasting functions and flips (array_split, hsplit, vsplit,
dsplit, moveaxis, rollaxis, permute_dims, unstack, broadcast_arrays, broadcast_shapes,
flipud, fliplr, rot90) and resize, composed from the server's views, slices and array ops:
each is a few queued ops in the client's pipeline, computed where the data lives and never
downloaded. Argument checks that need no data run here, with NumPy's own functions where
NumPy has them, so the messages are NumPy's."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, Optional, Union

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from arrayhub import _ops
from arrayhub._errors import (ArrayHubAxisError, ArrayHubIndexError, ArrayHubValueError,
                              client_error)
from arrayhub._manipulation import broadcast_to, flip, transpose
from arrayhub._ndarray import ndarray
from arrayhub._numpy_checks import numpy_checks
from arrayhub._segments import along, new_array

__all__ = ["array_split", "hsplit", "vsplit", "dsplit", "moveaxis", "rollaxis",
           "permute_dims", "unstack", "broadcast_shapes", "broadcast_arrays", "flipud",
           "fliplr", "rot90", "resize"]


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
    return _split_from_rank("vsplit", ary, indices_or_sections, 2, 0)


def dsplit(ary: ndarray, indices_or_sections: Any) -> list[ndarray]:
    """Views along the third axis, in equal sections; arrays of 3 or more dimensions."""
    return _split_from_rank("dsplit", ary, indices_or_sections, 3, 2)


def _split_from_rank(name: str, ary: ndarray, indices_or_sections: Any, least_ndim: int,
                     axis: int) -> list[ndarray]:
    ary = _ops.require_array(ary, name)
    if ary.ndim < least_ndim:
        raise client_error(ArrayHubValueError,
                           f"{name} only works on arrays of {least_ndim} or more dimensions")
    return _split(ary, indices_or_sections, axis)


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
