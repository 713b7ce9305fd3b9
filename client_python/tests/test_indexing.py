"""Indexing against NumPy: basic and advanced __getitem__ (integer arrays, boolean masks, mixed
with slices, integers and newaxis, NumPy's placement of the index dimensions), __setitem__
with scalars, broadcast arrays, slices, fancy indices and masks (duplicate indices keep the
last write), and IndexError/ValueError for bad indices, for every dtype class."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import arrayhub as ah
from conftest import ALL_DTYPES, random_values

SHAPE = (5, 6, 7)

# Index expressions built from the NumPy host array (masks are computed from its values).
KEYS: list[tuple[str, Callable[[np.ndarray], Any]]] = [
    ("int array", lambda h: [0, -1, 3, 3]),
    ("2-d int array", lambda h: np.array([[0, 1], [4, 2]])),
    ("int arrays broadcast", lambda h: (np.array([[0], [2]]), np.array([1, 5, -6]))),
    ("adjacent arrays after slice", lambda h: (slice(None), [0, 5], [1, 2])),
    ("arrays split by slice", lambda h: ([0, 4], slice(1, 5, 2), [6, 0])),
    ("int and array", lambda h: (1, slice(None), [3, 0, 3])),
    ("int and array adjacent", lambda h: (slice(None), 2, [3, 0, 3])),
    ("newaxis and array", lambda h: (None, [1, 2], Ellipsis, 0)),
    ("ellipsis then array", lambda h: (Ellipsis, [6, 0, 1])),
    ("uint8 indices", lambda h: np.array([4, 0, 1], dtype=np.uint8)),
    ("mask full", lambda h: h != h.flat[0]),
    ("mask 1-d", lambda h: np.array([True, False, True, True, False])),
    ("mask 2-d after slice", lambda h: (slice(None, None, -1), (h != h.flat[1])[0])),
    ("mask with array", lambda h: (np.array([False, True, True, False, True]), slice(2), [1, 1, 0])),
    ("all false mask", lambda h: np.zeros(SHAPE[0], bool)),
    ("empty index array", lambda h: np.array([], dtype=np.int64)),
    # NumPy lets an empty mask of any shape select nothing, whatever the axis' length.
    ("empty mask", lambda h: np.zeros(0, bool)),
    ("empty mask on axis 1", lambda h: (slice(None), np.zeros((6, 0), bool))),
    # A 0-d boolean adds an axis of length 1 (True) or 0 (False) that it indexes.
    ("0-d True", lambda h: True),
    ("0-d False and int", lambda h: (1, False)),
    ("0-d bool array and int array", lambda h: (Ellipsis, np.array(True), [6, 0])),
]


def _upload_key(key: Any) -> Any:
    """The same key with its NumPy arrays uploaded (lists stay lists: the client uploads)."""
    if isinstance(key, tuple):
        return tuple(_upload_key(k) for k in key)
    return ah.asarray(key) if isinstance(key, np.ndarray) else key


@pytest.mark.parametrize("name,make_key", KEYS, ids=[k[0] for k in KEYS])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_getitem_matches_numpy(name: str, make_key: Callable[[np.ndarray], Any],
                               dtype: np.dtype) -> None:
    host = random_values(np.random.default_rng(41), dtype, SHAPE)
    key = make_key(host)
    expected = host[key]
    got = ah.asarray(host)[_upload_key(key)]
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_array_equal(got.get(), expected)
    assert got.flags.owndata  # Advanced indexing copies.


@pytest.mark.parametrize("name,make_key", KEYS, ids=[k[0] for k in KEYS])
def test_setitem_matches_numpy(name: str, make_key: Callable[[np.ndarray], Any]) -> None:
    rng = np.random.default_rng(42)
    host = rng.normal(size=SHAPE)
    remote = ah.asarray(host)
    key = make_key(host)
    selection = host[key].shape
    value = rng.normal(size=selection)
    host[key] = value
    remote[_upload_key(key)] = ah.asarray(value)
    np.testing.assert_array_equal(remote.get(), host)
    host[key] = 2.5  # A scalar, broadcast.
    remote[_upload_key(key)] = 2.5
    np.testing.assert_array_equal(remote.get(), host)
    if len(selection) > 0:  # A value broadcast along the leading axes of the selection.
        row = rng.normal(size=selection[-1:])
        host[key] = row
        remote[_upload_key(key)] = ah.asarray(row)
        np.testing.assert_array_equal(remote.get(), host)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_setitem_basic_slices_cast_like_numpy(dtype: np.dtype) -> None:
    rng = np.random.default_rng(43)
    host = random_values(rng, dtype, (6, 8))
    remote = ah.asarray(host)
    # float64 values, cast as NumPy casts them (unsafely); integer targets get values in range
    # (docs/semantics.md: out-of-range float to integer casts differ from NumPy's on purpose).
    value = random_values(rng, np.dtype(np.float64), (3, 4))
    if dtype.kind in "biu":
        value = np.abs(np.trunc(value))
    host[1:4, ::2] = value
    remote[1:4, ::2] = ah.asarray(value)
    np.testing.assert_array_equal(remote.get(), host)
    host[-1] = host[0]
    remote[-1] = remote[0]
    np.testing.assert_array_equal(remote.get(), host)


def test_duplicate_indices_follow_numpy() -> None:
    a = ah.arange(5)
    a[[0, 0, 2]] += 1  # Read, add, write: each distinct index once.
    assert a.get().tolist() == [1, 1, 3, 3, 4]
    a[[0, 0, 2]] = ah.asarray([1, 2, 3])  # The last write wins.
    assert a.get().tolist() == [2, 1, 3, 3, 4]
    b = ah.zeros((3, 3), np.int32)
    b[[1, 1, 1], [2, 2, 2]] = ah.asarray(np.array([7, 8, 9], np.int32))
    assert b[1, 2].item() == 9


def test_overlapping_assignment_reads_before_it_writes() -> None:
    host = np.arange(20.0)
    remote = ah.asarray(host)
    host[1:] = host[:-1].copy()
    remote[1:] = remote[:-1]
    np.testing.assert_array_equal(remote.get(), host)
    host[::-1] = host.copy()
    remote[::-1] = remote
    np.testing.assert_array_equal(remote.get(), host)
    host[[3, 1, 2]] = host[[1, 2, 3]]
    remote[[3, 1, 2]] = remote[[1, 2, 3]]
    np.testing.assert_array_equal(remote.get(), host)


def test_inplace_operator_on_overlapping_views() -> None:
    host = np.arange(10.0)
    remote = ah.asarray(host)
    host[1:] += host[:-1]
    v = remote[1:]
    v += remote[:-1]
    np.testing.assert_array_equal(remote.get(), host)


def test_mask_assignment_and_counting() -> None:
    host = np.random.default_rng(44).normal(size=(50, 40))
    remote = ah.asarray(host)
    host[host < 0] = 0
    remote[remote < 0] = 0
    np.testing.assert_array_equal(remote.get(), host)
    assert remote[remote > 1].size == (host > 1).sum()


@pytest.mark.parametrize("key,error,message", [
    (10, IndexError, "index 10 is out of bounds for axis 0 with size 5"),
    ((0, -8), IndexError, "index -8 is out of bounds for axis 1 with size 6"),
    ([1, 5], IndexError, "index 5 is out of bounds for axis 0 with size 5"),
    ((slice(None), [0, -7]), IndexError, "index -7 is out of bounds for axis 1 with size 6"),
    ((0, 0, 0, 0), IndexError, "too many indices for array: array is 3-dimensional, but 4 were "
                               "indexed"),
    ((Ellipsis, Ellipsis), IndexError, r"an index can only have a single ellipsis \('...'\)"),
    (np.ones(4, bool), IndexError, "boolean index did not match indexed array along axis 0; "
                                   "size of axis is 5 but size of corresponding boolean axis is 4"),
    (([0, 1], [0, 1, 2]), IndexError, r"shape mismatch: indexing arrays could not be broadcast "
                                      r"together with shapes \(2,\) \(3,\)"),
])
def test_bad_indices_raise_numpys_errors(key: Any, error: type, message: str) -> None:
    remote = ah.zeros(SHAPE)
    with pytest.raises(error, match=message):
        remote[_upload_key(key)]
        ah.synchronize()  # A queued fancy index raises its out-of-bounds value here.
    with pytest.raises(error, match=message):
        remote[_upload_key(key)] = 1.0
    np.testing.assert_array_equal(remote.get(), np.zeros(SHAPE))  # Nothing was written.


def test_float_index_array_is_refused() -> None:
    remote = ah.zeros(5)
    with pytest.raises(IndexError, match="arrays used as indices must be of integer"):
        remote[ah.asarray([1.0, 2.0])]


def test_setitem_value_that_does_not_broadcast() -> None:
    remote = ah.zeros((4, 3))
    with pytest.raises(ValueError, match=r"could not broadcast input array from shape \(2,\) "
                                         r"into shape \(4, 3\)"):
        remote[...] = ah.asarray([1.0, 2.0])
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for uint8"):
        ah.zeros(3, np.uint8)[0] = 300


def test_getitem_of_zero_size_and_zero_d() -> None:
    empty = np.zeros((0, 4))
    remote = ah.asarray(empty)
    assert remote[[]].shape == empty[np.array([], dtype=np.intp)].shape
    assert remote[:, [1, 2]].shape == (0, 2)
    scalar = ah.asarray(np.array(3.5))
    assert scalar[...].get() == 3.5
    scalar[...] = 1.0
    assert scalar.item() == 1.0
    with pytest.raises(IndexError, match="too many indices"):
        scalar[0]


def test_complex_scalar_into_integer_array_is_refused() -> None:
    with pytest.raises(TypeError, match=r"Cannot cast complex value \(1\+2j\)"):
        ah.zeros(3, np.int64)[0] = 1 + 2j
    x = ah.zeros(2)
    x[0] = 3 + 4j  # Into floats NumPy drops the imaginary part (with a ComplexWarning).
    assert x.get().tolist() == [3.0, 0.0]
