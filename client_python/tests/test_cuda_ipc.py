"""CUDA IPC: __cuda_array_interface__ and DLPack map a server's device arrays in place.

Against a CPU daemon (CI) the interfaces are absent or refuse with BufferError. Against a CUDA
daemon (ARRAYHUB_TEST_BACKEND=cuda on the GPU machine) CuPy maps the arrays: this process is
not the daemon's, so these are real cross-process imports.
"""

from __future__ import annotations

import gc
import subprocess
import sys
import textwrap
import time

import grpc
import numpy as np
import pytest

import arrayhub as ah
from arrayhub.v1 import arrays_pb2
from conftest import BACKEND, random_values

on_cuda = pytest.mark.skipif(BACKEND != "cuda", reason="needs a CUDA daemon")


def test_a_cpu_server_has_no_device_memory_to_map(client: ah.Client) -> None:
    if BACKEND == "cuda":
        pytest.skip("the CUDA daemon exports")
    a = ah.arange(6, dtype=np.float32)
    assert not hasattr(a, "__cuda_array_interface__")
    # DLPack gets a host copy instead (test_array_api.py); nothing maps the server's memory.
    with pytest.raises(BufferError, match="lives on a cpu server"):
        a.__dlpack__(copy=False)
    assert a.__dlpack_device__() == (1, 0)
    with pytest.raises(grpc.RpcError) as raised:
        client._raw_rpc("ExportIpc", arrays_pb2.ExportIpcRequest(handle=a.handle))
    assert raised.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "needs the CUDA backend" in raised.value.details()


def test_releasing_an_unknown_lease_is_not_found(client: ah.Client) -> None:
    with pytest.raises(grpc.RpcError) as raised:
        client._raw_rpc("ReleaseIpc", arrays_pb2.ReleaseIpcRequest(lease="0" * 32))
    assert raised.value.code() == grpc.StatusCode.NOT_FOUND


cp = pytest.importorskip("cupy") if BACKEND == "cuda" else None

DTYPES = [np.float32, np.float64, np.int32, np.uint8, np.complex64, np.bool_, np.float16]


@on_cuda
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_cupy_reads_the_array_in_place(client: ah.Client, dtype: type) -> None:
    rng = np.random.default_rng(7)
    host = random_values(rng, np.dtype(dtype), (37, 53))
    a = ah.asarray(host)
    mapped = cp.asarray(a)
    np.testing.assert_array_equal(cp.asnumpy(mapped), host)
    assert mapped.data.ptr == a.__cuda_array_interface__["data"][0]


@on_cuda
def test_views_map_with_their_offset_and_strides(client: ah.Client) -> None:
    host = np.random.default_rng(8).standard_normal((64, 48)).astype(np.float32)
    a = ah.asarray(host)
    for view, expected in [(a.T, host.T), (a[5], host[5]), (a[3:40:3, ::-2], host[3:40:3, ::-2])]:
        np.testing.assert_array_equal(cp.asnumpy(cp.asarray(view)), expected)


@on_cuda
def test_writes_go_both_ways(client: ah.Client) -> None:
    host = np.random.default_rng(9).standard_normal(1 << 20)
    a = ah.asarray(host)
    mapped = cp.asarray(a)
    mapped *= 2  # CuPy's kernel writes the server's memory.
    cp.cuda.Device().synchronize()
    np.testing.assert_array_equal(a.get(), host * 2)
    # The server's writes are seen at the next access of the interface.
    a += 1
    np.testing.assert_array_equal(cp.asnumpy(cp.asarray(a)), host * 2 + 1)


@on_cuda
def test_queued_work_is_done_before_the_interface_answers(client: ah.Client) -> None:
    a = ah.zeros(1 << 25, dtype=np.int32)  # 128 MiB: 30 adds take milliseconds on the GPU.
    for _ in range(30):
        a += 1
    mapped = cp.asarray(a)
    assert int(mapped.min()) == 30 and int(mapped.max()) == 30


@on_cuda
def test_dlpack_round_trip(client: ah.Client) -> None:
    host = np.random.default_rng(10).standard_normal((100, 30)).astype(np.float32)
    a = ah.asarray(host)
    assert a.__dlpack_device__()[0] == 2
    np.testing.assert_array_equal(cp.asnumpy(cp.from_dlpack(a)), host)
    np.testing.assert_array_equal(cp.asnumpy(cp.from_dlpack(a[::2, 1:])), host[::2, 1:])
    # copy=True exports a server-side copy: writes to it leave the array alone.
    copied = cp.from_dlpack(a.__dlpack__(copy=True))
    copied[...] = 0
    cp.cuda.Device().synchronize()
    np.testing.assert_array_equal(a.get(), host)


@on_cuda
def test_memory_comes_back_when_the_mappings_go(client: ah.Client) -> None:
    client.flush()
    start = client.server_info().bytes_in_use
    a = ah.asarray(np.arange(1 << 22, dtype=np.float32))
    mapped = cp.asarray(a)
    capsule_view = cp.from_dlpack(a[1:])
    assert float(mapped[7]) == 7.0 and float(capsule_view[0]) == 1.0
    del a, mapped, capsule_view
    gc.collect()
    client.flush()
    deadline = time.monotonic() + 10
    while client.server_info().bytes_in_use != start and time.monotonic() < deadline:
        time.sleep(0.1)
    assert client.server_info().bytes_in_use == start


@on_cuda
def test_another_process_maps_an_array_by_handle(client: ah.Client, daemon) -> None:
    host = np.random.default_rng(11).standard_normal((256, 256)).astype(np.float32)
    a = ah.asarray(host)
    script = textwrap.dedent("""
        import sys
        import cupy as cp
        import arrayhub as ah
        ah.set_default_client(ah.connect(sys.argv[1]))
        b = ah.open(sys.argv[2])
        print(float(cp.asarray(b).sum()))
    """)
    done = subprocess.run([sys.executable, "-c", script, daemon.address, a.handle],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert float(done.stdout) == pytest.approx(float(host.astype(np.float64).sum()), rel=1e-4)
