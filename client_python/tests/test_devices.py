"""Several devices in one daemon (`arrayhubd --cpu-devices 2`; with ARRAYHUB_TEST_BACKEND=cuda
the GPUs of the machine, two of them at least): placement under
``arrayhub.cuda.Device`` blocks and ``device=``, ``x.device`` without a round trip,
``to_device`` and CopyToDevice, the cross-device error, pipelined Batches split where the
device changes, and the device of a session."""

from __future__ import annotations

import re
import threading
from typing import Any, Iterator

import numpy as np
import pytest

import arrayhub as ah
from arrayhub import _client, cuda
from conftest import BACKEND, Daemon, start_daemon, stop_daemon

#: What the daemon calls its devices: the CPU backend's virtual ones, or the GPUs.
KIND = "cuda" if BACKEND == "cuda" else "cpu"

INVALID_DEVICE = "cudaErrorInvalidDevice: invalid device ordinal"


@pytest.fixture(scope="module")
def two_devices(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    started = start_daemon(tmp_path_factory.mktemp("arrayhubd-devices") / "arrayhubd.log",
                           "--cpu-devices", "2")
    yield started
    stop_daemon(started)


@pytest.fixture(autouse=True)
def _no_device_chosen() -> Iterator[None]:
    """Each test starts as a new thread does, with no current device chosen (an earlier
    test's ``Device(i).use()`` stays in this thread otherwise), and leaves none."""
    token = _client.current_device.set(None)
    yield
    _client.current_device.reset(token)


@pytest.fixture
def two(two_devices: Daemon) -> Iterator[ah.Client]:
    """A session on device 0 of the two-device daemon, current inside the test."""
    with ah.connect(two_devices.address, device=0) as connected, connected.use():
        if len(connected.server_info().devices) < 2:
            pytest.skip("the CUDA daemon sees one GPU")
        yield connected


def _sent_batches(client: ah.Client, monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, Any]]:
    """The BatchRequests the client's pipeline sends from now on, as (op count, device or
    None)."""
    batches: list[tuple[int, Any]] = []
    call = client._pipeline._call

    def recording(request: Any, waited: bool = False) -> Any:
        batches.append((len(request.ops), request.device if request.HasField("device") else None))
        return call(request, waited)
    monkeypatch.setattr(client._pipeline, "_call", recording)
    return batches


def _on(array: ah.ndarray, index: int) -> None:
    """``array`` lies on device ``index``: as the client knows it, and as the server says."""
    assert array.device == cuda.Device(index)
    array.client.synchronize()
    assert array._info.device_index == index and array._info.device == f"{KIND}:{index}"


def test_the_servers_devices(two: ah.Client) -> None:
    devices = two.server_info().devices
    count = len(devices)  # 2 on the CPU backend; every GPU of the machine on CUDA.
    assert [d.name for d in devices][:2] == [f"{KIND}:0", f"{KIND}:1"]
    assert cuda.runtime.getDeviceCount() == count and two.device == 0
    assert [d.id for d in ah.__array_namespace_info__().devices()] == list(range(count))
    assert cuda.Device().id == cuda.runtime.getDevice() == 0
    missing = cuda.Device(count)  # Making one checks nothing, as in CuPy; using it raises.
    for call in (missing.__enter__, missing.use, lambda: cuda.runtime.setDevice(count)):
        with pytest.raises(cuda.runtime.CUDARuntimeError, match=f"^{INVALID_DEVICE}$"):
            call()
    assert cuda.Device().id == 0
    with pytest.raises(ValueError, match=f"the server has {count} device"):
        ah.zeros(3, device=count)


