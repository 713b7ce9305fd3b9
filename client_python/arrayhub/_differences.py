"""NumPy's differences, trims and powers along a vector, composed from server ops: ediff1d,
unwrap, trim_zeros and vander, with NumPy 2's results and messages.

trim_zeros reads back the bounds of the nonzero elements (2 x ndim integers), which size its
result, as NumPy's slice does; the others queue without a wait.
"""

from __future__ import annotations

import operator
from typing import Any, Optional

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from arrayhub import _creation, _ops
from arrayhub._errors import ArrayHubTypeError, ArrayHubValueError, client_error
from arrayhub._index_helpers import argwhere
from arrayhub._manipulation import broadcast_to, concatenate, cumprod, flip, stack
from arrayhub._math_functions import diff
from arrayhub._ndarray import ndarray
from arrayhub._numpy_checks import numpy_checks

__all__ = ["ediff1d", "unwrap", "trim_zeros", "vander"]


def _as_array(value: Any) -> ndarray:
    """An arrayhub array, host data (lists, scalars, NumPy arrays) uploaded, as CuPy does."""
    return value if isinstance(value, ndarray) else _creation.asarray(np.asarray(value))


def _edge(value: Any, dtype: np.dtype, name: str) -> Optional[ndarray]:
    """ediff1d's ``to_begin``/``to_end``, flattened, in ``ary``'s dtype (NumPy's same_kind
    rule, checked on the dtypes), or None."""
    if value is None:
        return None
    value = _as_array(value)
    if not np.can_cast(value.dtype, dtype, casting="same_kind"):
        raise client_error(ArrayHubTypeError, f"dtype of `{name}` must be compatible with "
                                              f"input `ary` under the `same_kind` rule.")
    return value.ravel().astype(dtype, copy=False)


def ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None) -> ndarray:
    """The differences of consecutive elements of the flattened ``ary``, in its dtype, with
    ``to_begin`` before and ``to_end`` after."""
    ary = _ops.require_array(ary, "ediff1d").ravel()
    dtype = ary.dtype
    begin, end = _edge(to_begin, dtype, "to_begin"), _edge(to_end, dtype, "to_end")
    differences = ary[1:] - ary[:-1]
    parts = [p for p in (begin, differences, end) if p is not None]
    return differences if len(parts) == 1 else concatenate(parts)


def unwrap(p: Any, discont: Any = None, axis: int = -1, *, period: float = 2 * np.pi) -> ndarray:
    """``p`` with each jump between neighbours along ``axis`` larger than ``discont``
    (default ``period / 2``) replaced by its complement modulo ``period`` (NumPy's steps)."""
    p = _ops.require_array(p, "unwrap")
    dd = diff(p, axis=axis)
    if discont is None:
        discont = period / 2
    dtype = np.result_type(dd.dtype, period)
    if np.issubdtype(dtype, np.integer):
        high, remainder = divmod(period, 2)
        ambiguous = remainder == 0
    else:
        high, ambiguous = period / 2, True
    low = -high
    ddmod = _ops.elementwise("remainder", (dd - low, period)) + low
    if ambiguous:  # A jump of exactly period / 2 keeps its sign.
        ddmod = _ops.elementwise("where", ((ddmod == low) & (dd > 0), high, ddmod))
    correction = ddmod - dd
    correction = _ops.elementwise("where", (
        _ops.elementwise("less", (_ops.elementwise("absolute", (dd,)), discont)), 0, correction))
    unwrapped = p.astype(dtype)
    index = [slice(None)] * p.ndim
    index[axis] = slice(1, None)
    unwrapped[tuple(index)] = p[tuple(index)] + correction.cumsum(axis)
    return unwrapped


def trim_zeros(filt: Any, trim: str = "fb", axis: Any = None) -> ndarray:
    """``filt`` without its leading (``'f'``) and trailing (``'b'``) zeros along each axis
    (or the given axes): a view, as NumPy's slice."""
    filt = _ops.require_array(filt, "trim_zeros")
    trim = trim.lower()
    if trim not in {"fb", "bf", "f", "b"}:
        raise client_error(ArrayHubValueError, f"unexpected character(s) in `trim`: {trim!r}")
    with numpy_checks():
        axes = tuple(range(filt.ndim)) if axis is None else \
            normalize_axis_tuple(axis, filt.ndim, argname="axis")
    if not axes:
        return filt
    nonzero = argwhere(filt)
    if nonzero.shape[0] == 0:  # All zero: an empty slice along each trimmed axis.
        start = stop = [0] * filt.ndim
    else:
        bounds = stack([nonzero.min(axis=0), nonzero.max(axis=0)]).get()  # One read back.
        start = bounds[0].tolist() if "f" in trim else [None] * filt.ndim
        stop = (bounds[1] + 1).tolist() if "b" in trim else [None] * filt.ndim
    return filt[tuple(slice(start[a], stop[a]) if a in axes else slice(None)
                      for a in range(filt.ndim))]


def vander(x: Any, N: Optional[int] = None, increasing: bool = False) -> ndarray:
    """The Vandermonde matrix of the 1-D ``x``: column j is ``x ** (N - 1 - j)`` (``x ** j``
    with ``increasing``), computed as NumPy does, by running products, in
    ``promote_types(x.dtype, int)``."""
    x = _ops.require_array(x, "vander")
    if x.ndim != 1:
        raise client_error(ArrayHubValueError, "x must be a one-dimensional array or sequence.")
    n = x.shape[0]
    N = n if N is None else operator.index(N)
    dtype = np.promote_types(x.dtype, int)
    if N < 0:
        raise client_error(ArrayHubValueError, "negative dimensions are not allowed")
    if n == 0 or N == 0:
        return _creation.zeros((n, N), dtype)
    result = _creation.ones((n, 1), dtype)
    if N > 1:
        powers = broadcast_to(x.astype(dtype, copy=False).reshape(n, 1), (n, N - 1))
        result = concatenate([result, cumprod(powers, axis=1)], axis=1)
    return result if increasing else flip(result, axis=1)
