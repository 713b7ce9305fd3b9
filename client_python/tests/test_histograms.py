"""bincount, digitize, histogram, histogram_bin_edges, histogram2d and histogramdd against
NumPy on fresh random data: counts exactly, weighted sums exactly where NumPy adds in order
(bincount, equal bins under 65536 elements) and closely otherwise, NumPy's edges, NaN and
out-of-range values dropped, and NumPy's errors."""

from __future__ import annotations

import re

import numpy as np
import pytest

import arrayhub as ah
from conftest import assert_matches

pytestmark = pytest.mark.requires_compute("Elementwise")


def _same(got: ah.ndarray, expected: np.ndarray) -> None:
    assert isinstance(got, ah.ndarray)
    np.testing.assert_array_equal(got.get(), expected, strict=True)


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int32, np.int64], ids=str)
def test_bincount_matches_numpy(dtype: type) -> None:
    rng = np.random.default_rng()
    host = rng.integers(0, 2 if dtype is np.bool_ else 40, size=500).astype(dtype)
    weights = rng.normal(size=500)
    x = ah.asarray(host)
    _same(ah.bincount(x), np.bincount(host))
    _same(ah.bincount(x, minlength=60), np.bincount(host, minlength=60))
    _same(ah.bincount(x, weights=ah.asarray(weights)), np.bincount(host, weights=weights))
    _same(ah.bincount(x, ah.asarray(weights.astype(np.float32))),
          np.bincount(host, weights.astype(np.float32)))
    _same(np.bincount(x), np.bincount(host))  # through NumPy's protocol


def test_bincount_errors_and_empty() -> None:
    _same(ah.bincount(ah.asarray(np.array([], dtype=np.int64)), minlength=3),
          np.zeros(3, dtype=np.int64))
    cases = [
        (dict(x=np.array([1, -1, 2])), ValueError, "'list' argument must have no negative"),
        (dict(x=np.array([1.0])), TypeError, r"Cannot cast array data from dtype\('float64'\) "
                                             r"to dtype\('int64'\) according to the rule 'safe'"),
        (dict(x=np.array([[1]])), ValueError, "object too deep for desired array"),
        (dict(x=np.array(1)), ValueError, "object of too small depth for desired array"),
        (dict(x=np.array([1]), minlength=-1), ValueError, "'minlength' must not be negative"),
        (dict(x=np.array([1]), weights=np.array([1.0, 2.0])), ValueError,
         "The weights and list don't have the same length."),
        (dict(x=np.array([1]), weights=np.array([1j])), TypeError,
         r"Cannot cast array data from dtype\('complex128'\) to dtype\('float64'\)"),
    ]
    for kwargs, error, message in cases:
        x = kwargs.pop("x")
        with pytest.raises(error, match=message):
            np.bincount(x, **kwargs)
        with pytest.raises(error, match=message):
            ah.bincount(ah.asarray(x), **{k: ah.asarray(v) if isinstance(v, np.ndarray) else v
                                          for k, v in kwargs.items()})


def test_digitize_matches_numpy() -> None:
    rng = np.random.default_rng()
    host = np.round(rng.normal(size=300), 1)
    host[::37] = np.nan
    x = ah.asarray(host)
    increasing = np.array([-1.0, -0.5, 0.0, 0.0, 0.3, 1.5])
    for bins in (increasing, increasing[::-1].copy()):
        for right in (False, True):
            expected = np.digitize(host, bins, right=right)
            _same(ah.digitize(x, ah.asarray(bins), right=right), expected)
            _same(ah.digitize(x, bins.tolist(), right=right), expected)
    ints = rng.integers(-5, 5, size=50)
    _same(ah.digitize(ah.asarray(ints), ah.asarray(np.array([-2, 0, 3]))),
          np.digitize(ints, np.array([-2, 0, 3])))
    with pytest.raises(ValueError, match="bins must be monotonically increasing or decreasing"):
        ah.digitize(x, ah.asarray(np.array([1.0, 3.0, 2.0])))
    with pytest.raises(TypeError, match="x may not be complex"):
        ah.digitize(ah.asarray(np.array([1j])), [0.0, 1.0])


