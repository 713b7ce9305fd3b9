"""Order statistics (median, percentile, quantile and their NaN-ignoring forms) and the
covariance matrices (cov, corrcoef), composed from server ops.

A quantile partitions the reduced axes on the server at the ranks it reads (the neighbours
of each virtual index, and the last rank: NaNs sort last, so it is NaN when the slice has
one), as NumPy's does, and gathers those ranks. The nan- forms, whose ranks differ per slice,
and ``weights`` sort the whole axis instead. The probabilities
``q`` are host data: their positions and weights are computed on the host by NumPy's
formulas (Hyndman & Fan), unless each slice counts its own values (the nan- forms), where
the same formulas run on the server per slice. An arrayhub ``q`` is downloaded (it is small:
NumPy checks its range on the host too). ``weights`` (method inverted_cdf) sort with an
argsort and count cumulative weights instead. ``overwrite_input`` is accepted and ignored:
the input is never changed.
"""

from __future__ import annotations

import warnings
from typing import Any, Optional

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from arrayhub import _creation, _ops
from arrayhub._array_api import take_along_axis
from arrayhub._errors import (ArrayHubAxisError, ArrayHubIndexError, ArrayHubTypeError,
                              ArrayHubValueError, client_error)
from arrayhub._ndarray import ndarray

__all__ = ["median", "percentile", "quantile", "nanmedian", "nanpercentile", "nanquantile",
           "cov", "corrcoef"]

#: Hyndman & Fan's (alpha, beta) for the continuous methods NumPy computes with them.
_ALPHA_BETA = {"interpolated_inverted_cdf": (0, 1), "hazen": (0.5, 0.5), "weibull": (0, 0),
               "median_unbiased": (1 / 3.0, 1 / 3.0), "normal_unbiased": (3 / 8.0, 3 / 8.0)}
#: The methods whose virtual index is an integer (no interpolation).
_DISCRETE = ("inverted_cdf", "closest_observation", "lower", "higher", "nearest")
_METHODS = ("inverted_cdf", "averaged_inverted_cdf", "closest_observation",
            "interpolated_inverted_cdf", "hazen", "weibull", "linear", "median_unbiased",
            "normal_unbiased", "lower", "higher", "midpoint", "nearest")


# -- Reducing several axes as one ------------------------------------------------------------

def _axes_first(a: ndarray, axis: Any) -> tuple[ndarray, tuple[int, ...]]:
    """``a`` with the reduced axes moved to the front and merged into axis 0 (NumPy's
    _ureduce, with the axis first as its _quantile wants it), and the shape the result has
    with keepdims (1 along the reduced axes)."""
    if axis is None:
        return a.reshape(a.size), (1,) * a.ndim
    try:
        axes = normalize_axis_tuple(axis, a.ndim)
    except np.exceptions.AxisError as error:
        raise client_error(ArrayHubAxisError, str(error)) from None
    keep = [d for d in range(a.ndim) if d not in axes]
    shape = a.shape
    if list(axes) + keep != list(range(a.ndim)):
        a = a.transpose(list(axes) + keep)
    merged = int(np.prod([shape[d] for d in axes], dtype=np.int64))
    return (a.reshape((merged,) + tuple(shape[d] for d in keep)),
            tuple(1 if d in axes else n for d, n in enumerate(shape)))


def _finish(result: ndarray, q_shape: tuple[int, ...], kept_shape: tuple[int, ...],
            keepdims: bool, out: Any) -> ndarray:
    """The result with the reduced axes kept as length 1 if asked, written to ``out`` if
    given."""
    if keepdims:
        result = result.reshape(q_shape + kept_shape)
    if out is not None:
        return _ops.elementwise("copy", (result,), out=out)
    return result


# -- Positions and weights (NumPy's formulas, on host or server values alike) ----------------

