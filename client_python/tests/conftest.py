"""Starts a real arrayhubd for the test session and connects the default client to it.

Environment:
    ARRAYHUB_DAEMON        the daemon binary (default: build/server/arrayhubd of this repo)
    ARRAYHUB_TEST_BACKEND  its --backend (default cpu)

Nothing is built here: build the daemon first (`cmake --build build --target arrayhubd`).

Tests marked ``requires_compute("Elementwise" | "Reduce" | "Random")`` need that server
feature; they are skipped only while the server answers UNIMPLEMENTED for it.
"""

from __future__ import annotations

import gc
import os
import pathlib
import re
import signal
import subprocess
import time
from dataclasses import dataclass
from typing import Callable, Iterator

import numpy as np
import pytest

import arrayhub

_REPO = pathlib.Path(__file__).resolve().parents[2]
DAEMON = os.environ.get("ARRAYHUB_DAEMON") or str(_REPO / "build" / "server" / "arrayhubd")
BACKEND = os.environ.get("ARRAYHUB_TEST_BACKEND", "cpu")
_LISTENING = re.compile(r"listening on 127\.0\.0\.1:(\d+)")

BOOL = [np.dtype(np.bool_)]
SIGNED = [np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64)]
UNSIGNED = [np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64)]
FLOAT = [np.dtype(t) for t in (np.float16, np.float32, np.float64)]
COMPLEX = [np.dtype(t) for t in (np.complex64, np.complex128)]
ALL_DTYPES = BOOL + SIGNED + UNSIGNED + FLOAT + COMPLEX


@dataclass
class Daemon:
    process: subprocess.Popen
    address: str
    log: pathlib.Path


def start_daemon(log: pathlib.Path, *extra: str, log_level: str = "info",
                 env: dict[str, str] | None = None) -> Daemon:
    """Starts arrayhubd on a free loopback port and waits for its "listening on" line.
    ``env`` replaces the daemon's environment when given."""
    if not os.access(DAEMON, os.X_OK):
        pytest.fail(f"no arrayhubd at {DAEMON}: build it with `cmake --build build --target "
                    f"arrayhubd` or set ARRAYHUB_DAEMON", pytrace=False)
    with log.open("w") as sink:
        process = subprocess.Popen(
            [DAEMON, "--listen", "127.0.0.1:0", "--backend", BACKEND, "--log-level", log_level,
             *extra], stdout=sink, stderr=subprocess.STDOUT, env=env)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        match = _LISTENING.search(log.read_text())
        if match:
            return Daemon(process, f"127.0.0.1:{match.group(1)}", log)
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.kill()
    pytest.fail(f"arrayhubd did not start:\n{log.read_text()}", pytrace=False)


@pytest.fixture
def launch(tmp_path: pathlib.Path) -> Iterator[Callable[..., Daemon]]:
    """Starts daemons with extra flags; kills any that a failed test left running."""
    started: list[Daemon] = []

    def start(*extra: str) -> Daemon:
        started.append(start_daemon(tmp_path / f"arrayhubd-{len(started)}.log", *extra))
        return started[-1]
    yield start
    for daemon in started:
        if daemon.process.poll() is None:
            daemon.process.kill()
            daemon.process.wait()


def stop_daemon(daemon: Daemon) -> None:
    daemon.process.send_signal(signal.SIGTERM)
    try:
        daemon.process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        daemon.process.kill()
        daemon.process.wait()


@pytest.fixture(scope="session")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    # Tests gather chunks into this daemon from daemons of their own (test_dask_cluster.py).
    started = start_daemon(tmp_path_factory.mktemp("arrayhubd") / "arrayhubd.log",
                           "--peer-allow", "127.0.0.1:*")
    yield started
    stop_daemon(started)


@pytest.fixture(scope="session")
def client(daemon: Daemon) -> Iterator[arrayhub.Client]:
    """The default client of every test, connected to the session's daemon."""
    connected = arrayhub.connect(daemon.address, client_name="pytest")
    arrayhub.set_default_client(connected)
    yield connected
    arrayhub.set_default_client(None)
    connected.close()


@pytest.fixture(autouse=True)
def _no_error_left_queued(client: arrayhub.Client) -> Iterator[None]:
    """Every test waits for the work it queued: an error of a pipelined op fails the test that
    issued it (at teardown), never the next one."""
    yield
    client.synchronize()


@pytest.fixture
def sync_mode() -> Iterator[None]:
    """Runs the test with one blocking call per operation (arrayhub.set_sync(True)): for
    tests of what each call sends."""
    was = arrayhub.is_sync()
    arrayhub.set_sync(True)
    yield
    arrayhub.set_sync(was)


_PROBES: dict[str, Callable[[], object]] = {
    "Elementwise": lambda: arrayhub.zeros(1) + 1,
    "Reduce": lambda: arrayhub.zeros(1).sum(),
    "Random": lambda: arrayhub.random.random(1),
}
_probe_results: dict[str, str] = {}


@pytest.fixture(autouse=True)
def _requires_compute(request: pytest.FixtureRequest, client: arrayhub.Client) -> None:
    marker = request.node.get_closest_marker("requires_compute")
    if marker is None:
        return
    feature = marker.args[0] if marker.args else "Elementwise"
    if feature not in _probe_results:
        try:
            _PROBES[feature]()
            _probe_results[feature] = ""
        except NotImplementedError as error:
            _probe_results[feature] = f"server answers UNIMPLEMENTED for {feature}: {error}"
    if _probe_results[feature]:
        pytest.skip(_probe_results[feature])


# -- Shared helpers ---------------------------------------------------------------------------

def random_values(rng: np.random.Generator, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    """Valid elements of ``dtype``: any bits for integers, 0/1 for bool, moderate floats (some
    negative, some exact integers) for floats and complex."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, size=shape).astype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)
    real = rng.normal(0, 3, size=shape)
    real = np.where(rng.random(size=shape) < 0.15, np.round(real), real)
    if dtype.kind == "c":
        return (real + 1j * rng.normal(0, 3, size=shape)).astype(dtype)
    return real.astype(dtype)


_RTOL = {"e": 2e-3, "f": 2e-5, "d": 1e-12, "F": 2e-5, "D": 1e-12}


def live_handles(client: arrayhub.Client) -> set[str]:
    """The session's array handles once every array nothing references is freed: the queue
    drained first (its ops hold their operands), then garbage collected (an array in a
    reference cycle goes only then, and the drain may have just left it one), then listed
    (list_arrays sends the frees collection queued)."""
    client.synchronize()
    gc.collect()
    return {info.handle for info in client.list_arrays()}


def assert_matches(got: arrayhub.ndarray, expected: np.ndarray, rtol: float | None = None) -> None:
    """Same dtype and shape as NumPy's result, and equal values (integers and bool exactly,
    floats within a tolerance for the dtype, NaN where NumPy has NaN)."""
    assert isinstance(got, arrayhub.ndarray)
    expected = np.asarray(expected)
    assert got.dtype == expected.dtype, f"dtype {got.dtype}, NumPy gives {expected.dtype}"
    assert got.shape == expected.shape, f"shape {got.shape}, NumPy gives {expected.shape}"
    host = got.get()
    if expected.dtype.kind in "biu":
        np.testing.assert_array_equal(host, expected)
    else:
        tolerance = rtol if rtol is not None else _RTOL[expected.dtype.char]
        np.testing.assert_allclose(host, expected, rtol=tolerance, atol=tolerance,
                                   equal_nan=True)
