"""numpy.linalg on the server (Linalg RPC): cuSOLVER on the GPU backend, LAPACK on the CPU.

Results are arrayhub arrays, in NumPy's order and, where NumPy 2 returns a named tuple,
in a named tuple of the same name and fields. ``lstsq``'s rank is a Python int, as NumPy's.

Failures NumPy reports with :class:`LinAlgError` (a singular matrix, one that is not positive
definite, no convergence, and numpy.linalg's own dimension checks) raise
:class:`arrayhub.ArrayHubLinAlgError`, a subclass of :class:`LinAlgError`, which is NumPy's
own ``numpy.linalg.LinAlgError`` (as in CuPy), itself a ValueError. float16 operands raise
TypeError, as in NumPy.
"""

from __future__ import annotations

import math
import numbers
import operator
from typing import Any, NamedTuple, Optional, Union

from numpy.linalg import LinAlgError

from arrayhub import _array_api, _ops, _products
from arrayhub._errors import (ArrayHubAxisError, ArrayHubLinAlgError,
                              ArrayHubNotImplementedError, ArrayHubValueError, client_error)
from arrayhub._einsum import multi_dot
from arrayhub._ndarray import ndarray

__all__ = ["svd", "qr", "cholesky", "eigh", "eigvalsh", "eig", "eigvals", "solve", "inv", "det", "slogdet",
           "norm", "lstsq", "LinAlgError", "SVDResult", "QRResult", "EighResult",
           "EigResult", "SlogdetResult",
           # The Array API's linalg extension, as numpy.linalg has it:
           "svdvals", "vector_norm", "matrix_norm", "trace", "diagonal", "matrix_power",
           "matmul", "tensordot", "vecdot", "outer", "matrix_transpose", "cross", "pinv",
           "matrix_rank", "multi_dot", "cond", "tensorinv", "tensorsolve"]


class SVDResult(NamedTuple):
    U: ndarray
    S: ndarray
    Vh: ndarray


class QRResult(NamedTuple):
    Q: ndarray
    R: ndarray


class EighResult(NamedTuple):
    eigenvalues: ndarray
    eigenvectors: ndarray


class EigResult(NamedTuple):
    eigenvalues: ndarray
    eigenvectors: ndarray


class SlogdetResult(NamedTuple):
    sign: ndarray
    logabsdet: ndarray


def svd(a: ndarray, full_matrices: bool = True,
        compute_uv: bool = True) -> Union[SVDResult, ndarray]:
    """Singular value decomposition: ``(U, S, Vh)``, or ``S`` alone without compute_uv."""
    results = _ops.linalg("svd", a, full_matrices=full_matrices, compute_uv=compute_uv)
    return SVDResult(*results) if compute_uv else results[0]


def qr(a: ndarray, mode: str = "reduced") -> Union[QRResult, ndarray]:
    """QR decomposition: ``(Q, R)`` for "reduced"/"complete", ``R`` for "r". NumPy's "raw"
    (LAPACK's Householder reflectors) has no form on the wire: NotImplementedError."""
    if mode == "raw":
        raise client_error(ArrayHubNotImplementedError,
                           "qr: mode 'raw' is not supported by the server's Linalg RPC")
    results = _ops.linalg("qr", a, mode=mode)
    return results[0] if mode == "r" else QRResult(*results)


def cholesky(a: ndarray, upper: bool = False) -> ndarray:
    """Lower (or, with ``upper``, upper) Cholesky factor; LinAlgError if not positive
    definite."""
    return _ops.linalg("cholesky", a, uplo="U" if upper else "L")[0]


def eigh(a: ndarray, UPLO: str = "L") -> EighResult:
    """Eigenvalues (ascending) and eigenvectors of a Hermitian matrix."""
    return EighResult(*_ops.linalg("eigh", a, uplo=UPLO))


def eigvalsh(a: ndarray, UPLO: str = "L") -> ndarray:
    """Eigenvalues of a Hermitian (symmetric) matrix, ascending, from its ``UPLO``
    triangle."""
    return _ops.linalg("eigvalsh", a, uplo=UPLO)[0]


