"""Pinned host arrays (arrayhub.empty_pinned and friends): NumPy arrays in memory registered
with the server, which uploads from and downloads into them, or any contiguous part of them,
with no copy in the client; ordinary NumPy arrays where the server cannot use shared memory."""

from __future__ import annotations

import gc
import pathlib
from typing import Iterator

import numpy as np
import pytest

import arrayhub as ah
from conftest import ALL_DTYPES, Daemon, random_values, start_daemon, stop_daemon


@pytest.fixture
def fresh(daemon: Daemon) -> Iterator[ah.Client]:
    """A client of the session's daemon of its own, current inside the test."""
    with ah.connect(daemon.address) as connected, connected.use():
        yield connected


def _is_pinned(client: ah.Client, host: np.ndarray) -> bool:
    return client._shared_memory is not None and client._shared_memory.locate(host) is not None


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 0, 2), (40, 50)], ids=str)
def test_round_trips_through_pinned_arrays(fresh: ah.Client, dtype: np.dtype,
                                           shape: tuple[int, ...]) -> None:
    expected = random_values(np.random.default_rng(21), dtype, shape)
    host = ah.empty_pinned(shape, dtype)
    assert type(host) is np.ndarray and (host.shape, host.dtype) == (shape, dtype)
    assert _is_pinned(fresh, host)
    host[...] = expected
    remote = ah.asarray(host)
    back = ah.zeros_pinned(shape, dtype)
    assert remote.get(out=back) is back
    assert back.tobytes() == expected.tobytes()
    # Nothing went through the session's transfer region: it was never made.
    assert not fresh.uses_shared_memory
    assert remote.get().tobytes() == expected.tobytes()


def test_parts_of_a_pinned_array(fresh: ah.Client) -> None:
    rng = np.random.default_rng(22)
    host = ah.empty_pinned((64, 33), np.float32)
    host[...] = rng.standard_normal(host.shape)
    part = host[5:9]  # Contiguous, at an offset.
    assert _is_pinned(fresh, part)
    from_part, from_flat = ah.asarray(part), ah.array(host.ravel()[7:100])
    assert not fresh.uses_shared_memory  # The session's transfer region was never needed.
    np.testing.assert_array_equal(from_part.get(), host[5:9])
    np.testing.assert_array_equal(from_flat.get(), host.ravel()[7:100])
    # A strided view is no contiguous part: it is copied as any other array is.
    assert not _is_pinned(fresh, host[:, 1])
    np.testing.assert_array_equal(ah.asarray(host[:, 1]).get(), host[:, 1])

    into = ah.zeros_pinned((10, 33), np.float32)
    ah.asarray(host[:3]).get(out=into[2:5])
    np.testing.assert_array_equal(into[2:5], host[:3])
    assert not into[:2].any() and not into[5:].any()
    # set() writes an existing array from a pinned array.
    remote = ah.asarray(host[:3])
    remote.set(host[10:13])
    np.testing.assert_array_equal(remote.get(), host[10:13])


def test_downloads_into_out_of_any_kind(fresh: ah.Client) -> None:
    expected = np.random.default_rng(23).standard_normal((6, 5))
    remote = ah.asarray(expected)
    ordinary = np.empty((6, 5))
    assert remote.get(out=ordinary) is ordinary
    np.testing.assert_array_equal(ordinary, expected)
    transposed = np.empty((5, 6)).T  # Not C-contiguous.
    remote.get(out=transposed)
    np.testing.assert_array_equal(transposed, expected)
    assert ah.asnumpy(remote, out=ordinary) is ordinary
    np.testing.assert_array_equal(ordinary, expected)


def test_bad_out_arguments_are_refused(fresh: ah.Client) -> None:
    remote = ah.asarray(np.random.default_rng(24).standard_normal(8).astype(np.float32))
    with pytest.raises(TypeError, match="float64 array cannot be obtained from float32 array"):
        remote.get(out=ah.empty_pinned(8, np.float64))
    with pytest.raises(ValueError, match=r"Shape mismatch. Expected shape: \(8,\), actual"):
        remote.get(out=ah.empty_pinned(9, np.float32))
    with pytest.raises(TypeError, match="out must be a numpy.ndarray, got list"):
        remote.get(out=[0.0] * 8)
    read_only = ah.empty_pinned(8, np.float32)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="out is read-only"):
        remote.get(out=read_only)
    # The server checks the dtype and shape of set() through a pinned array too.
    with pytest.raises(TypeError, match="dtype float64 does not match array"):
        remote.set(ah.empty_pinned(8, np.float64))
    with pytest.raises(ValueError, match=r"shape \(4,\) does not match array"):
        remote.set(ah.empty_pinned(4, np.float32))


