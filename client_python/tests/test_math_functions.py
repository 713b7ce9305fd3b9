"""The math composites of _math_functions.py against NumPy on random data of each dtype class:
diff, cross, kron, count_nonzero, ptp, isclose/allclose, array_equal/array_equiv, average and
round (function and method); their edge cases (empty, 0-d, NaN and inf, negative axes) and
NumPy's errors; and that a pipelined client queues these composites and those of
_matrix_functions.py without waiting for the server."""

from __future__ import annotations

import contextlib
import threading
import warnings
from typing import Any, Iterator

import numpy as np
import pytest

import arrayhub as ah
from conftest import assert_matches, random_values
from numpy_compare import DTYPES, pair, same_as_numpy

pytestmark = pytest.mark.requires_compute("Elementwise")


# -- Differences and products --------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_diff_matches_numpy(dtype: np.dtype) -> None:
    host, x = pair(dtype, (3, 5))
    for check in (lambda m, a: m.diff(a), lambda m, a: m.diff(a, 2, axis=0),
                  lambda m, a: m.diff(a.T, 3, -2), lambda m, a: m.diff(a, 9),
                  lambda m, a: m.diff(a, prepend=a[:, :1], append=1.5),
                  lambda m, a: m.diff(a, axis=0, prepend=True, append=a[0, 0]),
                  lambda m, a: m.diff(a[:, :0]), lambda m, a: m.diff(a[0], 1, append=[1, 2])):
        same_as_numpy(check, host, x)
    assert ah.diff(x, 0) is x


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_cross_matches_numpy(dtype: np.dtype) -> None:
    host_a, a = pair(dtype, (4, 3), 1)
    host_b, b = pair(np.dtype(np.int16), (3, 2, 4), 2)
    checks = [lambda m, x, y: m.cross(x, x[::-1]),
              lambda m, x, y: m.cross(x[:, None], y, axisb=1, axisc=1),
              lambda m, x, y: m.cross(x[:1, :2], y, axisb=0, axisc=0),
              lambda m, x, y: m.cross(y[:2, 0], x, axisa=0),
              lambda m, x, y: m.cross(x[:, :2], y[:2, 1], axisb=0),
              lambda m, x, y: m.cross(x.T, x[:, None], axisa=0, axis=None),
              lambda m, x, y: m.cross(x[:0], x)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for check in checks:
            same_as_numpy(lambda m, pair: check(m, *pair), (host_a, host_b), (a, b))


def test_cross_takes_two_vectors_as_the_installed_numpy_does() -> None:
    """Deprecated (a warning) before NumPy 2.5, refused from 2.5 on: as numpy.cross."""
    if np.lib.NumpyVersion(np.__version__) < "2.5.0":
        with pytest.warns(DeprecationWarning, match="2-dimensional vectors are deprecated"):
            assert float(ah.cross(ah.asarray([1.0, 2.0]), ah.asarray([3.0, 5.0]))) == -1.0
    else:
        with pytest.raises(ValueError, match=r"^Both input arrays must be \(arrays of\) "
                           r"3-dimensional vectors, but they are 2 and 3 dimensional instead\.$"):
            ah.cross(ah.ones(2), ah.ones(3))
    with pytest.raises(ValueError, match=r"but they are 2 and 2 dimensional instead\.$"):
        ah.linalg.cross(ah.ones(2), ah.ones(2))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_kron_matches_numpy(dtype: np.dtype) -> None:
    host, x = pair(dtype, (2, 3))
    for check in (lambda m, a: m.kron(a, a.T), lambda m, a: m.kron(a[0], a[:, :, None]),
                  lambda m, a: m.kron(a[:, :1, None], a[1]), lambda m, a: m.kron(2, a),
                  lambda m, a: m.kron(a, np.float32(1.5)), lambda m, a: m.kron(a[0, 0], a[:0])):
        same_as_numpy(check, host, x)


# -- Counting, closeness and equality ----------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_counts_ranges_and_equality_match_numpy(dtype: np.dtype) -> None:
    host, x = pair(dtype, (3, 4))
    host[1, 1:3] = 0
    x = ah.asarray(host)
    counted = ah.count_nonzero(x)
    assert counted.shape == () and int(counted) == np.count_nonzero(host)
    for check in (lambda m, a: m.count_nonzero(a, axis=0),
                  lambda m, a: m.count_nonzero(a, axis=(0, -1), keepdims=True),
                  lambda m, a: m.ptp(a), lambda m, a: m.ptp(a, axis=-1, keepdims=True)):
        same_as_numpy(check, host, x)
    other = host.copy()
    other[2, 3] = other[0, 0]
    y = ah.asarray(other)
    for args, expected in [((x, x), True), ((x, y), np.array_equal(host, other)),
                           ((x, x[:2]), False), ((x[0], 5), False), ((x[0, 0], host[0, 0]), True)]:
        assert bool(ah.array_equal(*args)) == expected
    for args, expected in [((x, x[:1]), np.array_equiv(host, host[:1])),
                           ((x[:1], y[:1]), np.array_equiv(host[:1], other[:1])),
                           ((x, x[:2]), False), ((x[:, :1], x[:, 0]), False)]:
        assert bool(ah.array_equiv(*args)) == expected


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_nan_equality_and_closeness_match_numpy() -> None:
    a = np.array([1.0, np.nan, np.inf, -np.inf, 1e-9, 1e10, 0.0, np.nan, 3.0])
    b = np.array([1.0, np.nan, np.inf, np.inf, 0.0, 1.00001e10, -0.0, 1.0, np.inf])
    x, y = ah.asarray(a), ah.asarray(b)
    for equal_nan in (False, True):
        assert bool(ah.array_equal(x, x, equal_nan=equal_nan)) == np.array_equal(a, a, equal_nan)
        assert bool(ah.array_equal(x, x.copy(), equal_nan)) == np.array_equal(a, a.copy(),
                                                                              equal_nan)
        assert bool(ah.array_equal(x, y, equal_nan)) == np.array_equal(a, b, equal_nan)
        cases = [(lambda m, p, q: m.isclose(p, q, equal_nan=equal_nan)),
                 (lambda m, p, q: m.isclose(p, q, rtol=0, atol=1e-8, equal_nan=equal_nan)),
                 (lambda m, p, q: m.isclose(p, np.inf, equal_nan=equal_nan)),
                 (lambda m, p, q: m.isclose(2, q, atol=np.float32(1))),
                 (lambda m, p, q: m.isclose(p.astype(np.float32), 1)),
                 (lambda m, p, q: m.isclose(p + 1j * q, q, equal_nan=equal_nan))]
        for case in cases:
            expected = np.asarray(case(np, a, b))
            assert_matches(case(ah, x, y), expected)
        assert bool(ah.allclose(x, y, equal_nan=equal_nan)) == np.allclose(a, b,
                                                                           equal_nan=equal_nan)
    assert bool(ah.allclose(x[:1], y[:1])) and bool(ah.allclose(x[:0], 7))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_isclose_matches_numpy(dtype: np.dtype) -> None:
    host, x = pair(dtype, (20,))
    near = host + np.asarray(host * 1e-6).astype(dtype)  # close for floats, equal for ints
    y = ah.asarray(near)
    for check in (lambda m, p, q: m.isclose(p, q), lambda m, p, q: m.isclose(q, p, 0, 1),
                  lambda m, p, q: m.isclose(p, q[::-1], rtol=1e-2, atol=1)):
        assert_matches(check(ah, x, y), check(np, host, near))
    info = np.iinfo(dtype) if dtype.kind in "iu" else None
    if info is not None:  # |MIN_INT| in the float promoted from b, as in NumPy
        extreme = np.array([info.min, info.max], dtype)
        assert_matches(ah.isclose(ah.asarray(extreme), ah.asarray(extreme[::-1])),
                       np.isclose(extreme, extreme[::-1]))


def test_invalid_tolerances_warn_as_numpy() -> None:
    x = ah.ones(2)
    with pytest.warns(RuntimeWarning, match="One of rtol or atol is not valid"):
        ah.isclose(x, x, atol=np.nan)
    with np.errstate(invalid="raise"), pytest.raises(FloatingPointError):
        ah.isclose(x, x, rtol=ah.asarray([np.inf, 1]))


def test_average_matches_numpy() -> None:
    host, x = pair(np.dtype(np.float32), (3, 4))
    ints, xi = pair(np.dtype(np.int16), (3, 4))
    weights = np.abs(random_values(np.random.default_rng(5), np.float64, (4,))) + 0.5
    w = ah.asarray(weights)
    for check in (lambda m, a, i, v: m.average(a), lambda m, a, i, v: m.average(i, axis=0),
                  lambda m, a, i, v: m.average(a, (0, 1), returned=True),
                  lambda m, a, i, v: m.average(i, -1, v, returned=True),
                  lambda m, a, i, v: m.average(a, 1, v, keepdims=True),
                  lambda m, a, i, v: m.average(i.T, weights=i.T.astype(np.uint8) % 3 + 1)):
        same_as_numpy(lambda m, args: check(m, *args), (host, ints, weights), (x, xi, w))
    with pytest.raises(ZeroDivisionError, match="Weights sum to zero, can't be normalized"):
        ah.average(x, 1, ah.zeros(4))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_round_matches_numpy(dtype: np.dtype) -> None:
    host, x = pair(dtype, (4, 5))
    host = host * 37 if dtype.kind in "fc" else host
    x = ah.asarray(host)
    checks = [lambda m, a: m.round(a), lambda m, a: m.around(a, 2), lambda m, a: a.round(-1),
              lambda m, a: m.round(a.T, -3), lambda m, a: m.round(a[:0], 1)]
    if dtype.kind == "c":  # (decimals != 0: see the next test)
        checks = checks[:1]
    elif dtype.kind == "b":  # (negative decimals: the server names NumPy's divide true_divide)
        checks = checks[:2] + checks[4:]
    for check in checks:
        same_as_numpy(check, host, x)
    out_host, out = np.zeros((4, 5), np.float64), ah.zeros((4, 5))
    if dtype.kind != "c":
        assert ah.round(x, 1, out=out) is out
        np.testing.assert_allclose(out.get(), np.round(host, 1, out=out_host), rtol=1e-3)


def test_round_of_complex_with_decimals_is_refused() -> None:
    x = ah.asarray([1.25 + 2.5j])
    assert_matches(ah.round(x), np.round(np.array([1.25 + 2.5j])))
    with pytest.raises(NotImplementedError, match="complex arrays with decimals != 0"):
        ah.round(x, 1)


# -- Errors ----------------------------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore:Arrays of 2-dimensional vectors:DeprecationWarning")
def test_errors_match_numpy() -> None:
    host = np.arange(6.0).reshape(2, 3)
    x = ah.asarray(host)
    checks = [lambda m, a: m.diff(a, -1), lambda m, a: m.diff(a[0, 0]),
              lambda m, a: m.diff(a, axis=2), lambda m, a: m.cross(a, a[0, 0]),
              lambda m, a: m.cross(a, a, axisa=3), lambda m, a: m.cross(a.T, a.T),
              lambda m, a: m.cross(a[:, :2], a, axisc=2),
              lambda m, a: m.cross(a, a[:1].repeat(3, 0)),
              lambda m, a: m.cross(a > 1, a > 2), lambda m, a: m.ptp(a > 1),
              lambda m, a: m.average(a, weights=a[0]),
              lambda m, a: m.average(a, 1, a[:, 0]), lambda m, a: m.average(a, 2)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # 2-vectors before NumPy 2.5.
        for check in checks:
            same_as_numpy(check, host, x)
    with pytest.raises(TypeError, match="expected an arrayhub.ndarray"):
        ah.diff(host)
    with pytest.raises(TypeError, match="expected an arrayhub.ndarray"):
        ah.isclose(1.0, 1.0)


# -- Pipelining --------------------------------------------------------------------------------

@contextlib.contextmanager
def _waits(client: ah.Client) -> Iterator[list[str]]:
    """The calls of this thread in this block that waited for the server: unary RPCs (each
    drains the queue), and sends of the queue that waited for the reply or asked for data."""
    waits: list[str] = []
    pipeline, thread = client._pipeline, threading.current_thread()
    send, rpc = pipeline._send, client._rpc

    def watched_send(read: Any = None, wait: bool = False) -> Any:
        if threading.current_thread() is thread and (wait or read is not None):
            waits.append("wait for the queue")
        return send(read=read, wait=wait)

    def watched_rpc(method: str, request: Any) -> Any:
        if threading.current_thread() is thread:
            waits.append(method)
        return rpc(method, request)

    pipeline._send, client._rpc = watched_send, watched_rpc
    try:
        yield waits
    finally:
        del pipeline._send, client._rpc


@pytest.mark.skipif(ah.is_sync(), reason="tests the pipelined mode (ARRAYHUB_SYNC)")
def test_composites_queue_without_waiting_for_the_server(client: ah.Client) -> None:
    host = np.random.default_rng(3).normal(size=(4, 3))
    x = ah.asarray(host)
    ah.synchronize()
    with _waits(client) as waits:
        results = {
            "tril": (ah.tril(x, -1), np.tril(host, -1)),
            "diag": (ah.diag(x[0], 1), np.diag(host[0], 1)),
            "trace": (x.trace(), np.asarray(np.trace(host))),
            "meshgrid": (ah.meshgrid(x[0], x[:, 0])[1], np.meshgrid(host[0], host[:, 0])[1]),
            "geomspace": (ah.geomspace(1, 1e3, 7), np.geomspace(1, 1e3, 7)),
            "diff": (ah.diff(x, 2, axis=0, prepend=0.5), np.diff(host, 2, 0, prepend=0.5)),
            "cross": (ah.cross(x, x[::-1]), np.cross(host, host[::-1])),
            "kron": (ah.kron(x, x[:2]), np.kron(host, host[:2])),
            "count_nonzero": (ah.count_nonzero(x > 0, axis=1), np.count_nonzero(host > 0, 1)),
            "allclose": (ah.allclose(x, x + 1e-9), np.asarray(True)),
            "array_equal": (ah.array_equal(x, x, equal_nan=True), np.asarray(True)),
            "ptp": (ah.ptp(x, 0), np.ptp(host, 0)),
            "average": (ah.average(x, 1), np.average(host, 1)),
            "round": (ah.round(x, 2), np.round(host, 2)),
        }
    assert waits == []  # (the idle flush may have sent the queue meanwhile: that never waits)
    for name, (got, expected) in results.items():
        assert_matches(got, expected)
