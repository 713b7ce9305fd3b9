"""The pipeline's Batches over the session's batch lane (_batch_lane.py): a client on the
daemon's host sends them through the daemon's Unix socket; a failed batch raises as the unary
call would and the lane goes on; where no lane can be opened (no transfer slot, a daemon
without lanes, a socket that cannot prove it is the daemon's) the batches go on the stream; an
idle lane is closed and opened again when needed."""

from __future__ import annotations

import pathlib
import re
import time
from typing import Iterator

import numpy as np
import pytest

import arrayhub as ah
from arrayhub import _batch_lane, _batch_stream
from arrayhub.v1 import arrays_pb2, compute_pb2
from conftest import Daemon, start_daemon, stop_daemon

pytestmark = [pytest.mark.requires_compute("Elementwise"),
              pytest.mark.skipif(ah.is_sync(), reason="tests the pipelined mode (ARRAYHUB_SYNC)")]


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """One transfer slot per tenant, and a log line per call and per batch."""
    started = start_daemon(tmp_path_factory.mktemp("lane") / "arrayhubd.log",
                           "--tenant-max-transfers", "1", log_level="debug")
    yield started
    stop_daemon(started)


@pytest.fixture(autouse=True)
def _lanes_wanted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARRAYHUB_BATCH_LANE", raising=False)


def _batches(log: str, start: int) -> dict[str, int]:
    """Batches since ``start``, by the way they came."""
    return {"lane": len(re.findall(r"batch on a lane: ", log[start:])),
            "stream": len(re.findall(r"batch on a stream: ", log[start:])),
            "unary": len(re.findall(r"rpc /arrayhub\.v1\.ArrayHub/Batch ", log[start:]))}


def test_reads_go_over_a_lane_and_a_failed_batch_does_not_end_it(limited: Daemon) -> None:
    with ah.connect(limited.address) as client, client.use():
        lane = client._pipeline._stream
        assert isinstance(lane, _batch_lane.BatchLane)
        x = ah.asarray(np.arange(6.0))
        client.synchronize()
        start = len(limited.log.read_text())
        assert float((x + 1)[2]) == 3.0
        assert float((x * 2).sum()) == 30.0
        connection = lane._connection
        assert connection is not None
        ah.take(x, ah.asarray(np.array([9])))  # fails on the server
        with pytest.raises(ah.ArrayHubIndexError, match="index 9 is out of bounds"):
            float(x.sum())
        np.testing.assert_array_equal((x - 1).get(), np.arange(6.0) - 1)
        assert lane._connection is connection  # the same lane all along
        time.sleep(0.1)
        counted = _batches(limited.log.read_text(), start)
        assert counted["lane"] >= 4 and counted["stream"] == counted["unary"] == 0


def test_a_lane_refused_leaves_the_batches_to_the_stream_or_a_unary_call(
        limited: Daemon) -> None:
    """The tenant's one transfer slot is taken by the first session's lane: the second's lane
    and stream are both refused, and its batches go as unary calls."""
    with ah.connect(limited.address) as first, ah.connect(limited.address) as second:
        with first.use():
            assert float(ah.ones(3).sum()) == 3.0
        assert first._pipeline._stream.open
        start = len(limited.log.read_text())
        with second.use():
            x = ah.arange(4.0)
            assert float((x + 1).sum()) == 10.0
            assert float((x * 3).sum()) == 18.0
        assert not second._pipeline._stream.open
        assert second._pipeline._stream._unavailable
        time.sleep(0.1)
        assert _batches(limited.log.read_text(), start) == {"lane": 0, "stream": 0, "unary": 2}


def test_a_daemon_without_lanes_takes_the_batches_on_its_stream(tmp_path: pathlib.Path) -> None:
    daemon = start_daemon(tmp_path / "arrayhubd.log", "--batch-lanes=false")
    try:
        with ah.connect(daemon.address) as client, client.use():
            assert isinstance(client._pipeline._stream, _batch_stream.BatchStream)
            assert float((ah.arange(3.0) + 1).sum()) == 6.0
    finally:
        stop_daemon(daemon)


def test_lanes_can_be_switched_off_in_the_client(limited: Daemon,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARRAYHUB_BATCH_LANE", "0")
    with ah.connect(limited.address) as client, client.use():
        assert isinstance(client._pipeline._stream, _batch_stream.BatchStream)
        assert float((ah.arange(3.0) + 1).sum()) == 6.0


def test_a_socket_that_does_not_prove_itself_is_not_used(limited: Daemon) -> None:
    """A process that took the socket's name cannot know the proof: the client does not send
    it a batch, and goes on over the stream."""
    with ah.connect(limited.address) as client, client.use():
        lane = client._pipeline._stream
        granted = lane._open_lane

        def wrong_proof() -> compute_pb2.OpenBatchLaneResponse:
            grant = granted()
            grant.proof = "0" * 32
            return grant
        lane._open_lane = wrong_proof
        start = len(limited.log.read_text())
        assert float((ah.arange(4.0) * 2).sum()) == 12.0
        assert not lane.open and lane._unavailable
        time.sleep(0.1)
        assert _batches(limited.log.read_text(), start)["lane"] == 0


def test_a_lane_whose_session_ended_raises_at_the_next_wait(limited: Daemon) -> None:
    with ah.connect(limited.address) as client, client.use():
        x = ah.arange(3.0)
        assert float(x.sum()) == 3.0
        assert client._pipeline._stream.open
        client._connection.stub.CloseSession(arrays_pb2.CloseSessionRequest(),
                                             metadata=client._metadata)
        with pytest.raises(ah.ArrayHubError):
            float((x + 1).sum())


def test_an_idle_lane_is_closed_and_opened_again(limited: Daemon,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_batch_stream, "IDLE_CLOSE_SECONDS", 0.05)
    with ah.connect(limited.address) as client, client.use():
        lane = client._pipeline._stream
        x = ah.arange(3.0)
        assert float(x.sum()) == 3.0
        assert lane.open
        deadline = time.monotonic() + 10
        while lane.open and time.monotonic() < deadline:
            time.sleep(0.05)  # the housekeeping thread closes it within about a second
        assert not lane.open
        assert float((x + 1).sum()) == 6.0
        assert lane.open
    # Closing the session closed its lane: the slot is free for another session's.
    with ah.connect(limited.address) as other, other.use():
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            assert float(ah.ones(2).sum()) == 2.0
            if other._pipeline._stream.open:
                break
            other._pipeline._stream._unavailable = False  # try again: the slot frees soon
            time.sleep(0.05)
        assert other._pipeline._stream.open
