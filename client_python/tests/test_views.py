"""Views against NumPy: reshape, transpose, swapaxes, squeeze, expand_dims, broadcast_to,
diagonal, ravel and basic indexing give the same values, layout flags and aliasing (a write
through the view shows in the base, and the other way round) for every dtype class."""

from __future__ import annotations

import gc
from typing import Any, Callable

import numpy as np
import pytest

import arrayhub as ah
from conftest import ALL_DTYPES, random_values

View = Callable[[Any], Any]

# (name, function of an array of shape (4, 5, 6) returning a view in NumPy)
VIEWS: list[tuple[str, View]] = [
    ("reshape", lambda a: a.reshape(6, 20)),
    ("reshape -1", lambda a: a.reshape(2, -1, 3)),
    ("reshape split axes", lambda a: a[:, 1:4].reshape(4, 3, 3, 2)),
    ("reshape F of transposed", lambda a: a.T.reshape((30, 4), order="F")),
    ("transpose", lambda a: a.transpose(1, 2, 0)),
    ("T", lambda a: a.T),
    ("swapaxes", lambda a: a.swapaxes(0, -1)),
    ("squeeze", lambda a: a[:, :1, 2:3].squeeze()),
    ("squeeze axis", lambda a: a[:1].squeeze(0)),
    ("expand_dims", lambda a: _module(a).expand_dims(a, (0, 2))),
    ("newaxis", lambda a: a[None, :, None]),
    ("diagonal", lambda a: a.diagonal()),
    ("diagonal offset", lambda a: a.diagonal(2, 1, 2)),
    ("diagonal negative offset", lambda a: a.diagonal(-1, 2, 0)),
    ("ravel contiguous", lambda a: a.ravel()),
    ("slice steps", lambda a: a[1:4:2, ::-1, -2::-3]),
    ("integer drops axes", lambda a: a[2, :, -1]),
    ("ellipsis newaxis", lambda a: a[..., None, 3]),
    ("negative step slice of slice", lambda a: a[::-1][1:3, ::2][..., ::-2]),
    ("empty slice", lambda a: a[3:1, :, :]),
    ("0-d", lambda a: a[1, 2, 3, ...]),
]


def _module(a: Any) -> Any:
    return ah if isinstance(a, ah.ndarray) else np


@pytest.mark.parametrize("name,view", VIEWS, ids=[v[0] for v in VIEWS])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_view_values_and_flags_match_numpy(name: str, view: View, dtype: np.dtype) -> None:
    host = random_values(np.random.default_rng(31), dtype, (4, 5, 6))
    expected = view(host)
    assert expected.base is not None, f"{name} is not a view in NumPy"
    got = view(ah.asarray(host))
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_array_equal(got.get(), expected)
    # Strides along axes of length 1 are arbitrary (NumPy's own differ between functions).
    assert ([s for s, n in zip(got.strides, got.shape) if n > 1]
            == [s for s, n in zip(expected.strides, expected.shape) if n > 1])
    assert got.flags.c_contiguous == expected.flags.c_contiguous
    assert got.flags.f_contiguous == expected.flags.f_contiguous
    assert not got.flags.owndata


@pytest.mark.parametrize("name,view", VIEWS, ids=[v[0] for v in VIEWS])
def test_writes_through_views_reach_the_base(name: str, view: View) -> None:
    host = np.random.default_rng(32).normal(size=(4, 5, 6))
    remote = ah.asarray(host)
    expected_view, got_view = view(host), view(remote)
    if expected_view.size == 0 or not expected_view.flags.writeable:
        pytest.skip("NumPy's view is empty or read-only")
    expected_view[...] = -np.arange(expected_view.size).reshape(expected_view.shape)
    got_view[...] = ah.asarray(-np.arange(expected_view.size).reshape(expected_view.shape))
    np.testing.assert_array_equal(remote.get(), host)
    # ... and a write to the base shows in the view.
    host += 1.5
    remote += 1.5
    np.testing.assert_array_equal(got_view.get(), expected_view)


def test_negative_step_view_writes_the_end_of_the_base() -> None:
    a = ah.arange(10)
    b = a[::-1]
    b[0] = 100
    assert a[-1].item() == 100
    assert a.get().tolist() == [0, 1, 2, 3, 4, 5, 6, 7, 8, 100]


