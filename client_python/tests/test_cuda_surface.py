"""CuPy's module surface over a remote server: arrayhub.cuda (Device, Stream, Event, runtime,
memory pools), get_array_module, from_dlpack and arrayhub.profiler.benchmark."""

from __future__ import annotations

import gc
import mmap
import re
import threading
import time
from typing import Iterator

import numpy as np
import pytest

import arrayhub as ah
from arrayhub import cuda
from conftest import Daemon

INVALID_DEVICE = "cudaErrorInvalidDevice: invalid device ordinal"
INVALID_HANDLE = "cudaErrorInvalidResourceHandle: invalid resource handle"


@pytest.fixture
def fresh(daemon: Daemon) -> Iterator[ah.Client]:
    """A client of its own, current inside the test: its session's memory is the test's."""
    with ah.connect(daemon.address) as connected, connected.use():
        yield connected


def test_runtime_reports_the_servers_devices(client: ah.Client) -> None:
    devices = client.server_info().devices
    assert cuda.runtime.getDeviceCount() == len(devices) >= 1
    props = cuda.runtime.getDeviceProperties(0)
    assert props["totalGlobalMem"] == devices[0].total_memory_bytes > 0
    assert isinstance(props["name"], bytes) and props["name"]
    assert b"compute capability" not in props["name"]
    free, total = cuda.runtime.memGetInfo()
    assert total == devices[0].total_memory_bytes and 0 <= free <= total
    assert cuda.runtime.getDevice() == cuda.get_device_id() == 0


def test_device_is_cupys(client: ah.Client) -> None:
    assert cuda.Device().id == 0
    device = cuda.Device(0)
    assert cuda.Device(device) == device and cuda.Device(np.int64(0)) == device
    assert repr(device) == str(device) == "<CUDA Device 0>"
    assert int(device) == 0 and hash(device) == hash(cuda.Device(0))
    assert device != 0 and device != "cpu" and cuda.Device(0) < cuda.Device(1)
    assert device.use() is device
    description = client.server_info().devices[0].description
    capability = re.search(r"compute capability (\d+)\.(\d+)", description)
    assert device.compute_capability == ("".join(capability.groups()) if capability else "")
    free, total = device.mem_info
    assert 0 <= free <= total
    x = ah.arange(4) * 2
    device.synchronize()
    assert x.device == device and repr(x.device) == "<CUDA Device 0>"
    with device as entered:
        assert entered is device and ah.asarray([1, 2]).device == device


def test_a_device_the_server_lacks_raises_cupys_error(client: ah.Client) -> None:
    missing = cuda.Device(cuda.runtime.getDeviceCount())  # Making one checks nothing: CuPy.
    for call in (missing.__enter__, missing.use, missing.synchronize,
                 lambda: missing.mem_info, lambda: missing.compute_capability,
                 lambda: cuda.runtime.getDeviceProperties(missing.id),
                 lambda: cuda.runtime.setDevice(-1)):
        with pytest.raises(cuda.runtime.CUDARuntimeError, match=f"^{INVALID_DEVICE}$") as caught:
            call()
        assert caught.value.status == 101 and isinstance(caught.value, RuntimeError)
    assert cuda.runtime.getDevice() == 0  # A failed call changes nothing.


def test_device_blocks_nest_and_restore_on_errors(client: ah.Client) -> None:
    with cuda.Device(0):
        with pytest.raises(cuda.runtime.CUDARuntimeError):
            with cuda.Device(99):
                pass
        with pytest.raises(KeyError):
            with cuda.Device(0):
                raise KeyError
        assert cuda.Device().id == 0
    # The current device is per thread, as CUDA's: another thread starts at 0.
    seen: list[int] = []
    worker = threading.Thread(target=lambda: seen.append(cuda.runtime.getDevice()))
    worker.start()
    worker.join()
    assert seen == [0]


