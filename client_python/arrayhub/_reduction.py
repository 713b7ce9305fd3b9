"""Reductions as module functions (Reduce RPC), mirroring numpy.sum & co.

They take arrayhub arrays only (NumPy arrays raise TypeError, as in CuPy) and return arrays:
a reduction over every axis gives a 0-d array, not a NumPy scalar (as in CuPy). float16
inputs accumulate in float32, as NumPy's pairwise sums effectively do.
"""

from __future__ import annotations

from typing import Any, Optional

from numpy.typing import DTypeLike

from arrayhub import _ops
from arrayhub._errors import ArrayHubValueError, client_error
from arrayhub._ndarray import ndarray

__all__ = ["sum", "prod", "amin", "amax", "min", "max", "mean", "var", "std", "argmin",
           "argmax", "any", "all"]


def sum(a: ndarray, axis: _ops.AxisLike = None, dtype: DTypeLike | None = None,
        out: Any = None, keepdims: bool = False) -> ndarray:
    """Sum over the given axes (all when None)."""
    return _ops.reduce("sum", a, axis, dtype=dtype, out=out, keepdims=keepdims)


def prod(a: ndarray, axis: _ops.AxisLike = None, dtype: DTypeLike | None = None,
         out: Any = None, keepdims: bool = False) -> ndarray:
    """Product over the given axes (all when None)."""
    return _ops.reduce("prod", a, axis, dtype=dtype, out=out, keepdims=keepdims)


def amin(a: ndarray, axis: _ops.AxisLike = None, out: Any = None,
         keepdims: bool = False) -> ndarray:
    """Minimum, NaN-propagating; ValueError for a zero-size reduction, as NumPy."""
    return _ops.reduce("min", a, axis, out=out, keepdims=keepdims)


def amax(a: ndarray, axis: _ops.AxisLike = None, out: Any = None,
         keepdims: bool = False) -> ndarray:
    """Maximum, NaN-propagating; ValueError for a zero-size reduction, as NumPy."""
    return _ops.reduce("max", a, axis, out=out, keepdims=keepdims)


min = amin
max = amax


def mean(a: ndarray, axis: _ops.AxisLike = None, dtype: DTypeLike | None = None,
         out: Any = None, keepdims: bool = False) -> ndarray:
    """Arithmetic mean; integers give float64, as NumPy."""
    return _ops.reduce("mean", a, axis, dtype=dtype, out=out, keepdims=keepdims)


def var(a: ndarray, axis: _ops.AxisLike = None, dtype: DTypeLike | None = None,
        out: Any = None, ddof: float = 0, keepdims: bool = False, *,
        correction: Optional[float] = None) -> ndarray:
    """Variance with ``ddof`` delta degrees of freedom, any real (``correction``, the Array
    API's name, is the same): the sum of squared deviations over max(n - ddof, 0), inf or NaN
    with NumPy's RuntimeWarning where that is 0; complex input gives a real result."""
    return _ops.reduce("var", a, axis, dtype=dtype, out=out,
                       ddof=_degrees(ddof, correction), keepdims=keepdims)


def std(a: ndarray, axis: _ops.AxisLike = None, dtype: DTypeLike | None = None,
        out: Any = None, ddof: float = 0, keepdims: bool = False, *,
        correction: Optional[float] = None) -> ndarray:
    """Standard deviation: ``sqrt(var(...))``."""
    return _ops.reduce("std", a, axis, dtype=dtype, out=out,
                       ddof=_degrees(ddof, correction), keepdims=keepdims)


def _degrees(ddof: Any, correction: Any) -> Any:
    """NumPy 2's rule for the two names of one argument."""
    if correction is None:
        return ddof
    if ddof != 0:
        raise client_error(ArrayHubValueError,
                           "ddof and correction can't be provided simultaneously.")
    return correction


def argmin(a: ndarray, axis: Optional[int] = None, out: Any = None, *,
           keepdims: bool = False) -> ndarray:
    """Index (int64) of the first minimum, in C order over the flattened array when axis is
    None; the first NaN if any."""
    return _ops.reduce("argmin", a, axis, out=out, keepdims=keepdims)


def argmax(a: ndarray, axis: Optional[int] = None, out: Any = None, *,
           keepdims: bool = False) -> ndarray:
    """Index (int64) of the first maximum; the first NaN if any."""
    return _ops.reduce("argmax", a, axis, out=out, keepdims=keepdims)


def any(a: ndarray, axis: _ops.AxisLike = None, out: Any = None,
        keepdims: bool = False) -> ndarray:
    """Whether any element is nonzero (bool)."""
    return _ops.reduce("any", a, axis, out=out, keepdims=keepdims)


def all(a: ndarray, axis: _ops.AxisLike = None, out: Any = None,
        keepdims: bool = False) -> ndarray:
    """Whether every element is nonzero (bool)."""
    return _ops.reduce("all", a, axis, out=out, keepdims=keepdims)