def _virtual_index(method: str, n: Any, q: Any) -> Any:
    """Where the quantile lies in a sorted slice of ``n`` values (NumPy's get_virtual_index):
    an integer array for the discrete methods. ``n`` and ``q`` are host values or server
    arrays; NumPy's ufuncs route the latter to the server."""
    if method == "linear":
        return (n - 1) * q
    if method in _ALPHA_BETA:
        alpha, beta = _ALPHA_BETA[method]
        return n * q + (alpha + q * (1 - alpha - beta)) - 1
    if method == "averaged_inverted_cdf":
        return n * q - 1
    if method == "midpoint":
        return 0.5 * (np.floor((n - 1) * q) + np.ceil((n - 1) * q))
    if method == "lower":
        return np.floor((n - 1) * q).astype(np.intp)
    if method == "higher":
        return np.ceil((n - 1) * q).astype(np.intp)
    if method == "nearest":
        return np.rint((n - 1) * q).astype(np.intp)
    # inverted_cdf and closest_observation: the neighbour a condition on the fraction picks.
    index = n * q - 1 if method == "inverted_cdf" else n * q - 1 - 0.5
    previous = np.floor(index)
    gamma = index - previous
    picked = gamma == 0
    if method == "closest_observation":
        picked = np.logical_and(picked, np.floor(index) % 2 == 1)
    return np.maximum(np.where(picked, previous, previous + 1).astype(np.intp), 0)


def _gamma(method: str, index: Any) -> Any:
    """The interpolation weight between the two neighbours (NumPy's _get_gamma)."""
    gamma = index - np.floor(index)
    if method == "averaged_inverted_cdf":
        gamma = np.where(gamma == 0, 0.5, 1.0)
    elif method == "midpoint":
        gamma = np.where(index % 1 == 0, 0.0, 0.5)
    return gamma.astype(index.dtype)


def _neighbours(index: Any, n: Any) -> tuple[Any, Any]:
    """The indices below and above ``index``, within [0, n - 1] (NumPy's _get_indexes)."""
    previous = np.floor(index)
    after = previous + 1
    above = index >= n - 1
    previous, after = np.where(above, n - 1, previous), np.where(above, n - 1, after)
    below = index < 0
    previous, after = np.where(below, 0, previous), np.where(below, 0, after)
    return previous.astype(np.intp), after.astype(np.intp)


def _lerp(a: ndarray, b: ndarray, t: Any) -> ndarray:
    """NumPy's _lerp: ``a + (b - a) * t``, from ``b``'s side where ``t >= 0.5``."""
    diff = b - a
    low = a + diff * t
    high = b - diff * (1 - t)
    return _ops.elementwise("where", (t >= 0.5, high, low))


# -- quantile ---------------------------------------------------------------------------------

def _host_q(q: Any) -> np.ndarray:
    """``q`` as a host array (an arrayhub ``q`` is downloaded: it is small)."""
    return q.get() if isinstance(q, ndarray) else np.asanyarray(q)


def _check_a(a: Any, what: str) -> ndarray:
    a = _ops.require_array(a, what)
    if a.dtype.kind == "c":
        raise client_error(ArrayHubTypeError, "a must be an array of real numbers")
    return a


def _check_q(q: np.ndarray, message: str) -> None:
    if q.size and not (np.all(q >= 0) and np.all(q <= 1)):
        raise client_error(ArrayHubValueError, message)


def _check_method(method: str) -> None:
    if method not in _METHODS:
        raise client_error(ArrayHubValueError,
                           f"{method!r} is not a valid method. Use one of: "
                           f"dict_keys({list(_METHODS)!r})")


def _check_weights(a: ndarray, axis: Any, method: str, weights: Any,
                   skip_nan: bool) -> Optional[ndarray]:
    """``weights`` broadcast to ``a``'s shape, checked as NumPy checks them (whether one is
    negative is one bool read back)."""
    if weights is None:
        return None
    if method != "inverted_cdf":
        raise client_error(ArrayHubValueError,
                           f"Only method 'inverted_cdf' supports weights. Got: {method}.")
    w = weights if isinstance(weights, ndarray) else _ops.upload(np.asanyarray(weights),
                                                                 a.client)
    if a.shape != w.shape:
        if axis is None:
            raise client_error(ArrayHubTypeError,
                               "Axis must be specified when shapes of a and weights differ.")
        try:
            axes = normalize_axis_tuple(axis, a.ndim, argname="axis")
        except np.exceptions.AxisError as error:
            raise client_error(ArrayHubAxisError, str(error)) from None
        if w.shape != tuple(a.shape[ax] for ax in axes):
            raise client_error(ArrayHubValueError, "Shape of weights must be consistent with "
                                                   "shape of a along specified axis.")
        from arrayhub._manipulation import broadcast_to
        w = w.transpose(tuple(np.argsort(axes))).reshape(
            tuple(n if d in axes else 1 for d, n in enumerate(a.shape)))
        w = broadcast_to(w, a.shape)
    if bool(_ops.reduce("any", _ops.elementwise("less", (w, 0)))):
        raise client_error(ArrayHubValueError, "Weights must be non-negative.")
    return w


