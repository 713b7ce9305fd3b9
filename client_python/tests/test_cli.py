"""The `arrayhub` command against a real daemon: info, ls, rm, top and bench, through the
installed console script, and its errors."""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys
from typing import Iterator

import numpy as np
import pytest

import arrayhub
from conftest import Daemon, start_daemon, stop_daemon
from ops_helpers import metrics_url

# The console script pip installed beside this Python; where the package is only on PYTHONPATH
# (the GPU machine), the same entry point through -m.
SCRIPT = pathlib.Path(sys.executable).with_name("arrayhub")
COMMAND = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "arrayhub"]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    daemon = start_daemon(tmp_path_factory.mktemp("cli") / "arrayhubd.log",
                          "--metrics-listen", "127.0.0.1:0")
    yield daemon
    stop_daemon(daemon)


def run(*args: str, address: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARRAYHUB_")}
    if address is not None:
        env["ARRAYHUB_ADDRESS"] = address
    return subprocess.run([*COMMAND, *args], capture_output=True, text=True, timeout=120, env=env)


def test_info_describes_the_server(served: Daemon) -> None:
    result = run("info", address=served.address)
    assert result.returncode == 0, result.stderr
    assert re.search(rf"arrayhubd \d+\.\d+\.\d+ at {served.address}, backend \w+", result.stdout)
    assert "limits: rank 64" in result.stdout

    as_json = run("--address", served.address, "info", "--json")
    info = json.loads(as_json.stdout)
    assert info["tenant"] == "anonymous"
    assert int(info["limits"]["max_rank"]) == 64
    assert info["devices"][0]["name"]


def test_ls_lists_the_tenants_arrays_and_rm_frees_them(served: Daemon) -> None:
    with arrayhub.connect(served.address, client_name="cli-test") as client, client.use():
        kept = arrayhub.zeros((3, 4), dtype=np.float32)
        doomed = arrayhub.arange(5)

        listing = run("ls", address=served.address)
        assert listing.returncode == 0, listing.stderr
        assert re.search(rf"^{kept.handle}\s+float32\s+\(3, 4\)\s+48 B", listing.stdout,
                         re.MULTILINE), listing.stdout
        assert re.search(rf"^{doomed.handle}\s+int64\s+\(5,\)\s+40 B", listing.stdout,
                         re.MULTILINE), listing.stdout
        as_json = json.loads(run("ls", "--json", address=served.address).stdout)
        assert {a["handle"] for a in as_json} >= {kept.handle, doomed.handle}

        removed = run("rm", doomed.handle, address=served.address)
        assert (removed.returncode, removed.stdout.strip()) == (0, "freed 1 array"), removed
        handles = {a.handle for a in client.list_arrays()}
        assert kept.handle in handles and doomed.handle not in handles

        # All or none: one unknown handle frees nothing.
        missing = "0" * 32
        refused = run("rm", kept.handle, missing, address=served.address)
        assert refused.returncode == 1
        assert f"array {missing} not found" in refused.stderr
        assert kept.handle in {a.handle for a in client.list_arrays()}
        malformed = run("rm", "xyz", address=served.address)
        assert malformed.returncode == 1 and "handle" in malformed.stderr


def test_top_shows_memory_arrays_and_sessions_per_tenant(served: Daemon) -> None:
    url = metrics_url(served)
    with arrayhub.connect(served.address, client_name="cli-test") as client, client.use():
        array = arrayhub.zeros(1000, dtype=np.float64)
        result = run("top", "--metrics", url.removeprefix("http://").removesuffix("/metrics"),
                     "--count", "2", "--interval", "0.2")
        del array
    assert result.returncode == 0, result.stderr
    frames = re.findall(r"^arrayhubd \d+\.\d+\.\d+ \(\w+\)  http://", result.stdout, re.MULTILINE)
    assert len(frames) == 2, result.stdout
    assert re.search(r"^anonymous\s+\d+\.\d KiB\s+[1-9]\d*\s+[1-9]\d*$", result.stdout,
                     re.MULTILINE), result.stdout
    assert re.search(r"requests: \d+ \(\d+ failed\), [\d.]+/s now", result.stdout)
    assert "\x1b[" not in result.stdout, "no screen control codes when not on a terminal"


def test_bench_measures_round_trips_and_transfers(served: Daemon) -> None:
    result = run("bench", "--requests", "20", "--size", "1", "--repeat", "2",
                 address=served.address)
    assert result.returncode == 0, result.stderr
    assert re.search(r"round trip \(KeepAlive x20\): p50 [\d.]+ ms", result.stdout)
    assert re.search(r"^upload +1\.0 MiB: [\d.]+ GB/s", result.stdout, re.MULTILINE)
    assert re.search(r"^download +1\.0 MiB: [\d.]+ GB/s", result.stdout, re.MULTILINE)


@pytest.mark.parametrize("args, status, message", [
    (["info"], 1, "arrayhub info: "),  # Nobody listens at the address below.
    (["top"], 2, "--metrics"),
    (["top", "--metrics", "ftp://host/x"], 2, "is not an http(s) URL"),
    (["top", "--metrics", "127.0.0.1:1", "--count", "1"], 1, "cannot read http://127.0.0.1:1"),
    (["bench", "--size", "-1"], 2, "must be greater than 0"),
    (["rm"], 2, "HANDLE"),
    (["frobnicate"], 2, "invalid choice"),
])
def test_errors_have_a_message_and_a_status(args: list[str], status: int, message: str) -> None:
    result = run("--timeout", "2", *args, address="127.0.0.1:1")
    assert result.returncode == status, result
    assert message in result.stderr, result.stderr


def test_python_dash_m_runs_the_same_command(served: Daemon) -> None:
    result = subprocess.run([sys.executable, "-m", "arrayhub", "--address", served.address,
                             "info"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "backend" in result.stdout, result.stderr
