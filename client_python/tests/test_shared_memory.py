"""The same-host path: a client on a loopback address uploads and downloads through a
shared-memory region registered with the daemon, with exactly the results of streaming, and
streams instead when the daemon or ARRAYHUB_SHARED_MEMORY rules the region out."""

from __future__ import annotations

import os
import pathlib
from typing import Any, Iterator

import numpy as np
import pytest

import arrayhub as ah
from arrayhub import _pipeline
from conftest import ALL_DTYPES, Daemon, random_values, start_daemon, stop_daemon


def _left_in_dev_shm() -> list[str]:
    """This process's objects still named in /dev/shm: the client removes each name as soon
    as the daemon has opened the object."""
    prefix = f"arrayhub-{os.getpid()}-"
    return [name for name in os.listdir("/dev/shm") if name.startswith(prefix)]


@pytest.fixture(scope="module", autouse=True)
def _no_inline_uploads() -> Iterator[None]:
    """The uploads here go through the region: none is queued in a Batch with its bytes, as a
    small one is by default (_pipeline.INLINE_UPLOAD_BYTES, read when a client connects)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_pipeline, "INLINE_UPLOAD_BYTES", 0)
        yield


def _upload(client: ah.Client, host: np.ndarray) -> ah.ndarray:
    with client.use():
        return ah.asarray(host)


@pytest.fixture
def streaming(daemon: Daemon, monkeypatch: pytest.MonkeyPatch) -> Iterator[ah.Client]:
    """A client of the same daemon that never uses shared memory."""
    monkeypatch.setenv("ARRAYHUB_SHARED_MEMORY", "0")
    with ah.connect(daemon.address) as connected:
        yield connected


@pytest.fixture
def fresh(daemon: Daemon) -> Iterator[ah.Client]:
    """A client of the session's daemon with a region of its own, made at its first transfer."""
    with ah.connect(daemon.address) as connected:
        yield connected


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 0, 2), (40, 50)], ids=str)
def test_round_trips_match_streaming_bit_for_bit(fresh: ah.Client, streaming: ah.Client,
                                                 dtype: np.dtype, shape: tuple[int, ...]) -> None:
    host = random_values(np.random.default_rng(3), dtype, shape)
    through_region = _upload(fresh, host)
    assert fresh.uses_shared_memory
    streamed = _upload(streaming, host)
    assert not streaming.uses_shared_memory
    for remote in (through_region, streamed):
        assert (remote.shape, remote.dtype) == (host.shape, host.dtype)
    back = through_region.get()
    assert back.dtype == host.dtype and back.shape == host.shape
    assert back.tobytes() == host.tobytes() == streamed.get().tobytes()


def test_layouts_byte_orders_and_growth(fresh: ah.Client) -> None:
    base = np.arange(24, dtype=np.float64).reshape(4, 6)
    np.testing.assert_array_equal(_upload(fresh, base[:, ::2].T).get(), base[:, ::2].T)
    big_endian = np.arange(5, dtype=">i4")
    back = _upload(fresh, big_endian).get()
    assert back.dtype == np.int32
    np.testing.assert_array_equal(back, big_endian)
    # Larger than the first 1 MiB region: a larger one replaces it.
    large = random_values(np.random.default_rng(4), np.dtype(np.complex128), (3 << 16,))
    assert large.nbytes == 3 << 20
    assert _upload(fresh, large).get().tobytes() == large.tobytes()
    assert fresh.uses_shared_memory
    assert _left_in_dev_shm() == []


@pytest.mark.requires_compute("Elementwise")
def test_results_and_views_download_through_the_region(fresh: ah.Client) -> None:
    host = np.arange(12, dtype=np.float32).reshape(3, 4)
    with fresh.use():
        remote = ah.asarray(host)
        np.testing.assert_array_equal((remote * 2).get(), host * 2)
        np.testing.assert_array_equal(remote.T.get(), host.T)
    assert fresh.uses_shared_memory


def test_closing_the_client_releases_its_region(daemon: Daemon) -> None:
    client = ah.connect(daemon.address)
    _upload(client, np.ones(3))
    assert client.uses_shared_memory
    client.close()
    assert not client.uses_shared_memory


def test_zero_in_the_environment_streams(streaming: ah.Client) -> None:
    host = np.linspace(0, 1, 100)
    np.testing.assert_array_equal(_upload(streaming, host).get(), host)
    assert not streaming.uses_shared_memory


@pytest.fixture(scope="module")
def switched_off(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    started = start_daemon(tmp_path_factory.mktemp("no-shm") / "arrayhubd.log",
                           "--shared-memory", "false")
    yield started
    stop_daemon(started)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_a_daemon_with_shared_memory_off_is_streamed_to(switched_off: Daemon,
                                                        dtype: np.dtype) -> None:
    host = random_values(np.random.default_rng(5), dtype, (6, 7))
    with ah.connect(switched_off.address) as client:
        first = _upload(client, host)  # Registration refused: streamed from now on.
        assert not client.uses_shared_memory
        assert first.get().tobytes() == host.tobytes()
        assert _upload(client, host).get().tobytes() == host.tobytes()
        assert not client.uses_shared_memory
    assert _left_in_dev_shm() == []


def _field(number: int, value: bytes) -> bytes:
    """A length-delimited protobuf field (short values only)."""
    return bytes([number << 3 | 2, len(value)]) + value


def _refusal(client: ah.Client, request: Any) -> str:
    with pytest.raises(PermissionError) as refused:
        client._rpc("RegisterSharedMemory", request)
    return str(refused.value)


def test_objects_are_proved_by_descriptor_and_every_refusal_looks_the_same(
        fresh: ah.Client) -> None:
    from arrayhub import _descriptor_socket
    from arrayhub.v1 import arrays_pb2
    _upload(fresh, np.ones(2))  # fresh has a region: the path works here.
    # The old attack: another process's /dev/shm object, named, with the 32 zero bytes every
    # fresh object starts with as its "key" (fields 2 and 4 of the old request).
    name = f"arrayhub-test-{os.getpid()}-victim"
    victim = pathlib.Path("/dev/shm") / name
    victim.write_bytes(bytes(4096))
    try:
        old = arrays_pb2.RegisterSharedMemoryRequest.FromString(
            _field(1, b"stolen") + _field(2, b"/" + name.encode()) + bytes([3 << 3, 0x80, 0x20])
            + _field(4, bytes(32)))
        assert old.byte_size == 4096
        messages = [_refusal(fresh, old)]
        # A made-up ticket, and the victim's own descriptor handed over: refused alike.
        messages.append(_refusal(fresh, arrays_pb2.RegisterSharedMemoryRequest(
            region_name="stolen", byte_size=4096, descriptor_ticket="0" * 32)))
        socket_path = fresh.server_info().shared_memory_socket
        fd = os.open(victim, os.O_RDWR)
        try:
            reply, _ = _descriptor_socket.ask(socket_path, "REGION", fd)
        finally:
            os.close(fd)
        assert reply.startswith("OK ")
        messages.append(_refusal(fresh, arrays_pb2.RegisterSharedMemoryRequest(
            region_name="stolen", byte_size=4096, descriptor_ticket=reply[3:])))
    finally:
        victim.unlink()
    assert "descriptor_ticket refused" in messages[0]
    assert messages == [messages[0]] * len(messages)
