"""Copy-making manipulations against NumPy on random data of every dtype class: astype, copy,
take, compress, nonzero, concatenate, stack, split (views), tile, repeat, flip (a view),
roll, sort/argsort (NaN last, stable), cumsum/cumprod, unique, searchsorted; with transposed
and sliced inputs, zero-size and 0-d arrays, and NumPy's errors."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import arrayhub as ah
from conftest import ALL_DTYPES, random_values

Op = Callable[[Any, Any], Any]  # f(module, array)


def _same(got: Any, expected: Any, rtol: float = 0.0) -> None:
    expected = np.asarray(expected)
    assert got.shape == expected.shape, f"shape {got.shape}, NumPy gives {expected.shape}"
    assert got.dtype == expected.dtype, f"dtype {got.dtype}, NumPy gives {expected.dtype}"
    if rtol:
        np.testing.assert_allclose(got.get(), expected, rtol=rtol, atol=rtol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got.get(), expected)


# Exact results: these only move elements, or compare them.
EXACT: list[tuple[str, Op]] = [
    ("copy", lambda m, a: m.copy(a)),
    ("take axis", lambda m, a: m.take(a, m.asarray([2, 0, -1, 2]), axis=1)),
    ("take flat", lambda m, a: m.take(a, m.asarray([[5, 0], [59, 7]]))),
    ("take scalar", lambda m, a: m.take(a, 3, axis=2)),
    ("compress", lambda m, a: m.compress([True, False, True], a, axis=0)),
    ("compress flat short", lambda m, a: m.compress([False, True, True], a)),
    ("concatenate", lambda m, a: m.concatenate([a, a[:, :2]], axis=1)),
    ("concatenate none", lambda m, a: m.concatenate([a, a[1]], axis=None)),
    ("stack", lambda m, a: m.stack([a[0], a[1], a[2]], axis=-1)),
    ("tile", lambda m, a: m.tile(a[0], (2, 1, 3))),
    ("tile fewer reps", lambda m, a: m.tile(a, 2)),
    ("repeat", lambda m, a: m.repeat(a, 2, axis=2)),
    ("repeat flat", lambda m, a: m.repeat(a[:, 0], 3)),
    ("repeat counts", lambda m, a: m.repeat(a, m.asarray([1, 0, 3, 2]), axis=1)),
    ("flip", lambda m, a: m.flip(a, 1)),
    ("flip all", lambda m, a: m.flip(a)),
    ("roll", lambda m, a: m.roll(a, 3, axis=2)),
    ("roll axes", lambda m, a: m.roll(a, (1, -2), axis=(0, 1))),
    ("roll flat", lambda m, a: m.roll(a, -7)),
    ("sort last", lambda m, a: m.sort(a)),
    ("sort axis 0", lambda m, a: m.sort(a, axis=0)),
    ("sort flat", lambda m, a: m.sort(a, axis=None)),
    ("argsort", lambda m, a: m.argsort(a, axis=1, kind="stable") if m is np
     else m.argsort(a, axis=1)),
    ("unique", lambda m, a: m.unique(a)),
    ("nonzero", lambda m, a: m.stack(m.nonzero(a))),
    ("searchsorted", lambda m, a: m.searchsorted(m.sort(a.ravel()), a[1])),
    ("searchsorted right", lambda m, a: m.searchsorted(m.sort(a.ravel()), a[0, 0], side="right")),
    ("transposed input", lambda m, a: m.concatenate([a.T, a.T])),
    ("sliced input sort", lambda m, a: m.sort(a[:, ::-2], axis=1)),
]


@pytest.mark.parametrize("name,op", EXACT, ids=[e[0] for e in EXACT])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_exact_manipulations_match_numpy(name: str, op: Op, dtype: np.dtype) -> None:
    rng = np.random.default_rng(51)
    host = random_values(rng, dtype, (3, 4, 5))
    if dtype.kind in "fc":  # Ties, signed zeros and NaNs exercise the sort order.
        host.flat[::7] = host.flat[3]
        host.flat[5] = -0.0
        host.flat[11] = np.nan
        if dtype.kind == "c":
            host.flat[13] = complex(1.0, np.nan)
            host.flat[17] = complex(np.nan, 2.0)
    if name.startswith("searchsorted") and dtype.kind in "fc":
        host = np.where(np.isnan(host), 0, host).astype(dtype)  # NumPy's own order only.
    expected = op(np, host)
    got = op(ah, ah.asarray(host))
    _same(got, expected)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_cumulative_sums_and_products_match_numpy(dtype: np.dtype) -> None:
    rng = np.random.default_rng(52)
    host = random_values(rng, dtype, (4, 6))
    if dtype.kind in "fc":
        host = (host / 4).astype(dtype)  # Keep products of up to 24 factors finite.
    remote = ah.asarray(host)
    rtol = {"e": 1e-2, "f": 1e-5, "d": 1e-12, "F": 1e-5, "D": 1e-12}.get(host.dtype.char, 0.0)
    for axis in (None, 0, 1, -1):
        _same(ah.cumsum(remote, axis=axis), np.cumsum(host, axis=axis), rtol)
        _same(ah.cumprod(remote, axis=axis), np.cumprod(host, axis=axis), rtol)
    _same(remote.T.cumsum(axis=1), host.T.cumsum(axis=1), rtol)
    if dtype.kind in "iub":
        _same(ah.cumsum(remote, dtype=np.int8), np.cumsum(host, dtype=np.int8))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_astype_to_every_dtype(dtype: np.dtype) -> None:
    rng = np.random.default_rng(53)
    host = np.abs(random_values(rng, np.dtype(np.float64), (3, 5)))  # In range for unsigned.
    remote = ah.asarray(host)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = host.astype(dtype)
    _same(remote.astype(dtype), expected)
    _same(remote[:, ::2].astype(dtype), expected[:, ::2])


def test_split_gives_views_as_numpy() -> None:
    host = np.arange(24.0).reshape(4, 6)
    remote = ah.asarray(host)
    for sections, axis in ((2, 0), (3, 1), ([1, 4], 1), ([-1, 10], 0), ([3, 1], 1)):
        expected = np.split(host, sections, axis=axis)
        got = ah.split(remote, sections, axis=axis)
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            _same(g, e)
    parts = ah.split(remote, 2)
    parts[1][0, 0] = -1.0
    assert remote[2, 0].item() == -1.0
    with pytest.raises(ValueError, match="array split does not result in an equal division"):
        ah.split(remote, 5, axis=1)


def test_flip_is_a_view() -> None:
    remote = ah.arange(6)
    flipped = ah.flip(remote)
    flipped[0] = 100
    assert remote.get().tolist() == [0, 1, 2, 3, 4, 100]


def test_unique_collapses_nans_and_sorts() -> None:
    host = np.array([3.0, np.nan, 1.0, 3.0, np.nan, -0.0, 0.0])
    _same(ah.unique(ah.asarray(host)), np.unique(host))
    host = np.array([1 + 1j, complex(np.nan, 1), 1 + 1j, complex(1, np.nan), 0j])
    _same(ah.unique(ah.asarray(host)), np.unique(host))


def test_sort_method_sorts_in_place() -> None:
    host = np.random.default_rng(54).normal(size=(5, 4))
    remote = ah.asarray(host)
    remote.sort(axis=0)
    host.sort(axis=0)
    np.testing.assert_array_equal(remote.get(), host)


def test_zero_size_and_zero_d_inputs() -> None:
    empty = np.zeros((0, 3), np.float32)
    remote = ah.asarray(empty)
    _same(ah.sort(remote, axis=0), np.sort(empty, axis=0))
    _same(ah.cumsum(remote), np.cumsum(empty))
    _same(ah.unique(remote), np.unique(empty))
    _same(ah.concatenate([remote, remote]), np.concatenate([empty, empty]))
    _same(ah.tile(remote, 3), np.tile(empty, 3))
    _same(ah.take(remote, ah.asarray(np.array([], np.int64)), axis=0),
          np.take(empty, np.array([], np.int64), axis=0))
    scalar = ah.asarray(np.float64(4.0))
    _same(ah.sort(scalar, axis=None), np.sort(np.float64(4.0), axis=None))
    _same(ah.cumsum(scalar), np.cumsum(np.float64(4.0)))
    with pytest.raises(ValueError, match="Calling nonzero on 0d arrays is not allowed"):
        ah.nonzero(scalar)
    with pytest.raises(ValueError, match="zero-dimensional arrays cannot be concatenated"):
        ah.concatenate([scalar, scalar])


@pytest.mark.parametrize("call,error,message", [
    (lambda a: ah.concatenate([a, a[0]]), ValueError,
     "all the input arrays must have same number of dimensions"),
    (lambda a: ah.concatenate([a, a[:, :2]], axis=0), ValueError,
     "along dimension 1, the array at index 0 has size 4 and the array at index 1 has size 2"),
    (lambda a: ah.stack([a, a[:1]]), ValueError, "all input arrays must have the same shape"),
    (lambda a: ah.take(a, ah.asarray([0, 9]), axis=1), IndexError,
     "index 9 is out of bounds for axis 1 with size 4"),
    (lambda a: ah.sort(a, axis=2), ValueError, "axis 2 is out of bounds for array of dimension 2"),
    (lambda a: ah.repeat(a, -1), ValueError, "negative"),
    (lambda a: ah.concatenate([a, a], dtype=np.int32), TypeError, "Cannot cast array data"),
    (lambda a: ah.searchsorted(a, 1.0), ValueError, "1-D"),
])
def test_manipulation_errors(call: Callable[[Any], Any], error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        call(ah.zeros((3, 4)))
        ah.synchronize()  # A pipelined take raises its out-of-bounds index here.


def test_promotion_of_concatenated_dtypes() -> None:
    a = ah.asarray(np.arange(3, dtype=np.int8))
    b = ah.asarray(np.linspace(0, 1, 2, dtype=np.float32))
    _same(ah.concatenate([a, b]),
          np.concatenate([np.arange(3, dtype=np.int8), np.linspace(0, 1, 2, dtype=np.float32)]))


def test_split_parts_are_bounded() -> None:
    # NumPy would build 2**40 empty views; the server refuses before allocating anything.
    with pytest.raises(ValueError, match="exceeds this server's limit of 65536 arrays per split"):
        ah.split(ah.zeros(0), 2**40)
    assert len(ah.split(ah.zeros(0), 3)) == 3