def eig(a: ndarray) -> EigResult:
    """Eigenvalues and right eigenvectors (unit-norm columns) of a general square matrix.
    Both are complex whatever ``a``'s dtype, as CuPy's: NumPy returns real arrays when every
    eigenvalue happens to be real, a dtype that depends on the data."""
    return EigResult(*_ops.linalg("eig", a))


def eigvals(a: ndarray) -> ndarray:
    """Eigenvalues of a general square matrix, complex as :func:`eig`'s."""
    return _ops.linalg("eigvals", a)[0]


def solve(a: ndarray, b: ndarray) -> ndarray:
    """Solves ``a @ x = b``; LinAlgError for a singular ``a``."""
    return _ops.linalg("solve", a, b)[0]


def inv(a: ndarray) -> ndarray:
    """The inverse of a square matrix (stacked over leading axes); LinAlgError when
    singular."""
    return _ops.linalg("inv", a)[0]


def det(a: ndarray) -> ndarray:
    """The determinant of a square matrix (stacked over leading axes)."""
    return _ops.linalg("det", a)[0]


def slogdet(a: ndarray) -> SlogdetResult:
    """``SlogdetResult(sign, logabsdet)`` of a square matrix: the determinant's sign and
    the log of its absolute value (stacked over leading axes)."""
    return SlogdetResult(*_ops.linalg("slogdet", a))


def _ord_text(ord: Any) -> str:
    """NumPy's ord argument as the contract spells it: "" for None, the words as given,
    integers in decimal, other reals as Python's shortest round-tripping repr."""
    if ord is None:
        return ""
    if isinstance(ord, str):
        return ord
    if isinstance(ord, numbers.Integral):
        return str(operator.index(ord))
    value = float(ord)
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return repr(value)


def norm(x: ndarray, ord: Any = None, axis: _ops.AxisLike = None,
         keepdims: bool = False) -> ndarray:
    """Matrix or vector norm, as numpy.linalg.norm; a 0-d array when reducing everything."""
    return _ops.linalg("norm", x, ord=_ord_text(ord), axis=_ops.axis_list(axis),
                       keepdims=keepdims)[0]


def lstsq(a: ndarray, b: ndarray,
          rcond: Optional[float] = None) -> tuple[ndarray, ndarray, int, ndarray]:
    """Least squares: ``(x, residuals, rank, s)``; rcond None takes NumPy's default."""
    x, residuals, rank, s = _ops.linalg("lstsq", a, b, rcond=-1.0 if rcond is None else rcond)
    return x, residuals, int(rank), s


# -- The Array API's linalg extension (numpy.linalg has each of these since 2.0) -------------


def svdvals(x: ndarray, /) -> ndarray:
    """The singular values, largest first (``svd(x, compute_uv=False)``)."""
    return svd(x, compute_uv=False)


def vector_norm(x: ndarray, /, *, axis: _ops.AxisLike = None, keepdims: bool = False,
                ord: Any = 2) -> ndarray:
    """The vector norm over ``axis`` (every element when None; several axes count as one
    vector), as numpy.linalg.vector_norm."""
    x = _ops.require_array(x, "vector_norm")
    axes = list(range(x.ndim)) if axis is None else [
        operator.index(a) for a in (axis if isinstance(axis, (tuple, list)) else (axis,))]
    for a in axes:
        if not -x.ndim <= a < x.ndim:
            raise client_error(ArrayHubAxisError,
                               f"axis {a} is out of bounds for array of dimension {x.ndim}")
    axes = sorted({a % x.ndim for a in axes}) if x.ndim else []
    kept = [d for d in range(x.ndim) if d not in axes]
    # The reduced axes moved last and merged into one: one server norm along it.
    merged = x.transpose(kept + axes).reshape(tuple(x.shape[d] for d in kept) + (-1,))
    result = norm(merged, ord=ord, axis=-1)
    if keepdims:
        result = result.reshape(tuple(1 if d in axes else x.shape[d] for d in range(x.ndim)))
    return result


