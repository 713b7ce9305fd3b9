"""Counting into bins on the server: bincount, digitize, histogram, histogram_bin_edges,
histogram2d and histogramdd.

histogram without weights, with floating edges (NumPy's own, or any floating bins array), is
one server op (ArrayOp "histogram"): one pass over the data, each element binned against the
edges as NumPy bins it. Every other count is a combining scatter (``add.at``) into a new
array, which adds repeated bins in NumPy's sequential order, so that weighted sums round as
NumPy's loops do (NumPy's histogram sums blocks of 65536 elements separately, and with bins
given as an array it takes differences of cumulative sums: there the weighted results may
differ in the last bits). There elements fall into bins by searchsorted against the edges;
values outside the edges (and NaN) go to one extra bin that is dropped.

The bin edges are NumPy's own: NumPy computes them from a stand-in of the data that has the
data's dtype, minimum and maximum (one read of those two values, or none when ``range`` is
given), so that their rounding, checks and messages are NumPy's. bincount reads the largest
and smallest value (its result's length depends on them); digitize reads whether the bins
increase or decrease.
"""

from __future__ import annotations

import builtins
import math
import operator
import warnings
from typing import Any, Optional

import numpy as np
from numpy.lib import _function_base_impl  # NumPy's quantile arithmetic
from numpy.lib import _histograms_impl  # NumPy's own edge arithmetic (range checks, ptp)

from arrayhub import _ops
from arrayhub._errors import ArrayHubTypeError, ArrayHubValueError, client_error
from arrayhub._ndarray import ndarray

__all__ = ["bincount", "digitize", "histogram", "histogram_bin_edges", "histogram2d",
           "histogramdd"]


def _ew(op: str, *args: Any) -> ndarray:
    return _ops.elementwise(op, args)


def _array(value: Any, client: Any) -> ndarray:
    return value if isinstance(value, ndarray) else _ops.upload(np.asarray(value), client)


def _read(*scalars: ndarray) -> list[Any]:
    """Several 0-d results in one round trip."""
    from arrayhub._manipulation import stack

    if any(s.dtype != scalars[0].dtype for s in scalars):
        scalars = tuple(s.astype(np.float64) for s in scalars)
    return stack(scalars).get().tolist()


def _depth(a: ndarray) -> None:
    if a.ndim > 1:
        raise client_error(ArrayHubValueError, "object too deep for desired array")
    if a.ndim < 1:
        raise client_error(ArrayHubValueError, "object of too small depth for desired array")


def _count(bins: ndarray, length: int, weights: Optional[ndarray], dtype: Any) -> ndarray:
    """counts[i] = the number (or the weights' sum) of the elements of ``bins`` equal to i,
    for i < length: one combining scatter into zeros of ``dtype``."""
    from arrayhub._creation import zeros
    from arrayhub._ufuncs import UFUNCS

    counts = zeros(length, dtype=dtype)
    UFUNCS["add"].at(counts, bins, 1 if weights is None else weights.ravel())
    return counts


def bincount(x: Any, /, weights: Any = None, minlength: int = 0) -> ndarray:
    """numpy.bincount: the number of occurrences of each value in the non-negative integer
    array ``x`` (the sum of ``weights`` there, as float64), at least ``minlength`` long. One
    read of x's smallest and largest value, which decide the length."""
    x = _ops.require_array(x, "bincount")
    client = x.client
    _depth(x)
    if x.dtype.kind not in "biu":
        raise client_error(ArrayHubTypeError,
                           f"Cannot cast array data from {x.dtype!r} to dtype('int64') "
                           f"according to the rule 'safe'")
    if minlength is None:
        raise client_error(ArrayHubTypeError,
                           "'NoneType' object cannot be interpreted as an integer")
    minlength = operator.index(minlength)
    if minlength < 0:
        raise client_error(ArrayHubValueError, "'minlength' must not be negative")
    w = None
    if weights is not None:
        w = _array(weights, client)
        if w.shape != x.shape:
            raise client_error(ArrayHubValueError,
                               "The weights and list don't have the same length.")
        if not np.can_cast(w.dtype, np.float64, "safe"):
            raise client_error(ArrayHubTypeError,
                               f"Cannot cast array data from {w.dtype!r} to "
                               f"dtype('float64') according to the rule 'safe'")
        w = w.astype(np.float64)
    dtype = np.int64 if w is None else np.float64
    if x.size == 0:
        from arrayhub._creation import zeros

        return zeros(minlength, dtype=dtype)
    if x.dtype != np.int64:
        x = x.astype(np.int64)  # Bools are counts at 0 and 1, not a mask.
    low, high = _read(x.min(), x.max())
    if low < 0:
        raise client_error(ArrayHubValueError, "'list' argument must have no negative elements")
    return _count(x, max(int(high) + 1, minlength), w, dtype)