def test_one_device_and_stream_entered_in_many_threads(client: ah.Client) -> None:
    device, shared = cuda.Device(0), cuda.Stream()
    barrier = threading.Barrier(8)
    failures: list[BaseException] = []

    def enter() -> None:
        own = cuda.Stream()
        try:
            with own:
                barrier.wait()  # Every thread inside its own stream, then all in `shared`.
                for _ in range(200):
                    with device, shared:
                        time.sleep(0.0001)  # Lets the other threads enter meanwhile.
                        assert cuda.get_current_stream() is shared and cuda.Device() == device
                    # Left for the stream this thread was in, not another thread's.
                    assert cuda.get_current_stream() is own
            assert cuda.get_current_stream() is cuda.Stream.null
        except BaseException as error:  # Reported by the main thread.
            failures.append(error)

    threads = [threading.Thread(target=enter) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures


def test_streams_are_the_sessions_order(client: ah.Client) -> None:
    assert cuda.Stream.null is cuda.Stream.null and cuda.Stream.null.is_null
    assert cuda.get_current_stream() is cuda.Stream.null
    stream = cuda.Stream(non_blocking=True)
    assert not stream.is_null
    with stream as entered:
        assert entered is stream and cuda.get_current_stream() is stream
        with cuda.Stream.null:
            assert cuda.get_current_stream() is cuda.Stream.null
        x = ah.arange(1000.0)
        y = (x * 2).sum()
        event = stream.record()
        stream.wait_event(event)
        stream.synchronize()
        assert stream.done and event.done
    assert cuda.get_current_stream() is cuda.Stream.null
    assert float(y) == 999000.0
    cuda.Stream.null.synchronize()


def _record_and_wait() -> None:
    event = cuda.Event()
    event.record()
    event.synchronize()


def test_synchronize_raises_a_queued_ops_error(client: ah.Client) -> None:
    for wait in (cuda.Stream.null.synchronize, _record_and_wait, cuda.Device(0).synchronize):
        with pytest.raises(ah.ArrayHubLinAlgError, match="Singular matrix"):
            ah.linalg.inv(ah.zeros((2, 2)))  # Fails on the server (at once with set_sync).
            wait()


def test_events_time_the_sessions_work(client: ah.Client) -> None:
    start, end = cuda.Event(), cuda.Event()
    with pytest.raises(cuda.runtime.CUDARuntimeError, match=f"^{INVALID_HANDLE}$") as caught:
        cuda.get_elapsed_time(start, end)  # Neither is recorded.
    assert caught.value.status == 400
    before = time.perf_counter()
    start.record()
    x = ah.arange(100_000.0)
    total = (x * x).sum()
    end.record(cuda.Stream.null)
    end.synchronize()
    after = time.perf_counter()
    assert start.done and end.done
    elapsed = cuda.get_elapsed_time(start, end)  # The server's, inside the host's.
    assert 0 < elapsed <= (after - before) * 1e3
    assert float(total) == float((np.arange(100_000.0) ** 2).sum())
    untimed = cuda.Event(disable_timing=True)
    untimed.record()
    with pytest.raises(cuda.runtime.CUDARuntimeError, match=f"^{INVALID_HANDLE}$"):
        cuda.get_elapsed_time(start, untimed)


def test_memory_pool_reports_the_sessions_and_tenants_memory(fresh: ah.Client) -> None:
    pool = ah.get_default_memory_pool()
    assert pool is cuda.get_default_memory_pool() and pool.used_bytes() == 0
    x = ah.zeros((100, 10))  # 8000 bytes.
    view = x[::2]  # Shares x's memory.
    y = ah.arange(10, dtype=np.int32)
    assert pool.used_bytes() == 8000 + 40
    assert pool.total_bytes() == fresh.server_info().tenant_bytes_in_use >= 8040
    del x, view
    gc.collect()
    pool.free_all_blocks()  # Sends the held-back frees now.
    assert pool.used_bytes() == 40
    del y


def test_pinned_memory_pool_counts_the_sessions_pinned_arrays(fresh: ah.Client) -> None:
    pool = ah.get_default_pinned_memory_pool()
    assert pool is cuda.get_default_pinned_memory_pool()
    assert (pool.used_bytes(), pool.total_bytes()) == (0, 0)
    host = ah.empty_pinned((1000,), np.float64)  # 8000 bytes: two pages.
    if fresh._shared_memory is None or fresh._shared_memory.locate(host) is None:
        pytest.skip("this client cannot use shared memory with the daemon")
    size = -(-8000 // mmap.PAGESIZE) * mmap.PAGESIZE
    assert (pool.used_bytes(), pool.total_bytes()) == (size, size)
    del host
    gc.collect()
    assert (pool.used_bytes(), pool.total_bytes()) == (0, size)  # Collected, not unregistered.
    pool.free_all_blocks()
    assert (pool.used_bytes(), pool.total_bytes()) == (0, 0)


def test_get_array_module(client: ah.Client) -> None:
    x = ah.arange(3)
    assert ah.get_array_module(x) is ah
    assert ah.get_array_module(np.ones(2), 3, x) is ah
    assert ah.get_array_module(np.ones(2), 3.0, [x]) is np  # As CuPy: lists are not looked in.
    assert ah.get_array_module() is np


@pytest.mark.parametrize("dtype", [np.bool_, np.int16, np.uint32, np.float32, np.complex128],
                         ids=str)
def test_from_dlpack(client: ah.Client, dtype: type) -> None:
    host = (np.arange(12) % 3).astype(dtype).reshape(3, 4)
    x = ah.from_dlpack(host)
    assert isinstance(x, ah.ndarray) and x.dtype == host.dtype
    np.testing.assert_array_equal(x.get(), host)
    assert ah.from_dlpack(x) is x
    with pytest.raises(AttributeError):
        ah.from_dlpack([1, 2])  # No __dlpack__: NumPy's error.


def test_benchmark_is_cupyx_profilers(client: ah.Client) -> None:
    calls = []

    def f(a: ah.ndarray, b: ah.ndarray, *, scale: float) -> ah.ndarray:
        calls.append(1)
        return 3 * ah.sin(-a) * b * scale

    a, b = ah.arange(100.0), ah.ones(100)
    result = ah.profiler.benchmark(f, (a, b), {"scale": 2.0}, n_repeat=4, n_warmup=2)
    assert len(calls) == 6
    assert result.name == "f" and result.cpu_times.shape == (4,)
    assert result.gpu_times.shape == (1, 4)
    assert (result.cpu_times >= 0).all() and (result.gpu_times >= 0).all()
    number = r"\s*\d+\.\d{3}"
    stats = rf" us   \+/- {number} \(min: {number} / max: {number}\) us"
    assert re.fullmatch(rf"f {{19}}:    CPU: {number}{stats}     GPU-0: {number}{stats}",
                        str(result)), str(result)
    assert repr(result) == str(result)
    assert "GPU-0" not in result.to_str()
    once = ah.profiler.benchmark(f, (a, b), {"scale": 1.0}, n_repeat=5, n_warmup=0,
                                 name="once", max_duration=0)
    assert once.cpu_times.shape == (1,) and "+/-" not in str(once)
    for kwargs, message in [({"args": [a, b]}, "`args` should be of tuple type."),
                            ({"kwargs": [1]}, "`kwargs` should be of dict type."),
                            ({"n_repeat": 2.0}, "`n_repeat` should be an integer."),
                            ({"n_warmup": None}, "`n_warmup` should be an integer."),
                            ({"name": 3}, "`name` should be a string."),
                            ({"devices": [0]}, "`devices` should be of tuple type")]:
        with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
            ah.profiler.benchmark(f, **kwargs)
    with pytest.raises(ValueError, match="^`func` should be a callable object.$"):
        ah.profiler.benchmark(3, name="x")
    with pytest.raises(cuda.runtime.CUDARuntimeError, match=INVALID_DEVICE):
        ah.profiler.benchmark(f, (a, b), {"scale": 1.0}, n_repeat=1, devices=(5,))


def _power_iteration(matrix: object, steps: int) -> tuple[object, float]:
    """The dominant eigenvector and eigenvalue of a symmetric matrix, written once for NumPy
    and CuPy-style arrays (``xp`` is the array's module)."""
    xp = ah.get_array_module(matrix)
    vector = xp.ones(matrix.shape[0]) / matrix.shape[0] ** 0.5
    for _ in range(steps):
        vector = matrix @ vector
        vector = vector / xp.sqrt((vector * vector).sum())
    return vector, float(vector @ (matrix @ vector))


def test_a_cupy_style_program(fresh: ah.Client) -> None:
    rng = np.random.default_rng(7)
    base = rng.standard_normal((64, 64))
    host = base @ base.T
    expected_vector, expected_value = _power_iteration(host, 30)
    assert ah.cuda.runtime.getDeviceCount() >= 1
    pool = ah.get_default_memory_pool()
    with ah.cuda.Device(0) as device:
        matrix = ah.asarray(host)
        assert matrix.device == device
        stream = ah.cuda.Stream()
        start, end = ah.cuda.Event(), ah.cuda.Event()
        with stream:
            start.record(stream)
            vector, value = _power_iteration(matrix, 30)
            end.record(stream)
        stream.synchronize()
        end.synchronize()
        assert ah.cuda.get_elapsed_time(start, end) >= 0
        assert pool.used_bytes() >= matrix.nbytes + vector.nbytes
    np.testing.assert_allclose(ah.asnumpy(vector), expected_vector, rtol=1e-9, atol=1e-12)
    assert value == pytest.approx(expected_value, rel=1e-12)
    del matrix, vector
    pool.free_all_blocks()
    assert pool.used_bytes() == 0