def _quantile(a: ndarray, q: np.ndarray, weak_q: bool, axis: Any, out: Any, method: str,
              keepdims: bool, skip_nan: bool, weights: Optional[ndarray] = None) -> ndarray:
    if q.ndim > 2:
        raise client_error(ArrayHubValueError, "q must be a scalar or 1d")
    if skip_nan and a.size == 0 and a.dtype.kind == "f":  # NumPy's: the mean of nothing.
        from arrayhub._nan_functions import nanmean
        return nanmean(a, axis, out=out, keepdims=keepdims)
    moved, kept_shape = _axes_first(a, axis)
    count = moved.shape[0]
    rest = moved.shape[1:]
    inexact = a.dtype.kind == "f"
    skip_nan = skip_nan and inexact
    if count == 0 and not skip_nan:
        raise client_error(ArrayHubIndexError, "index -1 is out of bounds for axis 0 with size 0")
    _check_method(method)
    q_flat = q.reshape(-1)
    discrete = method in _DISCRETE or (method == "linear" and q.dtype.kind in "iub")
    if weights is not None:
        order = moved.argsort(0)
        ordered = take_along_axis(moved, order, 0)
        result = _weighted(ordered, take_along_axis(_axes_first(weights, axis)[0], order, 0),
                           q, q_flat, count, rest, skip_nan)
    elif skip_nan:
        ordered = _sorted(moved)
        result = _per_slice(ordered, q, q_flat, weak_q, method, discrete, rest)
    else:
        picks = _constant_picks(method, discrete, count, q_flat)
        ranks = [p for p in picks[:2] if p is not None]
        ordered = _selected(moved, np.concatenate(ranks).tolist() + [count - 1])
        result = _constant_count(ordered, q, picks, weak_q, rest)
    if inexact and not skip_nan and count:
        last = ordered[-1]
        result = _ops.elementwise("where", (_ops.elementwise("isnan", (last,)), np.nan, result))
    return _finish(result, q.shape, kept_shape, keepdims, out)


def _weighted(ordered: ndarray, weights: ndarray, q: np.ndarray, q_flat: np.ndarray,
              count: int, rest: tuple[int, ...], skip_nan: bool) -> ndarray:
    """NumPy's weighted inverted_cdf: the first sorted value whose share of the cumulative
    weight reaches each q, per slice (a count of the cdf values below q, as searchsorted
    'left' finds them). With ``skip_nan``, NaNs (sorted last) weigh nothing and a slice of
    NaNs gives NaN and NumPy's warning. Whether a slice's weights sum to zero or NaN (and
    whether one is all NaN) is read back."""
    from arrayhub._manipulation import broadcast_to

    if skip_nan:
        nan = _ops.elementwise("isnan", (ordered,))
        weights = _ops.elementwise("where", (nan, 0, weights))
        all_nan = _ops.reduce("all", nan, 0)
    cdf = weights.cumsum(0, dtype=np.float64)
    cdf = cdf / cdf[-1]
    bad = _ops.elementwise("isnan", (cdf[-1],))
    if skip_nan:
        bad = _ops.elementwise("logical_and", (bad, _ops.elementwise("logical_not",
                                                                     (all_nan,))))
    if bool(_ops.reduce("any", bad)):
        raise client_error(ArrayHubValueError, "Weights included NaN, inf or were all zero.")
    if q.dtype.kind == "f":
        cdf = cdf.astype(q.dtype, copy=False)
    # Leading zero weights: a cdf of 0 must not match q = 0 (NumPy sets those to -1).
    cdf = _ops.elementwise("where", (_ops.elementwise("equal", (cdf, 0)), -1, cdf))
    q_server = _ops.upload(q_flat.reshape((q_flat.size, 1) + (1,) * len(rest)), ordered.client)
    below = _ops.elementwise("less", (cdf[None], q_server))
    index = _ops.reduce("sum", below, 1, dtype=np.intp)
    index = _ops.elementwise("minimum", (index, count - 1))
    index = broadcast_to(index, (q_flat.size,) + rest)
    result = take_along_axis(ordered, index, 0)
    if skip_nan and bool(_ops.reduce("any", all_nan)):
        warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=4)
        result = _ops.elementwise("where", (all_nan, np.nan, result))
    return result.reshape(q.shape + rest)


def _sorted(moved: ndarray) -> ndarray:
    from arrayhub._manipulation import sort
    return sort(moved, axis=0)


