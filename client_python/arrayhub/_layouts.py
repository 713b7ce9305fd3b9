"""NumPy's memory orders for new arrays: "C", "F", and "K"/"A" resolved from a prototype.

The server creates C-ordered arrays. An array in another order is a new C array whose axes
are the wanted ones permuted (the reversed shape for "F"), seen through a transposed view:
its strides and its ``flags.c_contiguous``/``f_contiguous`` are NumPy's, and it is a new
array that nothing else shares. Unlike NumPy's, it is a view of the server array it was
made as (``flags.owndata`` false, ``ArrayInfo.base_handle`` set): see docs/semantics.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Optional

import numpy as np
from numpy.typing import DTypeLike

from arrayhub import _dtypes, _ops
from arrayhub._errors import ArrayHubValueError, client_error
from arrayhub._ndarray import ndarray
from arrayhub.v1 import arrays_pb2

__all__ = ["check_order", "fortran", "axis_order", "new_in_order", "copy_in_order", "has_order"]

#: A permutation of axes, the slowest-varying first (None: C order).
Permutation = Optional[tuple[int, ...]]


def check_order(order: Any, allowed: tuple[str, ...] = ("C", "F", "A", "K")) -> None:
    """NumPy's ValueErrors for an ``order`` argument (None is "K"; creation functions allow
    "C" and "F" only)."""
    if order is None and "K" in allowed:
        return
    if order not in ("C", "F", "A", "K"):
        raise client_error(ArrayHubValueError,
                           f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    if order not in allowed:
        raise client_error(ArrayHubValueError, "only 'C' or 'F' order is permitted")


def fortran(ndim: int) -> Permutation:
    """The permutation of F order for ``ndim`` axes (None where it is C order too)."""
    return tuple(reversed(range(ndim))) if ndim > 1 else None


def axis_order(order: Optional[str], prototype: Any) -> Permutation:
    """The axis permutation of a new array like ``prototype`` (an arrayhub or NumPy array) in
    ``order``: "F" reverses the axes; "A" is "F" for a prototype that is F-contiguous and not
    C-contiguous; "K" (or None) keeps the prototype's order of strides, largest first, as
    NumPy's. None for C order."""
    check_order(order)
    ndim = prototype.ndim
    if order == "F":
        return fortran(ndim)
    if order == "C" or ndim < 2 or prototype.flags.c_contiguous:
        return None
    if order == "A":
        return fortran(ndim) if prototype.flags.f_contiguous else None
    strides = prototype.strides
    permutation = tuple(sorted(range(ndim), key=lambda d: -abs(strides[d])))
    return None if permutation == tuple(range(ndim)) else permutation


def has_order(a: ndarray, permutation: Permutation) -> bool:
    """Whether ``a`` is already laid out as a new array in that order would be."""
    if permutation is None:
        return bool(a.flags.c_contiguous)
    if permutation == tuple(reversed(range(a.ndim))):
        return bool(a.flags.f_contiguous)
    return False


def new_in_order(make: Callable[[tuple[int, ...]], ndarray], shape: Sequence[int],
                 permutation: Permutation) -> ndarray:
    """``make(shape)`` (a new C-ordered array) laid out with its axes in ``permutation``:
    ``make`` of the permuted shape, transposed back (a view)."""
    shape = tuple(shape)
    if permutation is None or permutation == tuple(range(len(shape))):
        return make(shape)
    created = make(tuple(shape[p] for p in permutation))
    return created.transpose(tuple(int(i) for i in np.argsort(permutation)))


def copy_in_order(a: ndarray, permutation: Permutation,
                  dtype: DTypeLike | None = None) -> ndarray:
    """A copy of ``a`` (cast to ``dtype`` as astype casts) with its axes laid out in
    ``permutation``: one Elementwise copy into a new array of that layout."""
    target = a.dtype if dtype is None else _dtypes.normalize(dtype)
    if permutation is None or permutation == tuple(range(a.ndim)):
        return a.astype(target, order="C") if target != a.dtype else a.copy()
    if not np.can_cast(a.dtype, target, "same_kind"):
        # The ArrayOp cast that NumPy's unsafe casts need (C order), then the layout.
        a = a.astype(target, order="C")
    client = a.client
    out = new_in_order(lambda shape: _ops.create(client, arrays_pb2.CreateRequest(
        dtype=_dtypes.to_wire(target), shape=shape, empty=arrays_pb2.EmptySpec())),
        a.shape, permutation)
    return _ops.elementwise("copy", (a,), out=out)
