"""``ndarray.set``: host data streamed over an existing array (an Upload with a target)."""

from __future__ import annotations

import numpy as np
import pytest

import arrayhub as ah
from conftest import random_values


def test_set_overwrites_the_array_in_place() -> None:
    x = ah.zeros((2, 3), np.float32)
    handle = x.handle
    values = random_values(np.random.default_rng(3), np.dtype(np.float32), (2, 3))
    x.set(values)
    assert x.handle == handle
    assert x.get().tobytes() == values.tobytes()


def test_set_streams_many_chunks() -> None:
    values = random_values(np.random.default_rng(4), np.dtype(np.complex64), (3 * 2**18 + 5,))
    assert values.nbytes > 2 * 2**20  # several 1 MiB chunks, the last one partial
    x = ah.empty(values.shape, np.complex64)
    x.set(values)
    assert x.get().tobytes() == values.tobytes()


def test_set_on_a_contiguous_view_writes_into_its_base() -> None:
    base = ah.asarray(np.arange(12, dtype=np.int64).reshape(3, 4))
    row = base[1]
    row.set(np.array([-1, -2, -3, -4], dtype=np.int64))
    expected = np.arange(12, dtype=np.int64).reshape(3, 4)
    expected[1] = [-1, -2, -3, -4]
    np.testing.assert_array_equal(base.get(), expected)


def test_set_refuses_another_shape_or_dtype() -> None:
    x = ah.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match=r"shape \(6,\), but the target .* shape \(2, 3\)"):
        x.set(np.zeros(6, np.float32))
    with pytest.raises(ValueError, match=r"float64 of shape \(2, 3\), but the target .* float32"):
        x.set(np.zeros((2, 3), np.float64))
    np.testing.assert_array_equal(x.get(), np.zeros((2, 3), np.float32))


def test_set_refuses_a_view_that_is_not_c_contiguous() -> None:
    x = ah.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="is not C-contiguous"):
        x.T.set(np.ones((3, 2), np.float32))