@pytest.mark.parametrize("dtype", [np.int16, np.float32, np.float64], ids=str)
def test_histogram_matches_numpy(dtype: type) -> None:
    rng = np.random.default_rng()
    host = (rng.normal(size=(40, 25)) * 10).astype(dtype)
    if host.dtype.kind == "f":
        host[3, ::7] = np.nan
    finite = host[np.isfinite(host)] if host.dtype.kind == "f" else host
    weights = rng.random(size=host.shape)
    x, w = ah.asarray(host), ah.asarray(weights)
    for kwargs in (dict(bins=7, range=(-5, 12)), dict(bins=[-30, -3, 0, 0.5, 4, 30]),
                   dict(bins=12, range=(-8, 8), density=True)):
        counts, edges = ah.histogram(x, **kwargs)
        expected, expected_edges = np.histogram(host, **kwargs)
        _same(edges, expected_edges)
        if kwargs.get("density"):
            assert_matches(counts, expected)
        else:
            _same(counts, expected)
        weighted, _ = ah.histogram(x, weights=w, **kwargs)
        assert_matches(weighted, np.histogram(host, weights=weights, **kwargs)[0])
    for bins in (5, "sqrt", "sturges", "rice", "scott", "fd", "auto", "doane", "stone"):
        counts, edges = ah.histogram(ah.asarray(finite), bins=bins)
        expected, expected_edges = np.histogram(finite, bins=bins)
        _same(edges, expected_edges)
        _same(counts, expected)
        _same(ah.histogram_bin_edges(ah.asarray(finite), bins=bins),
              np.histogram_bin_edges(finite, bins=bins))
    for bins in ("auto", "sturges"):  # the estimators see only the data within the range
        _same(ah.histogram_bin_edges(ah.asarray(finite), bins=bins, range=(-5, 12)),
              np.histogram_bin_edges(finite, bins=bins, range=(-5, 12)))


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int64, np.float16, np.float32,
                                   np.float64], ids=str)
def test_histogram_counts_in_one_pass_as_numpy(dtype: type) -> None:
    """The server's histogram op: values on the edges (the last one included), NaN and
    infinities, out-of-range values, uneven and repeated edges, more edges than a GPU block's
    shared memory holds (5000), integer edges (which take the composed path), fresh data."""
    rng = np.random.default_rng()
    values = rng.normal(size=30000) * 4
    values[::5] = rng.choice([-8.0, -3.0, 0.0, 3.0, 8.0], size=values[::5].size)
    if np.dtype(dtype).kind == "f":
        values[1::97] = rng.choice([np.nan, np.inf, -np.inf], size=values[1::97].size)
    host = values.astype(dtype) if dtype is not np.bool_ else values > 0
    x = ah.asarray(host)
    uneven = np.sort(np.concatenate([rng.normal(size=40) * 3, [0.0, 0.0, 3.0]]))
    for kwargs in (dict(bins=10, range=(-8, 8)), dict(bins=1000, range=(-3, 3)),
                   dict(bins=5000, range=(-9, 9)), dict(bins=uneven),
                   dict(bins=[-8, -3, 0, 3, 8]), dict(bins=3, range=(0, 0))):
        try:
            with np.errstate(invalid="ignore"):
                expected, expected_edges = np.histogram(host, **kwargs)
        except ValueError as error:  # float16 holds no 5000 finite-sized bins of [-9, 9]
            with pytest.raises(ValueError, match=re.escape(str(error))):
                ah.histogram(x, **kwargs)
            continue
        if not np.isscalar(kwargs["bins"]):
            # NumPy counts into a bins array by sorting the data, and NumPy 2.4's float16 sort
            # leaves some elements out of order (-3.0 before -3.002): the exact counts are
            # those of the values as float64, which the dtypes here all convert to exactly.
            expected = np.histogram(host.astype(np.float64), **kwargs)[0]
        counts, edges = ah.histogram(x, **kwargs)
        _same(edges, expected_edges)
        _same(counts, expected)


