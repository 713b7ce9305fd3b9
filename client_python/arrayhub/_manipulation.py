"""Shape and array manipulation: views (View RPC) and copy-making operations (ArrayOp RPC)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional, Union

import numpy as np
from numpy.typing import DTypeLike

from arrayhub import _ops
from arrayhub._errors import ArrayHubValueError, client_error
from arrayhub._ndarray import ndarray
from arrayhub._ops import ShapeLike
from arrayhub.v1 import compute_pb2

__all__ = ["reshape", "transpose", "swapaxes", "squeeze", "expand_dims", "broadcast_to",
           "ravel", "diagonal", "copy", "ascontiguousarray", "concatenate", "stack", "split",
           "tile", "repeat", "flip", "roll", "sort", "argsort", "cumsum", "cumprod",
           "searchsorted", "take", "compress", "nonzero"]


def _arrays(values: Sequence[Any], what: str) -> list[ndarray]:
    return [_ops.require_array(v, what) for v in values]


def _ints(value: Union[int, Sequence[int]]) -> list[int]:
    return list(value) if isinstance(value, Sequence) else [value]


def reshape(a: ndarray, shape: ShapeLike, order: str = "C", *,
            copy: Optional[bool] = None) -> ndarray:
    """A view when the layout allows, else a copy; ``copy`` as :meth:`ndarray.reshape`."""
    return _ops.require_array(a, "reshape").reshape(shape, order=order, copy=copy)


def transpose(a: ndarray, axes: Optional[Sequence[int]] = None) -> ndarray:
    """A view with the axes permuted (reversed when ``axes`` is None)."""
    return _ops.require_array(a, "transpose").transpose(axes)


def swapaxes(a: ndarray, axis1: int, axis2: int) -> ndarray:
    """A view with ``axis1`` and ``axis2`` interchanged."""
    return _ops.require_array(a, "swapaxes").swapaxes(axis1, axis2)


def squeeze(a: ndarray, axis: _ops.AxisLike = None) -> ndarray:
    """A view without the length-1 axes (those in ``axis`` only, when given)."""
    return _ops.require_array(a, "squeeze").squeeze(axis)


def expand_dims(a: ndarray, axis: Union[int, Sequence[int]]) -> ndarray:
    """A view with a length-1 axis inserted at each position in ``axis``."""
    return _ops.view(a, expand_dims=compute_pb2.ViewRequest.ExpandDims(axes=_ints(axis)))


def broadcast_to(array: ndarray, shape: ShapeLike) -> ndarray:
    """A read-only view with ``shape`` (strides 0 along broadcast axes)."""
    return _ops.view(array, broadcast_to=compute_pb2.ViewRequest.BroadcastTo(
        shape=_ops.shape_tuple(shape)))


def ravel(a: ndarray, order: str = "C") -> ndarray:
    """A 1-D view when the layout allows, else a copy."""
    return _ops.require_array(a, "ravel").ravel(order)


def diagonal(a: ndarray, offset: int = 0, axis1: int = 0, axis2: int = 1) -> ndarray:
    """A read-only view of the diagonal at ``offset`` of the plane (``axis1``,
    ``axis2``)."""
    return _ops.require_array(a, "diagonal").diagonal(offset, axis1, axis2)


def copy(a: ndarray, order: str = "K") -> ndarray:
    """A new server array with the same contents, laid out in ``order`` ("K", the default,
    keeps ``a``'s layout; no ``subok``)."""
    return _ops.require_array(a, "copy").copy(order)


def ascontiguousarray(a: ndarray, dtype: DTypeLike | None = None) -> ndarray:
    """``a`` itself when it is C-contiguous (and of ``dtype``), else a C-contiguous copy."""
    a = _ops.require_array(a, "ascontiguousarray")
    if dtype is not None and np.dtype(dtype) != a.dtype:
        return a.astype(dtype)
    if a.flags.c_contiguous:
        return a
    return _ops.array_op("ascontiguousarray", (a,))[0]


def concatenate(arrays: Sequence[ndarray], axis: Optional[int] = 0,
                dtype: DTypeLike | None = None) -> ndarray:
    """Joins arrays along an existing axis (flattened first when axis is None)."""
    return _ops.array_op("concatenate", _arrays(arrays, "concatenate"), axis=axis,
                         dtype=dtype)[0]


def stack(arrays: Sequence[ndarray], axis: int = 0, dtype: DTypeLike | None = None) -> ndarray:
    """Joins arrays along a new axis."""
    return _ops.array_op("stack", _arrays(arrays, "stack"), axis=axis, dtype=dtype)[0]


def split(ary: ndarray, indices_or_sections: Union[int, Sequence[int]],
          axis: int = 0) -> list[ndarray]:
    """Views of ``ary`` split into equal sections, or at the given indices, as NumPy."""
    ary = _ops.require_array(ary, "split")
    if isinstance(indices_or_sections, Sequence) or isinstance(indices_or_sections, np.ndarray):
        return _ops.array_op("split", (ary,), axis=axis, ints=list(indices_or_sections),
                             split_at_indices=True)
    return _ops.array_op("split", (ary,), axis=axis, ints=[indices_or_sections])


def tile(A: ndarray, reps: Union[int, Sequence[int]]) -> ndarray:
    """``A`` repeated ``reps`` times along each axis (a new array)."""
    return _ops.array_op("tile", (_ops.require_array(A, "tile"),), ints=_ints(reps))[0]


def repeat(a: ndarray, repeats: Any, axis: Optional[int] = None) -> ndarray:
    """Each element repeated: ``repeats`` is one count, or one per element along
    ``axis`` (of the flattened array when None)."""
    return _ops.require_array(a, "repeat").repeat(repeats, axis)


def flip(m: ndarray, axis: _ops.AxisLike = None) -> ndarray:
    """A view with the order of the elements along ``axis`` (every axis when None)
    reversed, as NumPy's."""
    return _ops.array_op("flip", (_ops.require_array(m, "flip"),), axis=axis)[0]


def roll(a: ndarray, shift: Union[int, Sequence[int]], axis: _ops.AxisLike = None) -> ndarray:
    """Elements shifted by ``shift`` along ``axis`` (the flattened array when None),
    wrapping around."""
    return _ops.array_op("roll", (_ops.require_array(a, "roll"),), axis=axis,
                         ints=_ints(shift))[0]


def sort(a: ndarray, axis: Optional[int] = -1, kind: Optional[str] = None,
         order: Any = None, *, stable: Optional[bool] = None,
         descending: bool = False) -> ndarray:
    """A sorted copy. The server's sort is always stable, whatever ``kind`` or ``stable``
    ask; ``descending=True`` (the Array API's keyword) sorts from largest to smallest, NaNs
    first. No ``order`` (no structured dtypes)."""
    _refuse_order(order, "sort")
    a = _ops.require_array(a, "sort")
    ascending = _ops.array_op("sort", (a,), axis=axis, stable=True)[0]
    return flip(ascending, axis=-1 if axis is None else axis) if descending else ascending


def argsort(a: ndarray, axis: Optional[int] = -1, kind: Optional[str] = None,
            order: Any = None, *, stable: Optional[bool] = None,
            descending: bool = False) -> ndarray:
    """Indices that sort ``a`` along ``axis``; always a stable sort on the server (NumPy's
    default quicksort may order equal elements differently). ``descending=True`` keeps equal
    elements in their original order too, as the Array API asks."""
    _refuse_order(order, "argsort")
    a = _ops.require_array(a, "argsort")
    if not descending:
        return a.argsort(axis)
    if axis is None:
        a, axis = a.ravel(), 0
    # Stable descending: sort the reversed array stably, reverse the result, and map each
    # position i of the reversed array back to n - 1 - i.
    reversed_order = flip(flip(a, axis=axis).argsort(axis), axis=axis)
    return (a.shape[axis] - 1) - reversed_order


def _refuse_order(order: Any, what: str) -> None:
    if order is not None:
        raise client_error(ArrayHubValueError,
                           f"{what}: `order` applies to structured dtypes, which the server "
                           "does not have")


def cumsum(a: ndarray, axis: Optional[int] = None, dtype: DTypeLike | None = None) -> ndarray:
    """Cumulative sum along ``axis`` (of the flattened array when None), in ``dtype``
    (NumPy's accumulation dtype by default). No ``out``."""
    return _ops.require_array(a, "cumsum").cumsum(axis, dtype)


def cumprod(a: ndarray, axis: Optional[int] = None, dtype: DTypeLike | None = None) -> ndarray:
    """Cumulative product along ``axis`` (of the flattened array when None), in ``dtype``
    (NumPy's accumulation dtype by default). No ``out``."""
    return _ops.require_array(a, "cumprod").cumprod(axis, dtype)


def searchsorted(a: ndarray, v: Any, side: str = "left", sorter: Any = None) -> ndarray:
    """Indices where the values ``v`` would be inserted into the sorted 1-D ``a`` to
    keep it sorted (``side`` 'left' or 'right'); with ``sorter``, the indices that sort ``a``
    (``a`` itself need not be sorted), as NumPy's."""
    a = _ops.require_array(a, "searchsorted")
    if sorter is not None:
        a = take(a, sorter)
    return _ops.array_op("searchsorted", (a, v), side=side)[0]


def take(a: ndarray, indices: ndarray, axis: Optional[int] = None) -> ndarray:
    """Elements at ``indices`` along ``axis`` (of the flattened array when None). No
    ``out``/``mode``: indices out of range raise IndexError."""
    return _ops.require_array(a, "take").take(indices, axis)


def compress(condition: Any, a: ndarray, axis: Optional[int] = None) -> ndarray:
    """The slices of ``a`` along ``axis`` (of the flattened array when None) where
    ``condition`` (1-D; a list or NumPy array is uploaded) is true."""
    a = _ops.require_array(a, "compress")
    if not isinstance(condition, ndarray):
        condition = _ops.upload(np.asarray(condition), a.client)
    return _ops.array_op("compress", (a, condition), axis=axis)[0]


def nonzero(a: ndarray) -> tuple[ndarray, ...]:
    """A tuple of index arrays, one per axis, of the non-zero elements."""
    return _ops.require_array(a, "nonzero").nonzero()