#: More ranks than this sort instead: a sort is a partition at every rank, costs about as
#: much as selecting that many, and keeps the request within the server's list limit.
_MOST_RANKS = 1024


def _selected(moved: ndarray, ranks: list[int]) -> ndarray:
    """``moved`` partitioned along axis 0 at ``ranks``: those hold what a sort puts there."""
    from arrayhub._sorting import partition
    ranks = sorted(set(ranks))
    return _sorted(moved) if len(ranks) > _MOST_RANKS else partition(moved, ranks, axis=0)


def _constant_picks(method: str, discrete: bool, count: int,
                    q_flat: np.ndarray) -> tuple[np.ndarray, Optional[np.ndarray], Any]:
    """Every slice has ``count`` values: the ranks each quantile reads (the one rank of a
    discrete method; else the neighbours below and above) and the interpolation weights,
    computed on the host."""
    index = np.asanyarray(_virtual_index(method, count, q_flat))
    if discrete:
        return np.where(index >= count - 1, count - 1, index).astype(np.intp), None, None
    previous, after = _neighbours(index, count)
    return previous, after, _gamma(method, index)


def _constant_count(ordered: ndarray, q: np.ndarray, picks: tuple[np.ndarray, Any, Any],
                    weak_q: bool, rest: tuple[int, ...]) -> ndarray:
    """The quantiles of slices of one count from ``ordered`` (correct at the picked ranks)."""
    client = ordered.client
    previous, after, gamma = picks
    if after is None:
        picked = ordered.take(_ops.upload(previous, client), axis=0)
        return picked.reshape(q.shape + rest)
    low = ordered.take(_ops.upload(previous, client), axis=0)
    high = ordered.take(_ops.upload(after, client), axis=0)
    if weak_q:
        t: Any = float(gamma[0])
    else:
        t = _ops.upload(gamma.reshape(gamma.shape + (1,) * len(rest)), client)
    return _lerp(low, high, t).reshape(q.shape + rest)


def _per_slice(ordered: ndarray, q: np.ndarray, q_flat: np.ndarray, weak_q: bool,
               method: str, discrete: bool, rest: tuple[int, ...]) -> ndarray:
    """NaNs sorted last, each slice counts its own values: NumPy's formulas on the server,
    broadcast over (quantile, slice). All-NaN slices give NaN with NumPy's warning (one
    round trip reads whether there is one)."""
    client = ordered.client
    valid = _ops.reduce("sum", _ops.elementwise("logical_not", (
        _ops.elementwise("isnan", (ordered,)),)), 0)
    q_dtype = q.dtype if q.dtype.kind == "f" else np.dtype(np.float64)
    n = valid.astype(q_dtype) if not discrete or q.dtype.kind == "f" else valid
    q_server = _ops.upload(q_flat.reshape(q_flat.shape + (1,) * len(rest)), client)
    index = _virtual_index(method, n, q_server)
    if discrete:
        last = np.maximum(n - 1, 0)
        index = np.where(index >= last, last, index).astype(np.intp)
        result = take_along_axis(ordered, _broadcast(index, q_flat, rest), 0)
    else:
        previous, after = _neighbours(index, n)
        previous, after = np.maximum(previous, 0), np.maximum(after, 0)
        result_dtype = np.result_type(ordered.dtype, 0.0 if weak_q else q_dtype)
        gamma = _gamma(method, index).astype(result_dtype)
        low = take_along_axis(ordered, _broadcast(previous, q_flat, rest), 0)
        high = take_along_axis(ordered, _broadcast(after, q_flat, rest), 0)
        result = _lerp(low, high, gamma).astype(result_dtype, copy=False)
    empty = _ops.elementwise("equal", (valid, 0))
    if bool(_ops.reduce("any", empty)):
        warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=4)
        result = _ops.elementwise("where", (empty, np.nan, result))
    return result.reshape(q.shape + rest)


def _broadcast(index: ndarray, q_flat: np.ndarray, rest: tuple[int, ...]) -> ndarray:
    from arrayhub._manipulation import broadcast_to
    return broadcast_to(index, (q_flat.size,) + rest)


