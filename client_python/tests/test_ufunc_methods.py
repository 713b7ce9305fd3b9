"""The methods of arrayhub's ufuncs (_ufunc_methods.py): reduce, accumulate, outer and at
against NumPy's on random data of each dtype class, the same reached through NumPy
(numpy.add.reduce(x)); what the server cannot do raises NotImplementedError naming it; the
attributes are NumPy's."""

from __future__ import annotations

import numpy as np
import pytest

import arrayhub as ah
from conftest import assert_matches, random_values

pytestmark = pytest.mark.requires_compute("Reduce")

_DTYPES = [np.bool_, np.int8, np.int64, np.uint16, np.float32, np.float64, np.complex128]


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "minimum", "logical_and",
                                  "logical_or"])
def test_reduce_matches_numpy(name: str) -> None:
    rng = np.random.default_rng(7)
    ours, numpys = getattr(ah, name), getattr(np, name)
    for dtype in _DTYPES:
        if dtype is np.complex128 and name in ("maximum", "minimum"):
            continue  # the server orders no complex numbers
        host = random_values(rng, dtype, (3, 4, 2))
        if name == "multiply" and dtype not in (np.bool_,):
            host = (host % 3).astype(dtype) if dtype != np.complex128 else host / 4
        x = ah.asarray(host)
        mask = rng.random((3, 4, 2)) < 0.6
        cases = [dict(), dict(axis=1), dict(axis=None), dict(axis=(0, 2), keepdims=True),
                 dict(axis=-1, initial=1), dict(axis=0, where=mask, initial=1)]
        if name in ("add", "multiply") and dtype in (np.int8, np.float32):
            cases.append(dict(axis=1, dtype=np.float64))
        for kwargs in cases:
            expected = numpys.reduce(host, **kwargs)
            if "where" in kwargs:
                kwargs = dict(kwargs, where=ah.asarray(mask))
            assert_matches(ours.reduce(x, **kwargs), expected)


def test_reduce_edges() -> None:
    host = np.arange(12.0).reshape(3, 4)
    x = ah.asarray(host)
    out = ah.zeros(4)
    assert ah.add.reduce(x, out=out) is out
    assert_matches(out, host.sum(axis=0))
    assert_matches(ah.add.reduce(ah.asarray(np.float64(3.0))), np.asarray(3.0))  # 0-d, axis 0
    empty = ah.zeros((0, 3))
    assert_matches(ah.maximum.reduce(empty, initial=5.0), np.maximum.reduce(np.zeros((0, 3)),
                                                                           initial=5.0))
    assert_matches(ah.minimum.reduce(x, where=ah.asarray(host > 5), initial=100.0, axis=1),
                   np.minimum.reduce(host, where=host > 5, initial=100.0, axis=1))
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
        ah.maximum.reduce(empty).get()
    with pytest.raises(ValueError, match="reduction operation 'maximum' does not have an "
                                         "identity, so to use a where mask one has to specify "
                                         "'initial'"):
        ah.maximum.reduce(x, where=x > 1)
    with pytest.raises(ValueError, match="reduce only supported for binary functions"):
        ah.sin.reduce(x)
    with pytest.raises(NotImplementedError, match="numpy.subtract.reduce is not implemented "
                                                  "by ArrayHub: the server reduces with add"):
        ah.subtract.reduce(x)
    flags = np.random.default_rng(3).random((4, 5)) < 0.5
    for name in ("bitwise_and", "bitwise_or"):  # of bool arrays: all, any
        assert_matches(getattr(ah, name).reduce(ah.asarray(flags), axis=1),
                       getattr(np, name).reduce(flags, axis=1))
    with pytest.raises(NotImplementedError, match="numpy.bitwise_or.reduce"):
        ah.bitwise_or.reduce(ah.arange(3))


