"""Client.watch_session(): the session's events as an iterator of SessionEvent, ending after
the session's end or the drain; closing it stops the iteration and gives the server's slot
back; a refusal is raised as an ArrayHub error."""

from __future__ import annotations

import signal
import time
from typing import Callable

import pytest

import arrayhub
from conftest import Daemon
from ops_helpers import wait_exit




def test_watching_first_then_the_end_of_the_session_with_its_arrays(
        client: arrayhub.Client) -> None:
    session = client.open_session()
    with session.use():
        kept = arrayhub.zeros(3)
    session.flush()
    with session.watch_session() as watch:
        first = next(watch)
        assert first.kind == "watching"
        assert abs(first.lease_expires_at - (time.time() + session.lease_seconds)) < 5
        session.close()
        assert list(watch) == [arrayhub.SessionEvent("session_ended", reason="closed",
                                                     arrays_freed=1)]
    del kept


def test_closing_a_watch_ends_it_and_frees_the_tenants_slot(
        launch: Callable[..., Daemon]) -> None:
    daemon = launch("--tenant-max-transfers", "1")
    with arrayhub.connect(daemon.address) as client:
        watch = client.watch_session()
        assert next(watch).kind == "watching"
        # The one slot is the watch's.
        with pytest.raises(arrayhub.ArrayHubMemoryError,
                           match="--tenant-max-transfers 1.*session watches are in flight"):
            next(client.watch_session())
        watch.close()
        assert list(watch) == []
        deadline = time.monotonic() + 10
        while True:
            try:
                with client.watch_session() as again:
                    assert next(again).kind == "watching"
                break
            except arrayhub.ArrayHubMemoryError:
                assert time.monotonic() < deadline, "the closed watch kept its slot"
                time.sleep(0.02)


def test_a_lease_about_to_run_out_then_its_end(launch: Callable[..., Daemon]) -> None:
    daemon = launch("--lease-warning-percent", "50")
    with arrayhub.connect(daemon.address, lease_seconds=1) as client:
        client._connection.stop_housekeeping()  # Nothing renews the lease.
        watch = client.watch_session()
        first = next(watch)
        warned = next(watch)
        assert warned.kind == "lease_expiring"
        # The same expiry (nothing renewed it), converted to Unix time a moment later.
        assert warned.lease_expires_at == pytest.approx(first.lease_expires_at, abs=0.005)
        assert list(watch) == [arrayhub.SessionEvent("session_ended", reason="lease_expired",
                                                     arrays_freed=0)]


def test_the_drain_is_the_last_event_and_does_not_wait_for_the_watch(
        launch: Callable[..., Daemon]) -> None:
    daemon = launch("--drain-seconds", "30")
    client = arrayhub.connect(daemon.address)
    watch = client.watch_session()
    assert next(watch).kind == "watching"
    started = time.monotonic()
    daemon.process.send_signal(signal.SIGTERM)
    assert list(watch) == [arrayhub.SessionEvent("draining")]
    assert wait_exit(daemon.process, timeout=10) == 0
    assert time.monotonic() - started < 10
