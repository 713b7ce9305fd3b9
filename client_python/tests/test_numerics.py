"""trapezoid, interp, convolve, correlate, ediff1d, gradient, unwrap, i0, vander, the
polynomial helpers and select/piecewise/apply_along_axis/apply_over_axes against NumPy on
fresh random data."""

from __future__ import annotations

import numpy as np
import pytest

import arrayhub as ah
from arrayhub import _numerics
from conftest import assert_matches, random_values
from numpy_compare import DTYPES, same_as_numpy

pytestmark = pytest.mark.requires_compute("Elementwise")


def _close(got, expected, rtol: float = 1e-9) -> None:
    """assert_matches, with an absolute tolerance scaled to the values (FFT rounding)."""
    expected = np.asarray(expected)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    scale = float(np.nanmax(np.abs(expected))) if expected.size else 0.0
    np.testing.assert_allclose(got.get(), expected, rtol=rtol, atol=rtol * scale)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_convolve_and_correlate_match_numpy(dtype: np.dtype) -> None:
    rng = np.random.default_rng(0)
    rtol = {"e": 5e-2, "f": 1e-4, "F": 1e-4}.get(dtype.char, 1e-9)
    # Short kernels run directly, long float ones through the FFT; both orders of lengths.
    for n, m in ((9, 3), (3, 9), (6, 6), (1, 1), (150, 90)):
        a, v = random_values(rng, dtype, (n,)), random_values(rng, dtype, (m,))
        if dtype.kind in "iu":
            a, v = a % 7, v % 7
        for mode in ("full", "same", "valid"):
            _close(ah.convolve(ah.asarray(a), ah.asarray(v), mode), np.convolve(a, v, mode),
                   rtol)
            _close(ah.correlate(ah.asarray(a), ah.asarray(v), mode), np.correlate(a, v, mode),
                   rtol)


def test_convolve_errors_and_host_operands() -> None:
    host = np.arange(4.0)
    array = ah.asarray(host)
    same_as_numpy(lambda m, x: m.convolve(x, x[:0]), host, array)
    same_as_numpy(lambda m, x: m.convolve(x[:0], x), host, array)
    same_as_numpy(lambda m, x: m.convolve(x, x, mode="x"), host, array)
    same_as_numpy(lambda m, x: m.correlate(x[:0], x), host, array)
    same_as_numpy(lambda m, x: m.correlate(x, x[:0]), host, array)
    same_as_numpy(lambda m, x: m.correlate(x.reshape(2, 2), x), host, array)
    _close(ah.convolve(array, [1, -1]), np.convolve(host, [1, -1]))
    assert _numerics._DIRECT_KERNEL < 8  # The FFT path starts below the measured crossover.


@pytest.mark.parametrize("dtype", [np.dtype(t) for t in (np.bool_, np.int16, np.float32,
                                                         np.float64, np.complex128)], ids=str)
def test_trapezoid_gradient_ediff1d_match_numpy(dtype: np.dtype) -> None:
    rng = np.random.default_rng(1)
    y = random_values(rng, dtype, (4, 6))
    if dtype.kind in "iu":
        y = y % 100
    coordinates = np.cumsum(rng.random(6)) + 0.1
    cases = [lambda m, x: m.trapezoid(x), lambda m, x: m.trapezoid(x, dx=0.5, axis=0),
             lambda m, x: m.trapezoid(x, coordinates),
             lambda m, x: m.ediff1d(x), lambda m, x: m.ediff1d(x, to_begin=[1], to_end=2)]
    for edge_order in (1, 2):
        cases += [lambda m, x, e=edge_order: m.gradient(x, edge_order=e),
                  lambda m, x, e=edge_order: m.gradient(x, 2.0, coordinates, edge_order=e),
                  lambda m, x, e=edge_order: m.gradient(x, np.arange(6) * 3, axis=-1,
                                                        edge_order=e)]
    for case in cases:
        same_as_numpy(case, y, ah.asarray(y))