def quantile(a: ndarray, q: Any, axis: Any = None, out: Any = None,
             overwrite_input: bool = False, method: str = "linear", keepdims: bool = False,
             *, weights: Any = None) -> ndarray:
    """The ``q``-th quantiles (0 <= q <= 1; a scalar or 1-D) along ``axis`` (int, tuple or
    None), by one of NumPy's 13 methods; a NaN in a slice makes its result NaN. A full sort
    on the server."""
    a = _check_a(a, "quantile")
    weak_q = type(q) in (int, float)
    q = _host_q(q)
    _check_q(q, "Quantiles must be in the range [0, 1]")
    weights = _check_weights(a, axis, method, weights, skip_nan=False)
    return _quantile(a, q, weak_q, axis, out, method, keepdims, skip_nan=False,
                     weights=weights)


def percentile(a: ndarray, q: Any, axis: Any = None, out: Any = None,
               overwrite_input: bool = False, method: str = "linear", keepdims: bool = False,
               *, weights: Any = None) -> ndarray:
    """The ``q``-th percentiles (0 <= q <= 100): :func:`quantile` of ``q / 100``."""
    a = _check_a(a, "percentile")
    weak_q = type(q) in (int, float)
    q = np.true_divide(_host_q(q), 100)
    _check_q(q, "Percentiles must be in the range [0, 100]")
    weights = _check_weights(a, axis, method, weights, skip_nan=False)
    return _quantile(a, q, weak_q, axis, out, method, keepdims, skip_nan=False,
                     weights=weights)


def nanquantile(a: ndarray, q: Any, axis: Any = None, out: Any = None,
                overwrite_input: bool = False, method: str = "linear", keepdims: bool = False,
                *, weights: Any = None) -> ndarray:
    """:func:`quantile` ignoring NaNs: each slice's quantiles among its non-NaN values; a
    slice of NaNs only gives NaN and NumPy's RuntimeWarning."""
    a = _check_a(a, "nanquantile")
    weak_q = type(q) in (int, float)
    q = _host_q(q)
    _check_q(q, "Quantiles must be in the range [0, 1]")
    weights = _check_weights(a, axis, method, weights, skip_nan=True)
    return _quantile(a, q, weak_q, axis, out, method, keepdims, skip_nan=True,
                     weights=weights)


def nanpercentile(a: ndarray, q: Any, axis: Any = None, out: Any = None,
                  overwrite_input: bool = False, method: str = "linear",
                  keepdims: bool = False, *, weights: Any = None) -> ndarray:
    """:func:`percentile` ignoring NaNs (as :func:`nanquantile`)."""
    a = _check_a(a, "nanpercentile")
    weak_q = type(q) in (int, float)
    q = np.true_divide(_host_q(q), 100)
    _check_q(q, "Percentiles must be in the range [0, 100]")
    weights = _check_weights(a, axis, method, weights, skip_nan=True)
    return _quantile(a, q, weak_q, axis, out, method, keepdims, skip_nan=True,
                     weights=weights)


# -- median -----------------------------------------------------------------------------------

