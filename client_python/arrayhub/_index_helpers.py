"""Index helpers composed from server ops: argwhere, flatnonzero, the diagonal and triangle
index generators, ix_, ravel_multi_index and unravel_index.

Each is NumPy's own recipe (nonzero of a mask, arange, reshapes and integer arithmetic) with
every step a server op, so the indices are made where the data lives. Index arrays are
int64 (NumPy's intp). Two things read a value back: nonzero's result size (as in NumPy and
CuPy, the shape depends on the data), and the bounds checks of ``ravel_multi_index(mode=
'raise')`` and ``unravel_index``, which wait for one boolean (CuPy's ravel_multi_index does
too in that mode; its default, 'wrap', does not wait, NumPy's 'raise' is kept here).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any, Callable, Optional

import numpy as np

from arrayhub import _creation, _ops
from arrayhub._errors import ArrayHubTypeError, ArrayHubValueError, client_error
from arrayhub._manipulation import nonzero, stack
from arrayhub._matrix_functions import tri
from arrayhub._ndarray import ndarray

__all__ = ["argwhere", "flatnonzero", "diag_indices", "diag_indices_from", "tril_indices",
           "tril_indices_from", "triu_indices", "triu_indices_from", "mask_indices", "ix_",
           "ravel_multi_index", "unravel_index"]

_INTP = np.dtype(np.intp)


def argwhere(a: ndarray) -> ndarray:
    """The indices of the nonzero elements, one row per element: shape (N, a.ndim)."""
    a = _ops.require_array(a, "argwhere")
    if a.ndim == 0:  # NumPy: as a 1-D array, then no columns.
        return argwhere(a.reshape(1))[:, :0]
    return stack(nonzero(a), axis=1)


def flatnonzero(a: ndarray) -> ndarray:
    """The indices of the nonzero elements of the flattened ``a``."""
    return nonzero(_ops.require_array(a, "flatnonzero").ravel())[0]


def diag_indices(n: int, ndim: int = 2) -> tuple[ndarray, ...]:
    """The indices of the main diagonal of an ``ndim``-dimensional array of side ``n``: one
    array ``arange(n)``, ``ndim`` times (the same array, as NumPy's)."""
    index = _creation.arange(operator.index(n))
    return (index,) * operator.index(ndim)


def diag_indices_from(arr: ndarray) -> tuple[ndarray, ...]:
    """:func:`diag_indices` for ``arr``, which must be at least 2-D with equal sides."""
    arr = _ops.require_array(arr, "diag_indices_from")
    if arr.ndim < 2:
        raise client_error(ArrayHubValueError, "input array must be at least 2-d")
    if len(set(arr.shape)) != 1:
        raise client_error(ArrayHubValueError, "All dimensions of input must be of equal length")
    return diag_indices(arr.shape[0], arr.ndim)


def tril_indices(n: int, k: int = 0, m: Optional[int] = None) -> tuple[ndarray, ndarray]:
    """Row and column indices of the lower triangle (at and below the k-th diagonal) of an
    n x m array, in row-major order."""
    return nonzero(tri(n, m, k=k, dtype=bool))


def triu_indices(n: int, k: int = 0, m: Optional[int] = None) -> tuple[ndarray, ndarray]:
    """Row and column indices of the upper triangle (at and above the k-th diagonal)."""
    return nonzero(~tri(n, m, k=operator.index(k) - 1, dtype=bool))


def _require_2d(arr: Any, what: str) -> ndarray:
    arr = _ops.require_array(arr, what)
    if arr.ndim != 2:
        raise client_error(ArrayHubValueError, "input array must be 2-d")
    return arr


def tril_indices_from(arr: ndarray, k: int = 0) -> tuple[ndarray, ndarray]:
    """:func:`tril_indices` for the shape of the 2-D ``arr``."""
    arr = _require_2d(arr, "tril_indices_from")
    return tril_indices(arr.shape[-2], k=k, m=arr.shape[-1])


def triu_indices_from(arr: ndarray, k: int = 0) -> tuple[ndarray, ndarray]:
    """:func:`triu_indices` for the shape of the 2-D ``arr``."""
    arr = _require_2d(arr, "triu_indices_from")
    return triu_indices(arr.shape[-2], k=k, m=arr.shape[-1])


def mask_indices(n: int, mask_func: Callable[[ndarray, Any], Any],
                 k: Any = 0) -> tuple[ndarray, ...]:
    """The indices where ``mask_func(ones((n, n)), k)`` is nonzero (``mask_func`` is e.g.
    :func:`arrayhub.triu`; NumPy's own functions route here through their protocol)."""
    mask = mask_func(_creation.ones((operator.index(n), n), int), k)
    return nonzero(_ops.elementwise("not_equal", (mask, 0)))


def ix_(*args: Any) -> tuple[ndarray, ...]:
    """An open mesh from 1-D sequences: argument k becomes an array with length-1 axes but
    the k-th, so that ``a[ix_(rows, cols)]`` selects their cross product. Host sequences are
    uploaded (as CuPy does); boolean ones become the indices of their True elements."""
    out = []
    ones = (1,) * len(args)
    for k, new in enumerate(args):
        if not isinstance(new, ndarray):
            host = np.asarray(new)
            new = _creation.asarray(host.astype(_INTP) if host.size == 0 else host)
        if new.ndim != 1:
            raise client_error(ArrayHubValueError, "Cross index must be 1 dimensional")
        if new.dtype == np.bool_:
            new = nonzero(new)[0]
        out.append(new.reshape(ones[:k] + (-1,) + ones[k + 1:]))
    return tuple(out)


def _index_array(value: Any) -> ndarray:
    """An index operand as an int64 array (host integers uploaded); floats refused with
    NumPy's message (its cast to intp is 'same_kind')."""
    if not isinstance(value, ndarray):
        value = _creation.asarray(np.asarray(value))
    if value.dtype.kind not in "biu":
        raise client_error(ArrayHubTypeError, "only int indices permitted")
    return value.astype(_INTP, copy=False)


def _dims(dims: Any) -> tuple[int, ...]:
    dims = (operator.index(dims),) if not isinstance(dims, Sequence) else \
        tuple(operator.index(d) for d in dims)
    if math.prod(max(d, 0) for d in dims) > np.iinfo(_INTP).max:
        raise client_error(ArrayHubValueError, "invalid dims: array size defined by dims is "
                                               "larger than the maximum possible size.")
    return dims


def _check_order(order: str, allowed: str = "CFAK") -> bool:
    """Whether ``order`` means Fortran order; NumPy's message for an unknown one."""
    if order not in ("C", "F", "A", "K"):
        raise client_error(ArrayHubValueError,
                           f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    if order not in allowed:
        raise client_error(ArrayHubValueError, "only 'C' or 'F' order is permitted")
    return order == "F"


def _strides(dims: tuple[int, ...], fortran: bool) -> list[int]:
    """The element stride of each axis of a C (or Fortran) ordered array of shape ``dims``."""
    strides, step = [0] * len(dims), 1
    for axis in (range(len(dims)) if fortran else reversed(range(len(dims)))):
        strides[axis] = step
        step *= dims[axis]
    return strides


def _any(mask: ndarray) -> bool:
    """Whether any element of ``mask`` is true: one boolean read back from the server."""
    return bool(_ops.reduce("any", mask))


def ravel_multi_index(multi_index: Any, dims: Any, mode: Any = "raise",
                      order: str = "C") -> ndarray:
    """The flat index of each multi-index into an array of shape ``dims``. ``mode`` (one,
    or one per axis) handles out-of-range indices: 'raise' (checked on the server, one value
    read back), 'wrap' or 'clip'. Python integers give a 0-d array (NumPy: a scalar)."""
    dims = _dims(dims)
    fortran = _check_order(order)
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    for one in modes:
        if one not in ("raise", "wrap", "clip"):
            raise client_error(ArrayHubValueError,
                               f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {one!r})")
    if len(modes) != len(dims):
        raise client_error(ArrayHubValueError, f"list of clipmodes has wrong length "
                                               f"({len(modes)} instead of {len(dims)})")
    indices = [_index_array(i) for i in multi_index]
    if len(indices) != len(dims):
        raise client_error(ArrayHubValueError,
                           f"parameter multi_index must be a sequence of length {len(dims)}")
    if any(m != "raise" and d == 0 for m, d in zip(modes, dims)):
        raise client_error(ArrayHubValueError,
                           "cannot unravel if shape has zero entries (is empty).")
    invalid, flat = None, None
    for index, size, one, stride in zip(indices, dims, modes, _strides(dims, fortran)):
        if one == "wrap":
            index = index % size
        elif one == "clip":
            index = _ops.elementwise("clip", (index, 0, size - 1))
        else:
            outside = (index < 0) | (index >= size)
            invalid = outside if invalid is None else invalid | outside
        term = index * stride
        flat = term if flat is None else flat + term
    if invalid is not None and _any(invalid):
        raise client_error(ArrayHubValueError, "invalid entry in coordinates array")
    return flat


def unravel_index(indices: Any, shape: Any, order: str = "C") -> tuple[ndarray, ...]:
    """The multi-index of each flat index into an array of ``shape``, as a tuple of arrays
    of ``indices``'s shape. An index outside the array raises NumPy's ValueError (checked on
    the server; the offending value is read back only then)."""
    flat = _index_array(indices)
    fortran = _check_order(order, "CF")
    shape = _dims(shape)
    size = math.prod(shape)
    invalid = (flat < 0) | (flat >= size)
    if _any(invalid):
        value = flat[invalid].ravel()[0].item()
        raise client_error(ArrayHubValueError,
                           f"index {value} is out of bounds for array with size {size}")
    coordinates = [None] * len(shape)
    for axis in (range(len(shape)) if fortran else reversed(range(len(shape)))):
        coordinates[axis] = flat % shape[axis]
        flat = flat // shape[axis]
    return tuple(coordinates)
