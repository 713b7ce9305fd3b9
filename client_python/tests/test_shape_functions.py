"""NumPy 2's shape functions (vstack, hsplit, moveaxis, delete, insert, pad, ...; the module
_shape_functions.py and its neighbours): results, dtypes and errors equal NumPy's on random
data of each dtype class, and a composite is queued ops only (no call waits)."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest

import arrayhub as ah

pytestmark = pytest.mark.requires_compute("Elementwise")

DTYPES = [np.dtype(np.bool_), np.dtype(np.int32), np.dtype(np.float64),
          np.dtype(np.complex128)]
RNG = np.random.default_rng(20)


def _random(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    values = RNG.integers(-50, 50, size=shape)
    if dtype.kind == "b":
        return values > 0
    if dtype.kind == "c":
        return (values + 1j * RNG.integers(-50, 50, size=shape)).astype(dtype)
    return values.astype(dtype)


def _host(result: Any) -> Any:
    if isinstance(result, (list, tuple)):
        return type(result)(_host(r) for r in result)
    return result.get() if isinstance(result, ah.ndarray) else result


def _same(got: Any, expected: Any, close: bool = False) -> None:
    if isinstance(expected, (list, tuple)):
        assert type(got) is type(expected) and len(got) == len(expected)
        for g, e in zip(got, expected):
            _same(g, e, close)
        return
    if isinstance(expected, np.ndarray):
        assert isinstance(got, np.ndarray)
        assert (got.shape, got.dtype) == (expected.shape, expected.dtype)
    if close:
        np.testing.assert_allclose(got, expected, rtol=1e-12)
    else:
        np.testing.assert_array_equal(got, expected)


def _check(case: Callable[..., Any], *arrays: np.ndarray, close: bool = False) -> None:
    """``case(xp, *arrays)`` with xp = arrayhub on uploaded arrays gives NumPy's result (within
    rounding when ``close``: sums the server adds in another order)."""
    expected = case(np, *arrays)
    _same(_host(case(ah, *(ah.asarray(a) for a in arrays))), expected, close)


def _same_error(case: Callable[..., Any], *arrays: np.ndarray) -> None:
    """``case`` raises NumPy's exception (a subclass of it) with NumPy's message."""
    with pytest.raises(Exception) as expected:
        case(np, *arrays)
    with pytest.raises(type(expected.value)) as got:
        case(ah, *(ah.asarray(a) for a in arrays))
    assert isinstance(got.value, ah.ArrayHubError)
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_stacking_and_joining(dtype: np.dtype) -> None:
    a, b = _random((2, 3), dtype), _random((4, 3), dtype)
    v, w, s = _random((3,), dtype), _random((3,), dtype), _random((), dtype)
    for case, args in [
            (lambda xp, a, b: xp.vstack([a, b]), (a, b)),
            (lambda xp, v, w, a: xp.vstack((v, w, a)), (v, w, a)),
            (lambda xp, s, v: xp.vstack([s, s], dtype=np.complex64), (s, s)),
            (lambda xp, a, b: xp.hstack([a.T, b.T]), (a, b)),
            (lambda xp, v, w, s: xp.hstack([v, w, s]), (v, w, s)),
            (lambda xp, v, w: xp.dstack([v, w]), (v, w)),
            (lambda xp, a, b: xp.dstack([a, b[:2]]), (a, b)),
            (lambda xp, v, w, a: xp.column_stack([v, w, a.T]), (v, w, a)),
            (lambda xp, a, b: xp.concat([a, b], axis=-2), (a, b)),
            (lambda xp, a, b: xp.concat([a, b], axis=None), (a, b)),
            (lambda xp, a, b: xp.block([[a, a], [b, b]]), (a, b)),
            (lambda xp, v, w: xp.block([v, w, v]), (v, w)),
            (lambda xp, a: xp.block(a), (a,)),
    ]:
        _check(case, *args)
    with pytest.warns(DeprecationWarning, match="`row_stack` alias is deprecated"):
        _same(ah.row_stack([ah.asarray(v), ah.asarray(w)]).get(), np.vstack([v, w]))


def test_joining_with_casting_rules() -> None:
    i, f = _random((3,), np.dtype(np.int32)), _random((2,), np.dtype(np.float64))
    _check(lambda xp, i, f: xp.hstack([i, f], dtype=np.int16, casting="unsafe"), i, f)
    _check(lambda xp, i, f: xp.concat([i, f], casting="safe"), i, f)
    _same_error(lambda xp, i, f: xp.hstack([i, f], casting="no"), i, f)
    _same_error(lambda xp, i, f: xp.vstack([i, i], dtype=np.int8, casting="safe"), i, f)
    _same_error(lambda xp, i, f: xp.hstack([i, f], casting="bad"), i, f)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_splitting(dtype: np.dtype) -> None:
    x, v = _random((5, 6, 4), dtype), _random((7,), dtype)
    for case, arg in [
            (lambda xp, x: xp.array_split(x, 3), x),
            (lambda xp, x: xp.array_split(x, 4, axis=-1), x),
            (lambda xp, x: xp.array_split(x, [1, 3, 10], axis=1), x),
            (lambda xp, v: xp.array_split(v, 3), v),
            (lambda xp, x: xp.hsplit(x, 3), x),
            (lambda xp, v: xp.hsplit(v, [2, 5]), v),
            (lambda xp, x: xp.vsplit(x, [2]), x),
            (lambda xp, x: xp.dsplit(x, 2), x),
    ]:
        _check(case, arg)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_axes_atleast_and_broadcasting(dtype: np.dtype) -> None:
    x, v, s = _random((2, 3, 4), dtype), _random((4,), dtype), _random((), dtype)
    for case, args in [
            (lambda xp, x: xp.moveaxis(x, 0, -1), (x,)),
            (lambda xp, x: xp.moveaxis(x, [0, -1], [2, 0]), (x,)),
            (lambda xp, x: xp.rollaxis(x, 2), (x,)),
            (lambda xp, x: xp.rollaxis(x, 0, 3), (x,)),
            (lambda xp, x: xp.rollaxis(x, -1, 1), (x,)),
            (lambda xp, x: xp.permute_dims(x, (1, 2, 0)), (x,)),
            (lambda xp, x: xp.unstack(x, axis=-2), (x,)),
            (lambda xp, v: xp.unstack(v), (v,)),
            (lambda xp, s, v, x: xp.atleast_1d(s, v, x), (s, v, x)),
            (lambda xp, s, v, x: xp.atleast_2d(s, v, x), (s, v, x)),
            (lambda xp, s, v, x: xp.atleast_3d(s, v, x[0], x), (s, v, x)),
            (lambda xp, s: xp.atleast_1d(s), (s,)),
            (lambda xp, x, v, s: xp.broadcast_arrays(x, v, s), (x, v, s)),
            (lambda xp, x: xp.flipud(x), (x,)),
            (lambda xp, x: xp.fliplr(x), (x,)),
    ]:
        _check(case, *args)
    for k in range(-1, 5):
        _check(lambda xp, x: xp.rot90(x, k), x)
        _check(lambda xp, x: xp.rot90(x, k, axes=(2, 0)), x)
    assert ah.broadcast_shapes((2, 1), (3,), ()) == (2, 3)
    y = ah.asarray(x)
    assert ah.atleast_3d(y) is y and ah.broadcast_arrays(y)[0] is y


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_resize(dtype: np.dtype) -> None:
    x, empty = _random((2, 3), dtype), _random((0,), dtype)
    for shape in [(3, 4), 7, (6,), (2, 3), (0,), (1, 2, 2)]:
        _check(lambda xp, x: xp.resize(x, shape), x)
    _check(lambda xp, e: xp.resize(e, (2, 2)), empty)
    y = ah.asarray(x)
    smaller = ah.resize(y, 4)
    smaller[0] = not x[0, 0]  # a new array: y stays as it was
    np.testing.assert_array_equal(y.get(), x)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_delete_insert_append(dtype: np.dtype) -> None:
    x, v = _random((4, 5), dtype), _random((9,), dtype)
    mask = RNG.integers(0, 2, size=9).astype(bool)
    for case, arg in [
            (lambda xp, x: xp.delete(x, 1, axis=0), x),
            (lambda xp, x: xp.delete(x, -1, axis=1), x),
            (lambda xp, x: xp.delete(x, [0, 2, 2, -1], axis=1), x),
            (lambda xp, x: xp.delete(x, slice(None, None, -2), axis=-1), x),
            (lambda xp, x: xp.delete(x, slice(7, 1)), x),
            (lambda xp, x: xp.delete(x, [3, 9, 11]), x),
            (lambda xp, v: xp.delete(v, mask), v),
            (lambda xp, v: xp.delete(v, []), v),
            (lambda xp, v: xp.delete(v, np.arange(9)), v),
            (lambda xp, x: xp.insert(x, 2, 7, axis=1), x),
            (lambda xp, x: xp.insert(x, 1, [1, 2, 3, 4], axis=1), x),
            (lambda xp, x: xp.insert(x, [1], [[1], [2], [3], [4]], axis=1), x),
            (lambda xp, x: xp.insert(x, [0, 5, 2, 2], 9, axis=1), x),
            (lambda xp, x: xp.insert(x, slice(0, 4, 2), [[1], [0]], axis=0), x),
            (lambda xp, x: xp.insert(x, 20, 5), x),
            (lambda xp, v: xp.insert(v, [-1, 0], [1.5, 2]), v),
            (lambda xp, v: xp.insert(v, [-13, 1], [3, 4]), v),  # NumPy wraps -13 + 9 + 11
            (lambda xp, v: xp.insert(v, [], []), v),
            (lambda xp, x: xp.append(x, x[:2], axis=0), x),
            (lambda xp, x: xp.append(x, [[1, 2]]), x),
            (lambda xp, v: xp.append(v, 2.5), v),
    ]:
        _check(case, arg)
    s, e = _random((), dtype), _random((0, 3), dtype)
    for case, arg in [(lambda xp, s: xp.delete(s, 0), s), (lambda xp, s: xp.insert(s, 1, 5), s),
                      (lambda xp, s: xp.append(s, s), s), (lambda xp, e: xp.delete(e, [], 0), e),
                      (lambda xp, e: xp.insert(e, 0, 1, axis=0), e),
                      (lambda xp, e: xp.append(e, e, axis=-2), e)]:
        _check(case, arg)
    # Server values, cast to the array's dtype as numpy.insert does.
    _check(lambda xp, x, v: xp.insert(x, 3, v[:4], axis=1), x, v)
    _check(lambda xp, x, v: xp.insert(x, [0, 4], v[None, :2], axis=1), x, v)


def test_many_pieces_take_the_uploaded_index_path() -> None:
    v = _random((200,), np.dtype(np.float64))
    _check(lambda xp, v: xp.delete(v, slice(None, None, 2)), v)
    _check(lambda xp, v: xp.insert(v, np.arange(0, 200, 3), -1.0), v)
    _check(lambda xp, v: xp.pad(v[:2], (70, 69), mode="reflect"), v)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_pad(dtype: np.dtype) -> None:
    x, one = _random((3, 4), dtype), _random((1, 3), dtype)
    for widths in [2, (1, 3), ((0, 2), (3, 1)), ((9, 7), (1, 10)), {1: (2, 1)}]:
        for mode in ("edge", "wrap", "reflect", "symmetric"):
            _check(lambda xp, x: xp.pad(x, widths, mode=mode), x)
        for mode in ("reflect", "symmetric"):
            _check(lambda xp, x: xp.pad(x, widths, mode=mode, reflect_type="odd"), x)
        _check(lambda xp, x: xp.pad(x, widths), x)
        _check(lambda xp, x: xp.pad(x, widths, constant_values=((1, 0), (0, 1))), x)
        assert ah.pad(ah.asarray(x), widths, mode="empty").shape == np.pad(
            x, widths, mode="empty").shape
    for ends in (0, (5, -3), ((1, 2), (-4, 7.5))):
        _check(lambda xp, x: xp.pad(x, ((2, 1), (0, 3)), mode="linear_ramp", end_values=ends), x)
    for mode in ("maximum", "minimum", "mean", "median"):
        for length in (None, 1, ((1, 2), (3, 1)), 9):
            _check(lambda xp, x: xp.pad(x, ((2, 1), (0, 3)), mode=mode, stat_length=length), x,
                   close=mode == "mean")
    for mode in ("reflect", "symmetric", "edge", "wrap"):
        _check(lambda xp, one: xp.pad(one, ((2, 3), (4, 0)), mode=mode), one)
        if mode in ("reflect", "symmetric"):
            _check(lambda xp, one: xp.pad(one, ((2, 3), (4, 0)), mode=mode,
                                          reflect_type="odd"), one)
    _check(lambda xp, s: xp.pad(s, 3), np.asarray(x[0, 0]))
    _check(lambda xp, e: xp.pad(e, ((1, 2), (0, 0)), mode="edge"), np.zeros((3, 0), dtype))
    _check(lambda xp, e: xp.pad(e, 1, constant_values=1), np.zeros((0, 2), dtype))


def test_pad_statistics_propagate_nans_as_numpys() -> None:
    x = _random((4, 5), np.dtype(np.float64))
    x[1, 2] = x[3, 0] = np.nan
    for ends in (0, (5, -3), ((1, 2), (-4, 7.5))):
        _check(lambda xp, x: xp.pad(x, ((2, 1), (0, 3)), mode="linear_ramp", end_values=ends), x)
    for mode in ("maximum", "minimum", "mean", "median"):
        for length in (None, 2):
            _check(lambda xp, x: xp.pad(x, ((1, 2), (2, 1)), mode=mode, stat_length=length), x,
                   close=mode == "mean")


def test_pad_casts_constants_as_numpy_stores_them() -> None:
    u = _random((3,), np.dtype(np.uint8)) & 7
    _check(lambda xp, u: xp.pad(u, 2, constant_values=-1), u)  # a NumPy int64: wraps
    _check(lambda xp, u: xp.pad(u, (1, 2), constant_values=(3.7, 250)), u)
    # More than two values are Python ints to NumPy: -1 does not fit.
    _same_error(lambda xp, u: xp.pad(u, 1, constant_values=((1, 2), (-1, 0))), u.reshape(1, 3))


def test_errors_are_numpys() -> None:
    x, v, s = np.ones((2, 3)), np.arange(5), np.float64(1)
    for case, args in [
            (lambda xp, x: xp.moveaxis(x, 2, 0), (x,)),
            (lambda xp, x: xp.moveaxis(x, 0, -3), (x,)),
            (lambda xp, x: xp.moveaxis(x, [0, 0], [1, 0]), (x,)),
            (lambda xp, x: xp.moveaxis(x, [0, 1], [1]), (x,)),
            (lambda xp, x: xp.rollaxis(x, 2), (x,)),
            (lambda xp, x: xp.rollaxis(x, 0, 3), (x,)),
            (lambda xp, x: xp.unstack(x, axis=2), (x,)),
            (lambda xp, s: xp.unstack(s), (np.asarray(s),)),
            (lambda xp, x: xp.vstack([x, x.T]), (x,)),
            (lambda xp, x: xp.vstack(a for a in [x]), (x,)),
            (lambda xp, x: xp.vstack([]), (x,)),
            (lambda xp, x: xp.block([[x], x]), (x,)),
            (lambda xp, x: xp.block([[x], []]), (x,)),
            (lambda xp, x: xp.block((x, x)), (x,)),
            (lambda xp, v: xp.array_split(v, 0), (v,)),
            (lambda xp, v: xp.array_split(v, 2, axis=1), (v,)),
            (lambda xp, v: xp.hsplit(v, 2), (v,)),
            (lambda xp, v: xp.hsplit(v[0], 2), (v,)),
            (lambda xp, v: xp.vsplit(v, 1), (v,)),
            (lambda xp, x: xp.dsplit(x, 1), (x,)),
            (lambda xp, x, v: xp.broadcast_arrays(x, v), (x, v)),
            (lambda xp, v: xp.flipud(v[0]), (v,)),
            (lambda xp, v: xp.fliplr(v), (v,)),
            (lambda xp, x: xp.rot90(x, axes=(0,)), (x,)),
            (lambda xp, x: xp.rot90(x, axes=(1, -1)), (x,)),
            (lambda xp, x: xp.rot90(x, axes=(0, 2)), (x,)),
            (lambda xp, x: xp.resize(x, (2, -1)), (x,)),
            (lambda xp, v: xp.delete(v, 5), (v,)),
            (lambda xp, v: xp.delete(v, [1, 7]), (v,)),
            (lambda xp, v: xp.delete(v, [True, False]), (v,)),
            (lambda xp, v: xp.delete(v, 1.5), (v,)),
            (lambda xp, x: xp.delete(x, 0, axis=2), (x,)),
            (lambda xp, v: xp.insert(v, 6, 1), (v,)),
            (lambda xp, v: xp.insert(v, [[1]], 1), (v,)),
            (lambda xp, v: xp.insert(v, [9, 0], 1), (v,)),
            (lambda xp, v: xp.insert(v, [11, -13, 9], 1), (v,)),
            (lambda xp, v: xp.insert(v, [-11, 0], 1), (v,)),
            (lambda xp, x: xp.insert(x, [-7, 0], 1, axis=1), (x,)),
            (lambda xp, v: xp.insert(v, [1.5, 2], 1), (v,)),
            (lambda xp, x: xp.insert(x, 1, [1, 2, 3], axis=1), (x,)),
            (lambda xp, x: xp.insert(x, [0, 1], [[1], [2], [3]], axis=1), (x,)),
            (lambda xp, x: xp.insert(x, -3, 1, axis=-3), (x,)),
            (lambda xp, x: xp.append(x, v, axis=0), (x,)),
            (lambda xp, x: xp.pad(x, -1), (x,)),
            (lambda xp, x: xp.pad(x, 1.5), (x,)),
            (lambda xp, x: xp.pad(x, ((1, 2, 3),)), (x,)),
            (lambda xp, x: xp.pad(x, 1, mode="nope"), (x,)),
            (lambda xp, x: xp.pad(x, 1, mode="edge", constant_values=1), (x,)),
            (lambda xp, e: xp.pad(e, 1, mode="wrap"), (np.ones((0, 2)),)),
            (lambda xp, x: xp.pad(x, ((1, 1), (0, 0)), "maximum", stat_length=((1, 1), (0, 1))),
             (x,)),
            (lambda xp, x: xp.pad(x, 1, "minimum", stat_length=-1), (x,)),
    ]:
        _same_error(case, *args)
    assert str(pytest.raises(ValueError, ah.broadcast_shapes, (2,), (3,)).value) == str(
        pytest.raises(ValueError, np.broadcast_shapes, (2,), (3,)).value)


def test_what_is_not_implemented_says_so() -> None:
    x = ah.ones((2, 2))
    with pytest.raises(NotImplementedError, match="a function as mode"):
        ah.pad(x, 1, mode=lambda vector, width, axis, kwargs: None)
    with pytest.raises(TypeError, match="obj must be host data"):
        ah.delete(x, ah.zeros(1, dtype=np.int64))


@pytest.mark.skipif(ah.is_sync(), reason="tests the pipelined mode (ARRAYHUB_SYNC)")
def test_composites_are_queued_without_a_waiting_call(monkeypatch: pytest.MonkeyPatch) -> None:
    host = _random((4, 6), np.dtype(np.float64))
    x = ah.asarray(host) * 1  # a queued array
    long = ah.arange(20_000) * 1  # its slices, not an index per element, make the results
    client = x.client
    if not client._pipeline.batch_fields:
        pytest.skip("this server takes no GetItem in a Batch")
    # Every way the client waits for the server: a call of its own, an upload, or a wait
    # for queued work (drain, wait_for, read, settle).
    waits: list[str] = []
    for owner, names in ((client, ("_rpc", "_upload")),
                         (client._pipeline, ("drain", "wait_for", "read", "settle"))):
        for name in names:
            def record(*args: Any, _name: str = name, _original: Any = getattr(owner, name),
                       **kwargs: Any) -> Any:
                waits.append(_name)
                return _original(*args, **kwargs)
            monkeypatch.setattr(owner, name, record)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        odd = ah.pad(x, 5, mode="symmetric", reflect_type="odd")
        results = [odd, ah.vstack([x, x]), ah.hstack([x, x]), ah.dstack([x, x]),
                   ah.column_stack([x[0], x[1]]), *ah.hsplit(x, 3), *ah.array_split(x, 3),
                   ah.moveaxis(x, 0, 1), ah.rollaxis(x, 1), *ah.unstack(x), ah.rot90(x),
                   ah.fliplr(x), ah.resize(x, (5, 7)), ah.delete(x, [0, 2], axis=1),
                   ah.insert(x, 2, 0.5, axis=0), ah.append(x, x, axis=1),
                   ah.pad(x, ((1, 2), (3, 1))), ah.pad(x, 2, mode="reflect"),
                   ah.pad(x, 1, mode="mean"), ah.block([[x, x], [x, x]]),
                   *ah.broadcast_arrays(x, x[0]), ah.delete(long, 5), ah.insert(long, 7, 0),
                   ah.insert(long, [3, 3, 19_000], long[:3]), ah.pad(long, 3, "wrap")]
    assert waits == [] and all(isinstance(r, ah.ndarray) for r in results)
    _same(odd.get(), np.pad(host, 5, mode="symmetric", reflect_type="odd"))
    _same([r.get() for r in results[-4:]],
          [np.delete(np.arange(20_000), 5), np.insert(np.arange(20_000), 7, 0),
           np.insert(np.arange(20_000), [3, 3, 19_000], [0, 1, 2]),
           np.pad(np.arange(20_000), 3, "wrap")])