def _searchsorted(edges: ndarray, values: ndarray, side: str) -> ndarray:
    """searchsorted in the dtype both promote to, as NumPy's."""
    from arrayhub._manipulation import searchsorted

    common = np.result_type(edges.dtype, values.dtype)
    return searchsorted(edges.astype(common, copy=False), values.astype(common, copy=False),
                        side=side)


def digitize(x: Any, bins: Any, right: bool = False) -> ndarray:
    """numpy.digitize: the index of the bin of each element of ``x`` (bins increasing or
    decreasing; ``right`` includes the right edge instead of the left). One read of whether
    the bins increase or decrease, for bins on the server."""
    x = _ops.require_array(x, "digitize")
    if x.dtype.kind == "c":
        raise client_error(ArrayHubTypeError, "x may not be complex")
    if isinstance(bins, ndarray):
        _depth(bins)
        from arrayhub._math_functions import diff

        steps = diff(bins)
        increasing, decreasing = _read(_ew("greater_equal", steps, 0).all(),
                                       _ew("less_equal", steps, 0).all())
    else:
        host = np.asarray(bins)
        if host.ndim != 1:
            raise client_error(ArrayHubValueError,
                               "object too deep for desired array" if host.ndim > 1 else
                               "object of too small depth for desired array")
        steps = np.diff(host)
        increasing, decreasing = bool(np.all(steps >= 0)), bool(np.all(steps <= 0))
        bins = _ops.upload(host, x.client)
    if not increasing and not decreasing:
        raise client_error(ArrayHubValueError,
                           "bins must be monotonically increasing or decreasing")
    side = "left" if right else "right"
    if increasing:
        return _searchsorted(bins, x, side)
    return _ew("subtract", bins.size, _searchsorted(bins[::-1], x, side))


# ---------------------------------------------------------------------------------------------
# Bin edges

#: NumPy's estimators of a bin width: from the data's size, extremes, standard deviation,
#: quartiles and skew ("doane"), or by a search over bin counts ("stone").
_ESTIMATORS = ("sqrt", "sturges", "rice", "scott", "fd", "auto", "doane", "stone")


def _stand_in(a: ndarray, need_extremes: bool) -> np.ndarray:
    """A NumPy array that NumPy's bin-edge code reads as it would read ``a``: the same dtype,
    minimum and maximum (NaN included), or (when the range is given) only the dtype."""
    if a.size == 0 or not need_extremes:
        return np.empty(0, dtype=a.dtype)
    low, high = _read(a.min(), a.max())
    return np.array([low, high], dtype=a.dtype)