def matrix_norm(x: ndarray, /, *, keepdims: bool = False, ord: Any = "fro") -> ndarray:
    """The matrix norm of the last two axes, stacked over the others."""
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def trace(x: ndarray, /, *, offset: int = 0, dtype: Any = None) -> ndarray:
    """The sums along the diagonals of the last two axes (``dtype`` as numpy.sum's)."""
    return diagonal(x, offset=offset).sum(axis=-1, dtype=dtype)


def diagonal(x: ndarray, /, *, offset: int = 0) -> ndarray:
    """A view of the diagonals of the last two axes."""
    return _ops.require_array(x, "diagonal").diagonal(offset, -2, -1)


def matrix_power(a: ndarray, n: int) -> ndarray:
    """``a`` multiplied by itself ``n`` times by repeated squaring (the inverse's powers for
    negative ``n``; the identity for 0), as numpy.linalg.matrix_power."""
    a = _ops.require_array(a, "matrix_power")
    n = operator.index(n)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise client_error(ArrayHubLinAlgError, "Last 2 dimensions of the array must be square")
    if n == 0:
        from arrayhub._creation import eye

        identity = eye(a.shape[-1], dtype=a.dtype)
        if a.ndim == 2:
            return identity
        from arrayhub._manipulation import broadcast_to

        return broadcast_to(identity, a.shape).copy()  # One identity per stacked matrix.
    if n < 0:
        a, n = inv(a), -n
    result, square = None, a
    while True:
        if n & 1:
            result = square if result is None else result @ square
        n >>= 1
        if not n:
            return result
        square = square @ square


def outer(x1: ndarray, x2: ndarray, /) -> ndarray:
    """The outer product of two vectors (one-dimensional only, unlike arrayhub.outer)."""
    x1, x2 = _ops.require_array(x1, "outer"), _ops.require_array(x2, "outer")
    if x1.ndim != 1 or x2.ndim != 1:
        raise client_error(ArrayHubValueError, "Input arrays must be one-dimensional, but they "
                           f"are x1.ndim={x1.ndim} and x2.ndim={x2.ndim}.")
    return _products.outer(x1, x2)


def matmul(x1: ndarray, x2: ndarray, /) -> ndarray:
    """``x1 @ x2``."""
    return _products.matmul(x1, x2)


def tensordot(x1: ndarray, x2: ndarray, /, *, axes: Any = 2) -> ndarray:
    """numpy.linalg.tensordot: arrayhub.tensordot with ``axes`` by keyword."""
    return _products.tensordot(x1, x2, axes=axes)


def vecdot(x1: ndarray, x2: ndarray, /, *, axis: int = -1) -> ndarray:
    """arrayhub.vecdot."""
    return _array_api.vecdot(x1, x2, axis=axis)


def matrix_transpose(x: ndarray, /) -> ndarray:
    """arrayhub.matrix_transpose."""
    return _array_api.matrix_transpose(x)


def cross(x1: ndarray, x2: ndarray, /, *, axis: int = -1) -> ndarray:
    """Cross products of the 3-vectors along ``axis`` (3-vectors only, whatever the NumPy:
    arrayhub.cross takes 2-vectors too before NumPy 2.5)."""
    x1, x2 = _ops.require_array(x1, "cross"), _ops.require_array(x2, "cross")
    n1 = x1.shape[axis] if x1.ndim else 0
    n2 = x2.shape[axis] if x2.ndim else 0
    from arrayhub._math_functions import cross as cross_product, not_three_vectors

    if n1 != 3 or n2 != 3:
        raise not_three_vectors(n1, n2)
    return cross_product(x1, x2, axis=axis)


_NO_VALUE = object()


def _eps(dtype: Any) -> float:
    import numpy as np

    return float(np.finfo(dtype).eps)


