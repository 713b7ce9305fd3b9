"""NumPy's NaN-ignoring reductions and scans, composed from server ops: NaNs are replaced by
the operation's identity (0 for sums, 1 for products, +-inf for min/max) with one ``where``,
then the ordinary reduction runs. Integer and bool arrays have no NaNs and go straight to it.

NumPy's warnings and errors for slices with no values ("Mean of empty slice", "All-NaN slice
encountered", "Degrees of freedom <= 0 for slice.") need to know whether there is such a
slice: that is one bool read back from the server. ``initial`` and ``where`` are not
accepted (arrayhub's sum and max do not take them either).
"""

from __future__ import annotations

import warnings
from typing import Any, Optional

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple
from numpy.typing import DTypeLike

from arrayhub import _ops
from arrayhub._errors import (ArrayHubAxisError, ArrayHubTypeError, ArrayHubValueError,
                              client_error)
from arrayhub._ndarray import ndarray
from arrayhub._reduction import _degrees

__all__ = ["nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmin", "nanmax",
           "nanargmin", "nanargmax", "nancumsum", "nancumprod"]


def _inexact(a: Any, what: str) -> tuple[ndarray, bool]:
    a = _ops.require_array(a, what)
    return a, a.dtype.kind in "fc"


def _nan_mask(a: ndarray) -> ndarray:
    return _ops.elementwise("isnan", (a,))


def _replaced(a: ndarray, value: Any) -> ndarray:
    """``a`` with its NaNs replaced by ``value`` (a weak scalar: ``a``'s dtype is kept)."""
    return _ops.elementwise("where", (_nan_mask(a), value, a))


def _any(mask: ndarray) -> bool:
    """Whether any element is true: one bool read back."""
    return bool(_ops.reduce("any", mask))


def _warn(message: str) -> None:
    warnings.warn(message, RuntimeWarning, stacklevel=3)


def _copy_out(result: ndarray, out: Any) -> ndarray:
    return result if out is None else _ops.elementwise("copy", (result,), out=out)


def nansum(a: ndarray, axis: _ops.AxisLike = None, dtype: DTypeLike | None = None,
           out: Any = None, keepdims: bool = False) -> ndarray:
    """The sum treating NaNs as zero (0 for a slice of NaNs)."""
    a, inexact = _inexact(a, "nansum")
    source = _replaced(a, 0) if inexact else a
    return _ops.reduce("sum", source, axis, dtype=dtype, out=out, keepdims=keepdims)


def nanprod(a: ndarray, axis: _ops.AxisLike = None, dtype: DTypeLike | None = None,
            out: Any = None, keepdims: bool = False) -> ndarray:
    """The product treating NaNs as one."""
    a, inexact = _inexact(a, "nanprod")
    source = _replaced(a, 1) if inexact else a
    return _ops.reduce("prod", source, axis, dtype=dtype, out=out, keepdims=keepdims)


def nancumsum(a: ndarray, axis: Optional[int] = None, dtype: DTypeLike | None = None,
              out: Any = None) -> ndarray:
    """The cumulative sum treating NaNs as zero (of the flattened array when axis is None)."""
    a, inexact = _inexact(a, "nancumsum")
    source = _replaced(a, 0) if inexact else a
    return _copy_out(source.cumsum(axis, dtype), out)


def nancumprod(a: ndarray, axis: Optional[int] = None, dtype: DTypeLike | None = None,
               out: Any = None) -> ndarray:
    """The cumulative product treating NaNs as one."""
    a, inexact = _inexact(a, "nancumprod")
    source = _replaced(a, 1) if inexact else a
    return _copy_out(source.cumprod(axis, dtype), out)


def _count(a: ndarray, axis: _ops.AxisLike, keepdims: bool) -> ndarray:
    """The number of non-NaN elements per slice (intp)."""
    valid = _ops.elementwise("logical_not", (_nan_mask(a),))
    return _ops.reduce("sum", valid, axis, dtype=np.intp, keepdims=keepdims)


def nanmean(a: ndarray, axis: _ops.AxisLike = None, dtype: DTypeLike | None = None,
            out: Any = None, keepdims: bool = False) -> ndarray:
    """The mean of the non-NaN values; NaN and NumPy's RuntimeWarning for a slice of NaNs."""
    a, inexact = _inexact(a, "nanmean")
    if not inexact:
        return _ops.reduce("mean", a, axis, dtype=dtype, out=out, keepdims=keepdims)
    if dtype is not None and np.dtype(dtype).kind not in "fc":
        raise client_error(ArrayHubTypeError, "If a is inexact, then dtype must be inexact")
    total = _ops.reduce("sum", _replaced(a, 0), axis, dtype=dtype, keepdims=keepdims)
    count = _count(a, axis, keepdims)
    if _any(_ops.elementwise("equal", (count, 0))):
        _warn("Mean of empty slice")
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = _ops.elementwise("divide", (total, count)).astype(total.dtype, copy=False)
    return _copy_out(mean, out)


