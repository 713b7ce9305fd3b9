"""median, percentile, quantile, their nan- forms, the nan-reductions, cov and corrcoef
against NumPy on fresh random data (with NaNs), each dtype class NumPy accepts."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import arrayhub as ah
from conftest import assert_matches, random_values
from numpy_compare import same_as_numpy

pytestmark = pytest.mark.requires_compute("Reduce")

_REAL = [np.dtype(t) for t in (np.bool_, np.int8, np.uint32, np.int64, np.float16, np.float32,
                               np.float64)]
_METHODS = ["linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf",
            "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf", "hazen",
            "weibull", "median_unbiased", "normal_unbiased"]


def _with_nans(dtype: np.dtype, shape: tuple[int, ...], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    host = random_values(rng, dtype, shape)
    if dtype.kind in "fc":
        host[rng.random(shape) < 0.2] = np.nan
        host[(0,) * (len(shape) - 1)] = np.nan  # One slice of NaNs only.
    return host


def _quiet(call):  # NumPy's and arrayhub's RuntimeWarnings for empty slices: checked apart.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return call()


@pytest.mark.parametrize("method", _METHODS)
def test_quantile_methods_match_numpy(method: str) -> None:
    host = np.random.default_rng(1).normal(size=(4, 5, 6))
    host[1, 2, 3] = np.nan
    array = ah.asarray(host)
    for name in ("quantile", "nanquantile"):
        for q, axis in ((0.3, None), ([0.0, 0.25, 1.0], 1), (np.float32(0.7), (0, 2)),
                        (np.array([[0.1], [0.9]]), -1)):
            expected = _quiet(lambda: getattr(np, name)(host, q, axis=axis, method=method))
            got = _quiet(lambda: getattr(ah, name)(array, q, axis=axis, method=method))
            assert_matches(got, expected)


@pytest.mark.parametrize("dtype", _REAL, ids=str)
def test_order_statistics_match_numpy_per_dtype(dtype: np.dtype) -> None:
    host = _with_nans(dtype, (3, 8), seed=2)
    array = ah.asarray(host)
    calls = [lambda m: m.median(array_or_host[m], axis=1),
             lambda m: m.nanmedian(array_or_host[m], axis=None, keepdims=True),
             lambda m: m.percentile(array_or_host[m], [10, 50.5], axis=0, method="nearest"),
             lambda m: m.nanpercentile(array_or_host[m], 75, axis=(0, 1)),
             lambda m: m.quantile(array_or_host[m], 0.5, axis=1, keepdims=True)]
    array_or_host = {np: host, ah: array}
    for call in calls:
        if dtype.kind == "b":  # NumPy's boolean subtract error (median's mean works).
            try:
                expected = call(np)
            except TypeError as error:
                with pytest.raises(TypeError, match="boolean subtract"):
                    call(ah)
                    ah.synchronize()
                continue
        else:
            expected = _quiet(lambda: call(np))
        assert_matches(_quiet(lambda: call(ah)), expected)


def test_long_slices_select_exactly() -> None:
    """Slices long enough for the backends' selection paths: median, percentile and quantile
    equal NumPy's bit for bit (NaN where a slice has one), odd and even lengths."""
    rng = np.random.default_rng(11)
    host = rng.normal(size=(3, 40_001)).astype(np.float32)
    host[1, 17] = np.nan
    array = ah.asarray(host)
    for axis in (1, None):
        assert_matches(ah.median(array, axis=axis), np.median(host, axis=axis))
        assert_matches(ah.percentile(array, [0, 12.5, 50, 99.9, 100], axis=axis),
                       np.percentile(host, [0, 12.5, 50, 99.9, 100], axis=axis))
    even = rng.integers(-1000, 1000, size=50_000)
    for method in ("linear", "nearest", "midpoint", "inverted_cdf", "hazen"):
        assert_matches(ah.quantile(ah.asarray(even), [0.1, 0.5, 0.77], method=method),
                       np.quantile(even, [0.1, 0.5, 0.77], method=method))
    assert_matches(ah.median(ah.asarray(even)), np.median(even))
    many = np.linspace(0, 1, 1500)  # More ranks than a partition takes: a sort.
    assert_matches(ah.quantile(ah.asarray(even), many), np.quantile(even, many))


