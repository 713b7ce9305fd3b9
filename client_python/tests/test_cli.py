"""The `arrayhub` command against a real daemon: info, ls, rm, cp, unpublish, top and bench,
through the installed console script; TLS and token options and their environment variables
(for the CLI and the default client); and its errors."""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import pty
import re
import subprocess
import sys
from typing import Iterator

import numpy as np
import pytest

import arrayhub
from conftest import Daemon, start_daemon, stop_daemon
from ops_helpers import metrics_url
from secure_helpers import TOKENS, make_certs, write_token_file

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


def clean_env(address: str | None = None, **settings: str) -> dict[str, str]:
    """This environment without ARRAYHUB_* variables, then ``address`` and ``settings``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARRAYHUB_")}
    if address is not None:
        env["ARRAYHUB_ADDRESS"] = address
    return {**env, **settings}


def run(*args: str, address: str | None = None,
        **settings: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*COMMAND, *args], capture_output=True, text=True, timeout=120,
                          env=clean_env(address, **settings))


def test_info_describes_the_server(served: Daemon) -> None:
    result = run("info", address=served.address)
    assert result.returncode == 0, result.stderr
    assert re.search(rf"arrayhubd \d+\.\d+\.\d+ at {served.address}, backend \w+", result.stdout)
    assert "limits: rank 64" in result.stdout
    # The device: "cpu" on the CPU backend, "cuda:0: NVIDIA H100 80GB HBM3, ..." on CUDA.
    assert re.search(r"device 0 (cpu|cuda)\S*: .* free of .*; arrayhubd holds .+, \d+ sessions\n",
                     result.stdout)

    as_json = run("--address", served.address, "info", "--json")
    info = json.loads(as_json.stdout)
    assert info["tenant"] == "anonymous"
    assert info["limits"]["max_rank"] == 64  # Plain JSON: numbers, not strings.
    assert isinstance(info["limits"]["max_array_bytes"], int)
    assert info["version"] == arrayhub.__version__
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
        listed = next(a for a in as_json if a["handle"] == kept.handle)
        assert (listed["dtype"], listed["shape"], listed["nbytes"], listed["name"],
                listed["owner"]) == ("float32", [3, 4], 48, "", "anonymous")

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


def test_ls_shows_publications_after_the_publishing_session_ended(served: Daemon) -> None:
    with arrayhub.connect(served.address, client_name="cli-test") as client, client.use():
        arrayhub.arange(6, dtype=np.int16).reshape(2, 3).publish("cli/outlives")
    # That session is closed: its handle went, the publication and its memory stay.
    listing = run("ls", address=served.address)
    assert re.search(r"^-\s+int16\s+\(2, 3\)\s+12 B\s+anonymous\s+cli/outlives$",
                     listing.stdout, re.MULTILINE), listing.stdout
    as_json = json.loads(run("ls", "--json", address=served.address).stdout)
    assert [(a["handle"], a["name"], a["dtype"], a["nbytes"]) for a in as_json
            if a["name"] == "cli/outlives"] == [("", "cli/outlives", "int16", 12)]
    removed = run("unpublish", "cli/outlives", address=served.address)
    assert (removed.returncode, removed.stdout) == (0, "unpublished cli/outlives\n"), removed
    assert "cli/outlives" not in run("ls", address=served.address).stdout


def assert_progress_ended(stderr: str, plain: str) -> None:
    """The progress on ``stderr`` ended at 100%: the plain line ``plain``, or tqdm's bar with
    the same label where tqdm is installed."""
    if importlib.util.find_spec("tqdm") is None:
        assert stderr.endswith(plain + "\n"), stderr
    else:
        last = stderr.strip().splitlines()[-1]
        assert last.startswith(plain.split(":")[0] + ":") and "100%" in last, stderr


def test_cp_publishes_a_file_and_saves_a_published_array(served: Daemon,
                                                         tmp_path: pathlib.Path) -> None:
    host = np.linspace(0, 1, 3 * 5 * 7, dtype=np.float32).reshape(3, 5, 7)
    np.save(tmp_path / "in.npy", host)
    sent = run("cp", str(tmp_path / "in.npy"), "cli/copied", address=served.address)
    assert sent.returncode == 0, sent.stderr
    assert sent.stdout == f"{tmp_path / 'in.npy'} -> cli/copied (float32 (3, 5, 7), 420 B)\n"
    assert sent.stderr == "", "no progress when stdout is not a terminal"
    with arrayhub.connect(served.address) as client, client.use():
        np.testing.assert_array_equal(arrayhub.attach("cli/copied").get(), host)

    received = run("cp", "cli/copied", str(tmp_path / "out.npy"), "--progress",
                   address=served.address)
    assert received.returncode == 0, received.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), host)
    assert_progress_ended(received.stderr, "download: 420 B / 420 B (100%)")

    missing = run("cp", "cli/never", str(tmp_path / "never.npy"), address=served.address)
    assert missing.returncode == 1 and "no array published as 'cli/never'" in missing.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.npy", "out.npy"]
    unreadable = run("cp", str(tmp_path / "absent.npy"), "cli/x", address=served.address)
    assert unreadable.returncode == 1 and "absent.npy" in unreadable.stderr
    neither = run("cp", "a", "b", address=served.address)
    assert neither.returncode == 2 and "one side must be a .npy file" in neither.stderr
    assert run("unpublish", "cli/copied", address=served.address).returncode == 0


def test_cp_shows_progress_when_stdout_is_a_terminal(served: Daemon,
                                                     tmp_path: pathlib.Path) -> None:
    np.save(tmp_path / "in.npy", np.zeros(1000))
    controller, terminal = pty.openpty()
    try:
        result = subprocess.run([*COMMAND, "cp", str(tmp_path / "in.npy"), "cli/tty"],
                                stdout=terminal, stderr=subprocess.PIPE, text=True, timeout=120,
                                env=clean_env(served.address))
    finally:
        os.close(terminal)
        os.close(controller)
    assert result.returncode == 0, result.stderr
    assert_progress_ended(result.stderr, "upload: 7.8 KiB / 7.8 KiB (100%)")
    assert run("unpublish", "cli/tty", address=served.address).returncode == 0


@pytest.fixture(scope="module")
def secure(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Daemon, pathlib.Path]]:
    """A daemon with tokens and mutual TLS; yields it and the directory of its files, with
    alice's token in alice.token."""
    directory = tmp_path_factory.mktemp("cli-secure")
    make_certs(directory)
    write_token_file(directory / "tokens")
    (directory / "alice.token").write_text(TOKENS["alice"] + "\n")
    daemon = start_daemon(directory / "arrayhubd.log", "--auth-file", str(directory / "tokens"),
                          "--tls-cert", str(directory / "server.pem"),
                          "--tls-key", str(directory / "server.key"),
                          "--tls-client-ca", str(directory / "ca.pem"))
    yield daemon, directory
    stop_daemon(daemon)