def test_order_like_and_errors(fresh: ah.Client) -> None:
    fortran = ah.zeros_pinned((3, 4), np.int32, order="F")
    assert fortran.flags.f_contiguous and not fortran.any()
    fortran[...] = np.arange(12).reshape(3, 4)
    np.testing.assert_array_equal(ah.asarray(fortran).get(), fortran)  # Copied: not C order.
    like = ah.empty_like_pinned(ah.asarray(fortran))
    assert (like.shape, like.dtype) == ((3, 4), np.int32) and _is_pinned(fresh, like)
    assert not ah.zeros_like_pinned(fortran, dtype=np.float16, shape=5).any()
    with pytest.raises(ValueError, match="order must be 'C' or 'F'"):
        ah.empty_pinned(3, order="K")


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    started = start_daemon(tmp_path_factory.mktemp("limited") / "arrayhubd.log",
                           "--max-shared-memory-regions", "2",
                           "--max-shared-memory-bytes", str(1 << 20))
    yield started
    stop_daemon(started)


def test_regions_are_released_when_the_arrays_die(limited: Daemon) -> None:
    with ah.connect(limited.address) as client, client.use():
        first = ah.empty_pinned(100, np.float32)
        view = first[10:20]  # Keeps the memory, and so the region, alive.
        second = ah.empty_pinned(100, np.float32)
        with pytest.raises(ah.ArrayHubMemoryError, match="--max-shared-memory-regions 2"):
            ah.empty_pinned(100, np.float32)
        del first
        gc.collect()
        with pytest.raises(ah.ArrayHubMemoryError, match="--max-shared-memory-regions 2"):
            ah.empty_pinned(100, np.float32)
        view[...] = np.random.default_rng(25).standard_normal(10)
        np.testing.assert_array_equal(ah.asarray(view).get(), view)
        del view, second
        gc.collect()
        # Both regions are unregistered before the next one is registered.
        third, fourth = ah.empty_pinned(100, np.float32), ah.empty_pinned(100, np.float32)
        assert _is_pinned(client, third) and _is_pinned(client, fourth)
        with pytest.raises(ah.ArrayHubMemoryError, match="--max-shared-memory-bytes"):
            ah.empty_pinned((1 << 20) + 1, np.uint8)  # Rounded up to pages, over the limit.


def test_a_pinned_array_outlives_its_session(fresh: ah.Client, daemon: Daemon) -> None:
    host = ah.empty_pinned(10, np.float64)
    host[...] = np.random.default_rng(26).standard_normal(10)
    fresh.close()
    host[0] = 1.5  # Still mapped here; the server let go of it with the session.
    with ah.connect(daemon.address) as other, other.use():
        assert not _is_pinned(other, host)
        np.testing.assert_array_equal(ah.asarray(host).get(), host)  # Copied, as any array.


def test_zero_in_the_environment_gives_ordinary_arrays(daemon: Daemon,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARRAYHUB_SHARED_MEMORY", "0")
    with ah.connect(daemon.address) as client, client.use():
        host = ah.zeros_pinned((4, 5), np.float32)
        assert type(host) is np.ndarray and not host.any() and host.base is None
        host[...] = np.random.default_rng(27).standard_normal(host.shape)
        back = ah.empty_pinned((4, 5), np.float32)
        ah.asarray(host).get(out=back)
        np.testing.assert_array_equal(back, host)
        assert not client.uses_shared_memory


def test_a_daemon_with_shared_memory_off_gives_ordinary_arrays(
        tmp_path: pathlib.Path) -> None:
    switched_off = start_daemon(tmp_path / "arrayhubd.log", "--shared-memory", "false")
    try:
        with ah.connect(switched_off.address) as client, client.use():
            host = ah.empty_pinned(6, np.int64)
            assert host.base is None
            host[...] = np.random.default_rng(28).integers(-99, 99, 6)
            np.testing.assert_array_equal(ah.asarray(host).get(), host)
    finally:
        stop_daemon(switched_off)