def pinv(a: ndarray, rcond: Any = None, hermitian: bool = False, *,
         rtol: Any = _NO_VALUE) -> ndarray:
    """The Moore-Penrose pseudo-inverse from the SVD, singular values at most ``rcond`` (or
    ``rtol``) times the largest counted as zero, as numpy.linalg.pinv. ``hermitian`` is
    accepted and the general SVD used (the same result)."""
    a = _ops.require_array(a, "pinv")
    if rcond is None:
        if rtol is _NO_VALUE:
            rcond = 1e-15
        elif rtol is None:
            rcond = max(a.shape[-2:]) * _eps(a.dtype if a.dtype.kind in "fc" else "float64")
        else:
            rcond = rtol
    elif rtol is not _NO_VALUE:
        raise client_error(ArrayHubValueError, "`rtol` and `rcond` can't be both set.")
    if a.dtype.kind == "c":
        from arrayhub._ufuncs import UFUNCS

        a = UFUNCS["conjugate"](a)
    u, s, vt = svd(a, full_matrices=False)
    large = s > s.max(axis=-1, keepdims=True) * rcond
    from arrayhub._ufuncs import where

    inverse = where(large, 1 / where(large, s, 1), 0)  # 0 where the value counts as zero
    return vt.mT @ (inverse[..., None] * u.mT)


def matrix_rank(A: ndarray, tol: Any = None, hermitian: bool = False, *,
                rtol: Any = None) -> ndarray:
    """The number of singular values above ``tol`` (default: the largest times ``rtol``,
    itself by default max(M, N) times the dtype's eps), as numpy.linalg.matrix_rank; a 0-d
    or stacked int64 array (NumPy gives a Python int for a single matrix)."""
    A = _ops.require_array(A, "matrix_rank")
    if A.ndim < 2:
        return (A != 0).any().astype("int64")
    singular = svdvals(A)
    if tol is None:
        if rtol is None:
            rtol = max(A.shape[-2:]) * _eps(singular.dtype)
        tol = singular.max(axis=-1, keepdims=True) * rtol
    return (singular > tol).sum(axis=-1)


def cond(x: ndarray, p: Any = None) -> ndarray:
    """The condition number in the ``p`` norm, as numpy.linalg.cond: the ratio of the largest
    to the smallest singular value for None, 2 and -2 (its inverse for -2), else
    ``norm(x, p) * norm(inv(x), p)`` over the last two axes (LinAlgError for a singular matrix
    there, where NumPy answers inf)."""
    x = _ops.require_array(x, "cond")
    if x.ndim < 2:
        raise client_error(ArrayHubLinAlgError,
                           f"{x.ndim}-dimensional array given. Array must be at least "
                           "two-dimensional")
    if p is None or p == 2 or p == -2:
        s = svdvals(x)
        return s[..., 0] / s[..., -1] if p != -2 else s[..., -1] / s[..., 0]
    if x.shape[-1] != x.shape[-2]:
        raise client_error(ArrayHubLinAlgError, "Last 2 dimensions of the array must be square")
    return norm(x, p, axis=(-2, -1)) * norm(inv(x), p, axis=(-2, -1))


def tensorinv(a: ndarray, ind: int = 2) -> ndarray:
    """The inverse of ``a`` under tensordot over its first ``ind`` axes, as
    numpy.linalg.tensorinv: ``inv`` of the matrix the axes fold into, unfolded."""
    a = _ops.require_array(a, "tensorinv")
    if ind <= 0:
        raise client_error(ArrayHubValueError, "Invalid ind argument.")
    old = a.shape
    rows = math.prod(old[:ind])
    inverse = inv(a.reshape(rows, -1))
    return inverse.reshape(*old[ind:], *old[:ind])


def tensorsolve(a: ndarray, b: ndarray, axes: Any = None) -> ndarray:
    """x with ``tensordot(a, x, x.ndim) == b``, as numpy.linalg.tensorsolve: ``solve`` of the
    matrix that a's axes (``axes`` moved last first) fold into."""
    a = _ops.require_array(a, "tensorsolve")
    b = _ops.require_array(b, "tensorsolve")
    ndim = a.ndim
    if axes is not None:
        order = list(range(ndim))
        for k in axes:
            order.remove(k)
            order.insert(ndim, k)
        a = a.transpose(order)
    old = a.shape[-(ndim - b.ndim):]
    size = math.prod(old)
    if a.size != size ** 2:
        raise client_error(ArrayHubLinAlgError,
                           "Input arrays must satisfy the requirement "
                           "prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])")
    return solve(a.reshape(size, size), b.ravel()).reshape(old)
