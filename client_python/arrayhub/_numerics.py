"""Numerical helpers of NumPy's function base, composed from server ops as NumPy's own Python
code composes them: trapezoid, interp, convolve, correlate, ediff1d, gradient, unwrap, i0 and
vander. Host data given as an operand (a list, a NumPy array) is uploaded, as NumPy's asarray
would take it; nothing is downloaded except where noted (gradient's check that 1-D
coordinates are evenly spaced reads one bool). NumPy 2.4 removed ``trapz``; arrayhub does not
have it either.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Optional

import numpy as np

from arrayhub import _creation, _ops
from arrayhub._errors import ArrayHubTypeError, ArrayHubValueError, client_error
from arrayhub._manipulation import concatenate, flip
from arrayhub._math_functions import _axis, diff
from arrayhub._ndarray import ndarray

__all__ = ["trapezoid", "interp", "convolve", "correlate", "ediff1d", "gradient", "unwrap",
           "i0", "vander"]

#: Float and complex convolutions run directly (one gather and one matmul) while the shorter
#: input has at most this many elements or the direct sum has at most _DIRECT_PRODUCTS
#: products, and through arrayhub.fft above: measured on the CPU backend, where the FFT wins
#: from 8-element kernels on (docs/semantics.md, "convolve and correlate").
_DIRECT_KERNEL = 4
_DIRECT_PRODUCTS = 4096


def _array(value: Any, client: Any = None, dtype: Any = None) -> ndarray:
    """An arrayhub array; host data uploaded (as NumPy's asarray, with ``dtype``)."""
    if isinstance(value, ndarray):
        return value if dtype is None else value.astype(dtype, copy=False)
    return _ops.upload(np.asarray(value, dtype=dtype), client)


def _client(*values: Any) -> Any:
    return _ops.client_for(*(v for v in values if isinstance(v, ndarray)))


# -- trapezoid ----------------------------------------------------------------------------------

def trapezoid(y: ndarray, x: Any = None, dx: Any = 1.0, axis: int = -1) -> ndarray:
    """The integral of ``y`` along ``axis`` by the trapezoidal rule, at the sample points
    ``x`` (1-D, or ``y``'s shape) or spaced ``dx`` apart."""
    y = _ops.require_array(y, "trapezoid")
    axis = _axis(axis, y.ndim)
    if x is None:
        d = dx
    else:
        x = _array(x, y.client)
        if x.ndim == 1:
            d = diff(x)
            shape = [1] * y.ndim
            shape[axis] = d.shape[0]
            d = d.reshape(shape)
        else:
            d = diff(x, axis=axis)
    later = (slice(None),) * axis + (slice(1, None),)
    earlier = (slice(None),) * axis + (slice(None, -1),)
    return (d * (y[later] + y[earlier]) / 2.0).sum(axis)


# -- interp -------------------------------------------------------------------------------------

def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None,
           period: Any = None) -> ndarray:
    """Piecewise-linear interpolation of the points (``xp``, ``fp``) at ``x`` (``xp``
    increasing; ``left``/``right`` beyond the ends, ``period`` for periodic data), in float64
    (complex128 for complex ``fp``), as NumPy's compiled loop: one searchsorted and gathers on
    the server. A 0-d array where NumPy returns a scalar."""
    client = _client(x, xp, fp)
    fp_dtype = np.complex128 if _kind(fp) == "c" else np.float64
    x, xp, fp = (_array(x, client, np.float64), _array(xp, client, np.float64),
                 _array(fp, client, fp_dtype))
    if period is not None:
        if period == 0:
            raise client_error(ArrayHubValueError, "period must be a non-zero value")
        period, left, right = abs(period), None, None
        if xp.ndim != 1 or fp.ndim != 1:
            raise client_error(ArrayHubValueError, "Data points must be 1-D sequences")
        if xp.shape[0] != fp.shape[0]:
            raise client_error(ArrayHubValueError, "fp and xp are not of the same length")
        x, xp = x % period, xp % period
        order = xp.argsort(0)
        xp, fp = xp[order], fp[order]
        xp = concatenate((xp[-1:] - period, xp, xp[0:1] + period))
        fp = concatenate((fp[-1:], fp, fp[0:1]))
    if xp.ndim != 1 or fp.ndim != 1:
        raise client_error(ArrayHubValueError, "object too deep for desired array")
    n = xp.shape[0]
    if fp.shape[0] != n:
        raise client_error(ArrayHubValueError, "fp and xp are not of the same length.")
    if n == 0:
        raise client_error(ArrayHubValueError, "array of sample points is empty")
    low = fp[0] if left is None else left
    high = fp[-1] if right is None else right
    where = _where
    if n == 1:
        inside: Any = fp[0]
    else:
        j = xp.searchsorted(x, side="right") - 1
        j = _ops.elementwise("clip", (j, 0, n - 2))
        x0, x1, y0, y1 = xp[j], xp[j + 1], fp[j], fp[j + 1]
        slope = (y1 - y0) / (x1 - x0)
        with np.errstate(invalid="ignore", divide="ignore"):
            forward = slope * (x - x0) + y0
            backward = slope * (x - x1) + y1  # NumPy's second try where the first is NaN.
            backward = where(_isnan(backward) & (y0 == y1), y0, backward)
            inside = where(_isnan(forward), backward, forward)
        inside = where(x0 == x, y0, inside)
        inside = where(x == xp[-1], fp[-1], inside)
    result = where(x > xp[-1], high, where(x < xp[0], low, inside))
    if n > 1:  # (NumPy's loop for one point gives it to NaN too.)
        result = where(_isnan(x), x, result)
    return result.astype(fp_dtype, copy=False)


