"""NumPy's memory orders against NumPy: order="F" (and "K", "A") in creation, array/asarray,
asfortranarray, copy, astype and the *_like functions give NumPy's strides, contiguity flags
and values; reshape(order="F") reads in Fortran index order."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import arrayhub as ah
from conftest import random_values


def _same(got: Any, expected: np.ndarray, values: bool = True) -> None:
    assert isinstance(got, ah.ndarray)
    assert (got.shape, got.dtype, got.strides) == (expected.shape, expected.dtype,
                                                    expected.strides)
    assert got.flags.c_contiguous == expected.flags.c_contiguous
    assert got.flags.f_contiguous == expected.flags.f_contiguous
    if values:
        np.testing.assert_array_equal(got.get(), expected)


@pytest.mark.parametrize("shape", [(3, 4, 5), (4,), ()])
def test_creation_in_fortran_order(shape: tuple[int, ...]) -> None:
    _same(ah.empty(shape, np.int16, order="F"), np.empty(shape, np.int16, order="F"),
          values=False)
    _same(ah.zeros(shape, order="F"), np.zeros(shape, order="F"))
    _same(ah.ones(shape, np.complex64, order="F"), np.ones(shape, np.complex64, order="F"))
    _same(ah.full(shape, 7, order="F"), np.full(shape, 7, order="F"))
    _same(ah.eye(4, 6, 1, order="F"), np.eye(4, 6, 1, order="F"))
    _same(ah.eye(5, k=-2, dtype=np.int8, order="F"), np.eye(5, k=-2, dtype=np.int8, order="F"))


def test_conversions_keep_or_make_fortran_order() -> None:
    host = random_values(np.random.default_rng(51), np.float32, (3, 4, 5))
    fortran_host = np.asfortranarray(host)
    _same(ah.array(fortran_host), np.array(fortran_host))  # "K" keeps the layout
    _same(ah.array(host, order="F"), np.array(host, order="F"))
    _same(ah.array(host.tolist(), order="F"), np.array(host.tolist(), order="F"))
    x = ah.asarray(host)
    f = ah.asfortranarray(x)
    _same(f, np.asfortranarray(host))
    assert ah.asfortranarray(f) is f and ah.asarray(f, order="F") is f and ah.asarray(f) is f
    _same(ah.asarray(f, order="C"), np.asarray(fortran_host, order="C"))
    _same(ah.array(f), np.array(fortran_host))
    _same(ah.array(f, order="A"), np.array(fortran_host, order="A"))
    _same(ah.asfortranarray(ah.asarray(np.float64(2.0))), np.asfortranarray(np.float64(2.0)))
    _same(ah.require(x, requirements="F"), np.require(host, requirements="F"))
    with pytest.raises(ValueError, match="Unable to avoid copy"):
        ah.asarray(x, order="F", copy=False)


def test_copies_and_casts_in_every_order() -> None:
    host = random_values(np.random.default_rng(52), np.float64, (3, 4, 5))
    cases = [(host, ah.asarray(host)), (np.asfortranarray(host), ah.asfortranarray(host))]
    transposed = host.transpose(1, 0, 2)
    cases.append((transposed, ah.asarray(host).transpose(1, 0, 2)))
    for expected, got in cases:
        for order in ("C", "F", "A", "K"):
            _same(got.copy(order=order), expected.copy(order=order))
            _same(got.astype(np.float32, order=order), expected.astype(np.float32, order=order))
            _same(got.astype(np.int8, order=order), expected.astype(np.int8, order=order))
            _same(ah.empty_like(got, order=order), np.empty_like(expected, order=order),
                  values=False)
            _same(ah.full_like(got, 3, order=order), np.full_like(expected, 3, order=order))
        _same(got.copy(), expected.copy())
        _same(ah.copy(got), np.copy(expected))
        _same(got.astype(np.float32), expected.astype(np.float32))
        _same(ah.zeros_like(got), np.zeros_like(expected))
        _same(ah.ones_like(got, shape=(2, 3)), np.ones_like(expected, shape=(2, 3)))


def test_reshape_in_fortran_index_order_and_writes() -> None:
    host = np.arange(24.0).reshape(4, 6)
    for expected, got in ((host, ah.asarray(host)),
                          (np.asfortranarray(host), ah.asfortranarray(ah.asarray(host)))):
        _same(got.reshape((2, 12), order="F"), expected.reshape((2, 12), order="F"))
        _same(got.reshape((3, 2, 4), order="F"), expected.reshape((3, 2, 4), order="F"))
        _same(got.ravel(order="F"), expected.ravel(order="F"))
    f, f_host = ah.zeros((2, 3), order="F"), np.zeros((2, 3), order="F")
    f[0, 1:] = ah.asarray([5.0, 6.0])
    f_host[0, 1:] = [5.0, 6.0]
    _same(f, f_host)


def test_order_errors_use_numpys_words() -> None:
    with pytest.raises(ValueError,
                       match=r"^order must be one of 'C', 'F', 'A', or 'K' \(got 'X'\)$"):
        ah.ones((2, 2)).copy(order="X")
    with pytest.raises(ValueError, match="^only 'C' or 'F' order is permitted$"):
        ah.zeros(3, order="K")
    with pytest.raises(ValueError, match="order must be one of"):
        ah.array([1], order="X")
