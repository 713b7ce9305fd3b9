"""The scratch memory of a call (a sort's buffers, on the GPU also FFT work areas and solver
workspaces) counts against the tenant's byte quota, as its arrays do: a sort whose scratch would
pass the quota is refused before it runs, and nothing of it stays."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import arrayhub as ah
from conftest import start_daemon, stop_daemon

QUOTA = 3_500_000  # Bytes: room for a 1 MiB array and its sorted copy, not for their scratch.


def test_a_sort_whose_scratch_passes_the_quota_is_refused(tmp_path: pathlib.Path) -> None:
    daemon = start_daemon(tmp_path / "arrayhubd.log", "--tenant-max-bytes", str(QUOTA))
    try:
        with ah.connect(daemon.address) as client, client.use():
            values = np.random.default_rng(5).random(1 << 17)  # 1 MiB of float64.
            x = ah.asarray(values)
            with pytest.raises(ah.ArrayHubMemoryError, match="quota"):
                ah.sort(x).get()
            assert client.server_info().tenant_bytes_in_use == x.nbytes
            small = ah.asarray(values[:1000])
            np.testing.assert_array_equal(ah.sort(small).get(), np.sort(values[:1000]))
    finally:
        stop_daemon(daemon)


def test_an_svd_whose_lapack_workspace_passes_the_quota_is_refused(
        tmp_path: pathlib.Path) -> None:
    """The solver's own workspace counts too: a 256 x 256 float64 SVD's arrays and copies take
    about 3.1 MB, and its workspace (gesdd's on the CPU, cuSOLVER's on the GPU) takes it past
    the 4 MB quota."""
    daemon = start_daemon(tmp_path / "arrayhubd.log", "--tenant-max-bytes", str(4_000_000))
    try:
        with ah.connect(daemon.address) as client, client.use():
            values = np.random.default_rng(6).random((256, 256))
            a = ah.asarray(values)
            with pytest.raises(ah.ArrayHubMemoryError, match="quota"):
                ah.linalg.svd(a, full_matrices=False)[1].get()
            assert client.server_info().tenant_bytes_in_use == a.nbytes
            small = values[:64, :64]
            np.testing.assert_allclose(ah.linalg.svd(ah.asarray(small), compute_uv=False).get(),
                                       np.linalg.svd(small, compute_uv=False), rtol=1e-10)
    finally:
        stop_daemon(daemon)
