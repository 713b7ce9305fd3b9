"""NumPy's file functions for arrayhub arrays (_files.py): files in NumPy's formats, readable
by NumPy, and loads that give arrayhub arrays; numpy.save(f, x) routes here."""

from __future__ import annotations

import io
import pathlib

import numpy as np
import pytest

import arrayhub as ah
from conftest import assert_matches

pytestmark = pytest.mark.requires_compute("Elementwise")


def test_save_and_load_npy(tmp_path: pathlib.Path) -> None:
    host = np.random.default_rng(1).normal(size=(3, 4)).astype(np.float32)
    x = ah.asarray(host)
    ah.save(tmp_path / "a.npy", x)
    np.testing.assert_array_equal(np.load(tmp_path / "a.npy"), host)
    np.save(tmp_path / "b.npy", x.T)  # through __array_function__
    np.testing.assert_array_equal(np.load(tmp_path / "b.npy"), host.T)
    loaded = ah.load(tmp_path / "b.npy")
    assert isinstance(loaded, ah.ndarray)
    assert_matches(loaded, host.T)
    buffer = io.BytesIO()
    ah.save(buffer, x)
    buffer.seek(0)
    assert_matches(ah.load(buffer), host)


def test_savez_and_load_npz(tmp_path: pathlib.Path) -> None:
    a, b = np.arange(6).reshape(2, 3), np.linspace(0, 1, 5)
    for save in (ah.savez, ah.savez_compressed, np.savez):
        path = tmp_path / f"{save.__name__}.npz"
        save(path, ah.asarray(a), b=ah.asarray(b))
        with np.load(path) as host:
            np.testing.assert_array_equal(host["arr_0"], a)
            np.testing.assert_array_equal(host["b"], b)
        with ah.load(path) as data:
            assert sorted(data.files) == sorted(data) == ["arr_0", "b"]
            assert len(data) == 2 and "b" in data
            assert_matches(data["arr_0"], a)
            assert_matches(data["b"], b)


def test_savetxt_loadtxt_genfromtxt(tmp_path: pathlib.Path) -> None:
    host = np.random.default_rng(2).normal(size=(4, 3))
    path = tmp_path / "a.txt"
    ah.savetxt(path, ah.asarray(host), delimiter=",")
    np.testing.assert_allclose(np.loadtxt(path, delimiter=","), host, rtol=1e-15)
    loaded = ah.loadtxt(path, delimiter=",")
    assert isinstance(loaded, ah.ndarray)
    assert_matches(loaded, np.loadtxt(path, delimiter=","))
    assert_matches(ah.genfromtxt(path, delimiter=","), np.genfromtxt(path, delimiter=","))