def _estimated_bins(a: ndarray, name: str, range: Any, weights: Any,
                    stand_in: np.ndarray) -> int:
    """The number of equal bins NumPy's estimator ``name`` chooses for ``a`` within
    ``range`` (np.histogram_bin_edges with a string), with NumPy's arithmetic on the data's
    size, extremes (in its dtype) and standard deviation."""
    if name not in _ESTIMATORS:
        raise client_error(ArrayHubValueError, f"{name!r} is not a valid estimator for `bins`")
    if weights is not None:
        raise client_error(ArrayHubTypeError,
                           "Automated estimation of the number of bins is not supported for "
                           "weighted data")
    first, last = _histograms_impl._get_outer_edges(stand_in, range)
    if range is not None:
        a = a[_ew("logical_and", _ew("greater_equal", a, first), _ew("less_equal", a, last))]
    if a.size == 0:
        return 1
    from arrayhub._manipulation import stack

    low, high = stack([a.min(), a.max()]).get()
    ptp = _histograms_impl._unsigned_subtract(high, low)
    n = a.size
    sturges = ptp / (np.log2(n) + 1.0)
    if name == "scott":
        spread = (a if a.dtype.kind in "fc" else a.astype(np.float64)).std().get()
        width = (24.0 * np.pi ** 0.5 / n) ** (1.0 / 3.0) * spread
    elif name in ("fd", "auto"):
        fd = 2.0 * _interquartile_range(a) * n ** (-1.0 / 3.0)
        # 'auto': NumPy 2's, the FD width no narrower than half the sqrt rule's (which bounds
        # the count of bins of heavy-tailed data), then no wider than Sturges'.
        width = fd if name == "fd" else min(max(fd, ptp / np.sqrt(n) / 2), sturges)
    elif name == "doane":
        width = _doane_width(a, ptp)
    elif name == "stone":
        width = _stone_width(a, ptp, (first, last))
    else:
        width = {"sqrt": lambda: ptp / np.sqrt(n), "sturges": lambda: sturges,
                 "rice": lambda: ptp / (2.0 * n ** (1.0 / 3))}[name]()
    if not width:
        return 1
    if np.issubdtype(a.dtype, np.integer) and width < 1:
        width = 1  # NumPy's: integer data gets bins at least one unit wide.
    return int(np.ceil(_histograms_impl._unsigned_subtract(last, first) / width))


def _doane_width(a: ndarray, ptp: Any) -> Any:
    """Doane's width: Sturges' corrected by the data's skew g1, which the server computes as
    NumPy does (``mean(((a - mean(a)) / std(a)) ** 3)`` in the data's floating dtype)."""
    n = a.size
    if n <= 2:
        return 0.0
    sg1 = np.sqrt(6.0 * (n - 2) / ((n + 1.0) * (n + 3)))
    sigma = a.std()
    if not sigma.get() > 0.0:
        return 0.0
    g1 = _ew("power", _ew("true_divide", _ew("subtract", a, a.mean()), sigma), 3).mean().get()
    return ptp / (1.0 + np.log2(n) + np.log2(1.0 + np.absolute(g1) / sg1))


def _stone_width(a: ndarray, ptp: Any, edges_range: tuple[Any, Any]) -> Any:
    """Stone's width: the bin count from 1 to max(100, sqrt(n)) that minimises the
    cross-validated integrated squared error, NumPy's ``(2 - (n + 1) * p.dot(p)) / h`` with
    ``p`` the histogram's counts / n. Every candidate's histogram is queued on the server with
    the sum of its squared counts (exact, in int64), and the sums come back in one read; NumPy
    sums the squares of p in float64, so the two may differ in the last bits (only an exact tie
    between two bin counts could then be broken the other way)."""
    from arrayhub._manipulation import stack

    n = a.size
    if n <= 1 or ptp == 0:
        return 0
    upper = max(100, int(np.sqrt(n)))
    squares = [_ew("multiply", counts, counts).sum()
               for counts in (histogram(a, bins=k, range=edges_range)[0]
                              for k in builtins.range(1, upper + 1))]
    sums = stack(squares).get()
    p_dot_p = sums / float(n) / float(n)
    error = [(2 - (n + 1) * p_dot_p[k - 1]) / (ptp / k) for k in builtins.range(1, upper + 1)]
    nbins = 1 + int(np.argmin(error))  # The first of equal minima, as min(..., key=) picks.
    if nbins == upper:
        warnings.warn("The number of bins estimated may be suboptimal.", RuntimeWarning,
                      stacklevel=5)
    return ptp / nbins


