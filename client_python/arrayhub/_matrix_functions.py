"""Matrix construction and grids, composed on the client from server ops.

Each function issues ops whose results the client infers (Create, Elementwise, View, ArrayOp,
Reduce), so a pipelined client queues them all without waiting for the server: building a
triangle or a grid costs no round trip. Their semantics are NumPy 2's.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, Optional

import numpy as np
from numpy.typing import DTypeLike

from arrayhub import _creation, _dtypes, _ops
from arrayhub._errors import ArrayHubTypeError, ArrayHubValueError, client_error
from arrayhub._manipulation import broadcast_to, concatenate, stack
from arrayhub._ndarray import ndarray

__all__ = ["tri", "tril", "triu", "diag", "diagflat", "meshgrid", "indices", "logspace",
           "geomspace", "trace"]


def zero_of(dtype: np.dtype) -> Any:
    """A weak Python zero of ``dtype``'s kind (False, 0, 0.0, 0j): as an operand beside an
    array of ``dtype`` it keeps that dtype (NEP 50)."""
    return dtype.type(0).item()


def tri(N: int, M: Optional[int] = None, k: int = 0, dtype: DTypeLike = float) -> ndarray:
    """An N x M array with ones at and below the k-th diagonal, zeros elsewhere: row index
    >= column index - k, compared on the server."""
    N = operator.index(N)
    M = N if M is None else operator.index(M)
    k = operator.index(k)
    mask = _creation.arange(N).reshape(-1, 1) >= _creation.arange(-k, M - k)
    dtype = _dtypes.normalize(dtype)
    return mask if dtype == np.bool_ else mask.astype(dtype)


def _triangle(m: ndarray, k: int) -> ndarray:
    """The mask of the elements of ``m`` at or below the k-th diagonal."""
    if m.ndim == 0:  # NumPy's own message: tri(*m.shape[-2:]) without an argument.
        raise client_error(ArrayHubTypeError, "tri() missing 1 required positional argument: 'N'")
    return tri(*m.shape[-2:], k=k, dtype=bool)


def tril(m: ndarray, k: int = 0) -> ndarray:
    """A copy of ``m`` with the elements above the k-th diagonal zeroed (of the last two axes;
    a 1-D ``m`` is one row of an N x N result, as in NumPy)."""
    m = _ops.require_array(m, "tril")
    mask = _triangle(m, operator.index(k))
    return _ops.elementwise("where", (mask, m, zero_of(m.dtype)))


def triu(m: ndarray, k: int = 0) -> ndarray:
    """A copy of ``m`` with the elements below the k-th diagonal zeroed (see :func:`tril`)."""
    m = _ops.require_array(m, "triu")
    mask = _triangle(m, operator.index(k) - 1)
    return _ops.elementwise("where", (mask, zero_of(m.dtype), m))


def diag(v: ndarray, k: int = 0) -> ndarray:
    """A 2-D ``v``'s k-th diagonal (a read-only view); a 1-D ``v`` on the k-th diagonal of a
    new square array of zeros."""
    v = _ops.require_array(v, "diag")
    k = operator.index(k)
    if v.ndim == 2:
        return v.diagonal(k)
    if v.ndim != 1:
        raise client_error(ArrayHubValueError, "Input must be 1- or 2-d.")
    n = v.shape[0] + abs(k)
    values = v
    if k:  # Padded to n: row i (k >= 0) or column j (k < 0) of the result holds values[i].
        values = concatenate([v, _creation.zeros(abs(k), v.dtype)])
    values = values.reshape((n, 1) if k >= 0 else (1, n))
    return _ops.elementwise("where", (_creation.eye(n, k=k, dtype=bool), values,
                                      zero_of(v.dtype)))


def diagflat(v: ndarray, k: int = 0) -> ndarray:
    """A new 2-D array with the flattened ``v`` on its k-th diagonal."""
    return diag(_ops.require_array(v, "diagflat").ravel(), k)


def meshgrid(*xi: ndarray, copy: bool = True, sparse: bool = False,
             indexing: str = "xy") -> tuple[ndarray, ...]:
    """Coordinate arrays from 1-D coordinate vectors (others are flattened), as a tuple.
    ``indexing='xy'`` (default) swaps the first two output axes, 'ij' keeps them; ``sparse``
    gives views with length-1 axes instead of full grids; ``copy=False`` gives read-only
    broadcast views instead of new arrays."""
    if indexing not in ("xy", "ij"):
        raise client_error(ArrayHubValueError,
                           "Valid values for `indexing` are 'xy' and 'ij'.")
    ndim = len(xi)
    ones = (1,) * ndim
    shapes = [ones[:i] + (-1,) + ones[i + 1:] for i in range(ndim)]
    if indexing == "xy" and ndim > 1:
        shapes[0], shapes[1] = (1, -1) + ones[2:], (-1, 1) + ones[2:]
    output = [_ops.require_array(x, "meshgrid").reshape(shape) for x, shape in zip(xi, shapes)]
    if not sparse:
        grid = np.broadcast_shapes(*(x.shape for x in output))
        output = [broadcast_to(x, grid) for x in output]
    if copy:
        output = [x.copy() for x in output]
    return tuple(output)


def indices(dimensions: Sequence[int], dtype: DTypeLike = int,
            sparse: bool = False) -> Any:
    """The index of each point of a grid of shape ``dimensions``: one array of shape
    ``(len(dimensions), *dimensions)``, or with ``sparse`` a tuple of arrays with length-1
    axes."""
    dimensions = tuple(operator.index(n) for n in dimensions)
    ones = (1,) * len(dimensions)
    axes = [_creation.arange(n, dtype=dtype).reshape(ones[:i] + (n,) + ones[i + 1:])
            for i, n in enumerate(dimensions)]
    if sparse:
        return tuple(axes)
    if not axes:
        return _creation.zeros((0,), dtype)
    return stack([broadcast_to(axis, dimensions) for axis in axes])


def _bound(value: Any, what: str) -> Any:
    """A scalar bound, Python's or NumPy's (a 0-d NumPy array as its scalar). Arrays are
    refused: linspace takes scalars only, and a server array's value is not read here."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value[()]
    if isinstance(value, np.generic) or _dtypes.is_python_scalar(value):
        return value
    raise client_error(ArrayHubTypeError,
                       f"{what} must be a scalar, got {type(value).__name__} (array bounds are "
                       f"not supported)")


def logspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True,
             base: Any = 10.0, dtype: DTypeLike | None = None) -> ndarray:
    """``base ** linspace(start, stop, num, endpoint)``: ``num`` numbers spaced evenly on a
    log scale. Scalar ``start``, ``stop`` and ``base`` only (NumPy also takes arrays); no
    ``axis``."""
    base = _bound(base, "base")
    result = _ops.elementwise("power", (base, _creation.linspace(
        _bound(start, "start"), _bound(stop, "stop"), num, endpoint)))
    return result if dtype is None else result.astype(dtype, copy=False)


def geomspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True,
              dtype: DTypeLike | None = None) -> ndarray:
    """``num`` numbers spaced evenly on a log scale from ``start`` to ``stop`` (a geometric
    progression), with the endpoints exact; negative and complex bounds as in NumPy. Scalar
    bounds only; no ``axis``."""
    num = operator.index(num)
    # NumPy's own steps on the two scalar bounds, on the host; the sequence on the server.
    first = np.asarray(_bound(start, "start")) * 1.0
    last = np.asarray(_bound(stop, "stop")) * 1.0
    if first == 0 or last == 0:
        raise client_error(ArrayHubValueError, "Geometric sequence cannot include zero")
    common = np.result_type(first, last, float(num), np.zeros((), dtype))
    dtype = common if dtype is None else _dtypes.normalize(dtype)
    first, last = first.astype(common), last.astype(common)
    sign = np.sign(first)
    first, last = first / sign, last / sign
    result = logspace(np.log10(first).item(), np.log10(last).item(), num, endpoint, 10.0,
                      common)
    if num > 0:  # exp(log(x)) need not be x: the ends are set to the bounds themselves.
        position = _creation.arange(num)
        result = _ops.elementwise("where", (position == 0, first.item(), result))
        if num > 1 and endpoint:
            result = _ops.elementwise("where", (position == num - 1, last.item(), result))
    result = result * sign.item()
    return result.astype(dtype, copy=False)


def trace(a: ndarray, offset: int = 0, axis1: int = 0, axis2: int = 1,
          dtype: DTypeLike | None = None, out: Any = None) -> ndarray:
    """The sum of the diagonal at ``offset`` of the plane (``axis1``, ``axis2``): a 0-d array
    for a 2-D ``a``, else one sum per remaining index. Integers sum in int64, as NumPy."""
    a = _ops.require_array(a, "trace")
    if a.ndim >= 2 and operator.index(axis1) == operator.index(axis2) == 0:
        # The wire format reads (0, 0) as NumPy's defaults (0, 1); NumPy refuses it.
        raise client_error(ArrayHubValueError, "axis1 and axis2 cannot be the same")
    return a.diagonal(offset, axis1, axis2).sum(-1, dtype=dtype, out=out)