@pytest.mark.parametrize("name", ["add", "multiply"])
def test_accumulate_matches_numpy(name: str) -> None:
    rng = np.random.default_rng(8)
    for dtype in _DTYPES:
        host = random_values(rng, dtype, (3, 5))
        x = ah.asarray(host)
        wide = np.complex128 if dtype is np.complex128 else np.float64
        for kwargs in (dict(), dict(axis=1), dict(axis=-1, dtype=wide)):
            assert_matches(getattr(ah, name).accumulate(x, **kwargs),
                           getattr(np, name).accumulate(host, **kwargs))
    out = ah.zeros((3, 5))
    assert ah.add.accumulate(ah.ones((3, 5)), axis=1, out=out) is out
    assert_matches(out, np.add.accumulate(np.ones((3, 5)), axis=1))
    with pytest.raises(TypeError, match="cannot accumulate on a scalar"):
        ah.add.accumulate(ah.asarray(np.float64(1.0)))
    with pytest.raises(NotImplementedError, match="numpy.maximum.accumulate is not implemented "
                                                  "by ArrayHub: the server scans with add"):
        ah.maximum.accumulate(x)


def test_outer_matches_numpy() -> None:
    rng = np.random.default_rng(9)
    a, b = rng.normal(size=(2, 3)), rng.normal(size=4)
    x, y = ah.asarray(a), ah.asarray(b)
    assert_matches(ah.add.outer(x, y), np.add.outer(a, b))
    assert_matches(ah.multiply.outer(y, x), np.multiply.outer(b, a))
    assert_matches(ah.greater.outer(x, 0.5), np.greater.outer(a, 0.5))
    assert_matches(ah.subtract.outer(2.0, y), np.subtract.outer(2.0, b))
    with pytest.raises(ValueError, match="outer product only supported for binary functions"):
        ah.exp.outer(x, y)


def test_at_of_other_ufuncs_with_indices_that_never_repeat_an_element() -> None:
    host = np.arange(10.0)
    x = ah.asarray(host)
    mask = host % 3 == 0
    ah.add.at(x, slice(2, 8, 2), 10.0)
    np.add.at(host, slice(2, 8, 2), 10.0)
    ah.multiply.at(x, ah.asarray(mask), ah.full(int(mask.sum()), 2.0))
    np.multiply.at(host, mask, np.full(int(mask.sum()), 2.0))
    ah.negative.at(x, 3)
    np.negative.at(host, 3)
    ah.add.at(x, [0, -1, 4], ah.asarray([1.0, 2.0, 3.0]))  # distinct positions
    np.add.at(host, [0, -1, 4], [1.0, 2.0, 3.0])
    assert_matches(x, host)
    grid, grid_host = ah.zeros((3, 4)), np.zeros((3, 4))
    ah.subtract.at(grid, (ah.asarray([2, 0]), slice(1, 3)), 5.0)
    np.subtract.at(grid_host, (np.array([2, 0]), slice(1, 3)), 5.0)
    assert_matches(grid, grid_host)
    for repeated in ([0, 0, 1], [1, -9]):  # -9 is 1 in an axis of 10
        with pytest.raises(NotImplementedError, match="numpy.power.at is not implemented by "
                                                      "ArrayHub: with indices that repeat an "
                                                      "element it needs a scatter"):
            ah.power.at(x, repeated, 1.0)
    with pytest.raises(NotImplementedError, match="for the first axis only"):
        ah.power.at(grid, (slice(None), [0, 1]), 1.0)
    assert_matches(x, host)  # unchanged by the refused calls


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "minimum", "subtract", "fmax",
                                  "logical_and", "logical_or", "bitwise_or"])
def test_reduceat_matches_numpy(name: str) -> None:
    """Increasing, equal, decreasing and last indices; along every axis of a 3-D array."""
    rng = np.random.default_rng(11)
    ours, numpys = getattr(ah, name), getattr(np, name)
    dtypes = ([np.bool_] if name == "bitwise_or"
              else [d for d in _DTYPES
                    if not (d is np.complex128 and name in ("maximum", "minimum", "fmax"))
                    and not (d is np.bool_ and name == "subtract")])  # NumPy refuses it
    for dtype in dtypes:
        host = random_values(rng, dtype, (7, 5, 6))
        if name in ("maximum", "fmax") and dtype is np.float64:
            host[2, 1, 3] = np.nan
        x = ah.asarray(host)
        for axis, indices in ((0, [0, 3, 3, 1, 5, 6]), (1, np.array([4, 0, 2], np.uint8)),
                              (-1, [5]), (2, [0, 1, 2, 3, 4, 5])):
            assert_matches(ours.reduceat(x, indices, axis=axis),
                           numpys.reduceat(host, indices, axis=axis))
    if name in ("add", "multiply"):
        host = random_values(rng, np.int8, (9,))
        server_indices = ah.asarray(np.array([2, 2, 8, 0], np.int32))
        assert_matches(ours.reduceat(ah.asarray(host), server_indices, dtype=np.float32),
                       numpys.reduceat(host, [2, 2, 8, 0], dtype=np.float32))