def _interquartile_range(a: ndarray) -> Any:
    """``np.subtract(*np.percentile(a, [75, 25]))`` of the 1-D, NaN-free ``a``: the server
    sorts ``a`` and gives back the four elements around the quartiles, and NumPy's own
    quantile helpers interpolate them (its arithmetic and dtypes)."""
    from arrayhub._manipulation import sort

    linear = _function_base_impl._QuantileMethods["linear"]
    virtual = np.asanyarray(linear["get_virtual_index"](a.size, np.true_divide([75, 25], 100)))
    below, above = _function_base_impl._get_indexes(np.empty(0, a.dtype), virtual, a.size)
    picked = sort(a).take(_ops.upload(np.concatenate([below, above]), a.client)).get()
    gamma = _function_base_impl._get_gamma(virtual, below, linear)
    quartiles = _function_base_impl._lerp(picked[:2], picked[2:], gamma)
    return np.subtract(*quartiles)


def _edges(a: ndarray, bins: Any, range: Any, weights: Any) -> np.ndarray:
    """NumPy's bin edges for the flattened ``a`` (np.histogram_bin_edges)."""
    if isinstance(bins, str):
        stand_in = _stand_in(a, range is None)
        count = _estimated_bins(a, bins, range, weights, stand_in)
        return np.histogram_bin_edges(stand_in, count,
                                      _histograms_impl._get_outer_edges(stand_in, range))
    if isinstance(bins, ndarray):
        bins = bins.get()
    if np.ndim(bins) == 0:
        return np.histogram_bin_edges(_stand_in(a, range is None), bins, range)
    return np.histogram_bin_edges(np.empty(0, dtype=a.dtype), bins, range)


def histogram_bin_edges(a: Any, bins: Any = 10, range: Any = None,
                        weights: Any = None) -> ndarray:
    """numpy.histogram_bin_edges: the edges histogram would use (on the server)."""
    a = _ops.require_array(a, "histogram_bin_edges")
    return _ops.upload(_edges(a.ravel(), bins, range, weights), a.client)


def histogram(a: Any, bins: Any = 10, range: Any = None, density: Optional[bool] = None,
              weights: Any = None) -> tuple[ndarray, ndarray]:
    """numpy.histogram: the counts (int64; the weights' sums in their dtype) of the
    flattened ``a`` in each bin, the last bin closed on the right, and the edges. With
    ``density`` the counts are divided by the bin widths and their total."""
    a = _ops.require_array(a, "histogram")
    client = a.client
    w = None
    if weights is not None:
        w = _array(weights, client)
        if w.shape != a.shape:
            raise client_error(ArrayHubValueError, "weights should have the same shape as a.")
    a = a.ravel()
    host_edges = _edges(a, bins, range, weights)
    edges = _ops.upload(host_edges, client)
    n = host_edges.size - 1
    if w is None and host_edges.dtype.kind == "f" and a.dtype.kind in "biuf":
        # One pass on the server: floating edges compare as NumPy compares them, in float64.
        counts = _ops.array_op("histogram", (a, edges))[0]
    else:
        # Weights (whose sums a fold in order gives NumPy's bits), or integer edges (compared
        # as integers): bin i holds edges[i] <= x < edges[i + 1], the last bin x == edges[-1]
        # too; the others (and NaN) go to bin n, dropped.
        first, last = host_edges[0].item(), host_edges[-1].item()
        index = _ew("subtract", _searchsorted(edges, a, "right"), 1)
        index = _ew("where", _ew("equal", a, last), n - 1, index)
        inside = _ew("logical_and", _ew("greater_equal", a, first),
                     _ew("less_equal", a, last))
        index = _ew("where", inside, index, n)
        counts = _count(index, n + 1, w, np.int64 if w is None else w.dtype)[:n]
    if density:
        widths = _ops.upload(np.diff(host_edges).astype(np.float64, copy=False), client)
        counts = _ew("true_divide", _ew("true_divide", counts, widths), counts.sum())
    return counts, edges