def test_arrays_go_to_the_current_device(two: ah.Client) -> None:
    x0 = ah.arange(4.0)
    with cuda.Device(1) as one:
        assert cuda.Device() == one and cuda.runtime.getDevice() == 1
        x1 = ah.arange(4.0)
        y1 = x1 * 2 + 1
        uploaded = ah.asarray([1, 2, 3])
        # Known at once: a queued result's device is its call's.
        assert y1.device == one and (ah.is_sync() or y1._batch is not None)
        with cuda.Device(0):
            assert (x0 + 1).device.id == 0
            view = x1[1:]  # A view lies on its base's device, whatever the call's.
            assert view.device == one
        assert cuda.Device().id == 1
    assert cuda.Device().id == 0
    for array, index in ((x0, 0), (x1, 1), (y1, 1), (uploaded, 1), (view, 1)):
        _on(array, index)
    np.testing.assert_array_equal(y1.get(), np.arange(4.0) * 2 + 1)
    np.testing.assert_array_equal(view.get(), [1.0, 2.0, 3.0])
    cuda.Device(1).use()  # Until changed (the fixture resets it).
    _on(ah.ones(2), 1)
    assert cuda.Device().id == 1


def test_the_current_device_is_per_thread(two: ah.Client) -> None:
    seen: list[int] = []
    with cuda.Device(1):
        worker = threading.Thread(target=lambda: seen.append(cuda.runtime.getDevice()))
        worker.start()
        worker.join()
    assert seen == [0]  # The session's device: the other thread chose none.


def test_to_device_round_trip(two: ah.Client) -> None:
    host = np.arange(12, dtype=np.int32).reshape(3, 4)
    x = ah.asarray(host)
    moved = x.to_device(1)
    assert moved is not x and moved.device.id == 1
    back = moved.T.to_device(cuda.Device(0))  # A strided source: a C-contiguous copy.
    assert back.flags.c_contiguous and back.device.id == 0
    assert x.to_device(0) is x and moved.to_device(1) is moved
    np.testing.assert_array_equal(moved.get(), host)
    np.testing.assert_array_equal(back.get(), host.T)
    _on(moved, 1)
    count = cuda.runtime.getDeviceCount()
    with pytest.raises(ValueError, match=f"the server has {count} device"):
        x.to_device(count + 3)
    with pytest.raises(ValueError, match="arrayhub.cuda.Device or its id"):
        x.to_device("cuda:1")


def test_an_op_across_devices_fails_naming_both(two: ah.Client) -> None:
    x0 = ah.arange(3.0)
    with cuda.Device(1):
        x1 = ah.arange(3.0)
    with pytest.raises(ah.ArrayHubValueError) as caught:
        (x0 + x1).get()
    message = str(caught.value)
    assert re.search(rf"\b0\b|{KIND}:0", message), message
    assert re.search(rf"\b1\b|{KIND}:1", message), message
    assert "device" in message
    # Explicit copies make it work, and the failure left the session usable.
    np.testing.assert_array_equal((x0 + x1.to_device(0)).get(), [0.0, 2.0, 4.0])


def test_device_keyword_places_new_arrays(two: ah.Client) -> None:
    one = cuda.Device(1)
    made = [ah.zeros(3, device=1), ah.ones(3, device=one), ah.full(2, 1.5, device=1),
            ah.arange(3, device=1), ah.linspace(0, 1, 3, device=1), ah.eye(2, device=1),
            ah.empty(2, device=1), ah.zeros_like(ah.zeros(2), device=1),
            ah.asarray([1, 2], device=1), ah.array(np.ones(2), device=one)]
    for array in made:
        _on(array, 1)
    np.testing.assert_array_equal(made[3].get(), [0, 1, 2])
    assert cuda.Device().id == 0  # device= leaves the current device as it was.
    x0 = ah.arange(3)
    copied = ah.asarray(x0, device=1)
    assert copied is not x0 and copied.device.id == 1
    np.testing.assert_array_equal(copied.get(), [0, 1, 2])
    assert ah.asarray(copied, device=1) is copied
    cast = ah.astype(x0, np.float32, device=1)
    assert cast.dtype == np.float32 and cast.device.id == 1
    with pytest.raises(ValueError, match="Unable to avoid copy"):
        ah.asarray(x0, device=1, copy=False)
    with cuda.Device(1):
        # CuPy: asarray of another device's array copies it to the current one.
        here = ah.asarray(x0)
        assert here is not x0 and here.device.id == 1
        assert ah.asarray(here) is here
        assert x0.copy().device.id == 1  # CuPy's copy goes to the current device too.
        widened = ah.array(x0, dtype=np.float64)
        assert widened.device.id == 1
    np.testing.assert_array_equal(here.get(), [0, 1, 2])
    np.testing.assert_array_equal(widened.get(), [0.0, 1.0, 2.0])


