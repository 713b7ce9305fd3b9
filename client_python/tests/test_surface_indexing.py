"""Index helpers of _index_helpers.py against NumPy: argwhere, flatnonzero, diag_indices(_from),
tril/triu_indices(_from), mask_indices, ix_, ravel_multi_index (modes, order) and unravel_index,
with NumPy's errors; and their routing from NumPy's functions."""

from __future__ import annotations

import numpy as np
import pytest

import arrayhub as ah
from conftest import assert_matches
from numpy_compare import DTYPES, pair, same_as_numpy

pytestmark = pytest.mark.requires_compute("Elementwise")


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_nonzero_positions_match_numpy(dtype: np.dtype) -> None:
    host, x = pair(dtype, (3, 4))
    host[1] = 0
    x = ah.asarray(host)
    for check in (lambda m, a: m.argwhere(a), lambda m, a: m.argwhere(a[0, 0]),
                  lambda m, a: m.argwhere(a[1, 1]), lambda m, a: m.argwhere(a[:, :0]),
                  lambda m, a: m.flatnonzero(a), lambda m, a: m.flatnonzero(a.T)):
        same_as_numpy(check, host, x)


def test_diagonal_and_triangle_indices_match_numpy() -> None:
    host = np.arange(12.0).reshape(3, 4)
    x = ah.asarray(host)
    cases = [
        lambda m, a: m.diag_indices(3), lambda m, a: m.diag_indices(2, 4),
        lambda m, a: m.diag_indices(0), lambda m, a: m.tril_indices(4),
        lambda m, a: m.tril_indices(3, -1, 5), lambda m, a: m.triu_indices(4, 2),
        lambda m, a: m.triu_indices(3, -1, 2), lambda m, a: m.tril_indices_from(a, 1),
        lambda m, a: m.triu_indices_from(a.T), lambda m, a: m.tril_indices_from(a[0]),
        lambda m, a: m.diag_indices_from(a), lambda m, a: m.diag_indices_from(a[:3, :3]),
        lambda m, a: m.diag_indices_from(a[0]), lambda m, a: m.mask_indices(3, m.triu),
        lambda m, a: m.mask_indices(4, m.tril, -1),
    ]
    for check in cases:
        same_as_numpy(check, host, x)
    rows, cols = ah.triu_indices(4, 1)
    assert_matches(x[:, :][rows[:3], cols[:3]], host[np.triu_indices(4, 1)][:3])


def test_ix_matches_numpy() -> None:
    host = np.arange(20).reshape(4, 5)
    x = ah.asarray(host)
    for args in ([[0, 2], [1, 3, 4]], [np.array([True, False, True, True]), [4]], [[]],
                 [[[1]]], []):
        same_as_numpy(lambda m, a: m.ix_(*args), host, x)
    rows, cols = ah.ix_(ah.asarray([3, 1]), ah.asarray([False, True, True, False, True]))
    assert_matches(x[rows, cols], host[np.ix_([3, 1], [False, True, True, False, True])])


def test_ravel_and_unravel_match_numpy() -> None:
    rng = np.random.default_rng(1)
    rows, cols = rng.integers(-3, 9, 10), rng.integers(-2, 7, 10)
    index = (ah.asarray(rows), ah.asarray(cols))
    inside = (ah.asarray(rows.clip(0, 5)), ah.asarray(cols.clip(0, 4)))
    host_inside = (rows.clip(0, 5), cols.clip(0, 4))
    for kwargs in ({"mode": "wrap"}, {"mode": "clip"}, {"mode": ("clip", "wrap")},
                   {"mode": "wrap", "order": "F"}):
        assert_matches(ah.ravel_multi_index(index, (6, 5), **kwargs),
                       np.ravel_multi_index((rows, cols), (6, 5), **kwargs))
    assert_matches(ah.ravel_multi_index(inside, (6, 5)), np.ravel_multi_index(host_inside, (6, 5)))
    assert_matches(ah.ravel_multi_index((3, 1, 4, 1), (6, 7, 8, 9)),
                   np.ravel_multi_index((3, 1, 4, 1), (6, 7, 8, 9)))
    flat = rng.integers(0, 30, (2, 3)).astype(np.uint16)
    for order in ("C", "F"):
        same_as_numpy(lambda m, a: m.unravel_index(a, (6, 5), order=order), flat,
                      ah.asarray(flat))
    same_as_numpy(lambda m, a: m.unravel_index(a, (2, 3, 5)), 17, 17)
    errors = [
        lambda m, a: m.ravel_multi_index(a, (6, 5)),
        lambda m, a: m.ravel_multi_index(a[:1], (6, 5)),
        lambda m, a: m.ravel_multi_index(a, (6, 5), mode="bad"),
        lambda m, a: m.ravel_multi_index(a, (6, 5), mode=("wrap",)),
        lambda m, a: m.ravel_multi_index(a, (6, 0), mode="wrap"),
        lambda m, a: m.ravel_multi_index(a, (6, 5), order="Q"),
        lambda m, a: m.ravel_multi_index((a[0] * 1.0, a[1]), (6, 5)),
        lambda m, a: m.ravel_multi_index(a, (2**62, 5)),
        lambda m, a: m.unravel_index(a[0], (6, 5)),
        lambda m, a: m.unravel_index(a[1] + 40, (6, 5)),
        lambda m, a: m.unravel_index(a[1], (6, 5), order="A"),
        lambda m, a: m.unravel_index(a[0] * 1.0, (6, 5)),
    ]
    for check in errors:
        same_as_numpy(check, (rows, cols), index)


def test_numpy_functions_route_to_arrayhub() -> None:
    x = ah.asarray(np.array([[0, 1], [2, 0]]))
    assert_matches(np.argwhere(x), np.argwhere(np.array([[0, 1], [2, 0]])))
    assert_matches(np.flatnonzero(x), np.array([1, 2]))
    assert_matches(np.tril_indices_from(x)[1], np.array([0, 0, 1]))
    assert_matches(np.unravel_index(x, (2, 2))[0], np.array([[0, 0], [1, 0]]))
