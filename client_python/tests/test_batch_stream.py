"""The pipeline's Batches over the session's BatchStream (_batch_stream.py): reads go over it,
a failed batch raises as the unary call would and the stream goes on, a stream the server
refuses (no transfer slot) leaves the Batch to a unary call, and an idle stream is closed and
opened again when needed."""

from __future__ import annotations

import pathlib
import re
import time
from typing import Iterator

import numpy as np
import pytest

import arrayhub as ah
from arrayhub import _batch_stream
from arrayhub.v1 import arrays_pb2
from conftest import Daemon, start_daemon, stop_daemon

pytestmark = [pytest.mark.requires_compute("Elementwise"),
              pytest.mark.skipif(ah.is_sync(), reason="tests the pipelined mode (ARRAYHUB_SYNC)")]


@pytest.fixture(autouse=True)
def _on_the_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    """Clients on the daemon's host send their batches on a lane (test_batch_lane.py)."""
    monkeypatch.setenv("ARRAYHUB_BATCH_LANE", "0")


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """One transfer slot per tenant, and a log line per call and per streamed batch."""
    started = start_daemon(tmp_path_factory.mktemp("stream") / "arrayhubd.log",
                           "--tenant-max-transfers", "1", log_level="debug")
    yield started
    stop_daemon(started)


def _batches(log: str, start: int) -> tuple[int, int]:
    """Batches since ``start``: (streamed, unary)."""
    return (len(re.findall(r"batch on a stream: ", log[start:])),
            len(re.findall(r"rpc /arrayhub\.v1\.ArrayHub/Batch ", log[start:])))


def test_reads_go_over_the_stream_and_a_failed_batch_does_not_end_it(limited: Daemon) -> None:
    with ah.connect(limited.address) as client, client.use():
        stream = client._pipeline._stream
        assert stream is not None
        x = ah.asarray(np.arange(6.0))
        client.synchronize()
        start = len(limited.log.read_text())
        assert float((x + 1)[2]) == 3.0
        assert float((x * 2).sum()) == 30.0
        replies = stream._replies
        ah.take(x, ah.asarray(np.array([9])))  # fails on the server
        with pytest.raises(ah.ArrayHubIndexError, match="index 9 is out of bounds"):
            float(x.sum())
        np.testing.assert_array_equal((x - 1).get(), np.arange(6.0) - 1)
        assert stream._replies is replies  # the same stream all along
        time.sleep(0.1)
        streamed, unary = _batches(limited.log.read_text(), start)
        assert streamed >= 4 and unary == 0


def test_a_refused_stream_leaves_the_batch_to_a_unary_call(limited: Daemon) -> None:
    """The tenant's one transfer slot is taken by the first session's stream."""
    with ah.connect(limited.address) as first, ah.connect(limited.address) as second:
        with first.use():
            assert float(ah.ones(3).sum()) == 3.0
        assert first._pipeline._stream._replies is not None
        start = len(limited.log.read_text())
        with second.use():
            x = ah.arange(4.0)
            assert float((x + 1).sum()) == 10.0
            assert float((x * 3).sum()) == 18.0
        assert second._pipeline._stream._replies is None  # refused each time, not kept
        time.sleep(0.1)
        _, unary = _batches(limited.log.read_text(), start)
        assert unary == 2


def test_an_idle_stream_is_closed_and_opened_again(limited: Daemon,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_batch_stream, "IDLE_CLOSE_SECONDS", 0.05)
    with ah.connect(limited.address) as client, client.use():
        stream = client._pipeline._stream
        x = ah.arange(3.0)
        assert float(x.sum()) == 3.0
        assert stream._replies is not None
        deadline = time.monotonic() + 10
        while stream._replies is not None and time.monotonic() < deadline:
            time.sleep(0.05)  # the housekeeping thread closes it within about a second
        assert stream._replies is None
        assert float((x + 1).sum()) == 6.0
        assert stream._replies is not None
    # Closing the session half-closed its stream: the slot is free for another session.
    with ah.connect(limited.address) as other, other.use():
        assert float(ah.ones(2).sum()) == 2.0
        assert other._pipeline._stream._replies is not None


def test_a_stream_refused_for_another_reason_raises(tmp_path: pathlib.Path) -> None:
    """A session the server no longer knows: the stream ends at once, and the error is the
    one the unary call would give."""
    daemon = start_daemon(tmp_path / "arrayhubd.log")
    try:
        with ah.connect(daemon.address) as client, client.use():
            x = ah.arange(3.0)
            client.synchronize()
            client._connection.stub.CloseSession(arrays_pb2.CloseSessionRequest(),
                                                 metadata=client._metadata)
            with pytest.raises(ah.ArrayHubError):
                float((x + 1).sum())
    finally:
        stop_daemon(daemon)
