"""Type helpers, NumPy 1.x aliases and kind conversions against NumPy: iscomplex, isreal,
iscomplexobj, isrealobj, real_if_close, common_type, mintypecode, min_scalar_type, the NumPy
1.x sctype helpers, asfarray, asanyarray, asarray_chkfinite, asfortranarray, require,
isfortran, and the aliases (alltrue, product, round_, cfloat, infty, ...)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import arrayhub as ah
from conftest import assert_matches
from numpy_compare import DTYPES, pair, same_as_numpy

pytestmark = pytest.mark.requires_compute("Elementwise")


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_type_checks_match_numpy(dtype: np.dtype) -> None:
    host, x = pair(dtype, (2, 5))
    if dtype.kind == "c":
        host[0, :2] = host[0, :2].real
        x = ah.asarray(host)
    for check in (lambda m, a: m.iscomplex(a), lambda m, a: m.isreal(a),
                  lambda m, a: m.iscomplex(a[0, 0]), lambda m, a: m.real_if_close(a),
                  lambda m, a: m.real_if_close(a[0, :2])):
        same_as_numpy(check, host, x)
    for dtype_asked in (np.float64, np.int8, np.complex64):  # NumPy 1.x's asfarray
        expected = dtype_asked if np.dtype(dtype_asked).kind in "fc" else np.float64
        with warnings.catch_warnings():  # complex -> float64: NumPy 1.x warned too.
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            assert_matches(ah.asfarray(x, dtype_asked), host.astype(expected))
    assert ah.iscomplexobj(x) == np.iscomplexobj(host) == (not ah.isrealobj(x))
    assert ah.min_scalar_type(x) == np.min_scalar_type(host)
    assert ah.min_scalar_type(x[1, 1]) == np.min_scalar_type(host[1, 1])
    assert ah.mintypecode([x, "f"]) == np.mintypecode([host, "f"])
    if dtype.kind != "b":
        assert ah.common_type(x, ah.asarray(np.ones(1, np.float32))) == \
            np.common_type(host, np.ones(1, np.float32))


def test_type_check_edges() -> None:
    host = np.array([1 + 1e-14j, 2.0])
    assert_matches(ah.real_if_close(ah.asarray(host)), np.real_if_close(host))
    assert_matches(ah.real_if_close(ah.asarray(host), tol=1e-20), np.real_if_close(host, 1e-20))
    assert ah.iscomplex(1j) == np.iscomplex(1j) and ah.isreal(2.0) == np.isreal(2.0)
    assert ah.common_type() is np.common_type() is np.float16
    with pytest.raises(TypeError, match="can't get common type for non-numeric array"):
        ah.common_type(ah.asarray(np.array([True])))
    assert ah.isscalar(3.0) and not ah.isscalar(ah.asarray(np.ones(1)))
    assert ah.typename("d") == np.typename("d")
    assert ah.min_scalar_type(ah.asarray(np.array(300))) == np.uint16
    assert ah.iscomplexobj(np.ones(1, complex)) and ah.isrealobj([1.0])


def test_numpy1_scalar_type_helpers() -> None:
    assert ah.issubclass_(np.int32, np.integer) and not ah.issubclass_(3, int)
    assert ah.obj2sctype(np.float32) is np.float32
    assert ah.obj2sctype(ah.asarray(np.ones(1, np.int8))) is np.int8
    assert ah.obj2sctype("not a dtype", default=None) is None and ah.obj2sctype("f4") is np.float32
    assert ah.issctype(np.int64) and ah.issctype(np.dtype("f8")) and not ah.issctype(np.object_)
    assert not ah.issctype("f8") and not ah.issctype(1.0)
    assert ah.issubsctype("f4", np.floating) and not ah.issubsctype(np.int8, np.floating)
    assert ah.sctype2char(np.float64) == "d" and ah.sctype2char(float) == "d"
    with pytest.raises(ValueError, match="unrecognized type"):
        ah.sctype2char("not a dtype")
    with pytest.warns(DeprecationWarning, match="find_common_type is deprecated"):
        cases = [ah.find_common_type([np.float32], [np.int64, np.float64]),
                 ah.find_common_type([np.int8], [np.float64]),
                 ah.find_common_type([], [np.int16]), ah.find_common_type([np.int64], []),
                 ah.find_common_type(["f4", "f4", "i4"], ["c8"]),
                 ah.find_common_type([np.int8, np.uint8], [])]
    # NumPy 1.26's answers (its documentation's examples among them).
    assert cases == [np.float32, np.float64, np.int16, np.int64, np.complex128, np.int16]
    parsed = ah.format_parser(["f8", "i4"], ["a", "b"], [])
    assert parsed.dtype.names == ("a", "b")


def test_kind_conversions() -> None:
    host = np.arange(6.0).reshape(2, 3)
    x = ah.asarray(host)
    assert ah.asanyarray(x) is x
    assert_matches(ah.asanyarray([1, 2], dtype=np.int8), np.asanyarray([1, 2], np.int8))
    assert_matches(ah.asarray_chkfinite(x), np.asarray_chkfinite(host))
    assert_matches(ah.asarray_chkfinite([1, 2]), np.asarray_chkfinite([1, 2]))
    for bad in (np.inf, np.nan):
        same_as_numpy(lambda m, a: m.asarray_chkfinite(a), np.array([1.0, bad]),
                      ah.asarray(np.array([1.0, bad])))
    fortran = ah.asfortranarray(x, dtype=np.float32)
    assert_matches(fortran, np.asfortranarray(host, dtype=np.float32))
    assert ah.isfortran(fortran) and ah.isfortran(x.T) and not ah.isfortran(x[0])
    assert ah.isfortran(x.T) == np.isfortran(host.T)
    view = x[:, ::2]
    assert ah.require(view) is view
    assert ah.require(view, requirements="C").flags.c_contiguous
    assert ah.require(view, requirements=["O"]).flags.owndata
    assert_matches(ah.require(view, np.int32, "F"), np.require(host[:, ::2], np.int32, "F"))
    with pytest.raises(ValueError, match="Cannot specify both C and Fortran contiguous."):
        ah.require(x, requirements="CF")


def test_numpy1_aliases() -> None:
    host = np.array([[1.25, 0.0], [3.5, -2.75]])
    x = ah.asarray(host)
    assert_matches(ah.alltrue(x, axis=0), np.all(host, axis=0))
    assert_matches(ah.sometrue(x), np.any(host))
    assert_matches(ah.product(x, axis=1), np.prod(host, axis=1))
    assert_matches(ah.cumproduct(x), np.cumprod(host))
    assert_matches(ah.round_(x, 1), np.round(host, 1))
    assert (ah.cfloat, ah.complex_, ah.float_, ah.singlecomplex) == \
        (np.complex128, np.complex128, np.float64, np.complex64)
    assert ah.infty == np.inf
    assert_matches(ah.msort(x), np.sort(host, axis=0))
    assert_matches(ah.trapz(x, dx=0.5), np.trapezoid(host, dx=0.5))
    assert_matches(ah.in1d(x, ah.asarray(np.array([0.0, 3.5]))),
                   np.isin(host, [0.0, 3.5]).ravel())
    assert_matches(ah.in1d(x, ah.asarray(np.array([0.0])), invert=True),
                   ~np.isin(host, [0.0]).ravel())
