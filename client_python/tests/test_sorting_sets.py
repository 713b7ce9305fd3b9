"""partition, argpartition, lexsort, sort_complex, unique's flags and axis, isin and the 1-D
set operations against NumPy on fresh random data of each dtype class."""

from __future__ import annotations

import numpy as np
import pytest

import arrayhub as ah
from conftest import assert_matches
from numpy_compare import DTYPES, same_as_numpy

pytestmark = pytest.mark.requires_compute("Elementwise")


def _few_values(dtype: np.dtype, shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Values drawn from a handful, so that there are repeats (and NaNs for floats)."""
    rng = np.random.default_rng(seed)
    host = rng.integers(0, 4, size=shape).astype(dtype)
    if dtype.kind == "c":
        host = host + 1j * rng.integers(0, 2, size=shape)
    if dtype.kind in "fc":
        host[rng.random(shape) < 0.15] = np.nan
    return host.astype(dtype)


def _same(got, expected) -> None:
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for one, other in zip(got, expected):
            assert_matches(one, other)
    else:
        assert_matches(got, expected)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_unique_flags_and_set_operations_match_numpy(dtype: np.dtype) -> None:
    host, other = _few_values(dtype, (3, 7), 1), _few_values(dtype, (9,), 2)
    array, array2 = ah.asarray(host), ah.asarray(other)
    flags = dict(return_index=True, return_inverse=True, return_counts=True)
    _same(ah.unique(array, **flags), np.unique(host, **flags))
    _same(ah.unique(array, return_counts=True, equal_nan=False),
          np.unique(host, return_counts=True, equal_nan=False))
    _same(ah.unique(array, equal_nan=False), np.unique(host, equal_nan=False))
    if dtype.kind not in "fc":  # NaN rows: NumPy compares their bytes.
        _same(ah.unique(array, axis=1, **flags), np.unique(host, axis=1, **flags))
        _same(ah.unique(array, axis=0), np.unique(host, axis=0))
    _same(ah.isin(array, array2), np.isin(host, other))
    _same(ah.isin(array, array2, invert=True), np.isin(host, other, invert=True))
    for name in ("union1d", "setdiff1d", "setxor1d", "intersect1d"):
        _same(getattr(ah, name)(array, array2), getattr(np, name)(host, other))
    if dtype.kind not in "fc":  # NumPy's indices of NaN matches depend on its sort kind.
        _same(ah.intersect1d(array, array2, return_indices=True),
              np.intersect1d(host, other, return_indices=True))


def test_set_operations_with_empty_and_host_operands() -> None:
    host = np.array([3, 1, 2, 3])
    array = ah.asarray(host)
    empty = ah.asarray(np.zeros(0, np.int64))
    _same(ah.isin(array, empty), np.isin(host, []))
    _same(ah.isin(array, [1, 7]), np.isin(host, [1, 7]))
    _same(ah.setxor1d(empty, empty), np.setxor1d(np.zeros(0, np.int64), np.zeros(0, np.int64)))
    _same(ah.union1d(array, np.array([9, 1])), np.union1d(host, [9, 1]))
    _same(ah.unique(empty, return_inverse=True), np.unique(np.zeros(0, np.int64),
                                                             return_inverse=True))
    same_as_numpy(lambda m, x: m.unique(x, axis=1), host, array)


def _check_partition(part: np.ndarray, host: np.ndarray, kth, axis) -> None:
    """NumPy's partition guarantees of ``part`` (``host`` partitioned along ``axis``, the
    flattened array when None): the same values per slice; at each kth what a sort puts
    there; sorting before it or equal to it before, after it or equal to it after (NaN
    last). Complex values are checked for the first two only."""
    source = host.reshape(-1) if axis is None else host
    axis = 0 if axis is None else axis
    part, source = np.moveaxis(part, axis, -1), np.moveaxis(source, axis, -1)
    ordered = np.sort(source, axis=-1)
    np.testing.assert_array_equal(np.sort(part, axis=-1), ordered)
    n = source.shape[-1]
    for k in np.atleast_1d(kth):
        k = int(k) + n if k < 0 else int(k)
        np.testing.assert_array_equal(part[..., k], ordered[..., k])
        if host.dtype.kind == "c":
            continue
        pivot = part[..., k:k + 1]
        with np.errstate(invalid="ignore"):
            before = (part[..., :k] <= pivot) | np.isnan(pivot)
            after = (part[..., k + 1:] >= pivot) | np.isnan(part[..., k + 1:])
        assert before.all() and after.all(), (k, part)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_partition_and_argpartition_keep_numpys_guarantees(dtype: np.dtype) -> None:
    host = _few_values(dtype, (4, 9), 3)
    if dtype.kind == "f":
        host[0, :3] = [-0.0, 0.0, -0.0]
    array = ah.asarray(host)
    cases = ((3, -1), ([0, 2], 0), (-1, None), ([8, 1, 4, 4, -9], 1), (np.zeros(0, np.intp), -1),
             ([5, 20], None))
    for kth, axis in cases:
        _check_partition(ah.partition(array, kth, axis=axis).get(), host, kth, axis)
        order = ah.argpartition(array, kth, axis=axis).get()
        source = host.ravel() if axis is None else host
        along = 0 if axis is None else axis
        assert (np.sort(order, axis=along) == np.arange(source.shape[along]).reshape(
            (-1,) + (1,) * (source.ndim - 1 - (along % source.ndim)))).all()
        _check_partition(np.take_along_axis(source, order, along), host, kth, axis)
    # A transposed (non-contiguous) input and an empty one.
    _check_partition(ah.partition(array.T, [1, 2], axis=0).get(), host.T, [1, 2], 0)
    empty = np.zeros((0, 3), dtype)
    _same(ah.partition(ah.asarray(empty), 5, axis=0), np.partition(empty, 5, axis=0))
    _same(ah.argpartition(ah.asarray(empty), 1), np.argpartition(empty, 1))


def test_long_partitions_select() -> None:
    """A row long enough for the backends' selection paths, with many ties and NaNs."""
    rng = np.random.default_rng(7)
    host = rng.normal(size=200_003).astype(np.float32)
    host[rng.random(host.size) < 0.01] = np.nan
    host[::7] = 0.5
    array = ah.asarray(host)
    kth = [0, 1000, 100_001, 150_000, -1]
    _check_partition(ah.partition(array, kth).get(), host, kth, -1)
    order = ah.argpartition(array, kth).get()
    _check_partition(host[order], host, kth, -1)
    ints = rng.integers(-50, 50, size=(3, 70_000)).astype(np.int64)
    _check_partition(ah.partition(ah.asarray(ints), [5, 35_000], axis=1).get(), ints,
                     [5, 35_000], 1)


