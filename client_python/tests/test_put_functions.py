"""put, put_along_axis, putmask, place, copyto, fill_diagonal, choose and extract against
NumPy on fresh random data of each dtype class: repeated indices (last write wins), negative
indices, cycled values, strided targets, the modes, casting, and NumPy's errors."""

from __future__ import annotations

import numpy as np
import pytest

import arrayhub as ah
from conftest import random_values

pytestmark = pytest.mark.requires_compute("Elementwise")

_DTYPES = [np.bool_, np.int16, np.uint32, np.float32, np.float64, np.complex64]


def _same(got: ah.ndarray, expected: np.ndarray) -> None:
    assert isinstance(got, ah.ndarray)
    np.testing.assert_array_equal(got.get(), expected, strict=True)


@pytest.mark.parametrize("dtype", _DTYPES, ids=lambda d: np.dtype(d).name)
def test_put_family_matches_numpy(dtype: type) -> None:
    rng = np.random.default_rng()
    host = random_values(rng, dtype, (4, 6))
    x = ah.asarray(host)
    index = rng.integers(-24, 24, size=30)  # many repeats: the last write wins
    values = random_values(rng, dtype, (7,))  # cycled to 30
    ah.put(x, ah.asarray(index), ah.asarray(values))
    np.put(host, index, values)
    _same(x, host)
    for mode in ("wrap", "clip"):
        far = rng.integers(-60, 60, size=9)
        x.put(far, values[:3], mode=mode)
        host.put(far, values[:3], mode=mode)
        _same(x, host)
    # A strided target: every other column, through a copy.
    view, host_view = x[:, ::2], host[:, ::2]
    ah.put(view, [0, 5, -1, 5], values[:2])
    np.put(host_view, [0, 5, -1, 5], values[:2])
    _same(x, host)

    along = rng.integers(-6, 6, size=(4, 3))
    ah.put_along_axis(x, ah.asarray(along), ah.asarray(values[:3]), axis=1)
    np.put_along_axis(host, along, values[:3], axis=1)
    _same(x, host)
    ah.put_along_axis(x, ah.asarray(np.array([3, 3, -1])), ah.asarray(values[0]), axis=None)
    np.put_along_axis(host, np.array([3, 3, -1]), values[0], axis=None)
    _same(x, host)

    mask = rng.random((4, 6)) < 0.4
    ah.putmask(x, ah.asarray(mask), ah.asarray(values[:5]))
    np.putmask(host, mask, values[:5])
    _same(x, host)
    mask = rng.random((4, 6)) < 0.4
    ah.place(x, ah.asarray(mask), ah.asarray(values[:4]))
    np.place(host, mask, values[:4])
    _same(x, host)

    square = random_values(rng, dtype, (5, 5))
    tall = random_values(rng, dtype, (11, 3))
    cube = random_values(rng, dtype, (3, 3, 3))
    for host_a, kwargs in ((square, {}), (tall, {}), (tall, dict(wrap=True)), (cube, {})):
        a = ah.asarray(host_a)
        ah.fill_diagonal(a, ah.asarray(values[:2]), **kwargs)
        np.fill_diagonal(host_a, values[:2], **kwargs)
        _same(a, host_a)
        ah.fill_diagonal(a, values[3], **kwargs)
        np.fill_diagonal(host_a, values[3], **kwargs)
        _same(a, host_a)

    condition = rng.random((4, 6)) < 0.5
    _same(ah.extract(ah.asarray(condition), x), np.extract(condition, host))


