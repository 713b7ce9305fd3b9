"""arrayhub.cuda.Event as the server's events: recorded in the session's order with the
operations they time, measured by the server, refused where CUDA would refuse them."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import arrayhub as ah
from arrayhub import _events, cuda
from conftest import Daemon

INVALID_HANDLE = "cudaErrorInvalidResourceHandle: invalid resource handle"
NOT_RECORDED = "no event of that id was recorded in this session"


def test_elapsed_time_covers_the_work_recorded_between_the_events(client: ah.Client) -> None:
    x = ah.asarray(np.random.default_rng(3).standard_normal(1 << 20))
    small = ah.arange(16.0)
    first, second, third = cuda.Event(), cuda.Event(), cuda.Event()
    first.record()
    big = ah.sort(x)
    second.record()
    tiny = ah.sort(small)
    third.record()
    third.synchronize()
    assert first.done and second.query() and third.done
    sorting = cuda.get_elapsed_time(first, second)
    nothing_much = cuda.get_elapsed_time(second, third)
    assert sorting > 0 and sorting > nothing_much >= 0
    assert cuda.get_elapsed_time(first, third) == pytest.approx(sorting + nothing_much,
                                                                rel=1e-3, abs=1e-3)
    assert cuda.get_elapsed_time(second, second) == 0
    # Recording again moves the event: first now comes after the sort.
    first.record()
    assert cuda.get_elapsed_time(first, third) < sorting
    assert float(big[0]) == float(np.sort(x.get())[0]) and float(tiny[15]) == 15.0


def test_a_stream_records_events_in_a_batch_block_too(client: ah.Client) -> None:
    x = ah.arange(1 << 16, dtype=ah.float64)
    start = cuda.Event()
    with ah.batch():
        start.record()
        y = x * 2 + 1
        end = cuda.get_current_stream().record()
    assert cuda.get_elapsed_time(start, end) >= 0
    assert float(y[-1]) == 2.0 * ((1 << 16) - 1) + 1


def test_unrecorded_untimed_and_foreign_events_are_refused(client: ah.Client,
                                                           daemon: Daemon) -> None:
    start, end = cuda.Event(), cuda.Event(block=True)
    assert start.done and start.query()  # Unrecorded: done, as in CUDA.
    start.synchronize()
    with pytest.raises(cuda.runtime.CUDARuntimeError, match=f"^{INVALID_HANDLE}$"):
        cuda.get_elapsed_time(start, end)
    start.record()
    untimed = cuda.Event(disable_timing=True, interprocess=True)
    untimed.record()
    untimed.synchronize()
    with pytest.raises(cuda.runtime.CUDARuntimeError, match=f"^{INVALID_HANDLE}$"):
        cuda.get_elapsed_time(start, untimed)
    with ah.connect(daemon.address) as other:
        # The server answers another session's ids as ids never recorded.
        with pytest.raises(ah.ArrayNotFoundError, match=f"^start_event_id = {start._id}: "
                           f"{NOT_RECORDED}$"):
            _events.elapsed_milliseconds(other, start._id, untimed._id)
        with pytest.raises(ah.ArrayNotFoundError, match=f"^event_id = {untimed._id}: "
                           f"{NOT_RECORDED}$"):
            _events.query(other, untimed._id, wait=True)
        with other.use():
            end.record()  # In the other client's session.
        with pytest.raises(cuda.runtime.CUDARuntimeError, match=f"^{INVALID_HANDLE}$"):
            cuda.get_elapsed_time(start, end)


def test_ids_of_collected_events_are_used_again(client: ah.Client) -> None:
    events = [cuda.Event() for _ in range(8)]
    for event in events:
        event.record()
    ids = {event._id for event in events}
    del events, event
    gc.collect()
    again = [cuda.Event() for _ in range(8)]
    for event in again:
        event.record()
    # Reused, not new: no id past the largest before (ids freed by earlier tests' collected
    # Events may come first).
    assert max(event._id for event in again) <= max(ids)
    again[0].synchronize()


def test_a_session_holds_at_most_max_session_events(launch) -> None:
    daemon = launch("--max-session-events=3")
    with ah.connect(daemon.address) as connected, connected.use():
        kept = [cuda.Event() for _ in range(3)]
        for event in kept:
            event.record()
        kept[2].record()  # Recording again takes no room.
        kept[2].synchronize()
        extra = cuda.Event()
        with pytest.raises(ah.ArrayHubError, match=r"the session holds 3 events, the most the "
                           r"server allows \(--max-session-events\)") as caught:
            extra.record()  # Queued: its error comes at the next wait (at once in sync mode).
            extra.synchronize()
        assert caught.value.code.name == "RESOURCE_EXHAUSTED"


def test_benchmark_gpu_times_are_the_servers(client: ah.Client) -> None:
    x = ah.asarray(np.random.default_rng(5).standard_normal(1 << 19))
    small = ah.arange(8.0)
    big = ah.profiler.benchmark(ah.sort, (x,), n_repeat=3, n_warmup=1)
    tiny = ah.profiler.benchmark(ah.sort, (small,), n_repeat=3, n_warmup=1, name="tiny")
    assert big.gpu_times.shape == (1, 3) and tiny.cpu_times.shape == (3,)
    assert (big.gpu_times > 0).all()
    assert big.gpu_times.min() > tiny.gpu_times.max()
    assert str(tiny).startswith("tiny                :    CPU:")


@pytest.mark.skipif(ah.is_sync(), reason="tests the pipelined mode (ARRAYHUB_SYNC)")
def test_an_elapsed_time_asked_after_queued_ops_rides_with_them(client: ah.Client,
                                                                monkeypatch) -> None:
    unary: list[str] = []
    rpc = client._rpc
    monkeypatch.setattr(client, "_rpc", lambda method, request: unary.append(method)
                        or rpc(method, request))
    x = ah.asarray(np.random.default_rng(7).standard_normal(1 << 18))
    ah.synchronize()
    start, end = cuda.Event(), cuda.Event()
    start.record()
    y = ah.sort(x)
    end.record()
    timed = cuda.get_elapsed_time(start, end)  # The queue, the end record and the question.
    assert unary == [] and timed > 0
    # Asked again with nothing queued: on its own, the same answer.
    assert cuda.get_elapsed_time(start, end) == timed and unary == ["EventElapsedTime"]
    np.testing.assert_array_equal(y.get(), np.sort(x.get()))


@pytest.mark.skipif(ah.is_sync(), reason="tests the pipelined mode (ARRAYHUB_SYNC)")
def test_an_elapsed_time_refused_with_queued_ops_fails_none_of_them(client: ah.Client) -> None:
    start = cuda.Event()
    start.record()
    y = ah.arange(5.0) * 3
    with pytest.raises(ah.ArrayNotFoundError, match=f"^end_event_id = 999999: {NOT_RECORDED}$"):
        _events.elapsed_milliseconds(client, start._id, 999999)
    assert y._batch is None or y._batch._state == "ran"
    np.testing.assert_array_equal(y.get(), np.arange(5.0) * 3)