def test_view_keeps_memory_after_base_is_freed(client: ah.Client) -> None:
    def settled_bytes() -> int:
        gc.collect()
        client.flush()
        return client.server_info().bytes_in_use

    start = settled_bytes()
    a = ah.asarray(np.arange(12.0).reshape(3, 4))
    view = a[1:, ::2]
    del a
    assert settled_bytes() == start + 12 * 8  # The buffer is still held by the view.
    np.testing.assert_array_equal(view.get(), np.arange(12.0).reshape(3, 4)[1:, ::2])
    del view
    assert settled_bytes() == start


def test_reshape_that_strides_cannot_express_copies() -> None:
    host = np.arange(24).reshape(4, 6)
    remote = ah.asarray(host)
    got = remote.T.reshape(-1)
    assert got.flags.owndata and got.flags.c_contiguous
    np.testing.assert_array_equal(got.get(), host.T.reshape(-1))
    got[0] = 99
    assert remote[0, 0].item() == 0


def test_ravel_of_non_contiguous_copies_in_the_requested_order() -> None:
    host = np.arange(24).reshape(2, 3, 4)[:, ::2]
    remote = ah.asarray(np.arange(24).reshape(2, 3, 4))[:, ::2]
    for order in ("C", "F"):
        got = remote.ravel(order)
        assert got.flags.owndata
        np.testing.assert_array_equal(got.get(), host.ravel(order))


def test_broadcast_to_and_diagonal_are_read_only() -> None:
    b = ah.broadcast_to(ah.arange(3), (2, 3))
    assert not b.flags.writeable
    np.testing.assert_array_equal(b.get(), np.broadcast_to(np.arange(3), (2, 3)))
    assert b.strides == (0, 8)
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        b[0, 0] = 1
    d = ah.arange(9).reshape(3, 3).diagonal()
    with pytest.raises(ValueError, match="output array is read-only"):
        ah.add(d, 1, out=d)
    with pytest.raises(ValueError, match="read-only"):
        d[0] = 5


def test_describe_reports_layout_of_views() -> None:
    a = ah.zeros((4, 6), np.float32)
    v = a[1:, ::-2]
    assert v.strides == (24, -8)
    assert v.flags.c_contiguous is False and v.flags.owndata is False
    assert v._info.offset_bytes == (1 * 6 + 5) * 4
    assert v._info.base_handle == a.handle
    assert a[::2][1:]._info.base_handle == a.handle  # The owner, as NumPy's .base.


@pytest.mark.parametrize("call,message", [
    (lambda a: a.reshape(5, 5), r"cannot reshape array of size 24 into shape \(5,5\)"),
    (lambda a: a.reshape(-1, -1), "can only specify one unknown dimension"),
    (lambda a: a.transpose(0, 0), "repeated axis in transpose"),
    (lambda a: a.transpose(1), "axes don't match array"),
    (lambda a: a.swapaxes(0, 2), "axis 2 is out of bounds for array of dimension 2"),
    (lambda a: a.squeeze(0), "cannot select an axis to squeeze out"),
    (lambda a: ah.expand_dims(a, (0, 0)), "repeated axis"),
    (lambda a: ah.broadcast_to(a, (3, 6)), r"requested shape \(3,6\)"),
    (lambda a: a[0].diagonal(), "diag requires an array of at least two dimensions"),
    (lambda a: a.diagonal(0, 1, 1), "axis1 and axis2 cannot be the same"),
    (lambda a: a.diagonal(0, 0, -3), "^axis2: axis -3 is out of bounds for array of dimension 2$"),
])
def test_view_errors_use_numpys_words(call: Callable[[Any], Any], message: str) -> None:
    a = ah.zeros((4, 6))
    with pytest.raises(ValueError, match=message):
        call(a)


def test_views_of_zero_size_and_zero_d_arrays() -> None:
    empty = np.zeros((0, 3))
    remote = ah.asarray(empty)
    for view in (lambda a: a.T, lambda a: a.reshape(3, 0), lambda a: a[:, 1:], lambda a: a[None]):
        np.testing.assert_array_equal(view(remote).get(), view(empty))
        assert view(remote).shape == view(empty).shape
    scalar = ah.asarray(np.float64(2.5))
    assert scalar[()].get() == 2.5
    assert scalar[None].shape == (1,)
    assert scalar.reshape(1, 1).shape == (1, 1)
