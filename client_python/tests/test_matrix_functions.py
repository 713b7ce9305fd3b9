"""The matrix and grid composites of _matrix_functions.py against NumPy on random data of each
dtype class: tri, tril, triu, diag, diagflat, trace (function and method), meshgrid, indices,
logspace, geomspace; with empty, 1-D and stacked inputs, negative k and axes, and NumPy's
errors."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import arrayhub as ah
from conftest import assert_matches
from numpy_compare import DTYPES, pair, same_as_numpy

pytestmark = pytest.mark.requires_compute("Elementwise")


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_triangles_diagonals_and_trace_match_numpy(dtype: np.dtype) -> None:
    host, x = pair(dtype, (2, 4, 5))
    vector_host, vector = host[0, 0], x[0, 0]
    checks: list[Callable[[Any, Any], Any]] = [
        lambda m, a: m.tril(a, -1), lambda m, a: m.triu(a, 2), lambda m, a: m.tril(a[0].T, 9),
        lambda m, a: m.triu(a[:, :0]), lambda m, a: m.diag(a[1], -2),
        lambda m, a: m.diag(a[1].T, 3), lambda m, a: m.diagflat(a[1, :2], 1),
        lambda m, a: m.trace(a, 1, 1, 2), lambda m, a: m.trace(a[0], -1),
        lambda m, a: m.trace(a, axis1=-1, axis2=0, dtype=np.complex128),
        lambda m, a: a[1].trace(2), lambda m, a: m.trace(a[:, :0, :]),
    ]
    for check in checks:
        same_as_numpy(check, host, x)
    for check in (lambda m, v: m.tril(v), lambda m, v: m.triu(v, -1), lambda m, v: m.diag(v),
                  lambda m, v: m.diag(v, -3), lambda m, v: m.diag(v[:0], 2),
                  lambda m, v: m.diagflat(v, 0)):
        same_as_numpy(check, vector_host, vector)
    assert not ah.diag(x[0]).flags.writeable


def test_tri_matches_numpy() -> None:
    for args, kwargs in [((3,), {}), ((3, 5, 1), {}), ((4, 2, -1), {"dtype": np.int8}),
                         ((0, 3), {"dtype": bool}), ((2, 2, 7), {"dtype": np.complex64}),
                         ((3,), {"k": -5})]:
        assert_matches(ah.tri(*args, **kwargs), np.tri(*args, **kwargs))


def test_grids_match_numpy() -> None:
    hosts = [np.arange(3.0), np.array([5, 7], np.int8), np.array([[True, False]])]
    arrays = [ah.asarray(h) for h in hosts]
    for kwargs in [{}, {"indexing": "ij"}, {"sparse": True}, {"copy": False},
                   {"indexing": "ij", "sparse": True, "copy": False}]:
        for count in (0, 1, 3):
            same_as_numpy(lambda m, a: m.meshgrid(*a, **kwargs), hosts[:count], arrays[:count])
    assert not ah.meshgrid(*arrays, copy=False)[0].flags.writeable
    for args, kwargs in [((2, 3), {}), ((4,), {"dtype": np.float32}), ((2, 0, 3), {}),
                         ((), {})]:
        assert_matches(ah.indices(args, **kwargs), np.indices(args, **kwargs))
    for got, expected in zip(ah.indices((2, 3), sparse=True), np.indices((2, 3), sparse=True)):
        assert_matches(got, expected)


def test_log_spaced_ranges_match_numpy() -> None:
    for args, kwargs in [((0, 3, 4), {}), ((1, -2), {"base": 2}), ((0, 1, 5), {"endpoint": False}),
                         ((0.5, 2.5, 3), {"dtype": np.float32}), ((0, 3, 4), {"dtype": int}),
                         ((0, 1j, 3), {}), ((1, 2, 0), {})]:
        assert_matches(ah.logspace(*args, **kwargs), np.logspace(*args, **kwargs))
    for args, kwargs in [((1, 1000, 4), {}), ((-1, -1000, 4), {}), ((2, 3, 1), {}),
                         ((1, 256, 9), {"endpoint": False}), ((1j, 1000j, 4), {}),
                         ((-1 + 0j, 1 + 0j, 5), {}), ((1, 1000, 4), {"dtype": int}),
                         ((1, 2, 0), {}), ((np.float32(3), 1, 3), {"dtype": np.float32})]:
        assert_matches(ah.geomspace(*args, **kwargs), np.geomspace(*args, **kwargs))
    # The ends are the bounds themselves, not exp(log(bound)).
    result = ah.geomspace(3, 7e5, 5).get()
    assert (result[0], result[-1]) == (3, 7e5)


def test_errors_match_numpy() -> None:
    host = np.arange(6.0).reshape(2, 3)
    x = ah.asarray(host)
    for check in (lambda m, a: m.tril(a[0, 0]), lambda m, a: m.diag(a[None]),
                  lambda m, a: m.meshgrid(a, indexing="yx"), lambda m, a: m.geomspace(0, 1),
                  lambda m, a: m.geomspace(1, -0.0), lambda m, a: m.trace(a[0]),
                  lambda m, a: m.trace(a, axis1=0, axis2=0), lambda m, a: m.trace(a, 0, 5, 1),
                  lambda m, a: m.diag(a, 0)[None].trace(0, 0, 2)):
        same_as_numpy(check, host, x)
    with pytest.raises(TypeError, match="expected an arrayhub.ndarray"):
        ah.tril(host)
    with pytest.raises(TypeError, match="start must be a scalar, got ndarray"):
        ah.logspace(ah.zeros(()), 1)
