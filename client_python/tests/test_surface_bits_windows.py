"""packbits, unpackbits, the bitwise_count and fabs ufuncs, and the window functions against
NumPy, on every dtype class they take, with NumPy's errors."""

from __future__ import annotations

import numpy as np
import pytest

import arrayhub as ah
from conftest import assert_matches
from numpy_compare import DTYPES, pair, same_as_numpy

pytestmark = pytest.mark.requires_compute("Elementwise")


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_packbits_and_bitwise_count_match_numpy(dtype: np.dtype) -> None:
    host, x = pair(dtype, (3, 2, 11))
    for check in (lambda m, a: m.packbits(a), lambda m, a: m.packbits(a, axis=-1),
                  lambda m, a: m.packbits(a, axis=0, bitorder="little"),
                  lambda m, a: m.packbits(a[:, :, :8], 2), lambda m, a: m.packbits(a[0, 0, 0]),
                  lambda m, a: m.packbits(a, axis=3), lambda m, a: m.packbits(a, bitorder="b")):
        same_as_numpy(check, host, x)
    for name in ("bitwise_count", "fabs"):
        for part in ((), (0, 0, 0), (slice(1, None), 0, slice(None, None, 3))):
            try:
                expected = getattr(np, name)(host[part])
            except TypeError:  # No loop for the dtype: the server's message names the types.
                with pytest.raises(TypeError, match=f"ufunc '{name}' not supported for the "
                                                    f"input types"):
                    getattr(ah, name)(x[part]).get()
                continue
            assert_matches(getattr(ah, name)(x[part]), expected)


def test_bitwise_count_extremes_and_scalars() -> None:
    for dtype in (np.int8, np.int64, np.uint64):
        info = np.iinfo(dtype)
        host = np.array([info.min, info.max, 0, -1 if info.min else 1], dtype)
        assert_matches(ah.bitwise_count(ah.asarray(host)), np.bitwise_count(host))
    assert_matches(ah.bitwise_count(255), np.bitwise_count(255))
    assert_matches(ah.fabs(-2.5), np.fabs(-2.5))
    assert_matches(np.bitwise_count(ah.asarray(np.array([7], np.uint8))), np.array([3], np.uint8))
    assert_matches(np.fabs(ah.asarray(np.array([-1], np.int16))), np.array([1], np.float32))
    assert isinstance(ah.fabs, ah.ufunc) and isinstance(ah.bitwise_count, ah.ufunc)
    host = np.array([-1.5, 2.0, -0.0])
    out = ah.asarray(np.full(3, 9.0))
    ah.fabs(ah.asarray(host), out=out, where=ah.asarray(np.array([True, False, True])))
    assert_matches(out, np.array([1.5, 9.0, 0.0]))


def test_unpackbits_matches_numpy() -> None:
    host = np.random.default_rng(2).integers(0, 256, (2, 3), dtype=np.uint8)
    x = ah.asarray(host)
    for check in (lambda m, a: m.unpackbits(a), lambda m, a: m.unpackbits(a, axis=1),
                  lambda m, a: m.unpackbits(a, axis=0, bitorder="little"),
                  lambda m, a: m.unpackbits(a, count=5), lambda m, a: m.unpackbits(a, count=-9),
                  lambda m, a: m.unpackbits(a, axis=1, count=30),
                  lambda m, a: m.unpackbits(a, count=-49), lambda m, a: m.unpackbits(a[0, 0]),
                  lambda m, a: m.unpackbits(a, bitorder="x"),
                  lambda m, a: m.unpackbits(a.astype(np.int8)),
                  lambda m, a: m.packbits(m.unpackbits(a, axis=1), axis=1),
                  lambda m, a: m.packbits(a * 1.5), lambda m, a: m.packbits(a, bitorder="x")):
        same_as_numpy(check, host, x)


def test_windows_match_numpy() -> None:
    for M in (0, 1, 2, 7, 12, -3, 5.5):
        for name in ("bartlett", "blackman", "hamming", "hanning"):
            assert_matches(getattr(ah, name)(M), getattr(np, name)(M))
        for beta in (0.0, 5.0, 14.0, -3.0, 60.0):
            with np.errstate(invalid="ignore"):  # NumPy too gives NaN where M is no integer.
                expected = np.kaiser(M, beta)
            assert_matches(ah.kaiser(M, beta), expected)
