"""Complex parts and the elementwise functions that are no ufuncs (real, imag, angle, conj,
fix, sinc, nan_to_num, isposinf, isneginf), the two-output ufuncs (frexp, modf, divmod) and
ldexp, against NumPy bit for bit on special values (signed zeros, infinities, NaN,
subnormals) and random ones of every dtype class."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest

import arrayhub as ah
from conftest import ALL_DTYPES, assert_matches, random_values

pytestmark = pytest.mark.requires_compute("Elementwise")

FLOATS = [np.dtype(t) for t in (np.float16, np.float32, np.float64)]
COMPLEX = [np.dtype(t) for t in (np.complex64, np.complex128)]
# One dtype of each class, for the functions whose code paths go by class.
CLASSES = [np.dtype(t) for t in (np.bool_, np.int16, np.uint32, np.float16, np.float64,
                                 np.complex64)]


def _specials(dtype: np.dtype) -> np.ndarray:
    """Special and random values of a real dtype (subnormals, limits, signed zeros, NaN)."""
    info = np.finfo(dtype)
    values = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 0.5, -0.75, 1.0, 2.5, -3.5, 7.0,
              float(info.max), float(info.min), float(info.tiny), -float(info.tiny),
              float(info.smallest_subnormal), -float(info.smallest_subnormal) * 3, 1e-3, 100.25]
    rng = np.random.default_rng(dtype.itemsize)
    return np.concatenate([np.array(values, dtype), random_values(rng, dtype, (12,))])


def _values(dtype: np.dtype) -> np.ndarray:
    """Specials for inexact dtypes (both parts of complex ones), random values otherwise."""
    if dtype.kind == "f":
        return _specials(dtype)
    if dtype.kind == "c":
        part = _specials(np.dtype(f"float{dtype.itemsize * 4}"))
        result = np.empty(part.size * 2, dtype)
        result.real = np.concatenate([part, np.roll(part, 3)])
        result.imag = np.concatenate([np.roll(part, 7), part])
        return result
    return random_values(np.random.default_rng(5), dtype, (32,))


def _assert_exact(got: Any, expected: Any) -> None:
    """Same dtype, shape and values bit for bit, NaNs matching NaNs (whose payloads and signs
    NumPy's SIMD loops do not promise)."""
    expected = np.asarray(expected)
    assert isinstance(got, ah.ndarray)
    assert (got.dtype, got.shape) == (expected.dtype, expected.shape)
    host = got.get()
    if expected.dtype.kind == "c":
        _assert_exact_host(host.real, expected.real)
        _assert_exact_host(host.imag, expected.imag)
    else:
        _assert_exact_host(host, expected)


def _assert_exact_host(host: np.ndarray, expected: np.ndarray) -> None:
    if expected.dtype.kind != "f":
        np.testing.assert_array_equal(host, expected)
        return
    nan = np.isnan(expected)
    np.testing.assert_array_equal(np.isnan(host), nan)
    np.testing.assert_array_equal(host[~nan], expected[~nan])
    np.testing.assert_array_equal(np.signbit(host[~nan]), np.signbit(expected[~nan]))


def _numpy(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


# -- Two-output ufuncs and ldexp ----------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("name", ["frexp", "modf", "divmod"])
def test_two_output_ufuncs_match_numpy(name: str, dtype: np.dtype) -> None:
    host = [_values(dtype)] if name != "divmod" else [_values(dtype), np.roll(_values(dtype), 5)]
    function = getattr(ah, name)
    assert (function.nin, function.nout) == (len(host), 2)
    try:
        expected = _numpy(getattr(np, name), *host)
    except TypeError:
        with pytest.raises(TypeError, match=f"ufunc '{name}' not supported for the input types"):
            function(*(ah.asarray(a) for a in host))
        return
    got = function(*(ah.asarray(a) for a in host))
    assert isinstance(got, tuple) and len(got) == 2
    for g, e in zip(got, expected):
        _assert_exact(g, e)


def test_two_output_ufuncs_with_scalars_out_and_numpy_dispatch() -> None:
    a = np.array([7, -7, 0, 5], np.int16)
    x = ah.asarray(a)
    for g, e in zip(ah.divmod(x, 3), np.divmod(a, 3)):
        _assert_exact(g, e)
    for g, e in zip(ah.divmod(-9, x), _numpy(np.divmod, -9, a)):
        _assert_exact(g, e)
    quotient, remainder = ah.empty(4, np.int32), ah.empty(4, np.int64)
    got = ah.divmod(x, 3, out=(quotient, remainder))
    assert got[0] is quotient and got[1] is remainder
    np.testing.assert_array_equal(remainder.get(), a % 3)
    with pytest.raises(TypeError, match="Cannot cast ufunc 'divmod' output 3 from "
                                        "dtype\\('int16'\\) to dtype\\('bool'\\)"):
        ah.divmod(x, 3, out=(quotient, ah.empty(4, bool)))
    np.testing.assert_array_equal(quotient.get(), a // 3)  # the failed call wrote nothing
    f = ah.asarray(np.array([0.75, -10.0]))
    for g, e in zip(np.frexp(f), np.frexp(f.get())):  # __array_ufunc__ stays on the server
        _assert_exact(g, e)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("exponent_dtype", [np.int8, np.int32, np.int64, np.uint32], ids=str)
def test_ldexp_matches_numpy(dtype: np.dtype, exponent_dtype: Any) -> None:
    x = _specials(dtype)
    info = np.iinfo(exponent_dtype)
    e = np.array([0, 1, -1, 5, -24, -149, -1074, 15, 128, 1023, 2000, -2000, 2**40, -2**40,
                  2**31, -2**31 - 1] * 2, np.int64)[:x.size]
    e = np.clip(e, info.min, info.max).astype(exponent_dtype)
    _assert_exact(ah.ldexp(ah.asarray(x), ah.asarray(e)), _numpy(np.ldexp, x, e))
    _assert_exact(ah.ldexp(ah.asarray(x), 3), _numpy(np.ldexp, x, 3))  # weak exponent
    _assert_exact(ah.ldexp(1.5, ah.asarray(e)), _numpy(np.ldexp, 1.5, e))


def test_ldexp_refuses_what_numpy_refuses() -> None:
    x = ah.asarray(np.ones(3, np.float32))
    for exponent in (x, 2.5, ah.asarray(np.ones(3, np.uint64))):
        with pytest.raises(TypeError, match="ufunc 'ldexp' not supported for the input types"):
            ah.ldexp(x, exponent)
    with pytest.raises(OverflowError, match="Python integer 9223372036854775808 out of bounds"):
        ah.ldexp(x, 2**63)


# -- Complex parts ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", CLASSES + [np.dtype(np.complex128)], ids=str)
def test_real_imag_angle_conj_match_numpy(dtype: np.dtype) -> None:
    a = _values(dtype)
    x = ah.asarray(a)
    for got, expected in [(x.real, a.real), (x.imag, a.imag), (ah.real(x), np.real(a)),
                          (ah.imag(x), np.imag(a)), (ah.conj(x), np.conj(a)),
                          (x.conj(), a.conj()), (x.conjugate(), a.conjugate())]:
        _assert_exact(got, expected)
    # arctan2: NumPy's SIMD and the C library may differ in the last place.
    assert_matches(ah.angle(x), _numpy(np.angle, a))
    assert_matches(ah.angle(x, deg=True), _numpy(np.angle, a, deg=True))
    if dtype.kind != "c":
        assert x.real is x and x.conj() is x  # NumPy: a view of all of x, and x itself
    assert not x.imag.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        x.imag[0] = 1


@pytest.mark.parametrize("dtype", COMPLEX, ids=str)
def test_setting_complex_parts_writes_into_the_array(dtype: np.dtype) -> None:
    a = _values(dtype)
    x = ah.asarray(a)
    handle = x.handle
    part = np.roll(a.real, 2)
    x.real = ah.asarray(part)
    a.real = part
    x.imag = -0.0
    a.imag = -0.0
    assert x.handle == handle
    _assert_exact(x, a)
    x.imag = ah.asarray(np.arange(a.size, dtype=np.int64))  # cast to the part's dtype
    a.imag = np.arange(a.size)
    _assert_exact(x, a)


def test_setting_the_imaginary_part_of_a_real_array_is_numpys_error() -> None:
    x = ah.asarray(np.arange(3.0))
    with pytest.raises(TypeError, match="array does not have imaginary part to set"):
        x.imag = 1.0
    x.real = 5.0
    np.testing.assert_array_equal(x.get(), [5.0, 5.0, 5.0])


# -- Functions ----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", CLASSES + FLOATS[1:2] + COMPLEX[1:], ids=str)
def test_elementwise_functions_match_numpy(dtype: np.dtype) -> None:
    a = _values(dtype)
    x = ah.asarray(a)
    assert_matches(ah.sinc(x), _numpy(np.sinc, a))  # sin: last places may differ
    _assert_exact(ah.nan_to_num(x), _numpy(np.nan_to_num, a))
    _assert_exact(ah.nan_to_num(x, nan=-1.5, posinf=2.0, neginf=np.inf),
                  _numpy(np.nan_to_num, a, nan=-1.5, posinf=2.0, neginf=np.inf))
    if dtype.kind == "c":
        for function in ("fix", "isposinf", "isneginf"):
            with pytest.raises(TypeError):
                getattr(ah, function)(x)
        return
    _assert_exact(ah.fix(x), _numpy(np.fix, a))
    _assert_exact(ah.isposinf(x), np.isposinf(a))
    _assert_exact(ah.isneginf(x), np.isneginf(a))


def test_nan_to_num_without_copy_writes_into_the_array() -> None:
    a = np.array([np.nan, np.inf, -np.inf, -0.0, 1.5], np.float32)
    x = ah.asarray(a)
    assert ah.nan_to_num(x, copy=False) is x
    _assert_exact(x, np.nan_to_num(a))
    out = ah.zeros(5, bool)
    assert ah.isposinf(x, out=out) is out