def test_interp_matches_numpy() -> None:
    rng = np.random.default_rng(2)
    xp, fp = np.sort(rng.normal(size=8)), rng.normal(size=8)
    x = np.concatenate([rng.normal(size=20) * 2, xp, [np.nan]])
    array = ah.asarray(x)
    for kwargs in ({}, {"left": -9, "right": 9.5}, {"period": 3.0}):
        _close(ah.interp(array, ah.asarray(xp), ah.asarray(fp), **kwargs),
               np.interp(x, xp, fp, **kwargs))
    _close(ah.interp(array, xp, fp + 2j * fp), np.interp(x, xp, fp + 2j * fp))
    _close(ah.interp(array, [0.5], [2.0]), np.interp(x, [0.5], [2.0]))
    _close(ah.interp(0.25, ah.asarray(xp), fp), np.asarray(np.interp(0.25, xp, fp)))
    for args in (([], []), ([1, 2], [1]), ([[1, 2]], [[1, 2]])):
        same_as_numpy(lambda m, v: m.interp(v, *args), x, array)
    same_as_numpy(lambda m, v: m.interp(v, xp, fp, period=0), x, array)


def test_unwrap_i0_vander_match_numpy() -> None:
    rng = np.random.default_rng(3)
    phase = np.cumsum(rng.normal(size=(3, 20)) * 2, axis=1)
    same_as_numpy(lambda m, x: m.unwrap(x), phase, ah.asarray(phase))
    same_as_numpy(lambda m, x: m.unwrap(x, discont=1.0, axis=0, period=5.0), phase,
                  ah.asarray(phase))
    steps = rng.integers(0, 20, size=30)
    same_as_numpy(lambda m, x: m.unwrap(x, period=7), steps, ah.asarray(steps))
    for dtype in (np.int8, np.float32, np.float64, np.complex64):
        x = random_values(rng, np.dtype(dtype), (7,))
        if np.dtype(dtype).kind == "i":
            x = x % 5
        if np.dtype(dtype).kind != "c":
            same_as_numpy(lambda m, v: m.i0(v * 3), x, ah.asarray(x))
        same_as_numpy(lambda m, v: m.vander(v), x, ah.asarray(x))
        same_as_numpy(lambda m, v: m.vander(v, 3, increasing=True), x, ah.asarray(x))
    same_as_numpy(lambda m, v: m.i0(v), np.ones(2, complex), ah.asarray(np.ones(2, complex)))
    same_as_numpy(lambda m, v: m.vander(v), np.ones((2, 2)), ah.asarray(np.ones((2, 2))))


def test_polynomials_match_numpy() -> None:
    rng = np.random.default_rng(4)
    for roots in (np.array([1.0, 2, 3]), np.array([1 + 1j, 1 - 1j, 2]), np.array([1, 2]),
                  np.array([1j, 2])):
        same_as_numpy(lambda m, r: m.poly(r), roots, ah.asarray(roots))
    p, q = np.array([1, 2]), np.array([3.0, 4, 5])
    for name in ("polyadd", "polysub", "polymul"):
        same_as_numpy(lambda m, x: getattr(m, name)(x, q), p, ah.asarray(p))
        same_as_numpy(lambda m, x: getattr(m, name)(q, x), p, ah.asarray(p))
    for name, args in (("polyder", ()), ("polyder", (2,)), ("polyint", ()),
                       ("polyint", (2, [1.0, 2.0])), ("polyint", (3, 5.0)), ("polyder", (-1,))):
        same_as_numpy(lambda m, x: getattr(m, name)(x, *args), q, ah.asarray(q))
    for divisor in (np.array([1.0, 2]), np.array([2 + 1j, 1]), np.array([4.0]), q):
        same_as_numpy(lambda m, x: m.polydiv(x, divisor), q * 3 - 1, ah.asarray(q * 3 - 1))
    x = rng.normal(size=10).astype(np.float32)
    same_as_numpy(lambda m, v: m.polyval([1.0, 2, 3], v), x, ah.asarray(x))
    same_as_numpy(lambda m, v: m.polyval(np.array([1, 2]), v), x, ah.asarray(x))
    xs = rng.normal(size=20)
    ys = np.stack([3 * xs ** 2 - xs, xs ** 3], axis=1) + rng.normal(size=(20, 2)) * 0.1
    array_x, array_y = ah.asarray(xs), ah.asarray(ys)
    _close(ah.polyfit(array_x, array_y[:, 0], 2), np.polyfit(xs, ys[:, 0], 2), 1e-8)
    _close(ah.polyfit(array_x, array_y, 3, w=np.abs(xs)), np.polyfit(xs, ys, 3, w=np.abs(xs)),
           1e-8)
    for got, expected in zip(ah.polyfit(array_x, array_y, 2, cov=True),
                             np.polyfit(xs, ys, 2, cov=True)):
        _close(got, expected, 1e-7)
    same_as_numpy(lambda m, v: m.polyfit(v, v, -1), xs, array_x)
    same_as_numpy(lambda m, v: m.polyfit(v[:0], v[:0], 1), xs, array_x)


