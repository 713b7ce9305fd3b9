"""Raw CUDA kernels (RawKernel, RawModule): off unless the daemon runs with
--allow-raw-kernels, which it refuses with more than one tenant; the CPU backend's answer with
the flag; the server's checks of options, launch dimensions and source size; CuPy's
arguments this client does not support; and, against a CUDA daemon, saxpy on fresh random data
against NumPy."""

from __future__ import annotations

import contextlib
import pathlib
import re
import subprocess
from collections.abc import Iterator

import grpc
import numpy as np
import pytest

import arrayhub as ah
from arrayhub._errors import ArrayHubNotImplementedError, ArrayHubPermissionError
from conftest import BACKEND, DAEMON, Daemon
from secure_helpers import write_token_file

RNG = np.random.default_rng()


@contextlib.contextmanager
def _connected(daemon: Daemon) -> Iterator[ah.Client]:
    """A client of `daemon`, current inside the block and closed after it."""
    client = ah.connect(daemon.address)
    try:
        with client:
            yield client
    finally:
        client.close()

SAXPY = r'''
extern "C" __global__ void saxpy(const float* x, const float* y, float a, float* out,
                                 unsigned int n) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}
extern "C" __global__ void scale(double* x, double by, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) x[i] *= by;
}
'''
saxpy = ah.RawKernel(SAXPY, "saxpy")


def test_raw_kernels_are_off_by_default() -> None:
    x = ah.zeros(4, dtype=np.float32)
    for kernel in (saxpy, ah.RawModule(code=SAXPY).get_function("scale")):
        with pytest.raises(ArrayHubPermissionError) as raised:
            kernel((1,), (4,), (x, x, np.float32(2), x, np.uint32(4)))
        assert raised.value.code == grpc.StatusCode.PERMISSION_DENIED
        assert str(raised.value) == ("raw kernels are disabled: start arrayhubd with "
                                     "--allow-raw-kernels (single tenant only)")


@pytest.mark.skipif(BACKEND != "cpu", reason="the CPU backend's answer")
def test_cpu_backend_refuses_and_the_server_checks_the_request(launch) -> None:
    daemon = launch("--allow-raw-kernels")
    with _connected(daemon):
        x = ah.zeros(4, dtype=np.float32)
        args = (x, x, np.float32(2), x, np.uint32(4))
        with pytest.raises(ArrayHubNotImplementedError) as raised:
            ah.RawKernel(SAXPY, "saxpy", options=("-DN=4", "-std=c++17", "--use_fast_math"))(
                (1,), 4, args)
        assert raised.value.code == grpc.StatusCode.FAILED_PRECONDITION
        assert str(raised.value) == "raw CUDA kernels need the CUDA backend"
        # Refused before anything is compiled, whatever the backend.
        for options, grid, block, shared_mem, message in [
            (("-I/etc",), 1, 1, 0, "NVRTC option '-I/etc' is not allowed"),
            (("--include-path=/",), 1, 1, 0, "NVRTC option '--include-path=/' is not allowed"),
            (("--pre-include=x.h",), 1, 1, 0, "is not allowed"),
            (("-std=c++99",), 1, 1, 0, "NVRTC option '-std=c++99' is not allowed"),
            (("--gpu-architecture=sm_90",), 1, 1, 0, "is not allowed"),
            ((), 0, 1, 0, "grid[0] is 0: it must be from 1 to 2147483647"),
            ((), (1, 65536), 1, 0, "grid[1] is 65536: it must be from 1 to 65535"),
            ((), 1, 2048, 0, "block[0] is 2048: it must be from 1 to 1024"),
            ((), 1, (1, 1, 65), 0, "block[2] is 65: it must be from 1 to 64"),
            ((), 1, 1, -1, "shared_mem is -1"),
        ]:
            with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("+", r"\+")):
                ah.RawKernel(SAXPY, "saxpy", options=options)(grid, block, args,
                                                              shared_mem=shared_mem)
        with pytest.raises(ValueError, match="more than the server's limit of 1048576"):
            ah.RawKernel("x" * ((1 << 20) + 1), "saxpy")(1, 1, args)
        with pytest.raises(ValueError, match="grid must have 1 to 3 dimensions"):
            saxpy((1, 1, 1, 1), 1, args)