def test_copyto_casting_and_where() -> None:
    rng = np.random.default_rng()
    host = rng.integers(-50, 50, size=(3, 4))
    x = ah.asarray(host)
    src = rng.integers(-9, 9, size=(4,)).astype(np.int8)
    where = rng.random((3, 4)) < 0.5
    ah.copyto(x, ah.asarray(src), where=ah.asarray(where))
    np.copyto(host, src, where=where)
    _same(x, host)
    ah.copyto(x, 7)
    np.copyto(host, 7)
    _same(x, host)
    floats = rng.normal(size=(3, 4))
    ah.copyto(x, ah.asarray(floats), casting="unsafe")
    np.copyto(host, floats, casting="unsafe")
    _same(x, host)
    for args, kwargs, error, message in [
            ((ah.asarray(floats),), {}, TypeError,
             r"Cannot cast array data from dtype\('float64'\) to dtype\('int64'\) according to "
             r"the rule 'same_kind'"),
            ((1.5,), {}, TypeError, r"Cannot cast scalar from dtype\('float64'\) to "
                                    r"dtype\('int64'\) according to the rule 'same_kind'"),
            ((1,), dict(where=ah.asarray(np.ones((3, 4), int))), TypeError,
             r"Cannot cast array data from dtype\('int64'\) to dtype\('bool'\)"),
            ((1,), dict(casting="foo"), ValueError, "casting must be one of"),
            ((ah.asarray(np.ones(3, int)),), {}, ValueError, "could not broadcast")]:
        with pytest.raises(error, match=message):
            ah.copyto(x, *args, **kwargs)
    with pytest.raises(OverflowError, match="Python integer 1000 out of bounds for int8"):
        ah.copyto(ah.zeros(2, dtype=np.int8), 1000)
    _same(x, host)


def test_choose_modes() -> None:
    rng = np.random.default_rng()
    choices = [rng.normal(size=(3, 4)), rng.normal(size=(4,)), np.float32(2.5)]
    ours = [ah.asarray(c) for c in choices[:2]] + [choices[2]]
    index = rng.integers(0, 3, size=(3, 4))
    _same(ah.choose(ah.asarray(index), ours), np.choose(index, choices))
    wild = rng.integers(-7, 7, size=(3, 4))
    for mode in ("wrap", "clip"):
        _same(ah.choose(ah.asarray(wild), ours, mode=mode), np.choose(wild, choices, mode=mode))
    out = ah.zeros((3, 4))
    ah.asarray(index).choose(ours, out=out)
    _same(out, np.choose(index, choices))
    with pytest.raises(ValueError, match="invalid entry in choice array"):
        ah.choose(ah.asarray(wild), ours)
    with pytest.raises(ValueError, match=r"clipmode must be one of 'clip', 'raise', or 'wrap'"):
        ah.choose(ah.asarray(index), ours, mode="nope")


def test_put_family_errors() -> None:
    x = ah.zeros(6)
    with pytest.raises(IndexError, match=r"^index 10 is out of bounds for axis 0 with size 6$"):
        ah.put(x, [1, 10], 1.0)
    with pytest.raises(TypeError, match="argument 1 must be numpy.ndarray, not <class 'list'>"):
        ah.put([1, 2], [0], 1)
    with pytest.raises(ValueError, match="putmask: mask and data must be the same size"):
        ah.putmask(x, ah.asarray(np.ones(4, bool)), 1.0)
    with pytest.raises(ValueError, match="Cannot insert from an empty array!"):
        ah.place(x, ah.asarray(np.ones(6, bool)), [])
    with pytest.raises(ValueError, match="array must be at least 2-d"):
        ah.fill_diagonal(x, 1.0)
    with pytest.raises(ValueError, match="All dimensions of input must be of equal length"):
        ah.fill_diagonal(ah.zeros((3, 3, 4)), 1.0)
    with pytest.raises(IndexError, match="`indices` must be an integer array"):
        ah.put_along_axis(ah.zeros((2, 3)), ah.zeros((2, 1)), 1.0, axis=1)
    _same(x, np.zeros(6))


def test_numpy_functions_route_to_the_server() -> None:
    host = np.arange(6.0)
    x = ah.asarray(host)
    np.put(x, [0, 0, 5], [7.0, 8.0, 9.0])
    np.put(host, [0, 0, 5], [7.0, 8.0, 9.0])
    np.putmask(x, ah.asarray(host > 3), ah.asarray(np.array([-1.0])))
    np.putmask(host, host > 3, np.array([-1.0]))
    np.copyto(x, ah.asarray(np.ones(6)), where=ah.asarray(host < 0))
    np.copyto(host, np.ones(6), where=host < 0)
    _same(x, host)
    counts, edges = np.histogram(x, bins=3)
    assert isinstance(counts, ah.ndarray) and isinstance(edges, ah.ndarray)
    _same(counts, np.histogram(host, bins=3)[0])
    _same(np.digitize(x, ah.asarray(np.array([0.0, 2.0]))), np.digitize(host, [0.0, 2.0]))
