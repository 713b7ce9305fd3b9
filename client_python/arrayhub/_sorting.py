"""partition and argpartition (the server's selection ops), lexsort and sort_complex (composed
from its stable sort).

partition and argpartition select on the server (std::nth_element on the CPU backend, a
radix select on the GPU): each element at a kth position is where a sort puts it, smaller or
equal ones before, greater or equal ones after, NaNs last; the order of the others is
unspecified, as NumPy's. NumPy 2 removed ``msort``; arrayhub does not have it either.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, Optional

import numpy as np

from arrayhub import _ops
from arrayhub._errors import (ArrayHubAxisError, ArrayHubTypeError, ArrayHubValueError,
                              client_error)
from arrayhub._ndarray import ndarray

__all__ = ["partition", "argpartition", "lexsort", "sort_complex"]


def _check_kth(kth: Any, length: int) -> list[int]:
    """NumPy's checks of the partition indices (host values; an arrayhub ``kth`` is read);
    returns them as a list of ints."""
    kth = kth.get() if isinstance(kth, ndarray) else np.asarray(kth)
    if kth.dtype.kind not in "iub":
        raise client_error(ArrayHubTypeError, "Partition index must be integer")
    if kth.ndim > 1:
        raise client_error(ArrayHubValueError,
                           "setting an array element with a sequence. The requested array "
                           "would exceed the maximum number of dimension of 1.")
    kth = [int(k) for k in kth.reshape(-1).tolist()]
    if length == 0:  # NumPy checks nothing against an empty axis.
        return kth
    for k in kth:
        position = k + length if k < 0 else k
        if not 0 <= position < length:
            raise client_error(ArrayHubValueError, f"kth(={position}) out of bounds ({length})")
    return kth


def _axis_length(a: ndarray, axis: Optional[int]) -> int:
    if axis is None:
        return a.size
    if a.ndim == 0:
        raise client_error(ArrayHubAxisError,
                           f"axis {axis} is out of bounds for array of dimension 0")
    axis = operator.index(axis)
    if not -a.ndim <= axis < a.ndim:
        raise client_error(ArrayHubAxisError,
                           f"axis {axis} is out of bounds for array of dimension {a.ndim}")
    return a.shape[axis]


def partition(a: ndarray, kth: Any, axis: Optional[int] = -1, kind: str = "introselect",
              order: Any = None) -> ndarray:
    """A copy with the ``kth`` elements (int or sequence) where a sort puts them, smaller
    or equal ones before and greater or equal ones after (the flattened array when axis is
    None): a selection on the server, not a sort."""
    from arrayhub._manipulation import _refuse_order

    _refuse_order(order, "partition")
    a = _ops.require_array(a, "partition")
    positions = _check_kth(kth, _axis_length(a, axis))
    return _ops.array_op("partition", (a,), axis=axis, ints=positions)[0]


def argpartition(a: ndarray, kth: Any, axis: Optional[int] = -1, kind: str = "introselect",
                 order: Any = None) -> ndarray:
    """The indices that partition ``a`` (see :func:`partition`)."""
    from arrayhub._manipulation import _refuse_order

    _refuse_order(order, "argpartition")
    a = _ops.require_array(a, "argpartition")
    if a.ndim == 0 and axis == -1:  # NumPy's: a 0-d array argpartitions as a 1-element one.
        a, axis = a.reshape(1), 0
    positions = _check_kth(kth, _axis_length(a, axis))
    return _ops.array_op("argpartition", (a,), axis=axis, ints=positions)[0]


def lexsort(keys: Any, axis: int = -1) -> ndarray:
    """Indices that sort by the last key, ties broken by the one before it, and so on: one
    stable argsort per key on the server, from the first key to the last."""
    from arrayhub._array_api import take_along_axis

    if isinstance(keys, ndarray):
        keys = [keys[i] for i in range(keys.shape[0])] if keys.ndim else [keys]
    elif not isinstance(keys, (Sequence, tuple)) or len(keys) == 0:
        raise client_error(ArrayHubTypeError, "need sequence of keys with len > 0 in lexsort")
    keys = [_ops.require_array(k, "lexsort") for k in keys]
    if not keys:
        raise client_error(ArrayHubTypeError, "need sequence of keys with len > 0 in lexsort")
    if any(k.shape != keys[0].shape for k in keys):
        raise client_error(ArrayHubValueError, "all keys need to be the same shape")
    if keys[0].ndim == 0:
        from arrayhub._creation import full
        return full((), 0, np.intp)
    _axis_length(keys[0], axis)
    order = keys[0].argsort(axis)
    for key in keys[1:]:
        reordered = take_along_axis(key, order, axis)
        order = take_along_axis(order, reordered.argsort(axis), axis)
    return order


def sort_complex(a: ndarray) -> ndarray:
    """A copy sorted by real part, then imaginary part (the last axis), as a complex array:
    complex64 for (u)int8 and (u)int16, complex128 for the other real dtypes, as NumPy."""
    from arrayhub._manipulation import sort

    result = sort(_ops.require_array(a, "sort_complex"))
    if result.dtype.kind == "c":
        return result
    return result.astype(np.complex64 if result.dtype.char in "bhBH" else np.complex128)
