"""Lifetime: batched frees after garbage collection, sessions, keep-alive, exit."""

from __future__ import annotations

import collections
import gc
import os
import pathlib
import subprocess
import sys
import textwrap
import threading
import time
from concurrent import futures
from typing import Any, Callable

import numpy as np
import pytest

import arrayhub as ah
from arrayhub import _client
from conftest import BACKEND, Daemon, start_daemon, stop_daemon


def _session_arrays(client: ah.Client) -> int:
    """Arrays the client's session holds on the server, counted without sending the client's
    queued frees first."""
    request = ah.v1.arrays_pb2.ListRequest()
    return len(client._connection.stub.List(request, metadata=client._metadata).arrays)


class _CountingStub:
    """Wraps a stub and counts calls per RPC."""

    def __init__(self, stub: Any) -> None:
        self._stub = stub
        self.calls: collections.Counter[str] = collections.Counter()

    def __getattr__(self, name: str) -> Callable[..., Any]:
        method = getattr(self._stub, name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] += 1
            return method(*args, **kwargs)

        def counted_future(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] += 1
            return method.future(*args, **kwargs)
        counted.future = counted_future  # type: ignore[attr-defined]
        return counted


@pytest.fixture
def quiet_client(client: ah.Client) -> ah.Client:
    """A client whose background thread is stopped, so that frees happen only when the
    client decides to send them (no timing in the test). Its stub counts calls."""
    quiet = ah.connect(client.address, client_name="quiet")
    quiet._connection.stop_housekeeping()
    quiet._connection.stub = _CountingStub(quiet._connection.stub)
    yield quiet
    quiet.close()


def test_garbage_collection_queues_frees_without_calls(quiet_client: ah.Client) -> None:
    with quiet_client.use():
        arrays = [ah.zeros(10) for _ in range(10)]
    handles = {a.handle for a in arrays}  # Waits for the queued creations.
    before = _session_arrays(quiet_client)
    calls_before = sum(quiet_client._connection.stub.calls.values())
    del arrays
    gc.collect()
    assert set(quiet_client._pending_frees) == handles
    assert sum(quiet_client._connection.stub.calls.values()) == calls_before  # __del__: no RPC
    assert _session_arrays(quiet_client) == before
    quiet_client.flush()
    assert _session_arrays(quiet_client) == before - 10
    assert quiet_client._connection.stub.calls["Free"] == 1


def test_frees_are_batched_in_a_hot_loop(quiet_client: ah.Client, sync_mode: None) -> None:
    before = _session_arrays(quiet_client)
    with quiet_client.use():
        for _ in range(300):
            ah.zeros(4)  # dropped at once
    calls = quiet_client._connection.stub.calls
    assert calls["Create"] == 300
    assert 1 <= calls["Free"] <= 300 // _client.FREE_BATCH + 1
    # Everything not yet freed is still queued; closing the client frees it.
    assert _session_arrays(quiet_client) - before == len(quiet_client._pending_frees)


class _HeldFreeStub(_CountingStub):
    """A stub whose Free calls wait until ``release`` is set, telling ``started`` first."""

    def __init__(self, stub: Any) -> None:
        super().__init__(stub)
        self.started, self.release = threading.Event(), threading.Event()

    def Free(self, *args: Any, **kwargs: Any) -> Any:  # noqa: N802 (the RPC's name)
        self.started.set()
        assert self.release.wait(30)
        return self._stub.Free(*args, **kwargs)


def test_a_listing_waits_for_the_frees_another_thread_is_sending(
        quiet_client: ah.Client) -> None:
    """The housekeeping thread may take the queued frees just before the user lists: the
    listing must wait for that Free rather than show the arrays it is freeing."""
    with quiet_client.use():
        arrays = [ah.zeros(3) for _ in range(5)]
    handles = {a.handle for a in arrays}
    del arrays
    gc.collect()
    stub = quiet_client._connection.stub = _HeldFreeStub(quiet_client._connection.stub)
    with futures.ThreadPoolExecutor(2) as pool:
        housekeeping = pool.submit(quiet_client._send_queued_frees)  # as its thread would
        assert stub.started.wait(30)
        listing = pool.submit(quiet_client.list_arrays)
        time.sleep(0.2)
        assert not listing.done()
        stub.release.set()
        housekeeping.result(30)
        assert not handles & {info.handle for info in listing.result(30)}


def test_server_info_counts_only_referenced_arrays(client: ah.Client) -> None:
    before = len(client.list_arrays())
    kept = ah.ones(5)
    dropped = [ah.ones(5) for _ in range(7)]
    assert len(client.list_arrays()) == before + 8
    del dropped
    gc.collect()
    assert len(client.list_arrays()) == before + 1
    assert kept.get().sum() == 5