def test_cupy_arguments_this_client_does_not_support() -> None:
    for kwargs in ({"jitify": True}, {"backend": "nvcc"}, {"translate_cucomplex": True},
                   {"enable_cooperative_groups": True}):
        with pytest.raises(NotImplementedError, match="not supported"):
            ah.RawKernel(SAXPY, "saxpy", **kwargs)
    with pytest.raises(NotImplementedError, match="path="):
        ah.RawModule(path="kernels.cubin")
    with pytest.raises(NotImplementedError, match="name expression 'f<int>'"):
        ah.RawModule(code=SAXPY, name_expressions=["f<int>"])
    with pytest.raises(TypeError, match="raw kernels take arrayhub arrays and scalars"):
        saxpy(1, 1, (np.zeros(4, np.float32),))


def test_the_daemon_refuses_the_flag_with_two_tenants(tmp_path: pathlib.Path) -> None:
    write_token_file(tmp_path / "tokens")  # alice and bob
    result = subprocess.run(
        [DAEMON, "--listen", "127.0.0.1:0", "--backend", BACKEND, "--allow-raw-kernels",
         "--auth-file", str(tmp_path / "tokens")], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert ("--allow-raw-kernels needs a single tenant, but " + str(tmp_path / "tokens") +
            " names 2") in result.stdout + result.stderr


def test_the_daemon_allows_the_flag_with_one_tenant(launch, tmp_path: pathlib.Path) -> None:
    tokens = tmp_path / "tokens"
    write_token_file(tokens)
    # One tenant with two tokens: alice's and bob's.
    tokens.write_text(re.sub(r"(?m)^bob ", "alice ", tokens.read_text()))
    launch("--allow-raw-kernels", "--auth-file", str(tokens))


@pytest.mark.skipif(BACKEND != "cuda", reason="needs a CUDA daemon")
def test_saxpy_and_a_module_on_the_gpu(launch) -> None:
    daemon = launch("--allow-raw-kernels")
    with _connected(daemon):
        n = 100_003
        x, y = RNG.standard_normal(n, dtype=np.float32), RNG.standard_normal(n, dtype=np.float32)
        a = np.float32(RNG.standard_normal())
        dx, dy, out = ah.asarray(x), ah.asarray(y), ah.empty(n, dtype=np.float32)
        saxpy(((n + 255) // 256,), (256,), (dx, dy, a, out, np.uint32(n)))
        # Within a few roundings of the terms: NVRTC may contract a * x + y into one FMA.
        np.testing.assert_array_less(np.abs(out.get() - (a * x + y)),
                                     4e-7 * (np.abs(a * x) + np.abs(y)) + 1e-30)
        # A module's second kernel; Python float and int are passed as double and long long.
        z = RNG.standard_normal(n)
        dz = ah.asarray(z)
        ah.RawModule(code=SAXPY).get_function("scale")((n + 127) // 128, 128, (dz, 2.5, n))
        np.testing.assert_allclose(dz.get(), z * 2.5, rtol=1e-15)
        # The wrong arguments: the server reads the kernel's parameters back.
        with pytest.raises(ValueError, match="takes 5 arguments, 2 given"):
            saxpy(1, 1, (dx, dy))
        with pytest.raises(ValueError, match="argument 2 is 8 bytes"):
            saxpy(1, 1, (dx, dy, 2.0, out, np.uint32(n)))
        with pytest.raises(ValueError, match="NVRTC failed to compile|not found|named symbol"):
            ah.RawKernel("extern \"C\" __global__ void k() { syntax error }", "k")(1, 1, ())