def test_cli_speaks_tls_with_a_token_file(secure: tuple[Daemon, pathlib.Path]) -> None:
    daemon, files = secure
    options = ["--tls-ca", str(files / "ca.pem"), "--tls-cert", str(files / "client.pem"),
               "--tls-key", str(files / "client.key"), "--token-file", str(files / "alice.token")]
    result = run(*options, "info", address=daemon.address)
    assert result.returncode == 0, result.stderr
    assert "tenant alice" in result.stdout

    plaintext = run("--token-file", str(files / "alice.token"), "info", address=daemon.address)
    assert plaintext.returncode == 1
    assert f"cannot reach arrayhubd at {daemon.address}" in plaintext.stderr
    assert "ARRAYHUB_TLS_CA" in plaintext.stderr
    no_key = run("--tls-ca", str(files / "ca.pem"), "--tls-cert", str(files / "client.pem"),
                 "info", address=daemon.address)
    assert no_key.returncode == 1 and "--tls-key" in no_key.stderr
    no_file = run("--token-file", str(files / "absent"), "info", address=daemon.address)
    assert no_file.returncode == 1 and "cannot read the token file" in no_file.stderr


def _secure_env(daemon: Daemon, files: pathlib.Path) -> dict[str, str]:
    return clean_env(daemon.address, ARRAYHUB_TLS_CA=str(files / "ca.pem"),
                     ARRAYHUB_TLS_CERT=str(files / "client.pem"),
                     ARRAYHUB_TLS_KEY=str(files / "client.key"),
                     ARRAYHUB_TOKEN_FILE=str(files / "alice.token"))


def test_the_environment_configures_the_cli_and_the_default_client(
        secure: tuple[Daemon, pathlib.Path]) -> None:
    daemon, files = secure
    env = _secure_env(daemon, files)
    listing = subprocess.run([*COMMAND, "ls"], capture_output=True, text=True, timeout=120,
                             env=env)
    assert listing.returncode == 0, listing.stderr
    assert listing.stdout.startswith("HANDLE")

    script = ("import arrayhub as ah; x = ah.arange(4); "
              "print(ah.get_client().tenant, int(x.sum().get()))")
    default = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                             timeout=120, env=env)
    assert (default.returncode, default.stdout) == (0, "alice 6\n"), default.stderr
    # ARRAYHUB_TOKEN wins over the token file.
    env["ARRAYHUB_TOKEN"] = TOKENS["bob"]
    bob = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, env=env)
    assert (bob.returncode, bob.stdout) == (0, "bob 6\n"), bob.stderr