def histogramdd(sample: Any, bins: Any = 10, range: Any = None,
                density: Optional[bool] = None,
                weights: Any = None) -> tuple[ndarray, list[ndarray]]:
    """numpy.histogramdd: the (float64) counts of the D-dimensional points of ``sample`` (an
    (N, D) array, or a sequence of D arrays of N coordinates) in a grid of bins, and the D
    edge arrays. One read of every coordinate's minimum and maximum when bins are counted
    and ranges not given."""
    from arrayhub._manipulation import stack

    if isinstance(sample, ndarray):
        points = sample if sample.ndim == 2 else sample.reshape(-1, 1)
    else:
        points = stack([_ops.require_array(s, "histogramdd").ravel() for s in sample], axis=1)
    client = points.client
    n_points, dims = points.shape
    w = None
    if weights is not None:
        w = _array(weights, client)
        if not np.can_cast(w.dtype, np.float64, "safe"):
            raise client_error(ArrayHubTypeError,
                               f"Cannot cast array data from {w.dtype!r} to "
                               f"dtype('float64') according to the rule 'safe'")
        w = w.astype(np.float64)
    # NumPy's edges, from a stand-in with each coordinate's minimum and maximum (or none).
    host_bins = bins.get() if isinstance(bins, ndarray) else bins
    if isinstance(host_bins, (list, tuple)) or np.ndim(host_bins) > 0:
        host_bins = [b.get() if isinstance(b, ndarray) else b for b in host_bins]
        counted = [np.ndim(b) == 0 for b in host_bins]
    else:
        counted = [True] * dims
    ranges = range if range is not None else [None] * dims
    extremes = n_points and any(c and (r is None) for c, r in zip(counted, ranges))
    if extremes:
        from arrayhub._reduction import max as amax, min as amin

        low, high = stack([amin(points, axis=0), amax(points, axis=0)]).get()
        stand_in = np.stack([low, high]).astype(points.dtype)
    else:
        stand_in = np.empty((0, dims), dtype=points.dtype)
    _, host_edges = np.histogramdd(stand_in, host_bins, range)
    index = None
    strides = np.cumprod([1] + [e.size + 1 for e in host_edges[::-1]])[::-1][1:]
    for d, (edge, stride) in enumerate(zip(host_edges, strides)):
        column = points[:, d]
        position = _searchsorted(_ops.upload(edge, client), column, "right")
        position = _ew("where", _ew("equal", column, edge[-1].item()),
                       _ew("subtract", position, 1), position)
        term = _ew("multiply", position, int(stride))
        index = term if index is None else _ew("add", index, term)
    shape = tuple(e.size + 1 for e in host_edges)
    total = math.prod(shape)
    if index is None or n_points == 0:
        from arrayhub._creation import zeros

        counts = zeros(shape, dtype=np.float64)
    else:
        counts = _count(index, total, w, np.float64).reshape(shape)
    counts = counts[(slice(1, -1),) * dims]
    if density:
        s = counts.sum()
        for d, edge in enumerate(host_edges):
            width_shape = [1] * dims
            width_shape[d] = edge.size - 1
            widths = _ops.upload(np.diff(edge).reshape(width_shape), client)
            counts = _ew("true_divide", counts, widths)
        counts = _ew("true_divide", counts, s)
    return counts, [_ops.upload(e, client) for e in host_edges]


def histogram2d(x: Any, y: Any, bins: Any = 10, range: Any = None,
                density: Optional[bool] = None,
                weights: Any = None) -> tuple[ndarray, ndarray, ndarray]:
    """numpy.histogram2d: histogramdd of the points (x, y); the counts and both edges."""
    try:
        n = len(bins)
    except TypeError:
        n = 1
    if n != 1 and n != 2:
        bins = [bins, bins]
    counts, edges = histogramdd([x, y], bins, range, density, weights)
    return counts, edges[0], edges[1]
