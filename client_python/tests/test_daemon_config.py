"""The daemon's configuration as an operator meets it: flag > environment > config file >
default, checked through the limits a running daemon reports; errors for bad values and keys;
--help that explains every option; and the startup summary."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess

import pytest

import arrayhub
from conftest import BACKEND, DAEMON, start_daemon, stop_daemon


def _environment(**variables: str) -> dict[str, str]:
    """This process's environment without ARRAYHUB_* settings, plus `variables`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARRAYHUB_")}
    env.update(variables)
    return env


def _limits(tmp_path: pathlib.Path, *flags: str, **env: str) -> tuple[int, int]:
    """(max_array_bytes, max_rank) as a daemon started this way reports them."""
    daemon = start_daemon(tmp_path / "arrayhubd.log", *flags, env=_environment(**env))
    try:
        with arrayhub.connect(daemon.address) as client:
            limits = client.server_info().limits
            return limits.max_array_bytes, limits.max_rank
    finally:
        stop_daemon(daemon)


def test_flag_beats_environment_beats_config_file_beats_default(tmp_path: pathlib.Path) -> None:
    config = tmp_path / "arrayhubd.toml"
    config.write_text("max-array-bytes = 1000\nmax-rank = 5\n")

    assert _limits(tmp_path) == (64 << 30, 64)
    assert _limits(tmp_path, "--config", str(config)) == (1000, 5)
    assert _limits(tmp_path, ARRAYHUB_CONFIG=str(config)) == (1000, 5)
    assert _limits(tmp_path, "--config", str(config), ARRAYHUB_MAX_ARRAY_BYTES="2000") == (2000, 5)
    assert _limits(tmp_path, "--config", str(config), "--max-array-bytes=3000",
                   ARRAYHUB_MAX_ARRAY_BYTES="2000") == (3000, 5)
    assert _limits(tmp_path, "--max-rank", "7", ARRAYHUB_CONFIG=str(config),
                   ARRAYHUB_MAX_RANK="6") == (1000, 7)


def _run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([DAEMON, "--listen", "127.0.0.1:0", "--backend", BACKEND, *args],
                          capture_output=True, text=True, timeout=30, env=_environment(**env))


@pytest.mark.parametrize("args, env, message", [
    (["--max-rank", "99"], {}, "--max-rank: Value 99 not in range"),
    ([], {"ARRAYHUB_MAX_RANK": "99"}, "options also came from the environment: ARRAYHUB_MAX_RANK"),
    (["--backend", "tpu"], {}, "--backend: tpu not in {auto,cuda,cpu}"),
    (["--no-such-flag"], {}, "--no-such-flag"),
    (["--config", "/nonexistent/arrayhubd.toml"], {}, "was not readable"),
    (["--metrics-listen", "9464"], {}, "metrics address '9464' is not host:port"),
    (["--peer-allow", "10.0.0.0/8:1,10.0.0.1/8:1"], {},
     "--peer-allow entry '10.0.0.1/8:1' is invalid: 10.0.0.1 has address bits set past the "
     "prefix /8"),
    (["--default-chunk-bytes", "4194304", "--max-chunk-bytes", "1048576"], {},
     "--default-chunk-bytes exceeds --max-chunk-bytes"),
])
def test_bad_settings_are_refused_with_a_message(args: list[str], env: dict[str, str],
                                                 message: str) -> None:
    result = _run(*args, **env)
    assert result.returncode != 0
    assert message in result.stdout + result.stderr


def test_unknown_keys_in_the_config_file_are_errors(tmp_path: pathlib.Path) -> None:
    config = tmp_path / "arrayhubd.toml"
    config.write_text("max-rank = 5\nmax-ranks = 6\n")
    result = _run("--config", str(config))
    assert result.returncode != 0
    assert "max-ranks" in result.stdout + result.stderr


def test_help_explains_every_option_and_its_environment_variable() -> None:
    result = subprocess.run([DAEMON, "--help"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0
    # Each entry: "  --name TYPE=DEFAULT (Env:VARIABLE)" and its explanation, on the same line
    # after a wide gap or on the indented lines below.
    section = result.stdout.split("Options:\n", 1)[1].split("\n\n", 1)[0]
    entries = {}
    for entry in re.split(r"\n(?=  -)", section.strip("\n")):
        first, _, below = entry.partition("\n")
        same_line = first.split("  ", 2)[2] if first.count("  ") >= 2 else ""
        entries[re.search(r"--[a-z-]+", first).group(0)] = (first, same_line + " " + below)
    assert {"--listen", "--backend", "--log-level", "--config", "--metrics-listen",
            "--drain-seconds", "--max-array-bytes", "--session-ttl"} <= entries.keys(), section
    for name, (first, explanation) in entries.items():
        assert re.search(r"[a-z]{3,} [a-z]{2,}", explanation), f"{name}: {explanation!r}"
        if name not in ("--help", "--version", "--hash-token"):  # Actions, not settings.
            variable = "ARRAYHUB_" + name[2:].upper().replace("-", "_")
            assert f"(Env:{variable})" in first, f"--help does not name {variable} for {name}"
    assert "A flag wins over the environment, which wins over the file." in result.stdout


def test_startup_summary_names_version_backend_limits_and_metrics(
        tmp_path: pathlib.Path) -> None:
    daemon = start_daemon(tmp_path / "arrayhubd.log", "--metrics-listen", "127.0.0.1:0",
                          "--max-rank", "9")
    stop_daemon(daemon)
    log = daemon.log.read_text()
    assert re.search(rf"arrayhubd \d+\.\d+\.\d+ listening on {daemon.address} \(backend "
                     rf"{BACKEND}, max rank 9, max array \d+ bytes", log), log
    assert re.search(r"metrics on http://127\.0\.0\.1:\d+/metrics", log), log
    assert re.search(r"backend \w+ \(as configured\): .+ MiB", log), log


def test_version_is_the_python_packages() -> None:
    # One version for both: client_python/arrayhub/VERSION, read by CMake and the wheel.
    result = subprocess.run([DAEMON, "--version"], capture_output=True, text=True, timeout=30)
    assert (result.returncode, result.stdout) == (0, f"arrayhubd {arrayhub.__version__}\n")