def nanvar(a: ndarray, axis: _ops.AxisLike = None, dtype: DTypeLike | None = None,
           out: Any = None, ddof: Any = 0, keepdims: bool = False, *,
           correction: Any = None) -> ndarray:
    """The variance of the non-NaN values with ``ddof`` (or ``correction``) delta degrees of
    freedom; NaN and NumPy's RuntimeWarning where there are no more values than that.
    Complex input gives a real result."""
    a, inexact = _inexact(a, "nanvar")
    ddof = _degrees(ddof, correction)
    if not inexact:
        return _ops.reduce("var", a, axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims)
    if dtype is not None and np.dtype(dtype).kind not in "fc":
        raise client_error(ArrayHubTypeError, "If a is inexact, then dtype must be inexact")
    if dtype is not None:
        a = a.astype(dtype, copy=False)
    mask = _nan_mask(a)
    zeroed = _ops.elementwise("where", (mask, 0, a))
    count = _count(a, axis, True)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = _ops.elementwise("divide", (_ops.reduce("sum", zeroed, axis, keepdims=True),
                                           count)).astype(a.dtype, copy=False)
        centred = _ops.elementwise("where", (mask, 0, _ops.elementwise("subtract",
                                                                       (zeroed, mean))))
        if a.dtype.kind == "c":
            squares = _ops.elementwise("real", (_ops.elementwise(
                "multiply", (centred, _ops.elementwise("conjugate", (centred,)))),))
        else:
            squares = _ops.elementwise("multiply", (centred, centred))
        total = _ops.reduce("sum", squares, axis, keepdims=keepdims)
        dof = _ops.elementwise("subtract", (_count(a, axis, keepdims), ddof))
        short = _ops.elementwise("less_equal", (dof, 0))
        if _any(short):
            _warn("Degrees of freedom <= 0 for slice.")
        var = _ops.elementwise("divide", (total, dof)).astype(total.dtype, copy=False)
        var = _ops.elementwise("where", (short, np.nan, var))
    return _copy_out(var, out)


def nanstd(a: ndarray, axis: _ops.AxisLike = None, dtype: DTypeLike | None = None,
           out: Any = None, ddof: Any = 0, keepdims: bool = False, *,
           correction: Any = None) -> ndarray:
    """``sqrt(nanvar(...))``."""
    a, inexact = _inexact(a, "nanstd")
    if not inexact:
        return _ops.reduce("std", a, axis, dtype=dtype, out=out,
                           ddof=_degrees(ddof, correction), keepdims=keepdims)
    var = nanvar(a, axis, dtype, None, ddof, keepdims, correction=correction)
    return _copy_out(_ops.elementwise("sqrt", (var,)), out)


def _reduced_length_zero(a: ndarray, axis: _ops.AxisLike) -> bool:
    if axis is None:
        return a.size == 0
    try:
        axes = normalize_axis_tuple(axis, a.ndim)
    except np.exceptions.AxisError as error:
        raise client_error(ArrayHubAxisError, str(error)) from None
    return any(a.shape[d] == 0 for d in axes)


def _nan_extreme(a: ndarray, op: str, axis: _ops.AxisLike, out: Any,
                 keepdims: bool) -> ndarray:
    """min or max of the non-NaN values (NumPy's fmin/fmax reduction): NaN and NumPy's
    warning for a slice of NaNs."""
    if _reduced_length_zero(a, axis):
        raise client_error(ArrayHubValueError,
                           f"zero-size array to reduction operation f{op} which has no identity")
    mask = _nan_mask(a)
    extreme = _ops.reduce(op, _replaced(a, np.inf if op == "min" else -np.inf), axis,
                          keepdims=keepdims)
    all_nan = _ops.reduce("all", mask, axis, keepdims=keepdims)
    if _any(all_nan):
        _warn("All-NaN slice encountered")
        extreme = _ops.elementwise("where", (all_nan, np.nan, extreme))
    return _copy_out(extreme, out)


def nanmin(a: ndarray, axis: _ops.AxisLike = None, out: Any = None,
           keepdims: bool = False) -> ndarray:
    """The minimum of the non-NaN values; NaN and a RuntimeWarning for a slice of NaNs."""
    a, inexact = _inexact(a, "nanmin")
    if not inexact:
        return _ops.reduce("min", a, axis, out=out, keepdims=keepdims)
    return _nan_extreme(a, "min", axis, out, keepdims)


def nanmax(a: ndarray, axis: _ops.AxisLike = None, out: Any = None,
           keepdims: bool = False) -> ndarray:
    """The maximum of the non-NaN values; NaN and a RuntimeWarning for a slice of NaNs."""
    a, inexact = _inexact(a, "nanmax")
    if not inexact:
        return _ops.reduce("max", a, axis, out=out, keepdims=keepdims)
    return _nan_extreme(a, "max", axis, out, keepdims)


def _nan_arg(a: ndarray, op: str, axis: Optional[int], out: Any, keepdims: bool) -> ndarray:
    """argmin/argmax of the non-NaN values; ValueError for a slice of NaNs, as NumPy."""
    if _reduced_length_zero(a, axis):  # The server's message for an empty argmin.
        return _ops.reduce(op, a, axis, out=out, keepdims=keepdims)
    mask = _nan_mask(a)
    if _any(_ops.reduce("all", mask, axis)):
        raise client_error(ArrayHubValueError, "All-NaN slice encountered")
    filler = np.inf if op == "argmin" else -np.inf
    return _ops.reduce(op, _replaced(a, filler), axis, out=out, keepdims=keepdims)


def nanargmin(a: ndarray, axis: Optional[int] = None, out: Any = None, *,
              keepdims: bool = False) -> ndarray:
    """The index of the minimum of the non-NaN values (ValueError for a slice of NaNs)."""
    a, inexact = _inexact(a, "nanargmin")
    if not inexact:
        return _ops.reduce("argmin", a, axis, out=out, keepdims=keepdims)
    return _nan_arg(a, "argmin", axis, out, keepdims)


def nanargmax(a: ndarray, axis: Optional[int] = None, out: Any = None, *,
              keepdims: bool = False) -> ndarray:
    """The index of the maximum of the non-NaN values (ValueError for a slice of NaNs)."""
    a, inexact = _inexact(a, "nanargmax")
    if not inexact:
        return _ops.reduce("argmax", a, axis, out=out, keepdims=keepdims)
    return _nan_arg(a, "argmax", axis, out, keepdims)
