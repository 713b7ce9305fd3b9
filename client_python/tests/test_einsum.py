"""einsum, einsum_path and linalg.multi_dot against NumPy on fresh random data."""

from __future__ import annotations

import numpy as np
import pytest

import arrayhub as ah
from conftest import assert_matches, random_values
from numpy_compare import DTYPES, same_as_numpy

pytestmark = pytest.mark.requires_compute("Elementwise")

_CASES = [("ij,jk->ik", [(3, 4), (4, 5)]), ("ij,jk", [(3, 4), (4, 5)]), ("ii", [(4, 4)]),
          ("ii->i", [(4, 4)]), ("iij->ji", [(3, 3, 2)]), ("iji->j", [(3, 2, 3)]),
          ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)]),
          ("i,i", [(5,), (5,)]), ("i,j->ij", [(3,), (4,)]), ("ij->", [(3, 4)]),
          ("ijk,jil->kl", [(3, 4, 5), (4, 3, 2)]), ("ij,ij->ij", [(3, 1), (1, 4)]),
          ("...,...", [(3,), (2, 1)]), ("ij,kl->", [(2, 2), (3, 3)]),
          ("ij...,jk...->ik...", [(2, 3, 4), (3, 5, 4)]), ("ii,jj->ij", [(3, 3), (2, 2)]),
          ("ab,bc,cd,de->ae", [(2, 30), (30, 3), (3, 40), (40, 2)]),
          ("ij,jk->ik", [(0, 3), (3, 2)]), ("ij,jk->ik", [(2, 0), (0, 2)])]


@pytest.mark.parametrize("optimize", [False, True, "optimal"])
def test_einsum_subscripts_match_numpy(optimize) -> None:
    rng = np.random.default_rng(0)
    for subscripts, shapes in _CASES:
        hosts = [rng.normal(size=s) for s in shapes]
        expected = np.einsum(subscripts, *hosts, optimize=optimize)
        got = ah.einsum(subscripts, *map(ah.asarray, hosts), optimize=optimize)
        assert_matches(got, expected)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_einsum_dtypes_match_numpy(dtype: np.dtype) -> None:
    rng = np.random.default_rng(1)
    x, y = random_values(rng, dtype, (3, 4)), random_values(rng, dtype, (4, 2))
    if dtype.kind in "iu":  # Small values: NumPy's and the server's wrapping sums agree.
        x, y = x % 5, y % 5
    for subscripts, operands in (("ij,jk->ik", (x, y)), ("ij->j", (x,)), ("ii->", (x[:3, :3],)),
                                 ("ij,j", (x, y[:, 0]))):
        expected = np.einsum(subscripts, *operands)
        got = ah.einsum(subscripts, *map(ah.asarray, operands))
        assert_matches(got, expected, rtol=5e-2 if dtype == np.float16 else None)


def test_einsum_forms_and_errors() -> None:
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=(3, 4)), rng.normal(size=(4, 3))
    da, db = ah.asarray(a), ah.asarray(b)
    assert_matches(ah.einsum(da, [0, 1], db, [1, 2], [0, 2]),
                   np.einsum(a, [0, 1], b, [1, 2], [0, 2]))
    assert_matches(ah.einsum(da, [..., 1], db, [1, ...]), np.einsum(a, [..., 1], b, [1, ...]))
    assert_matches(ah.einsum("i,", da[0], 2.5), np.einsum("i,", a[0], 2.5))
    assert_matches(ah.einsum("ij->", da, dtype=np.float32, casting="same_kind"),
                   np.einsum("ij->", a, dtype=np.float32, casting="same_kind"))
    out = ah.zeros((3, 3))
    assert ah.einsum("ij,jk", da, db, out=out) is out
    np.testing.assert_allclose(out.get(), a @ b)
    for subscripts in ("ij,jk", "ij,j$", "ij", "ijk", "ij->ik", "ii"):
        operands = (a, a) if subscripts.count(",") else (a,)
        same_as_numpy(lambda m, x: m.einsum(subscripts, *([x] * len(operands)), optimize=True),
                      a, da)
    same_as_numpy(lambda m, x: m.einsum("ij->", x, dtype=np.int32), a, da)
    path, report = ah.einsum_path("ij,jk,kl", da, db, da, optimize="optimal")
    assert (path, report) == np.einsum_path("ij,jk,kl", a, b, a, optimize="optimal")


def test_multi_dot_matches_numpy() -> None:
    rng = np.random.default_rng(3)
    for shapes in (((10, 30), (30, 5), (5, 60), (60, 2)), ((30,), (30, 5), (5, 60), (60,)),
                   ((4, 5), (5,)), ((3, 4), (4, 6), (6, 2)), ((7,), (7, 3), (3,))):
        hosts = [rng.normal(size=s) for s in shapes]
        assert_matches(ah.linalg.multi_dot([ah.asarray(h) for h in hosts]),
                       np.linalg.multi_dot(hosts))
    x = rng.normal(size=(2, 2, 2))
    same_as_numpy(lambda m, v: m.linalg.multi_dot([v[0], v, v[0]]), x, ah.asarray(x))
    same_as_numpy(lambda m, v: m.linalg.multi_dot([v]), x, ah.asarray(x))
