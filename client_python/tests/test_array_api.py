"""The Array API standard's names and keywords that NumPy 2 also has, against NumPy on random
data: astype, matrix_transpose, vecdot, take_along_axis, cumulative_sum/prod, positive, sort
and argsort with descending=, var/std with correction=, clip with min=/max=, searchsorted
with sorter=, the linalg extension, and the namespace's inspection object."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import arrayhub as ah
from conftest import assert_matches

RNG = np.random.default_rng(2412)


def _same(got: Any, expected: Any) -> None:
    assert_matches(got, np.asarray(expected))


def test_sort_and_argsort_descending_keep_ties_in_order() -> None:
    values = np.array([3, 1, 2, 1, 3, 3, 0], np.int32)
    # Descending and stable: the 3s at 0, 4, 5 first in that order, then 2, the 1s, the 0.
    _same(ah.argsort(ah.asarray(values), descending=True), [0, 4, 5, 2, 1, 3, 6])
    _same(ah.argsort(ah.asarray(values), axis=None, descending=True, stable=True),
          [0, 4, 5, 2, 1, 3, 6])
    host = RNG.normal(size=(4, 6))
    _same(ah.sort(ah.asarray(host), axis=0, descending=True), np.flip(np.sort(host, axis=0), 0))
    _same(ah.sort(ah.asarray(host), kind="quicksort"), np.sort(host))
    with pytest.raises(ValueError, match="structured dtypes"):
        ah.sort(ah.asarray(host), order="x")


def test_var_std_correction_is_ddof() -> None:
    host = RNG.normal(size=(5, 7))
    _same(ah.var(ah.asarray(host), correction=1), np.var(host, correction=1))
    _same(ah.std(ah.asarray(host), axis=0, correction=2.0), np.std(host, axis=0, correction=2))
    with pytest.raises(ValueError, match="ddof and correction can't be provided simultaneously"):
        ah.var(ah.asarray(host), ddof=1, correction=1)


def test_clip_bounds_by_either_name_or_neither() -> None:
    host = RNG.normal(size=9)
    x = ah.asarray(host)
    _same(ah.clip(x, min=0), np.clip(host, min=0))
    _same(ah.clip(x, max=0.5), np.clip(host, max=0.5))
    _same(ah.clip(x), np.clip(host))
    _same(ah.clip(x, None, None), np.clip(host, None, None))
    _same(x.clip(), host.clip())
    with pytest.raises(ValueError, match="Passing `min` or `max` keyword argument when"):
        ah.clip(x, 0, 1, min=0)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'a_max'"):
        ah.clip(x, 0)


def test_searchsorted_with_sorter() -> None:
    haystack, needles = RNG.normal(size=20), RNG.normal(size=6)
    sorter = np.argsort(haystack)
    for side in ("left", "right"):
        _same(ah.searchsorted(ah.asarray(haystack), ah.asarray(needles), side=side,
                              sorter=ah.asarray(sorter)),
              np.searchsorted(haystack, needles, side=side, sorter=sorter))


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.complex128], ids=str)
def test_vecdot_broadcasts_and_conjugates(dtype: type) -> None:
    a = (RNG.normal(size=(4, 1, 5)) * 4).astype(dtype)
    b = (RNG.normal(size=(3, 5)) * 4).astype(dtype)
    if np.dtype(dtype).kind == "c":
        a, b = a + 1j * a[::-1], b - 2j * b
    _same(ah.vecdot(ah.asarray(a), ah.asarray(b)), np.vecdot(a, b))
    columns, column = a[:, 0, :].T, b[:1, :].T  # (5, 4) and (5, 1), vectors along axis 0
    _same(ah.vecdot(ah.asarray(columns), ah.asarray(column), axis=0),
          np.vecdot(columns, column, axis=0))
    with pytest.raises(ValueError, match=r"size 4 is different from 5"):
        ah.vecdot(ah.asarray(a), ah.asarray(b[:, :4]))


def test_take_along_axis_matches_numpy() -> None:
    host = RNG.normal(size=(4, 5, 3))
    for axis in (0, 1, -1):
        shape = list(host.shape)
        shape[axis] = 2
        indices = RNG.integers(-host.shape[axis], host.shape[axis], size=shape)
        _same(ah.take_along_axis(ah.asarray(host), ah.asarray(indices), axis=axis),
              np.take_along_axis(host, indices, axis=axis))
    flat = RNG.integers(0, host.size, size=7)
    _same(ah.take_along_axis(ah.asarray(host), ah.asarray(flat), axis=None),
          np.take_along_axis(host, flat, axis=None))
    with pytest.raises(ValueError, match="must have a single dimension"):
        ah.take_along_axis(ah.asarray(host), ah.asarray(np.zeros((1, 1), int)), axis=None)


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.float64], ids=str)
def test_cumulative_sum_and_prod(dtype: type) -> None:
    host = RNG.integers(1, 4, size=(3, 4)).astype(dtype)
    for include_initial in (False, True):
        for function in ("cumulative_sum", "cumulative_prod"):
            _same(getattr(ah, function)(ah.asarray(host), axis=1,
                                        include_initial=include_initial),
                  getattr(np, function)(host, axis=1, include_initial=include_initial))
            _same(getattr(ah, function)(ah.asarray(host[0]), include_initial=include_initial),
                  getattr(np, function)(host[0], include_initial=include_initial))
    _same(ah.cumulative_sum(ah.asarray(np.array(5, dtype))), np.cumulative_sum(np.array(5, dtype)))
    with pytest.raises(ValueError, match="``axis`` argument is required"):
        ah.cumulative_sum(ah.asarray(host))


def test_astype_matrix_transpose_and_positive() -> None:
    host = RNG.normal(size=(2, 3, 4)) * 50
    x = ah.asarray(host)
    _same(ah.astype(x, np.int8), np.astype(host, np.int8))
    assert ah.astype(x, np.float64, copy=False) is x
    _same(ah.matrix_transpose(x), np.matrix_transpose(host))
    with pytest.raises(ValueError, match="at least 2-dimensional, but it is 1"):
        ah.matrix_transpose(ah.asarray(host[0, 0]))
    _same(+x, +host)
    _same(ah.positive(x), np.positive(host))
    with pytest.raises(TypeError, match="ufunc 'positive' did not contain a loop"):
        ah.positive(ah.asarray(np.array([True])))


def test_namespace_and_inspection() -> None:
    x = ah.asarray(np.arange(3))
    assert x.__array_namespace__() is ah
    assert x.__array_namespace__(api_version="2024.12") is ah
    with pytest.raises(ValueError, match="Unrecognized array API version"):
        x.__array_namespace__(api_version="1999.01")
    assert x.to_device(x.device) is x
    info = ah.__array_namespace_info__()
    assert info.capabilities()["boolean indexing"] is True
    assert info.default_device() == x.device and x.device in info.devices()
    assert info.default_dtypes()["real floating"] == np.float64
    assert set(info.dtypes(kind="unsigned integer")) == {"uint8", "uint16", "uint32", "uint64"}
    assert set(info.dtypes(kind=("bool", "complex floating"))) == {"bool", "complex64",
                                                                   "complex128"}


def test_linalg_extension_matches_numpy() -> None:
    a, c = RNG.normal(size=(4, 5)), RNG.normal(size=(2, 3, 4))
    m = RNG.normal(size=(2, 3, 3))
    la = ah.linalg
    _same(la.vector_norm(ah.asarray(a)), np.linalg.vector_norm(a))
    _same(la.vector_norm(ah.asarray(c), axis=(0, 2), keepdims=True, ord=1),
          np.linalg.vector_norm(c, axis=(0, 2), keepdims=True, ord=1))
    _same(la.vector_norm(ah.asarray(c), axis=-1, ord=np.inf),
          np.linalg.vector_norm(c, axis=-1, ord=np.inf))
    _same(la.matrix_norm(ah.asarray(c), ord=1), np.linalg.matrix_norm(c, ord=1))
    _same(la.svdvals(ah.asarray(a)), np.linalg.svdvals(a))
    _same(la.trace(ah.asarray(m), offset=1), np.linalg.trace(m, offset=1))
    _same(la.trace(ah.asarray(np.ones((3, 3), np.int32))), np.linalg.trace(np.ones((3, 3), np.int32)))
    _same(la.diagonal(ah.asarray(m), offset=-1), np.linalg.diagonal(m, offset=-1))
    for n in (0, 1, 2, 5, -2):
        _same(la.matrix_power(ah.asarray(m), n), np.linalg.matrix_power(m, n))
    with pytest.raises(np.linalg.LinAlgError, match="must be square"):
        la.matrix_power(ah.asarray(a), 2)
    _same(la.outer(ah.asarray(a[0]), ah.asarray(a[1])), np.linalg.outer(a[0], a[1]))
    with pytest.raises(ValueError, match="must be one-dimensional"):
        la.outer(ah.asarray(a), ah.asarray(a[0]))
    _same(la.matmul(ah.asarray(a), ah.asarray(a.T)), np.linalg.matmul(a, a.T))
    _same(la.tensordot(ah.asarray(c), ah.asarray(a), axes=1), np.linalg.tensordot(c, a, axes=1))
    _same(la.matrix_transpose(ah.asarray(c)), np.linalg.matrix_transpose(c))
    _same(la.vecdot(ah.asarray(a), ah.asarray(a)), np.linalg.vecdot(a, a))


def test_asarray_copy_keyword() -> None:
    host = np.arange(6.0)
    x = ah.asarray(host)
    assert ah.asarray(x) is x and ah.asarray(x, copy=False) is x
    copied = ah.asarray(x, copy=True)
    assert copied is not x
    copied[0] = 99.0
    assert float(x[0]) == 0.0
    for refused in (lambda: ah.asarray(host, copy=False),
                    lambda: ah.asarray(x, dtype=np.float32, copy=False)):
        with pytest.raises(ValueError, match="Unable to avoid copy while creating an array"):
            refused()
    _same(ah.asarray(x, dtype=np.int32, copy=None), host.astype(np.int32))


def test_creation_takes_the_servers_devices() -> None:
    device = ah.cuda.Device()
    for made in (ah.zeros(3, device=device), ah.arange(3, device=device),
                 ah.full(2, 1.5, device=device), ah.eye(2, device=0),
                 ah.linspace(0, 1, 3, device=device), ah.empty_like(ah.zeros(2), device=device),
                 ah.asarray([1, 2], device=device)):
        assert made.device == device
    with pytest.raises(ValueError, match="the server has 1 device"):
        ah.zeros(3, device=ah.cuda.runtime.getDeviceCount())
    assert ah.zeros((2, 2), order="F", device=device).flags.f_contiguous
    assert ah.__array_api_version__ == "2024.12"


def test_a_cpu_servers_array_exports_a_host_copy_through_dlpack() -> None:
    x = ah.asarray(np.arange(6.0).reshape(2, 3))
    if x._on_cuda():
        pytest.skip("a CUDA server's array maps its device memory (test_cuda_ipc.py)")
    assert x.__dlpack_device__() == (1, 0)
    np.testing.assert_array_equal(np.from_dlpack(x), np.arange(6.0).reshape(2, 3))
    with pytest.raises(BufferError, match="only a copy can be exported"):
        x.__dlpack__(copy=False)


@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.bool_], ids=str)
def test_unique_functions_match_numpy(dtype: type) -> None:
    host = RNG.integers(0, 4, size=(3, 5)).astype(dtype)
    if np.dtype(dtype).kind == "f":
        host[0, 0] = host[1, 1] = np.nan  # Each NaN a value of its own, as NumPy 2.
    for data in (host, host[:0]):
        # The standard leaves unique_values' order open, and NumPy 2.5 stopped sorting it
        # (a hash table); ArrayHub's is sorted, as NumPy 2.4's and CuPy's.
        _same(ah.unique_values(ah.asarray(data)), np.sort(np.unique_values(data)))
        for name in ("unique_counts", "unique_inverse", "unique_all"):
            got, expected = getattr(ah, name)(ah.asarray(data)), getattr(np, name)(data)
            assert got._fields == expected._fields
            for g, e in zip(got, expected):
                _same(g, e)


def test_tensordot_with_axis_pairs() -> None:
    a, b = RNG.normal(size=(2, 3, 4)), RNG.normal(size=(4, 3, 5))
    for axes in (([1, 2], [1, 0]), ([2], [0]), (2, 0), ([], [])):
        _same(ah.tensordot(ah.asarray(a), ah.asarray(b), axes=axes), np.tensordot(a, b, axes))
    with pytest.raises(ValueError, match="shape-mismatch for sum"):
        ah.tensordot(ah.asarray(a), ah.asarray(b), axes=([0], [0]))


def test_pinv_matrix_rank_and_linalg_cross() -> None:
    stacked = RNG.normal(size=(2, 4, 3))
    _same(ah.linalg.pinv(ah.asarray(stacked)), np.linalg.pinv(stacked))
    complex_matrix = RNG.normal(size=(3, 3)) + 1j * RNG.normal(size=(3, 3))
    _same(ah.linalg.pinv(ah.asarray(complex_matrix), rtol=None),
          np.linalg.pinv(complex_matrix, rtol=None))
    rank_two = RNG.normal(size=(5, 2)) @ RNG.normal(size=(2, 4))
    _same(ah.linalg.matrix_rank(ah.asarray(rank_two)), np.int64(np.linalg.matrix_rank(rank_two)))
    _same(ah.linalg.matrix_rank(ah.asarray(np.stack([rank_two, rank_two[:, ::-1] * 0]))),
          np.linalg.matrix_rank(np.stack([rank_two, rank_two[:, ::-1] * 0])))
    u, v = RNG.normal(size=(4, 3)), RNG.normal(size=(4, 3))
    _same(ah.linalg.cross(ah.asarray(u), ah.asarray(v)), np.linalg.cross(u, v))
    with pytest.raises(ValueError, match="must be \\(arrays of\\) 3-dimensional vectors"):
        ah.linalg.cross(ah.asarray(u[:, :2]), ah.asarray(v[:, :2]))


def test_reshape_copy_keyword() -> None:
    host = np.arange(12.0).reshape(3, 4)
    x = ah.asarray(host)
    assert not ah.reshape(x, (4, 3), copy=False).flags.owndata  # A view.
    copied = ah.reshape(x, (12,), copy=True)
    copied[0] = 7.0
    assert float(x[0, 0]) == 0.0  # Its own memory.
    with pytest.raises(ValueError, match="Unable to avoid creating a copy while reshaping."):
        ah.reshape(x.T, (12,), copy=False)
    _same(x.T.reshape(12, copy=None), host.T.reshape(12))


def test_from_dlpack_keywords_and_the_standards_dtypes() -> None:
    x = ah.asarray(np.arange(3.0))
    assert ah.from_dlpack(x) is x
    copied = ah.from_dlpack(x, copy=True, device=x.device)
    assert copied is not x
    _same(copied, np.arange(3.0))
    with pytest.raises(BufferError, match="copy=False refuses it"):
        ah.from_dlpack(np.arange(3.0), copy=False)
    assert "float16" not in ah.__array_namespace_info__().dtypes()
    assert set(ah.__array_namespace_info__().dtypes(kind="real floating")) == {"float32",
                                                                              "float64"}