def test_reduceat_edges() -> None:
    host = np.arange(10.0)
    x = ah.asarray(host)
    out = ah.zeros(3)
    assert ah.add.reduceat(x, [1, 4, 7], out=out) is out
    assert_matches(out, np.add.reduceat(host, [1, 4, 7]))
    assert_matches(ah.add.reduceat(x, []), np.add.reduceat(host, []))
    assert_matches(np.add.reduceat(x, [0, 5]), np.add.reduceat(host, [0, 5]))  # via NumPy
    with pytest.raises(IndexError, match=r"^index 10 out-of-bounds in add.reduceat \[0, 10\)$"):
        ah.add.reduceat(x, [0, 10])
    with pytest.raises(IndexError, match=r"^index -1 out-of-bounds in maximum.reduceat"):
        ah.maximum.reduceat(x, ah.asarray([3, -1, 20]))
    with pytest.raises(TypeError, match="Cannot cast array data from dtype\\('float64'\\)"):
        ah.add.reduceat(x, np.array([0.0]))
    with pytest.raises(TypeError, match="cannot reduceat on a scalar"):
        ah.add.reduceat(ah.asarray(np.float64(1.0)), [0])
    with pytest.raises(ValueError, match="reduceat does not allow multiple axes"):
        ah.add.reduceat(x, [0], axis=None)
    with pytest.raises(np.exceptions.AxisError, match="axis 1 is out of bounds"):
        ah.add.reduceat(x, [0], axis=1)
    with pytest.raises(NotImplementedError, match="numpy.bitwise_xor.reduceat"):
        ah.bitwise_xor.reduceat(ah.asarray([1, 2]), [0])


def test_reduce_and_accumulate_in_a_batch_block() -> None:
    with ah.batch():
        x = ah.arange(6.0).reshape(2, 3)
        total, rows = ah.add.reduce(x, axis=None), ah.multiply.accumulate(x, axis=1)
    host = np.arange(6.0).reshape(2, 3)
    assert_matches(total, np.asarray(host.sum()))
    assert_matches(rows, np.multiply.accumulate(host, axis=1))


def test_methods_through_numpy_give_arrayhub_arrays() -> None:
    host = np.arange(12.0).reshape(3, 4)
    x = ah.asarray(host)
    assert_matches(np.add.reduce(x, axis=1), np.add.reduce(host, axis=1))
    assert_matches(np.multiply.accumulate(x), np.multiply.accumulate(host))
    assert_matches(np.maximum.outer(x[0], x[1]), np.maximum.outer(host[0], host[1]))
    np.add.at(x, (slice(None), 1), 1.0)
    np.add.at(host, (slice(None), 1), 1.0)
    assert_matches(x, host)


def test_attributes_are_numpys() -> None:
    for name, ours in ah.UFUNCS.items():
        numpys = getattr(np, name)
        if name != ours.__name__ or not isinstance(numpys, np.ufunc):
            continue  # an alias (NumPy's may be a ufunc of its own: radians), or a function
            # in NumPy (numpy.real, numpy.angle)
        assert (ours.__name__, ours.nin, ours.nout, ours.nargs, ours.identity, ours.signature) \
            == (numpys.__name__, numpys.nin, numpys.nout, numpys.nargs, numpys.identity,
                numpys.signature), name
        assert ours.types and set(ours.types) <= set(numpys.types), name
        assert ours.ntypes == len(ours.types)
    assert "dd->d" in ah.add.types and "OO->O" not in ah.add.types
    assert repr(ah.add) == "<ufunc 'add'>"
