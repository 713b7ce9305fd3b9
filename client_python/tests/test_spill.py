"""Spilling (arrayhubd --tenant-soft-bytes, --cpu-memory-bytes, --data-dir): arrays no call uses
leave device memory when it runs short or their tenant passes its soft limit, and come back
when a call uses them, with the same values."""

from __future__ import annotations

import pathlib
import stat
from typing import Callable

import numpy as np
import pytest

import arrayhub as ah
from arrayhub import _cli
from conftest import Daemon

KIB = 1 << 10


def test_an_oversubscribed_workload_spills_and_computes_like_numpy(
        launch: Callable[..., Daemon], tmp_path: pathlib.Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    data_dir = tmp_path / "data"
    # 24 arrays of 64 KiB: 1.5 times the device (the CPU backend's), three times the soft limit.
    daemon = launch("--cpu-memory-bytes", str(1024 * KIB), "--tenant-soft-bytes",
                    str(512 * KIB), "--data-dir", str(data_dir))
    rng = np.random.default_rng(27)
    hosts = [rng.standard_normal(8192) for _ in range(24)]
    with ah.connect(daemon.address, timeout=10) as client, client.use():
        arrays = [ah.asarray(host) for host in hosts]
        info = client.server_info()
        # The CPU backend has no host tier; the CUDA one has none without --spill-host-bytes.
        assert info.tenant_spilled_host_bytes == 0
        assert info.tenant_spilled_disk_bytes >= 1024 * KIB
        assert info.tenant_bytes_in_use >= 24 * 64 * KIB  # Spilled arrays still count.
        for file in (data_dir / "spill").iterdir():
            assert stat.S_IMODE(file.stat().st_mode) == 0o600, file
        assert _cli.main(["--address", daemon.address, "info"]) == 0
        assert " to disk" in capsys.readouterr().out
        for i in range(24):
            nxt = (i + 1) % 24
            np.testing.assert_array_equal((arrays[i] * 2 + arrays[nxt]).get(),
                                          hosts[i] * 2 + hosts[nxt])
            np.testing.assert_allclose(float(arrays[i].sum().get()), hosts[i].sum())
        del arrays
        client.flush()
        assert client.server_info().tenant_spilled_disk_bytes == 0
    assert list((data_dir / "spill").iterdir()) == []


def test_the_profiler_shows_the_time_calls_waited_for_spilled_arrays(
        launch: Callable[..., Daemon], tmp_path: pathlib.Path) -> None:
    # Two arrays of 64 KiB with a soft limit of one: summing them in turn brings each back
    # and spills the other, so every run waits for a return.
    daemon = launch("--cpu-memory-bytes", str(1024 * KIB), "--tenant-soft-bytes",
                    str(96 * KIB), "--data-dir", str(tmp_path / "data"))
    with ah.connect(daemon.address, timeout=10) as client, client.use():
        a, b = ah.arange(8192, dtype=np.float64), ah.ones(8192)
        result = ah.profiler.benchmark(lambda: float((a.sum() + b.sum()).get()), n_repeat=5,
                                       n_warmup=1)
        assert client.server_info().tenant_spill_wait_seconds > 0
        assert result.spill_wait > 0
        assert "spill waits:" in str(result)
        steady = ah.profiler.benchmark(lambda: float(a.sum().get()), n_repeat=5, n_warmup=1)
        assert steady.spill_wait == 0  # One array stays resident: nothing comes back.
        assert "spill waits:" not in str(steady)