def median(a: ndarray, axis: Any = None, out: Any = None, overwrite_input: bool = False,
           keepdims: bool = False) -> ndarray:
    """The median along ``axis``: the mean of the middle one or two sorted values (so
    integers give float64, as NumPy); NaN where a slice has a NaN. A partition on the
    server at the middle ranks and the last (the greatest value, NaN if there is one)."""
    a = _ops.require_array(a, "median")
    moved, kept_shape = _axes_first(a, axis)
    count = moved.shape[0]
    ordered = _selected(moved, [(count - 1) // 2, count // 2, count - 1])
    middle = ordered[(count - 1) // 2:count // 2 + 1]
    if count == 0:
        warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=2)
    result = _ops.reduce("mean", middle, 0)
    if a.dtype.kind in "fc" and count:
        last = ordered[-1]
        result = _ops.elementwise("where", (_ops.elementwise("isnan", (last,)), last, result))
    return _finish(result, (), kept_shape, keepdims, out)


def nanmedian(a: ndarray, axis: Any = None, out: Any = None, overwrite_input: bool = False,
              keepdims: bool = False) -> ndarray:
    """The median of the non-NaN values of each slice (NaN and NumPy's warning for a slice of
    NaNs); integers as :func:`median`."""
    a = _ops.require_array(a, "nanmedian")
    if a.dtype.kind != "f":
        return median(a, axis, out, overwrite_input, keepdims)
    return _quantile(a, np.asarray(0.5), True, axis, out, "linear", keepdims, skip_nan=True)


# -- cov and corrcoef -------------------------------------------------------------------------

def _as_2d(m: Any, dtype: Any, name: str) -> ndarray:
    """``m`` as a 2-D array of ``dtype`` (NumPy's array(m, ndmin=2, dtype=dtype))."""
    m = _ops.require_array(m, "cov")
    if m.ndim > 2:
        raise client_error(ArrayHubValueError, f"{name} has more than 2 dimensions")
    m = m.astype(dtype, copy=False)
    return m.reshape((1,) * (2 - m.ndim) + m.shape) if m.ndim < 2 else m


def _weights(values: Any, size: int, client: Any, name: str) -> ndarray:
    """fweights or aweights as float64, checked as NumPy checks them (each check reads one
    bool back)."""
    w = (values.astype(np.float64, copy=False) if isinstance(values, ndarray)
         else _ops.upload(np.asarray(values, dtype=float), client))
    if name == "fweights" and not bool(_ops.reduce("all", _ops.elementwise(
            "equal", (w, _ops.elementwise("rint", (w,)))))):
        raise client_error(ArrayHubTypeError, "fweights must be integer")
    if w.ndim > 1:
        raise RuntimeError(f"cannot handle multidimensional {name}")
    if w.shape[0] != size:
        raise RuntimeError(f"incompatible numbers of samples and {name}")
    if bool(_ops.reduce("any", _ops.elementwise("less", (w, 0)))):
        raise client_error(ArrayHubValueError, f"{name} cannot be negative")
    return w


def cov(m: ndarray, y: Any = None, rowvar: bool = True, bias: bool = False,
        ddof: Optional[int] = None, fweights: Any = None, aweights: Any = None, *,
        dtype: Any = None) -> ndarray:
    """The covariance matrix of the variables in the rows of ``m`` (columns when ``rowvar``
    is false), with ``y``'s variables appended, as NumPy computes it: the centred products by
    one matmul on the server. The normalisation factor and the weights' checks are read back
    (scalars and bools)."""
    if ddof is not None and ddof != int(ddof):
        raise client_error(ArrayHubValueError, "ddof must be integer")
    m = _ops.require_array(m, "cov")
    if dtype is None:
        dtype = np.result_type(m.dtype, np.float64) if y is None else np.result_type(
            m.dtype, _ops.require_array(y, "cov").dtype, np.float64)
    X = _as_2d(m, dtype, "m")
    if not rowvar and m.ndim != 1:
        X = X.T
    if X.shape[0] == 0:
        return _creation.empty((0, 0), np.float64)
    if y is not None:
        Y = _as_2d(y, dtype, "y")
        if not rowvar and Y.shape[0] != 1:
            Y = Y.T
        from arrayhub._manipulation import concatenate
        X = concatenate((X, Y), axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    samples = X.shape[1]
    w = None
    if fweights is not None:
        w = _weights(fweights, samples, X.client, "fweights")
    if aweights is not None:
        a_w = _weights(aweights, samples, X.client, "aweights")
        w = a_w if w is None else w * a_w
    from arrayhub._math_functions import average
    avg, w_sum = average(X, axis=1, weights=w, returned=True)
    w_sum = w_sum[0]
    if w is None:
        fact: Any = samples - ddof
    elif ddof == 0:
        fact = w_sum
    elif aweights is None:
        fact = w_sum - ddof
    else:
        fact = w_sum - ddof * _ops.reduce("sum", w * a_w) / w_sum
    fact = float(fact)
    if fact <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
        fact = 0.0
    X = X - avg[:, None]
    X_T = X.T if w is None else (X * w).T
    from arrayhub._products import dot
    c = dot(X, X_T.conj())
    c = _ops.elementwise("multiply", (c, np.true_divide(1, fact))).astype(c.dtype, copy=False)
    return c.squeeze()


def corrcoef(x: ndarray, y: Any = None, rowvar: bool = True, *, dtype: Any = None) -> ndarray:
    """Pearson correlation coefficients: :func:`cov` scaled by the standard deviations,
    clipped to [-1, 1] (both parts of a complex result)."""
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return c / c
    from arrayhub._complex_parts import real
    from arrayhub._matrix_functions import diag
    stddev = _ops.elementwise("sqrt", (real(diag(c)),))
    c = c / stddev[:, None]
    c = c / stddev[None, :]
    if c.dtype.kind == "c":
        from arrayhub._complex_parts import imag
        return _ops.elementwise("add", (
            _ops.elementwise("clip", (real(c), -1, 1)),
            _ops.elementwise("multiply", (_ops.elementwise("clip", (imag(c), -1, 1)), 1j))))
    return _ops.elementwise("clip", (c, -1, 1))