def test_partition_errors_match_numpy() -> None:
    host = np.arange(5.0)
    array = ah.asarray(host)
    for kth in (5, -6, 1.5, [[1]]):
        same_as_numpy(lambda m, x: m.partition(x, kth), host, array)
    same_as_numpy(lambda m, x: m.argpartition(x, 4, axis=1), host, array)


def test_lexsort_and_sort_complex_match_numpy() -> None:
    rng = np.random.default_rng(4)
    keys = [rng.integers(0, 3, size=12), rng.normal(size=12).round(), rng.integers(0, 2, 12)]
    _same(ah.lexsort([ah.asarray(k) for k in keys]), np.lexsort(keys))
    stacked = rng.integers(0, 3, size=(3, 4, 5))
    _same(ah.lexsort(ah.asarray(stacked), axis=0), np.lexsort(stacked, axis=0))
    _same(ah.lexsort(ah.asarray(stacked)), np.lexsort(stacked))
    same_as_numpy(lambda m, x: m.lexsort([]), stacked, ah.asarray(stacked))
    same_as_numpy(lambda m, x: m.lexsort((x[0], x[1, :2])), stacked, ah.asarray(stacked))
    for dtype in (np.int8, np.uint16, np.int32, np.float32, np.float64, np.complex64, np.bool_):
        host = (rng.normal(size=(2, 6)) * 3).astype(dtype)
        _same(ah.sort_complex(ah.asarray(host)), np.sort_complex(host))