def _kind(value: Any) -> str:
    return value.dtype.kind if isinstance(value, ndarray) else np.asarray(value).dtype.kind


def _isnan(x: ndarray) -> ndarray:
    return _ops.elementwise("isnan", (x,))


def _where(condition: Any, x: Any, y: Any) -> ndarray:
    return _ops.elementwise("where", (condition, x, y))


# -- convolve and correlate ---------------------------------------------------------------------

_MODES = ("valid", "same", "full")


def _operands(a: Any, v: Any) -> tuple[ndarray, ndarray]:
    client = _client(a, v)
    a, v = _array(a, client), _array(v, client)
    if a.ndim > 1 or v.ndim > 1:
        raise client_error(ArrayHubValueError, "object too deep for desired array")
    return a.reshape(-1), v.reshape(-1)


def _full_convolution(a: ndarray, v: ndarray) -> ndarray:
    """The full discrete convolution of two non-empty 1-D arrays of one dtype."""
    n, m = a.shape[0], v.shape[0]
    length = n + m - 1
    if (a.dtype.kind in "fc" and min(n, m) > _DIRECT_KERNEL
            and length * min(n, m) > _DIRECT_PRODUCTS):
        return _fft_convolution(a, v, length)
    # Direct: the windows of a zero-padded ``a`` (one gather) times the reversed kernel.
    if n < m:
        a, v, n, m = v, a, m, n
    zeros = _creation.zeros(m - 1, a.dtype)
    padded = concatenate((zeros, a, zeros))
    windows = (_creation.arange(length).reshape(length, 1)
               + _creation.arange(m).reshape(1, m))
    return _ops.matmul(padded[windows], flip(v))


def _fft_convolution(a: ndarray, v: ndarray, length: int) -> ndarray:
    from arrayhub import fft
    dtype = np.result_type(a.dtype, v.dtype)
    if dtype.kind == "c":
        product = fft.fft(a, length) * fft.fft(v, length)
        return fft.ifft(product, length).astype(dtype, copy=False)
    return fft.irfft(fft.rfft(a, length) * fft.rfft(v, length), length).astype(dtype,
                                                                            copy=False)


def _mode_slice(full: ndarray, n: int, m: int, mode: str) -> ndarray:
    if mode == "full":
        return full
    if mode == "same":
        start = (min(n, m) - 1) // 2
        return full[start:start + max(n, m)]
    return full[min(n, m) - 1:max(n, m)]