def test_weighted_quantiles_match_numpy() -> None:
    rng = np.random.default_rng(6)
    host = rng.normal(size=(4, 6))
    host[1, 2] = np.nan
    weights = rng.random((4, 6))
    weights[0, :2] = 0  # Leading zero weights must not match q = 0.
    array = ah.asarray(host)
    for q in (0.0, [0.0, 0.3, 1.0], np.float32(0.7)):
        for axis, w in ((None, weights), (1, weights[0]), (0, weights[:, 0]),
                        ((0, 1), weights)):
            for name, scale in (("quantile", 1), ("percentile", 100)):
                same_as_numpy(lambda m, x: getattr(m, name)(
                    x, np.multiply(q, scale), axis=axis, method="inverted_cdf", weights=w,
                    keepdims=axis == 1), host, array)
    for call in (lambda m, x: m.quantile(x, 0.5, weights=weights),
                 lambda m, x: m.quantile(x, 0.5, method="inverted_cdf", weights=weights[0]),
                 lambda m, x: m.quantile(x, 0.5, axis=0, method="inverted_cdf",
                                         weights=weights[0]),
                 lambda m, x: m.quantile(x, 0.5, axis=1, method="inverted_cdf",
                                         weights=-weights)):
        same_as_numpy(call, host, array)
    with pytest.raises(ValueError, match="Weights included NaN, inf or were all zero."):
        ah.quantile(array, 0.5, axis=1, method="inverted_cdf", weights=weights * 0)
    host[2] = np.nan
    array = ah.asarray(host)
    for axis in (0, 1, None):  # (NumPy's nanquantile fails with 1-D weights along an axis.)
        with pytest.warns(RuntimeWarning, match="All-NaN slice") if axis == 1 else \
                warnings.catch_warnings():
            got = ah.nanquantile(array, [0.0, 0.4, 1.0], axis=axis, method="inverted_cdf",
                                 weights=weights)
        assert_matches(got, _quiet(lambda: np.nanquantile(
            host, [0.0, 0.4, 1.0], axis=axis, method="inverted_cdf", weights=weights)))


def test_quantile_errors_and_out() -> None:
    host = np.arange(12.0).reshape(3, 4)
    array = ah.asarray(host)
    same_as_numpy(lambda m, x: m.quantile(x, 1.5), host, array)
    same_as_numpy(lambda m, x: m.percentile(x, -1), host, array)
    same_as_numpy(lambda m, x: m.quantile(x, 0.5, method="foo"), host, array)
    same_as_numpy(lambda m, x: m.quantile(x, [[[0.5]]]), host, array)
    same_as_numpy(lambda m, x: m.quantile(x, 0.5, axis=2), host, array)
    same_as_numpy(lambda m, x: m.quantile(x[:0], 0.5, axis=0), host, array)
    same_as_numpy(lambda m, x: m.quantile(x.astype(complex), 0.5), host, array)
    out = ah.zeros(4)
    assert ah.median(array, axis=0, out=out) is out
    np.testing.assert_array_equal(out.get(), np.median(host, axis=0))


def test_all_nan_slices_warn_as_numpy() -> None:
    host = np.array([[np.nan, np.nan], [1.0, np.nan]])
    array = ah.asarray(host)
    for name in ("nanmedian", "nanmin", "nanmax"):
        with pytest.warns(RuntimeWarning, match="All-NaN slice encountered"):
            got = getattr(ah, name)(array, axis=1)
        assert_matches(got, _quiet(lambda: getattr(np, name)(host, axis=1)))
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        assert_matches(ah.nanmean(array, axis=1), _quiet(lambda: np.nanmean(host, axis=1)))
    with pytest.warns(RuntimeWarning, match="Degrees of freedom <= 0 for slice."):
        assert_matches(ah.nanvar(array, axis=1, ddof=1),
                       _quiet(lambda: np.nanvar(host, axis=1, ddof=1)))
    same_as_numpy(lambda m, x: m.nanargmin(x, axis=1), host, array)
    same_as_numpy(lambda m, x: m.nanargmax(x[1:], axis=1), host, array)
    same_as_numpy(lambda m, x: m.nanmin(x[:, :0], axis=1), host, array)


_NAN_REDUCTIONS = ["nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmin", "nanmax",
                   "nanargmin", "nanargmax", "nancumsum", "nancumprod"]


