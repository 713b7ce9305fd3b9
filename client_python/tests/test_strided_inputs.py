"""Elementwise ops, reductions, matmul and linalg on views (transposed, sliced with steps and
negative steps, broadcast, diagonal) give NumPy's results; out= into a view writes only the
view's elements."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import arrayhub as ah
from conftest import assert_matches, random_values

# Views of an array of shape (6, 8) that NumPy also answers as views.
LAYOUTS: list[tuple[str, Callable[[Any], Any]]] = [
    ("transposed", lambda a: a.T),
    ("stepped", lambda a: a[1::2, ::3]),
    ("reversed", lambda a: a[::-1, ::-2]),
    ("column", lambda a: a[:, 5]),
    ("broadcast", lambda a: (np if isinstance(a, np.ndarray) else ah).broadcast_to(a[2], (3, 8))),
    ("diagonal", lambda a: a.diagonal(1)),
]
IDS = [name for name, _ in LAYOUTS]


@pytest.mark.parametrize("name,layout", LAYOUTS, ids=IDS)
@pytest.mark.parametrize("dtype", [np.int16, np.float32, np.complex128], ids=str)
def test_elementwise_on_views(name: str, layout: Callable[[Any], Any], dtype: Any) -> None:
    host = random_values(np.random.default_rng(61), np.dtype(dtype), (6, 8))
    remote = ah.asarray(host)
    h, r = layout(host), layout(remote)
    assert_matches(r * 3 + r, h * 3 + h)
    assert_matches(ah.negative(r), np.negative(h))
    if h.dtype.kind != "c":
        assert_matches(ah.maximum(r, r[..., ::-1]), np.maximum(h, h[..., ::-1]))


@pytest.mark.parametrize("name,layout", LAYOUTS, ids=IDS)
def test_reductions_on_views(name: str, layout: Callable[[Any], Any]) -> None:
    host = np.random.default_rng(62).normal(size=(6, 8))
    h, r = layout(host), layout(ah.asarray(host))
    assert_matches(r.sum(axis=0), h.sum(axis=0), rtol=1e-9)
    assert_matches(r.max(), h.max())
    assert_matches(ah.argmin(r, axis=-1), np.argmin(h, axis=-1))
    assert_matches(r.std(), h.std(), rtol=1e-9)


def test_out_into_a_view_writes_only_its_elements() -> None:
    host = np.random.default_rng(63).normal(size=(6, 8))
    remote = ah.asarray(host)
    np.add(host[::2, 1::3], 1.0, out=host[::2, 1::3])
    ah.add(remote[::2, 1::3], 1.0, out=remote[::2, 1::3])
    np.testing.assert_array_equal(remote.get(), host)
    target = host[:, ::-1][1:3]
    np.multiply(host[0:2], 2.0, out=target)  # Overlaps its input partially.
    ah.multiply(remote[0:2], 2.0, out=remote[:, ::-1][1:3])
    np.testing.assert_array_equal(remote.get(), host)
    host.sum(axis=1, out=host[:, 0])
    ah.sum(remote, axis=1, out=remote[:, 0])
    np.testing.assert_allclose(remote.get(), host, rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64], ids=str)
def test_matmul_with_transposed_and_sliced_operands(dtype: Any) -> None:
    rng = np.random.default_rng(64)
    a = random_values(rng, np.dtype(dtype), (12, 10))
    b = random_values(rng, np.dtype(dtype), (10, 14))
    ra, rb = ah.asarray(a), ah.asarray(b)
    rtol = 1e-4 if np.dtype(dtype).char in "fF" else 1e-10
    assert_matches(ra.T @ ra, a.T @ a, rtol=rtol)
    assert_matches(ra[::2, ::-1] @ rb[::-1, 1::2], a[::2, ::-1] @ b[::-1, 1::2], rtol=rtol)
    assert_matches(ra[3] @ rb[:, ::3], a[3] @ b[:, ::3], rtol=rtol)
    out = ah.zeros((14, 14), dtype)
    ah.matmul(rb.T, rb, out=out.T)  # out= through a transposed view.
    np.testing.assert_allclose(out.get(), (b.T @ b).T, rtol=rtol, atol=rtol)


def test_linalg_on_views() -> None:
    rng = np.random.default_rng(65)
    host = rng.normal(size=(9, 9))
    remote = ah.asarray(host)
    view, remote_view = host[::2, ::-2], remote[::2, ::-2]
    np.testing.assert_allclose(ah.linalg.svd(remote_view, compute_uv=False).get(),
                               np.linalg.svd(view, compute_uv=False), rtol=1e-10)
    np.testing.assert_allclose(ah.linalg.det(remote.T[1:5, 2:6]).get(),
                               np.linalg.det(host.T[1:5, 2:6]), rtol=1e-10)
    spd = host @ host.T + 9 * np.eye(9)
    remote_spd = ah.asarray(spd)
    np.testing.assert_allclose(ah.linalg.cholesky(remote_spd[::-1, ::-1]).get(),
                               np.linalg.cholesky(spd[::-1, ::-1]), rtol=1e-10)


def test_download_of_views_is_c_ordered() -> None:
    host = np.arange(60, dtype=np.int32).reshape(3, 4, 5)
    remote = ah.asarray(host)
    for view in (lambda a: a.transpose(2, 0, 1), lambda a: a[:, ::-1, 1::2],
                 lambda a: a[..., 0]):
        np.testing.assert_array_equal(view(remote).get(), view(host))