def test_background_thread_frees_queued_arrays(client: ah.Client) -> None:
    dropped = [ah.ones(5) for _ in range(3)]
    handles = {array.handle for array in dropped}
    del dropped
    gc.collect()

    # Looked for by handle: arrays an earlier test dropped may be freed meanwhile too.
    def left() -> set[str]:
        listed = client._connection.stub.List(ah.v1.arrays_pb2.ListRequest(),
                                              metadata=client._metadata).arrays
        return handles & {info.handle for info in listed}

    deadline = time.monotonic() + 10
    while left() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left()


def test_session_scopes_temporaries(client: ah.Client) -> None:
    outer = ah.ones(4)
    with ah.session() as scoped:
        assert ah.get_client() is scoped
        temporaries = [ah.zeros(3) for _ in range(5)]
        assert temporaries[0].client is scoped
        assert len(scoped.list_arrays()) == 5
        assert outer.get().tolist() == [1.0] * 4  # arrays made outside stay usable
    assert ah.get_client() is client
    assert scoped.closed
    with pytest.raises(ah.ArrayNotFoundError, match="freed when its session"):
        temporaries[0].get()
    with pytest.raises(ah.ArrayNotFoundError):  # freed on the server too
        ah.open(temporaries[0].handle)
    del temporaries
    gc.collect()  # no error from collecting arrays of a closed session
    assert outer.get().tolist() == [1.0] * 4


@pytest.mark.requires_compute("Elementwise")
def test_results_inside_a_session_belong_to_it(client: ah.Client) -> None:
    outer = ah.ones(4)
    with ah.session() as scoped:
        result = outer * 2
        assert result.client is scoped
        assert result.get().tolist() == [2.0] * 4
    with pytest.raises(KeyError):
        result.get()


def test_keep_alive_renews_short_leases(client: ah.Client) -> None:
    with ah.connect(client.address, lease_seconds=1) as short:
        assert short.lease_seconds == 1
        x = ah.arange(3)
        time.sleep(3.5)
        assert x.get().tolist() == [0, 1, 2]


def test_session_expires_without_keep_alive(client: ah.Client) -> None:
    """The control for the test above: with the background thread stopped, the lease runs
    out and the server frees the session's arrays."""
    lapsed = ah.connect(client.address, lease_seconds=1)
    lapsed._connection.stop_housekeeping()
    with lapsed:
        x = ah.arange(3)
    time.sleep(3.5)
    with pytest.raises((KeyError, ConnectionError)):
        ah.open(x.handle).get()


def test_interpreter_exit_closes_the_session(client: ah.Client) -> None:
    script = textwrap.dedent("""
        import arrayhub as ah
        kept = [ah.ones(1000) for _ in range(5)]
        print(ah.get_client().session_id)
    """)
    gc.collect()
    before = client.server_info()
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=60, env={**os.environ, "ARRAYHUB_ADDRESS": client.address})
    assert result.returncode == 0, result.stderr
    after = client.server_info()
    assert (after.sessions, after.arrays) == (before.sessions, before.arrays)


def test_closed_client_refuses_calls(client: ah.Client) -> None:
    other = ah.connect(client.address)
    other.close()
    assert other.closed
    with pytest.raises(ConnectionError, match="closed"):
        other.server_info()


def test_ping_is_a_round_trip_on_the_clients_channel(client: ah.Client) -> None:
    client.ping()
    own = ah.connect(client.address)  # Not the shared client: this one gets closed.
    own.ping()
    own.close()
    with pytest.raises(ah.ArrayHubError):
        own.ping()


@pytest.mark.skipif(BACKEND != "cpu", reason="the CPU backend's arrays are the daemon's memory")
def test_the_daemon_gives_freed_arrays_memory_back(tmp_path: pathlib.Path) -> None:
    """The daemon's allocator (tcmalloc) keeps freed memory for reuse; host_memory.h's release
    hands it back once enough is freed: 256 MiB of 4 MiB arrays, written and dropped, leave
    the daemon's resident size near where it was before them."""
    daemon = start_daemon(tmp_path / "arrayhubd.log")
    try:
        with ah.connect(daemon.address) as client, client.use():
            small = ah.ones(16)  # a live array below the large ones
            float(small[0])
            before = _resident_kib(daemon)
            arrays = [ah.full((1 << 20,), float(i), dtype=np.float32) for i in range(64)]
            ah.synchronize()
            peak = _resident_kib(daemon)
            assert peak - before > 200 * 1024, (before, peak)  # written: resident
            del arrays
            gc.collect()
            client.list_arrays()  # sends the frees
            deadline = time.monotonic() + 10
            while _resident_kib(daemon) > peak - 200 * 1024 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert _resident_kib(daemon) <= peak - 200 * 1024, (before, peak,
                                                                _resident_kib(daemon))
            assert float(small.sum()) == 16.0
    finally:
        stop_daemon(daemon)


def _resident_kib(daemon: Daemon) -> int:
    status = pathlib.Path(f"/proc/{daemon.process.pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines()
                    if line.startswith("VmRSS:")))