@pytest.mark.parametrize("dtype", _REAL[1:] + [np.dtype(np.complex128)], ids=str)
def test_nan_reductions_match_numpy(dtype: np.dtype) -> None:
    host = _with_nans(dtype, (4, 5), seed=3)
    host[0, 0] = 1 if dtype.kind in "iu" else host[0, 0]  # nanarg*: a value in row 0.
    if dtype.kind in "fc":
        host[0, 1] = 2
    array = ah.asarray(host)
    for name in _NAN_REDUCTIONS:
        if dtype.kind == "c" and name in ("nanmin", "nanmax", "nanargmin", "nanargmax"):
            continue  # Complex order of +-inf fillers differs from fmin's: not compared.
        for axis in (None, 0, -1):
            kwargs = {} if name.startswith("nancum") or name.startswith("nanarg") else \
                {"keepdims": axis == 0}
            if name in ("nanvar", "nanstd"):
                kwargs["ddof"] = 1
            expected = _quiet(lambda: getattr(np, name)(host, axis=axis, **kwargs))
            got = _quiet(lambda: getattr(ah, name)(array, axis=axis, **kwargs))
            assert_matches(got, expected, rtol=1e-2 if dtype == np.float16 else None)


def test_cov_and_corrcoef_match_numpy() -> None:
    rng = np.random.default_rng(4)
    ints = rng.integers(-50, 50, size=(3, 7))
    floats = rng.normal(size=(7, 2)).astype(np.float32)
    comp = random_values(rng, np.dtype(np.complex128), (2, 5))
    fw, aw = [1, 2, 3, 1, 1, 2, 1], rng.random(7)
    for host, kwargs in ((ints, {}), (ints, {"bias": True}), (floats, {"rowvar": False}),
                         (ints, {"fweights": fw, "aweights": aw}), (ints, {"ddof": 3}),
                         (comp, {}), (ints[0], {}), (floats, {"rowvar": False,
                                                              "y": floats[:, ::-1]})):
        array = ah.asarray(host)
        if "y" in kwargs:
            kwargs = {**kwargs, "y": ah.asarray(np.ascontiguousarray(kwargs["y"]))}
            expected = np.cov(host, rowvar=False, y=floats[:, ::-1])
        else:
            expected = np.cov(host, **kwargs)
        assert_matches(ah.cov(array, **kwargs), expected)
    for host in (ints, floats.T, comp):
        assert_matches(ah.corrcoef(ah.asarray(host)), np.corrcoef(host))
    same_as_numpy(lambda m, x: m.cov(x, fweights=[1.5] * 7), ints, ah.asarray(ints))
    same_as_numpy(lambda m, x: m.cov(x, aweights=[-1] * 7), ints, ah.asarray(ints))
    same_as_numpy(lambda m, x: m.cov(x[None]), ints, ah.asarray(ints))
    with pytest.warns(RuntimeWarning, match="Degrees of freedom"), np.errstate(divide="ignore"):
        ah.cov(ah.asarray(ints), ddof=7)


def test_numpy_functions_route_to_the_server() -> None:
    """numpy.median(x) & co. on an arrayhub array run arrayhub's (the result stays there)."""
    host = np.random.default_rng(5).normal(size=(3, 4))
    array = ah.asarray(host)
    for call in (lambda m, x: m.median(x, axis=0), lambda m, x: m.nanpercentile(x, 30),
                 lambda m, x: m.einsum("ij->j", x), lambda m, x: m.linalg.multi_dot([x, x.T, x]),
                 lambda m, x: m.isin(x, x[0]), lambda m, x: m.convolve(x[0], x[1]),
                 lambda m, x: m.gradient(x, axis=1), lambda m, x: m.cov(x)):
        assert_matches(call(np, array), call(np, host))


def test_empty_inputs_match_numpy() -> None:
    host = np.zeros((0, 3))
    array = ah.asarray(host)
    for call in (lambda m, x: m.median(x, axis=0), lambda m, x: m.nanmedian(x),
                 lambda m, x: m.nanquantile(x, [0.5, 0.7], axis=0)):
        with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
            got = call(ah, array)
        assert_matches(got, _quiet(lambda: call(np, host)))
    assert_matches(ah.partition(array.ravel(), 0), np.partition(host.ravel(), 0))
    for call in (lambda m, x: m.quantile(x, 0.5), lambda m, x: m.nanmax(x),
                 lambda m, x: m.nanargmax(x), lambda m, x: m.gradient(x)):
        same_as_numpy(call, host, array)
