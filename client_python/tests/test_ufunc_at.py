"""ufunc.at with repeated indices (the server's combining scatter) against NumPy's on fresh
random data with heavy repeats, for every dtype class and combining ufunc: the results must
equal NumPy's exactly (the values of a repeated element are applied in NumPy's order, so
floating-point sums round the same); negative indices, tuples of index arrays and slices,
NaN in the extrema, out-of-bounds errors with NumPy's IndexError text (nothing changed), and
NumPy's refusals."""

from __future__ import annotations

import numpy as np
import pytest

import arrayhub as ah
from conftest import random_values

pytestmark = pytest.mark.requires_compute("Elementwise")

_OPS = ["add", "subtract", "multiply", "maximum", "minimum", "fmax", "fmin"]
_DTYPES = [np.bool_, np.int8, np.uint16, np.int64, np.float16, np.float32, np.float64,
           np.complex64, np.complex128]


def _values(rng: np.random.Generator, dtype: type, shape: tuple[int, ...], op: str) -> np.ndarray:
    values = random_values(rng, dtype, shape)
    kind = np.dtype(dtype).kind
    if op == "multiply" and kind in "fc":
        values = (1 + values / 64).astype(dtype)  # products that stay finite
    if op in ("maximum", "minimum", "fmax", "fmin") and kind in "fc":
        values[rng.random(shape) < 0.1] = np.nan
    return values


def _same(got: ah.ndarray, expected: np.ndarray) -> None:
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got.get(), expected, strict=True)


@pytest.mark.parametrize("dtype", _DTYPES, ids=lambda d: np.dtype(d).name)
def test_repeated_indices_combine_as_numpy(dtype: type) -> None:
    rng = np.random.default_rng()
    for op in _OPS:
        if dtype is np.bool_ and op == "subtract":
            continue
        ours, numpys = getattr(ah, op), getattr(np, op)
        # 1-D: 300 values into 7 elements, negative indices too.
        host = random_values(rng, dtype, (7,))
        index = rng.integers(-7, 7, size=300)
        values = _values(rng, dtype, (300,), op)
        x = ah.asarray(host)
        ours.at(x, ah.asarray(index), ah.asarray(values))
        with np.errstate(all="ignore"):
            numpys.at(host, index, values)
        _same(x, host)
        # 2-D: two index arrays broadcast together, and an index array with a slice; a
        # scalar value and a broadcast row.
        grid = random_values(rng, dtype, (4, 5))
        rows, cols = rng.integers(0, 4, size=(40, 1)), rng.integers(-5, 5, size=(1, 3))
        row = _values(rng, dtype, (3,), op)
        scalar = _values(rng, dtype, (1,), op)[0]
        g = ah.asarray(grid)
        ours.at(g, (ah.asarray(rows), ah.asarray(cols)), ah.asarray(row))
        ours.at(g, (ah.asarray(rows[:, 0]), slice(1, 4)), ah.asarray(scalar))
        with np.errstate(all="ignore"):
            numpys.at(grid, (rows, cols), row)
            numpys.at(grid, (rows[:, 0], slice(1, 4)), scalar)
        _same(g, grid)


def test_python_scalars_lists_and_logical_ops() -> None:
    # Python scalars are typed as NumPy's ufunc.at types them (int64, float64) and cast to
    # the array's dtype unsafely: -1 into uint8 wraps.
    counts = ah.zeros(5, dtype=np.uint8)
    host = np.zeros(5, dtype=np.uint8)
    for ufunc in ("add", "subtract"):
        getattr(ah, ufunc).at(counts, [0, 0, 3, -1], 1)
        getattr(np, ufunc).at(host, [0, 0, 3, -1], 1)
    ah.add.at(counts, [1, 1], -1)
    np.add.at(host, [1, 1], -1)
    _same(counts, host)
    floats = ah.zeros(4, dtype=np.float32)
    ah.add.at(floats, [0, 0, 2], [0.5, 1.5, 2.0])
    _same(floats, np.array([2, 0, 2, 0], dtype=np.float32))
    flags = ah.zeros(4, dtype=np.bool_)
    ah.logical_or.at(flags, ah.asarray([1, 1, 2]), ah.asarray([False, True, False]))
    _same(flags, np.array([False, True, False, False]))
    ah.logical_and.at(flags, [1, 1], True)
    _same(flags, np.array([False, True, False, False]))
    # Through NumPy's protocol: np.add.at on an arrayhub array runs on the server.
    x = ah.zeros(3)
    np.add.at(x, ah.asarray([2, 2, 2]), 1.0)
    _same(x, np.array([0.0, 0.0, 3.0]))


def test_refusals_change_nothing() -> None:
    x = ah.asarray(np.arange(5.0))
    with pytest.raises(IndexError, match=r"^index 5 is out of bounds for axis 0 with size 5$"):
        ah.add.at(x, ah.asarray([0, 1, 5, 0]), 1.0)
    with pytest.raises(IndexError, match=r"^index -6 is out of bounds for axis 0 with size 5$"):
        ah.maximum.at(x, [-6], 1.0)
    _same(x, np.arange(5.0))
    flags = ah.zeros(3, dtype=np.bool_)
    with pytest.raises(TypeError, match="numpy boolean subtract, the `-` operator, is not "
                                        "supported"):
        ah.subtract.at(flags, [0, 0], True)
    _same(flags, np.zeros(3, dtype=np.bool_))