def test_pipelined_batches_split_where_the_device_changes(
        two: ah.Client, monkeypatch: pytest.MonkeyPatch) -> None:
    sent = _sent_batches(two, monkeypatch)
    a = ah.arange(3)
    with cuda.Device(1):
        b = ah.arange(3)
        c = b + 10
    d = a * 2
    with cuda.Device(1):
        e = c + 1
    two.synchronize()
    for array, index in ((a, 0), (b, 1), (c, 1), (d, 0), (e, 1)):
        _on(array, index)
    np.testing.assert_array_equal(e.get(), [11, 12, 13])
    if not ah.is_sync():
        # A batch carries `device` only when it is not the session's.
        assert {device for _, device in sent} == {None, 1}
        assert sum(ops for ops, device in sent if device == 1) == 3


def test_threads_on_different_devices_share_a_session(two: ah.Client) -> None:
    results: dict[int, list[ah.ndarray]] = {0: [], 1: []}
    barrier = threading.Barrier(4)

    def work(index: int) -> None:
        with two.use(), cuda.Device(index):
            barrier.wait()
            x = ah.arange(8)
            for _ in range(40):
                x = x + 1
            results[index].append(x)

    threads = [threading.Thread(target=work, args=(i % 2,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for index, arrays in results.items():
        assert len(arrays) == 2
        for array in arrays:
            _on(array, index)
            np.testing.assert_array_equal(array.get(), np.arange(8) + 40)


def test_a_batch_block_runs_on_one_device(two: ah.Client) -> None:
    with cuda.Device(1):
        with ah.batch():
            x = ah.arange(4) * 3
        assert x.device.id == 1
    _on(x, 1)
    with pytest.raises(ah.ArrayHubBatchError, match="runs on one device"):
        with ah.batch():
            with cuda.Device(1):
                ah.arange(4)


def test_sessions_have_a_device(two_devices: Daemon, two: ah.Client) -> None:
    with ah.connect(two_devices.address, device=1) as other, other.use():
        assert other.device == 1 and cuda.Device().id == 1
        _on(ah.arange(3), 1)
        with cuda.Device(0):
            _on(ah.arange(3), 0)  # The call names device 0: x-arrayhub-device.
    with cuda.Device(1):
        with ah.session() as scoped:  # A session opened here is on the current device.
            assert scoped.device == 1
            _on(ah.zeros(2), 1)
    infos = two.server_info().devices
    assert all(info.sessions >= 0 and info.bytes_in_use >= 0 for info in infos)


def test_unary_calls_carry_the_device(two: ah.Client, sync_mode: None) -> None:
    with cuda.Device(1):
        z = ah.zeros(3)
        total = (z + 2).sum()
        split = ah.split(ah.arange(4), 2)  # Never batched: a unary ArrayOp call.
    _on(z, 1)
    assert float(total) == 6.0 and total.device.id == 1
    assert [part.device.id for part in split] == [1, 1]
    moved = z.to_device(0)  # The CopyToDevice RPC.
    _on(moved, 0)


def test_one_device_sends_no_device(client: ah.Client, monkeypatch: pytest.MonkeyPatch) -> None:
    sent = _sent_batches(client, monkeypatch)
    x = ah.arange(5) * 2
    client.synchronize()
    assert x.device.id == 0 and client.device == 0
    assert all(device is None for _, device in sent)
    assert client._call_metadata() is client._metadata
