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

from arrayhub import _ops
from arrayhub._errors import ArrayHubNotImplementedError, client_error
from arrayhub._ndarray import ndarray

__all__ = ["svd", "qr", "cholesky", "eigh", "eigvalsh", "solve", "inv", "det", "slogdet",
           "norm", "lstsq", "LinAlgError", "SVDResult", "QRResult", "EighResult",
           "SlogdetResult"]


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
