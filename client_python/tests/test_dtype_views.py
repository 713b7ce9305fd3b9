"""ndarray.view(dtype) against NumPy 2: the same bytes read as another dtype, with NumPy's
shapes, strides and messages, writes visible both ways; and what the server refuses so that
its kernels stay right (views that would not be aligned, non-bool bytes as bool)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import arrayhub as ah
from conftest import random_values

Layout = Callable[[Any], Any]

# (from dtype, host shape, a view of the host array, to dtype)
CASES: list[tuple[Any, tuple[int, ...], Layout, Any]] = [
    (np.float64, (4, 6), lambda a: a.T, np.int64),  # same itemsize: any layout
    (np.float64, (4, 6), lambda a: a[:, ::-2], np.uint64),
    (np.float64, (4, 6), lambda a: a, np.complex128),
    (np.float64, (4, 6), lambda a: a[1:, 2:], np.complex128),
    (np.float32, (3, 5), lambda a: a[::-1], np.uint8),
    (np.int8, (4, 16), lambda a: a[::2, 4:], np.float32),
    (np.int8, (2, 16), lambda a: a, np.complex128),
    (np.int16, (6, 8), lambda a: a[::2], np.float64),
    (np.complex64, (3, 4), lambda a: a[:, 1:3], np.float32),
    (np.float16, (5, 3), lambda a: a[..., None], np.int8),
    (np.uint16, (5,), lambda a: a, np.float16),
    (np.bool_, (4, 8), lambda a: a, np.int32),
    (np.int64, (0, 3), lambda a: a, np.int8),
]


@pytest.mark.parametrize("source,shape,layout,target", CASES,
                         ids=[f"{np.dtype(c[0])}-{np.dtype(c[3])}-{i}"
                              for i, c in enumerate(CASES)])
def test_view_dtype_matches_numpy(source: Any, shape: tuple[int, ...], layout: Layout,
                                  target: Any) -> None:
    host = random_values(np.random.default_rng(41), source, shape)
    expected = layout(host).view(target)
    remote = ah.asarray(host)
    got = layout(remote).view(target)
    assert (got.shape, got.dtype) == (expected.shape, expected.dtype)
    assert [s for s, n in zip(got.strides, got.shape) if n > 1] == \
        [s for s, n in zip(expected.strides, expected.shape) if n > 1]
    assert got.get().tobytes() == np.ascontiguousarray(expected).tobytes()
    assert got._info.base_handle == remote.handle
    assert got.flags.writeable == (np.dtype(source) != np.bool_)


def test_writes_through_a_dtype_view_show_in_the_base() -> None:
    host = np.arange(6.0)
    remote = ah.asarray(host)
    bits = remote.view(np.int64)
    bits[1] = np.float64(-2.5).view(np.int64)
    host.view(np.int64)[1] = np.float64(-2.5).view(np.int64)
    pairs = remote[2:].view(np.complex128)
    pairs[0] = 7 + 8j
    host[2:].view(np.complex128)[0] = 7 + 8j
    np.testing.assert_array_equal(remote.get(), host)
    remote[5] = 9.0  # ... and the other way round.
    assert complex(pairs[1].get()) == 4 + 9j
    same = remote.view()
    assert same.dtype == remote.dtype and same._info.base_handle == remote.handle
    assert remote.view(ah.ndarray).dtype == remote.dtype
    assert remote.view(dtype=np.int64).dtype == np.int64


@pytest.mark.parametrize("call,error,message", [
    (lambda a: a[0, 0].view(np.int32), ValueError,
     "^Changing the dtype of a 0d array is only supported if the itemsize is unchanged$"),
    (lambda a: a.T.view(np.int32), ValueError,
     "^To change to a dtype of a different size, the last axis must be contiguous$"),
    (lambda a: a[:, :3].view(np.complex128), ValueError,
     r"^When changing to a larger dtype, its size must be a divisor of the total size in "
     r"bytes of the last axis of the array\.$"),
    (lambda a: a.view(np.uint8)[:, 1:5].view(np.int16), ValueError,
     "its data start .* not multiples of 2 bytes"),
    (lambda a: a.view(np.uint8).view(np.bool_), TypeError,
     "viewing uint8 as bool is not supported"),
    (lambda a: a.view(">f8"), TypeError, "native byte order only"),
])
def test_view_dtype_errors(call: Callable[[Any], Any], error: type, message: str) -> None:
    a = ah.zeros((4, 6))
    with pytest.raises(error, match=message):
        call(a).get()


def test_bool_arrays_viewed_as_bytes_are_read_only() -> None:
    mask = ah.asarray(np.array([True, False, True, True]))
    as_bytes = mask.view(np.uint8)
    np.testing.assert_array_equal(as_bytes.get(), [1, 0, 1, 1])
    assert not as_bytes.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        as_bytes[0] = 2  # would store a byte the bool kernels do not expect
    assert mask.view(np.bool_).flags.writeable