def convolve(a: Any, v: Any, mode: str = "full") -> ndarray:
    """The discrete linear convolution of two 1-D sequences (``mode`` 'full', 'same' or
    'valid'), in their result dtype. Integers, bool, short kernels and small inputs run
    directly (one gather and one matmul on the server: exact for integers); longer float and
    complex ones through arrayhub.fft (rounding differs from the direct sum in the last
    bits)."""
    a, v = _operands(a, v)
    if a.shape[0] == 0:
        raise client_error(ArrayHubValueError, "a cannot be empty")
    if v.shape[0] == 0:
        raise client_error(ArrayHubValueError, "v cannot be empty")
    if v.shape[0] > a.shape[0]:
        a, v = v, a
    if mode not in _MODES:
        raise client_error(ArrayHubValueError,
                           f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")
    dtype = np.result_type(a.dtype, v.dtype)
    a, v = a.astype(dtype, copy=False), v.astype(dtype, copy=False)
    return _mode_slice(_full_convolution(a, v), a.shape[0], v.shape[0], mode)


def correlate(a: Any, v: Any, mode: str = "valid") -> ndarray:
    """The cross-correlation ``c[k] = sum_n a[n + k] * conj(v[n])`` of two 1-D sequences, as
    NumPy's (a convolution with the reversed, conjugated ``v``)."""
    a, v = _operands(a, v)
    if mode not in _MODES:
        raise client_error(ArrayHubValueError,
                           f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")
    for which, operand in (("first", a), ("second", v)):
        if operand.shape[0] == 0:
            raise client_error(ArrayHubValueError, f"{which} array argument cannot be empty")
    dtype = np.result_type(a.dtype, v.dtype)
    a, v = a.astype(dtype, copy=False), v.astype(dtype, copy=False)
    kernel = flip(_ops.elementwise("conjugate", (v,)) if dtype.kind == "c" else v)
    full = _full_convolution(a, kernel)
    n, m = a.shape[0], v.shape[0]
    if m > n and mode == "same":  # NumPy's 'same' window for a longer v.
        start = (n - 1) - (n - 1) // 2
        return full[start:start + m]
    return _mode_slice(full, n, m, mode)


# -- ediff1d, gradient, unwrap ------------------------------------------------------------------

def ediff1d(ary: ndarray, to_end: Any = None, to_begin: Any = None) -> ndarray:
    """The differences of consecutive elements of the flattened ``ary`` (its dtype), with
    ``to_begin`` and ``to_end`` joined on."""
    ary = _ops.require_array(ary, "ediff1d").ravel()
    ends = []
    for name, extra in (("to_begin", to_begin), ("to_end", to_end)):
        if extra is not None:
            extra = _array(extra, ary.client)
            if not np.can_cast(extra.dtype, ary.dtype, casting="same_kind"):
                raise client_error(ArrayHubTypeError,
                                   f"dtype of `{name}` must be compatible with input `ary` "
                                   "under the `same_kind` rule.")
            extra = extra.ravel().astype(ary.dtype, copy=False)
        ends.append(extra)
    differences = _ops.elementwise("subtract", (ary[1:], ary[:-1]))
    if ends == [None, None]:
        return differences
    pieces = [x for x in (ends[0], differences, ends[1]) if x is not None]
    return concatenate(pieces).astype(ary.dtype, copy=False)


def _spacings(f: ndarray, axes: tuple[int, ...], varargs: tuple[Any, ...]) -> list[Any]:
    """gradient's spacing per axis: a scalar, or the differences of 1-D coordinates (one
    scalar when they are even: one bool read back)."""
    if not varargs:
        return [1.0] * len(axes)
    if len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        return list(varargs) * len(axes)
    if len(varargs) != len(axes):
        raise client_error(ArrayHubTypeError, "invalid number of arguments")
    spacings: list[Any] = []
    for axis, distances in zip(axes, varargs):
        if np.ndim(distances) == 0:
            spacings.append(distances)
            continue
        if np.ndim(distances) != 1:
            raise client_error(ArrayHubValueError, "distances must be either scalars or 1d")
        if len(distances) != f.shape[axis]:
            raise client_error(ArrayHubValueError, "when 1d, distances must match the length "
                                                   "of the corresponding dimension")
        distances = _array(distances, f.client)
        if distances.dtype.kind in "iu":
            distances = distances.astype(np.float64)
        steps = diff(distances)
        if steps.size and bool(_ops.reduce("all", steps == steps[0])):
            steps = steps[0]
        spacings.append(steps)
    return spacings


def gradient(f: ndarray, *varargs: Any, axis: Any = None, edge_order: int = 1) -> Any:
    """The gradient of ``f``: second-order central differences inside, first- or second-order
    (``edge_order``) one-sided ones at the ends, per axis (a tuple for several); spacings as
    NumPy's (scalars or 1-D coordinates)."""
    from numpy.lib.array_utils import normalize_axis_tuple

    f = _ops.require_array(f, "gradient")
    axes = tuple(range(f.ndim)) if axis is None else normalize_axis_tuple(axis, f.ndim)
    spacings = _spacings(f, axes, varargs)
    if edge_order > 2:
        raise client_error(ArrayHubValueError, "'edge_order' greater than 2 not supported")
    otype = f.dtype
    if otype.kind not in "fc":
        if otype.kind in "iu":
            f = f.astype(np.float64)
        otype = np.dtype(np.float64)
    results = []
    for axis_, spacing in zip(axes, spacings):
        if f.shape[axis_] < edge_order + 1:
            raise client_error(ArrayHubValueError,
                               "Shape of array too small to calculate a numerical gradient, at "
                               "least (edge_order + 1) elements are required.")
        results.append(_gradient_along(f, axis_, spacing, edge_order, otype))
    return results[0] if len(axes) == 1 else tuple(results)


def _gradient_along(f: ndarray, axis: int, dx: Any, edge_order: int,
                    otype: np.dtype) -> ndarray:
    """NumPy's formulas along one axis, written into slices of a new array."""
    def at(index: Any) -> tuple[Any, ...]:
        return (slice(None),) * axis + (index,)

    def along(coefficient: ndarray) -> ndarray:  # 1-D coefficients broadcast along axis.
        return coefficient.reshape((-1,) + (1,) * (f.ndim - axis - 1))

    out = _creation.empty(f.shape, otype)
    uniform = not isinstance(dx, ndarray) or dx.ndim == 0
    if uniform:
        out[at(slice(1, -1))] = (f[at(slice(2, None))] - f[at(slice(None, -2))]) / (2. * dx)
    else:
        dx1, dx2 = dx[0:-1], dx[1:]
        a = along(-dx2 / (dx1 * (dx1 + dx2)))
        b = along((dx2 - dx1) / (dx1 * dx2))
        c = along(dx1 / (dx2 * (dx1 + dx2)))
        out[at(slice(1, -1))] = (a * f[at(slice(None, -2))] + b * f[at(slice(1, -1))]
                                 + c * f[at(slice(2, None))])
    if edge_order == 1:
        out[at(0)] = (f[at(1)] - f[at(0)]) / (dx if uniform else dx[0])
        out[at(-1)] = (f[at(-1)] - f[at(-2)]) / (dx if uniform else dx[-1])
        return out
    if uniform:
        a, b, c = -1.5 / dx, 2. / dx, -0.5 / dx
    else:
        dx1, dx2 = dx[0], dx[1]
        a = -(2. * dx1 + dx2) / (dx1 * (dx1 + dx2))
        b = (dx1 + dx2) / (dx1 * dx2)
        c = -dx1 / (dx2 * (dx1 + dx2))
    out[at(0)] = a * f[at(0)] + b * f[at(1)] + c * f[at(2)]
    if uniform:
        a, b, c = 0.5 / dx, -2. / dx, 1.5 / dx
    else:
        dx1, dx2 = dx[-2], dx[-1]
        a = dx2 / (dx1 * (dx1 + dx2))
        b = -(dx2 + dx1) / (dx1 * dx2)
        c = (2. * dx2 + dx1) / (dx2 * (dx1 + dx2))
    out[at(-1)] = a * f[at(-3)] + b * f[at(-2)] + c * f[at(-1)]
    return out


def unwrap(p: ndarray, discont: Any = None, axis: int = -1, *,
           period: Any = 2 * math.pi) -> ndarray:
    """``p`` with jumps between neighbours larger than ``discont`` (default ``period / 2``)
    along ``axis`` replaced by their complement modulo ``period``, as NumPy."""
    p = _ops.require_array(p, "unwrap")
    axis = _axis(axis, p.ndim)
    dd = diff(p, axis=axis)
    if discont is None:
        discont = period / 2
    later = (slice(None),) * axis + (slice(1, None),)
    dtype = np.result_type(dd.dtype, np.asarray(period).dtype if not isinstance(
        period, (int, float)) else period)
    if dtype.kind in "iu":
        interval_high, rem = divmod(period, 2)
        boundary_ambiguous = rem == 0
    else:
        interval_high, boundary_ambiguous = period / 2, True
    interval_low = -interval_high
    ddmod = _ops.elementwise("remainder", (dd - interval_low, period)) + interval_low
    if boundary_ambiguous:
        ddmod = _where((ddmod == interval_low) & (dd > 0), interval_high, ddmod)
    correction = _where(abs(dd) < discont, 0, ddmod - dd)
    up = p.astype(dtype, copy=True)
    up[later] = p[later] + correction.cumsum(axis)
    return up


# -- i0 and vander ------------------------------------------------------------------------------

#: Cephes' Chebyshev coefficients for I0 on [0, 8] and (8, inf), as NumPy's i0 uses them.
_I0A = (-4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
        1.71539128555513303061E-15, -1.16853328779934516808E-14, 7.67618549860493561688E-14,
        -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
        9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
        -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
        1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
        -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
        1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
        -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
        1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1)
_I0B = (-7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
        3.46122286769746109310E-17, -2.82762398051658348494E-16, -3.42548561967721913462E-16,
        1.77256013305652638360E-15, 3.81168066935262242075E-15, -9.55484669882830764870E-15,
        -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
        7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
        -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10,
        3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
        2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
        8.04490411014108831608E-1)


def _chebyshev(x: ndarray, coefficients: tuple[float, ...]) -> ndarray:
    b0: Any = coefficients[0]
    b1: Any = 0.0
    b2: Any = 0.0
    for c in coefficients[1:]:
        b2, b1 = b1, b0
        b0 = x * b1 - b2 + c
    return 0.5 * (b0 - b2)


def i0(x: ndarray) -> ndarray:
    """The modified Bessel function of the first kind, order 0, by NumPy's Chebyshev
    expansions (floats keep their dtype; other real dtypes give float64)."""
    x = _ops.require_array(x, "i0")
    if x.dtype.kind == "c":
        raise client_error(ArrayHubTypeError, "i0 not supported for complex values")
    if x.dtype.kind != "f":
        x = x.astype(np.float64)
    x = abs(x)
    exp = _ops.elementwise("exp", (x,))
    with np.errstate(divide="ignore", invalid="ignore"):
        small = exp * _chebyshev(x / 2.0 - 2, _I0A)
        large = exp * _chebyshev(32.0 / x - 2.0, _I0B) / _ops.elementwise("sqrt", (x,))
    return _where(x <= 8.0, small, large)


def vander(x: Any, N: Optional[int] = None, increasing: bool = False) -> ndarray:
    """The Vandermonde matrix of the 1-D ``x``: columns ``x**(N-1), ..., x, 1`` (ascending
    powers with ``increasing``), by a cumulative product on the server."""
    x = _array(x, _client(x))
    if x.ndim != 1:
        raise client_error(ArrayHubValueError,
                           "x must be a one-dimensional array or sequence.")
    n = x.shape[0] if N is None else operator.index(N)
    if n < 0:
        raise client_error(ArrayHubValueError, "negative dimensions are not allowed")
    dtype = np.promote_types(x.dtype, int)
    columns = [_creation.ones((x.shape[0], min(n, 1)), dtype)]
    if n > 1:
        from arrayhub._manipulation import broadcast_to
        powers = broadcast_to(x.astype(dtype, copy=False).reshape(-1, 1), (x.shape[0], n - 1))
        columns.append(powers.cumprod(1))
    result = concatenate(columns, axis=1)
    return result if increasing else flip(result, axis=1)
