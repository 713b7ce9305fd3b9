"""ediff1d, unwrap, trim_zeros and vander against NumPy on each dtype class,
with NumPy's errors."""

from __future__ import annotations

import numpy as np
import pytest

import arrayhub as ah
from numpy_compare import DTYPES, pair, same_as_numpy

pytestmark = pytest.mark.requires_compute("Elementwise")


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_differences_and_vander_match_numpy(dtype: np.dtype) -> None:
    host, x = pair(dtype, (3, 4))
    small = (host[0] % 3) if dtype.kind in "iu" else host[0]  # vander's powers stay exact.
    checks = [
        lambda m, a: m.ediff1d(a), lambda m, a: m.ediff1d(a[:, :1].T[0, :1]),
        lambda m, a: m.ediff1d(a, to_begin=a[0, :2], to_end=a[1]),
        lambda m, a: m.ediff1d(a, to_end=a[:2, :2]), lambda m, a: m.ediff1d(a, to_begin=2.5),
        lambda m, a: m.trim_zeros(a), lambda m, a: m.trim_zeros(a[:, 1], "b"),
        lambda m, a: m.trim_zeros(a * 0, axis=0), lambda m, a: m.trim_zeros(a, "x"),
    ]
    for check in checks:
        same_as_numpy(check, host, x)
    for check in (lambda m, v: m.vander(v), lambda m, v: m.vander(v, 3, increasing=True),
                  lambda m, v: m.vander(v[:0], 2), lambda m, v: m.vander(v, 0),
                  lambda m, v: m.vander(v, -1), lambda m, v: m.vander(v.reshape(2, 2))):
        same_as_numpy(check, small, ah.asarray(small))


def test_trim_zeros_matches_numpy() -> None:
    host = np.zeros((4, 6), np.int16)
    host[1, 2], host[2, 4] = 3, -1
    x = ah.asarray(host)
    for check in (lambda m, a: m.trim_zeros(a), lambda m, a: m.trim_zeros(a, "f", axis=1),
                  lambda m, a: m.trim_zeros(a, "B", axis=(0, -1)), lambda m, a: m.trim_zeros(a[1]),
                  lambda m, a: m.trim_zeros(a[0]), lambda m, a: m.trim_zeros(a, axis=2),
                  lambda m, a: m.trim_zeros(a[0, 0])):
        same_as_numpy(check, host, x)


def test_unwrap_matches_numpy() -> None:
    rng = np.random.default_rng(5)
    phase = np.cumsum(rng.normal(0, 2, (3, 20)), axis=1)
    wrapped = np.angle(np.exp(1j * phase))
    for host in (wrapped, wrapped.astype(np.float32), (phase * 10).astype(np.int64)):
        x = ah.asarray(host)
        for check in (lambda m, a: m.unwrap(a), lambda m, a: m.unwrap(a, axis=0),
                      lambda m, a: m.unwrap(a, discont=4.0), lambda m, a: m.unwrap(a, period=6),
                      lambda m, a: m.unwrap(a, period=7.5), lambda m, a: m.unwrap(a[0, :1])):
            same_as_numpy(check, host, x)
