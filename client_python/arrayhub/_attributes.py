"""NumPy's functions that read an array's attributes (numpy.shape, numpy.ndim, numpy.size),
as CuPy has them: the client knows them, so nothing goes to the server. NumPy's own reach
them through __array_function__ (``numpy.shape(x)``), which code mixing the two calls."""

from __future__ import annotations

import operator
from typing import Any, Optional

import numpy as np

from arrayhub._ndarray import ndarray

__all__ = ["shape", "ndim", "size"]


def shape(a: Any) -> tuple[int, ...]:
    """The shape of an array (numpy.shape; other objects through NumPy)."""
    return a.shape if isinstance(a, ndarray) else np.shape(a)


def ndim(a: Any) -> int:
    """The number of axes (numpy.ndim; other objects through NumPy)."""
    return a.ndim if isinstance(a, ndarray) else np.ndim(a)


def size(a: Any, axis: Optional[int] = None) -> int:
    """The number of elements, or along ``axis`` (numpy.size; other objects through NumPy)."""
    if not isinstance(a, ndarray):
        return np.size(a, axis)
    if axis is None:
        return a.size
    return a.shape[operator.index(axis)]