def test_roots_and_poly_of_a_matrix_match_numpy() -> None:
    """roots through the companion matrix's eigvals (complex, as CuPy's), leading and
    trailing zeros as NumPy's; poly of a square matrix from its eigenvalues."""
    def sorted_complex(x: np.ndarray) -> np.ndarray:
        # Rounded first: a real part of 1e-17 on one backend is 0 or -1e-9 on another.
        return np.sort_complex(np.round(np.asarray(x, np.complex128), 4))

    for coefficients in ([1.0, -6, 11, -6], [0, 0, 2, 0, 2, 0, 0], [1, 0, 1], [3.0, 1],
                         np.array([1, 2j, 1], np.complex64), [5], [0, 0], []):
        coefficients = np.asarray(coefficients)
        got = ah.roots(ah.asarray(coefficients))
        want = np.roots(coefficients)
        assert got.shape == want.shape, coefficients
        np.testing.assert_allclose(sorted_complex(got.get()), sorted_complex(want), atol=1e-5)
    with pytest.raises(ValueError, match="Input must be a rank-1 array."):
        ah.roots(ah.ones((2, 2)))
    matrix = np.random.default_rng(6).normal(size=(4, 4))
    got = ah.poly(ah.asarray(matrix))
    assert got.dtype == np.float64
    np.testing.assert_allclose(got.get(), np.poly(matrix), atol=1e-10)


def test_select_piecewise_and_apply_match_numpy() -> None:
    rng = np.random.default_rng(5)
    host = rng.normal(size=(4, 5))
    array = ah.asarray(host)
    same_as_numpy(lambda m, x: m.select([x > 0, x < -1], [x, x * 2], default=-5), host, array)
    same_as_numpy(lambda m, x: m.select([x > 0], [1], default=0.5), host, array)
    same_as_numpy(lambda m, x: m.select([], []), host, array)
    same_as_numpy(lambda m, x: m.select([x], [x]), host, array)
    same_as_numpy(lambda m, x: m.piecewise(x, [x < 0, x > 1], [lambda t: -t, 7.0, lambda t: 2 * t]),
                  host, array)
    same_as_numpy(lambda m, x: m.piecewise(x, [x < 0], [lambda t: -t, lambda t: t]), host, array)
    same_as_numpy(lambda m, x: m.piecewise(x, [x < 0, x > 0], [1]), host, array)
    same_as_numpy(lambda m, x: m.apply_along_axis(lambda t: t.sum(), 0, x), host, array)
    cube = rng.normal(size=(2, 3, 4))
    same_as_numpy(lambda m, x: m.apply_along_axis(lambda t: m.outer(t, t), 1, x), cube,
                  ah.asarray(cube))
    same_as_numpy(lambda m, x: m.apply_over_axes(m.sum, x, [0, 2]), cube, ah.asarray(cube))
    same_as_numpy(lambda m, x: m.apply_over_axes(m.sum, x, -1), cube, ah.asarray(cube))
