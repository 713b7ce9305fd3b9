"""Reductions against NumPy: every op, dtype class, axis form, keepdims and dtype=."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import arrayhub as ah
from conftest import ALL_DTYPES, assert_matches, random_values

pytestmark = pytest.mark.requires_compute("Reduce")

OPS = ["sum", "prod", "min", "max", "mean", "var", "std", "argmin", "argmax", "any", "all"]
AXES: list[Any] = [None, 0, -1, (0, 2)]
# Float reductions add in a different order than NumPy's pairwise sums (and float16 var/std
# round intermediates in NumPy): compare with a looser tolerance than elementwise ops.
_RTOL = {"e": 1e-2, "f": 1e-4, "d": 1e-9, "F": 1e-4, "D": 1e-9}


def _compare(got: Any, expected: Any) -> None:
    expected = np.asarray(expected)
    assert_matches(got, expected, rtol=_RTOL.get(expected.dtype.char))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("op", OPS)
def test_reduction_matches_numpy(op: str, dtype: np.dtype) -> None:
    host = random_values(np.random.default_rng(21), dtype, (3, 4, 5))
    remote = ah.asarray(host)
    for axis in AXES:
        if op in ("argmin", "argmax") and isinstance(axis, tuple):
            continue  # NumPy's argmin/argmax take one axis
        for keepdims in (False, True):
            with np.errstate(all="ignore"):
                expected = getattr(np, op)(host, axis=axis, keepdims=keepdims)
            got = getattr(ah, op)(remote, axis=axis, keepdims=keepdims)
            _compare(got, expected)
            _compare(getattr(remote, op)(axis=axis, keepdims=keepdims), expected)


@pytest.mark.parametrize("ddof", [0, 1, 2])
def test_var_std_ddof(ddof: int) -> None:
    host = np.random.default_rng(22).normal(size=(6, 7))
    x = ah.asarray(host)
    _compare(x.var(ddof=ddof), np.var(host, ddof=ddof))
    _compare(ah.std(x, axis=1, ddof=ddof), np.std(host, axis=1, ddof=ddof))


@pytest.mark.parametrize("dtype", [np.int16, np.float32, np.float64, np.complex64], ids=str)
def test_var_std_non_integral_ddof(dtype: type) -> None:
    """NumPy takes any real ddof: the sum of squares over max(n - ddof, 0) in floating point,
    inf or NaN with a RuntimeWarning where n - ddof <= 0; the nan-functions as well."""
    rng = np.random.default_rng(23)
    host = random_values(rng, dtype, (4, 7))
    x = ah.asarray(host)
    for ddof in (0.5, np.float32(2.25), -1.5, np.nan, -np.inf, 1.0):
        _compare(ah.var(x, axis=1, ddof=ddof), np.var(host, axis=1, ddof=ddof))
        _compare(x.std(axis=0, ddof=ddof), host.std(axis=0, ddof=ddof))
        _compare(ah.std(x, correction=ddof), np.std(host, correction=ddof))
        _compare(ah.nanstd(x, axis=0, ddof=ddof), np.nanstd(host, axis=0, ddof=ddof))
    with np.errstate(divide="ignore", invalid="ignore"):
        for ddof in (4, 4.5, np.inf):  # no degrees of freedom left along axis 0
            with pytest.warns(RuntimeWarning, match="Degrees of freedom <= 0 for slice"):
                got = ah.var(x, axis=0, ddof=ddof)
            with pytest.warns(RuntimeWarning, match="Degrees of freedom <= 0 for slice"):
                _compare(got, np.var(host, axis=0, ddof=ddof))
            with pytest.warns(RuntimeWarning, match="Degrees of freedom <= 0 for slice"):
                got = ah.nanvar(x, axis=0, ddof=ddof)
            with pytest.warns(RuntimeWarning, match="Degrees of freedom <= 0 for slice"):
                _compare(got, np.nanvar(host, axis=0, ddof=ddof))
    with pytest.raises(TypeError, match="ddof must be a real number, not str"):
        ah.var(x, ddof="0.5")


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex128], ids=str)
def test_var_std_of_single_elements_follow_numpy(dtype: type) -> None:
    # The variance of one element is |x - x|^2: NaN for NaN and inf, and for any ddof >= 1.
    host = np.array([np.nan, np.inf, -np.inf, 2.5], dtype)
    with np.errstate(invalid="ignore", divide="ignore"):
        for value in host:
            scalar = np.asarray(value)
            _compare(ah.var(ah.asarray(scalar)), np.var(scalar))
            with pytest.warns(RuntimeWarning, match="Degrees of freedom <= 0 for slice"):
                _compare(ah.std(ah.asarray(scalar), ddof=1), np.std(scalar, ddof=1))
        _compare(ah.asarray(host).var(axis=()), host.var(axis=()))


def test_dtype_argument() -> None:
    small = np.array([100, 100, 100], np.int8)
    _compare(ah.asarray(small).sum(dtype=np.int8), small.sum(dtype=np.int8))  # wraps
    _compare(ah.asarray(small).sum(), small.sum())  # int8 sums in int64, as NumPy
    half = np.linspace(0, 1, 101).astype(np.float16)
    _compare(ah.mean(ah.asarray(half), dtype=np.float32), np.mean(half, dtype=np.float32))
    single = np.linspace(0, 1, 101).astype(np.float32)
    _compare(ah.sum(ah.asarray(single), dtype=np.float64), np.sum(single, dtype=np.float64))


def test_float16_sums_accumulate_in_float32() -> None:
    ones = ah.ones(10000, np.float16)
    total = ones.sum()
    assert total.dtype == np.float16
    assert total.item() == 10000.0  # float16 accumulation would stall at 2048
    host = np.random.default_rng(23).uniform(0, 1, 5000).astype(np.float16)
    _compare(ah.asarray(host).sum(), host.sum())
    _compare(ah.asarray(host).mean(), host.mean())


def test_empty_reductions_give_the_identity() -> None:
    empty = np.zeros((3, 0), np.float32)
    x = ah.asarray(empty)
    _compare(x.sum(), empty.sum())
    _compare(x.prod(axis=1), empty.prod(axis=1))
    _compare(x.any(), empty.any())
    _compare(x.all(axis=0), empty.all(axis=0))


def test_out_argument() -> None:
    host = np.arange(12.0).reshape(3, 4)
    out = ah.zeros(4)
    assert ah.sum(ah.asarray(host), axis=0, out=out) is out
    np.testing.assert_array_equal(out.get(), host.sum(axis=0))


def test_axis_out_of_bounds_is_numpys_axis_error() -> None:
    with pytest.raises(np.exceptions.AxisError) as expected:
        np.sum(np.ones((2, 3)), axis=2)
    with pytest.raises(np.exceptions.AxisError) as got:
        ah.sum(ah.ones((2, 3)), axis=2)
    assert str(got.value) == str(expected.value)
    assert isinstance(got.value, ValueError) and isinstance(got.value, IndexError)


def test_zero_size_min_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="zero-size array"):
        ah.zeros(0).min()


def test_reductions_give_0d_arrays_that_convert_to_python() -> None:
    x = ah.asarray(np.arange(10))
    total = x.sum()
    assert isinstance(total, ah.ndarray) and total.shape == ()
    assert int(total) == 45 and total.item() == 45
    assert bool(x.any()) and not bool((x > 100).any())
