"""Matrix and tensor products (Matmul and TensorProduct RPCs), with NumPy's rules."""

from __future__ import annotations

import operator
from typing import Any

from arrayhub import _ops
from arrayhub._errors import ArrayHubNotImplementedError, client_error
from arrayhub._ndarray import ndarray

__all__ = ["matmul", "dot", "vdot", "inner", "outer", "tensordot"]


def matmul(x1: Any, x2: Any, out: Any = None) -> ndarray:
    """numpy.matmul: 1-D operands are promoted and the added axis removed; leading (batch)
    axes broadcast."""
    return _ops.matmul(x1, x2, out=out)


def dot(a: Any, b: Any, out: Any = None) -> ndarray:
    """numpy.dot: sums over the last axis of ``a`` and the second-to-last of ``b`` (a matrix
    product for 2-D operands, an inner product for 1-D)."""
    return _ops.tensor_product("dot", a, b, out=out)


def vdot(a: Any, b: Any) -> ndarray:
    """Dot product of the flattened arrays, conjugating ``a``; a 0-d array (as CuPy)."""
    return _ops.tensor_product("vdot", a, b)


def inner(a: Any, b: Any) -> ndarray:
    """numpy.inner: sums over the last axes of ``a`` and ``b``."""
    return _ops.tensor_product("inner", a, b)


def outer(a: Any, b: Any, out: Any = None) -> ndarray:
    """numpy.outer: every element of the flattened ``a`` times every element of the
    flattened ``b``, as a 2-D array."""
    return _ops.tensor_product("outer", a, b, out=out)


def tensordot(a: Any, b: Any, axes: int = 2) -> ndarray:
    """Contracts the last ``axes`` axes of ``a`` with the first of ``b``. Only an int is
    accepted: the wire format has no form for NumPy's pair-of-axis-lists argument."""
    try:
        count = operator.index(axes)
    except TypeError:
        raise client_error(ArrayHubNotImplementedError,
                           "tensordot: only an integer axes argument is supported") from None
    return _ops.tensor_product("tensordot", a, b, axes=count)
