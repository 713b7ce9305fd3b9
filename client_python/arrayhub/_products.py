"""Matrix and tensor products (Matmul and TensorProduct RPCs), with NumPy's rules."""

from __future__ import annotations

import math
import operator
from typing import Any

from arrayhub import _ops
from arrayhub._errors import ArrayHubValueError, client_error
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


def tensordot(a: Any, b: Any, axes: Any = 2) -> ndarray:
    """Contracts the last ``axes`` axes of ``a`` with the first of ``b`` (the server's
    TensorProduct); or, with NumPy's pair of axis lists, ``a``'s axes ``axes[0]`` with
    ``b``'s ``axes[1]``: both operands' axes moved into place (views) and one matmul."""
    try:
        count = operator.index(axes)
    except TypeError:
        return _tensordot_pairs(_ops.require_array(a, "tensordot"),
                                _ops.require_array(b, "tensordot"), axes)
    return _ops.tensor_product("tensordot", a, b, axes=count)


def _tensordot_pairs(a: ndarray, b: ndarray, axes: Any) -> ndarray:
    try:
        axes_a, axes_b = axes
    except ValueError as error:  # NumPy lets the unpacking's own error through.
        raise client_error(ArrayHubValueError, str(error)) from None
    axes_a = [operator.index(i) for i in (axes_a if isinstance(axes_a, (list, tuple))
                                            else [axes_a])]
    axes_b = [operator.index(i) for i in (axes_b if isinstance(axes_b, (list, tuple))
                                            else [axes_b])]
    if len(axes_a) != len(axes_b):
        raise client_error(ArrayHubValueError, "shape-mismatch for sum")
    axes_a = [i + a.ndim if i < 0 else i for i in axes_a]
    axes_b = [i + b.ndim if i < 0 else i for i in axes_b]
    for i, j in zip(axes_a, axes_b):
        if not (0 <= i < a.ndim and 0 <= j < b.ndim) or a.shape[i] != b.shape[j]:
            raise client_error(ArrayHubValueError, "shape-mismatch for sum")
    free_a = [d for d in range(a.ndim) if d not in axes_a]
    free_b = [d for d in range(b.ndim) if d not in axes_b]
    inner = math.prod(a.shape[d] for d in axes_a)
    rows, columns = math.prod(a.shape[d] for d in free_a), math.prod(b.shape[d] for d in free_b)
    left = a.transpose(free_a + axes_a).reshape((rows, inner))
    right = b.transpose(axes_b + free_b).reshape((inner, columns))
    return matmul(left, right).reshape(tuple(a.shape[d] for d in free_a) +
                                       tuple(b.shape[d] for d in free_b))