def test_histogram_errors() -> None:
    x = ah.asarray(np.array([1.0, np.nan]))
    with pytest.raises(ValueError, match=r"autodetected range of \[nan, nan\] is not finite"):
        ah.histogram(x)
    y = ah.asarray(np.array([1.0, 2.0]))
    for kwargs, error, message in [
            (dict(bins=[1, 0]), ValueError, "`bins` must increase monotonically"),
            (dict(range=(2, 1)), ValueError, "max must be larger than min in range parameter."),
            (dict(bins=0), ValueError, "`bins` must be positive, when an integer"),
            (dict(bins="foo"), ValueError, "'foo' is not a valid estimator for `bins`"),
            (dict(weights=ah.asarray(np.ones(3))), ValueError,
             "weights should have the same shape as a.")]:
        with pytest.raises(error, match=message):
            ah.histogram(y, **kwargs)
    with pytest.raises(TypeError, match="not supported for weighted data"):
        ah.histogram(y, bins="stone", weights=y)


def test_estimators_on_integers_skewed_data_and_few_values() -> None:
    # Integer data narrower than the estimated width gets bins one unit wide (NumPy's rule);
    # skewed data moves doane's count; constant and tiny data take one bin; stone warns when
    # its search ends at its upper bound.
    rng = np.random.default_rng(11)
    cases = [rng.integers(0, 6, size=2000), rng.exponential(size=3000) ** 3,
             np.full(50, 3.0), np.array([1.0, 2.0])]
    for host in cases:
        for bins in ("sqrt", "sturges", "rice", "scott", "fd", "auto", "doane", "stone"):
            _same(ah.histogram_bin_edges(ah.asarray(host), bins=bins),
                  np.histogram_bin_edges(host, bins=bins))
    spiky = np.concatenate([np.zeros(5000), np.arange(1.0, 11.0)])  # Wants many narrow bins.
    with pytest.warns(RuntimeWarning, match="may be suboptimal"):
        expected = np.histogram_bin_edges(spiky, bins="stone")
    with pytest.warns(RuntimeWarning, match="may be suboptimal"):
        _same(ah.histogram_bin_edges(ah.asarray(spiky), bins="stone"), expected)


def test_histogram2d_and_histogramdd_match_numpy() -> None:
    rng = np.random.default_rng()
    xs, ys, zs = rng.normal(size=(3, 400))
    xs[::50] = np.nan
    weights = rng.random(400)
    x, y, z, w = (ah.asarray(v) for v in (xs, ys, zs, weights))
    for kwargs in (dict(bins=5, range=[[-2, 2], [-1, 3]]),
                   dict(bins=[3, [-1.0, 0.0, 2.0]], range=[(-2, 2), None]),
                   dict(bins=4, range=[[-2, 2], [-2, 2]], density=True)):
        counts, xedges, yedges = ah.histogram2d(x, y, **kwargs)
        expected, expected_x, expected_y = np.histogram2d(xs, ys, **kwargs)
        assert_matches(counts, expected)
        _same(xedges, expected_x)
        _same(yedges, expected_y)
        assert_matches(ah.histogram2d(x, y, weights=w, **kwargs)[0],
                       np.histogram2d(xs, ys, weights=weights, **kwargs)[0])
    points = np.stack([ys, zs, zs * 2], axis=1)
    counts, edges = ah.histogramdd(ah.asarray(points), bins=(3, 4, 2))
    expected, expected_edges = np.histogramdd(points, bins=(3, 4, 2))
    assert_matches(counts, expected)
    for got, want in zip(edges, expected_edges):
        _same(got, want)
    counts, _ = ah.histogramdd([y, z], bins=6, range=[(-1, 1), (-3, 0)])
    assert_matches(counts, np.histogramdd([ys, zs], bins=6, range=[(-1, 1), (-3, 0)])[0])
