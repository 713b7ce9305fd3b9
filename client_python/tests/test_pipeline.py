"""The pipelined client (_pipeline.py): queued ops return at once and run in issue order, from
many threads too; errors surface at the next wait with the op, its exception class and the
user's line, and discard what was queued after; the queue goes out on its own when idle or
full; frees ride with the work; a host read of a queued result is one round trip; sync mode."""

from __future__ import annotations

import gc
import os
import pathlib
import re
import subprocess
import sys
import threading
import time
from typing import Iterator

import numpy as np
import pytest

import arrayhub as ah
from arrayhub import _pipeline
from conftest import Daemon, start_daemon, stop_daemon

pytestmark = [pytest.mark.requires_compute("Elementwise"),
              pytest.mark.skipif(ah.is_sync(), reason="tests the pipelined mode (ARRAYHUB_SYNC)")]


def _queued(array: ah.ndarray) -> bool:
    return array._batch is not None and not array._batch.is_block


def _line_of(marker: str) -> int:
    """The line of this file that holds ``marker`` (a comment on the line of an op)."""
    with open(__file__) as source:
        return next(n for n, line in enumerate(source, 1)
                    if marker in line and "_line_of" not in line)


def test_ops_return_queued_arrays_that_read_back_right() -> None:
    host = np.arange(12.0).reshape(3, 4)
    x = ah.asarray(host)
    y = (x * 2 + 1).T
    assert _queued(y) and (y.shape, y.dtype, y.strides) == ((4, 3), np.float64, (8, 32))
    np.testing.assert_array_equal(y.get(), (host * 2 + 1).T)
    assert not _queued(y) and len(y.handle) == 32


def test_ops_from_many_threads_run_in_the_order_each_issued_them() -> None:
    counter = ah.zeros(1, dtype=np.int64)
    results: dict[int, ah.ndarray] = {}
    steps = 60

    def work(thread: int) -> None:
        y = ah.full(8, thread, dtype=np.int64)
        expected = thread
        for step in range(steps):
            y = y * 3 % 1000003 + 1  # a chain: any reordering changes the value
            expected = expected * 3 % 1000003 + 1
            ah.add(counter, 1, out=counter)  # shared, in place
            if step % 15 == 0:  # reads, while the other threads queue and flush
                assert int(y[thread % 8]) == expected
        results[thread] = y

    errors: list[BaseException] = []

    def guarded(thread: int) -> None:
        try:
            work(thread)
        except BaseException as error:  # reported below, in the test's thread
            errors.append(error)

    threads = [threading.Thread(target=guarded, args=(t,)) for t in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    assert int(counter[0]) == 8 * steps
    for t, y in results.items():
        expected = t
        for _ in range(steps):
            expected = expected * 3 % 1000003 + 1
        np.testing.assert_array_equal(y.get(), np.full(8, expected))


def test_an_error_surfaces_at_the_next_wait_naming_the_op_and_line() -> None:
    x = ah.arange(5)
    index = ah.asarray(np.array([7]))
    bad = ah.take(x, index)  # the failing op: its index is data
    after = x + 1  # queued after it: discarded
    assert _queued(bad) and bad.shape == (1,)  # Nothing raised yet.
    with pytest.raises(IndexError) as raised:
        ah.synchronize()
    error = raised.value
    assert isinstance(error, ah.ArrayHubIndexError)
    assert str(error) == (f"array_op take at {__file__}:{_line_of('# the failing op')}: "
                          f"index 7 is out of bounds for axis 0 with size 5")
    # The failed op's result and everything queued after it raise that error when used.
    for discarded in (bad, after):
        with pytest.raises(ah.ArrayHubIndexError, match="array_op take at .*index 7"):
            discarded.get()
        with pytest.raises(ah.ArrayHubIndexError):
            discarded + 1
    # It was raised once; the client works again, and x was never touched.
    ah.synchronize()
    np.testing.assert_array_equal((x + 1).get(), np.arange(1, 6))


def test_results_queued_before_a_failing_op_of_their_batch_survive_it() -> None:
    x = ah.arange(4.0)
    bad_index = ah.asarray(np.array([9]))
    with x.client._pipeline._lock:  # one Batch: the idle flush cannot split it
        y = x * 2
        ah.take(x, bad_index)
    with pytest.raises(ah.ArrayHubIndexError):
        ah.synchronize()
    np.testing.assert_array_equal(y.get(), [0, 2, 4, 6])


def test_an_in_place_write_before_a_failing_op_stays() -> None:
    """The server ran it; the batch's other results cannot be made again without reading
    what it wrote, so they fail with the error."""
    x = ah.zeros(3)
    bad_index = ah.asarray(np.array([3]))
    ah.synchronize()
    with x.client._pipeline._lock:
        y = x + 1
        x += 5
        ah.take(x, bad_index)
    with pytest.raises(ah.ArrayHubIndexError):
        ah.synchronize()
    np.testing.assert_array_equal(x.get(), [5, 5, 5])
    with pytest.raises(ah.ArrayHubIndexError, match="index 3 is out of bounds"):
        y.get()


def test_an_error_surfaces_at_a_read_and_at_a_synchronous_call() -> None:
    x = ah.ones(4)
    ah.take(x, ah.asarray(np.array([-9])))  # fails on the server
    with pytest.raises(ah.ArrayHubIndexError, match="index -9 is out of bounds"):
        float(x.sum())  # a read waits: the earlier error comes first
    ah.take(x, ah.asarray(np.array([4])))  # fails too
    with pytest.raises(ah.ArrayHubIndexError, match="index 4 is out of bounds"):
        x[0] = 5  # SetItem cannot be queued: it waits for the queue, and does not run
    np.testing.assert_array_equal(x.get(), np.ones(4))


def test_an_error_queued_in_a_session_block_raises_when_the_block_ends() -> None:
    x = ah.arange(3.0)
    with pytest.raises(ah.ArrayHubIndexError, match="index 5 is out of bounds"):
        with ah.session() as scoped:
            ah.take(x, ah.asarray(np.array([5])))
    assert scoped.closed
    np.testing.assert_array_equal(x.get(), [0, 1, 2])  # the outer session is not affected


def test_ops_issued_after_a_failure_are_discarded_until_it_is_raised() -> None:
    x = ah.zeros(3)
    ah.take(x, ah.asarray(np.array([3])))
    deadline = time.monotonic() + 10
    pipeline = x.client._pipeline
    while pipeline._error is None and time.monotonic() < deadline:
        time.sleep(0.005)  # the idle flush sends it and a later flush collects the failure
        pipeline.collect_if_done()
    assert pipeline._error is not None
    x += 1  # issued after the failure: discarded, x keeps its value
    later = x * 2
    with pytest.raises(ah.ArrayHubIndexError):
        later.get()  # the pending error first
    with pytest.raises(ah.ArrayHubIndexError):
        later.get()  # then the discarded array's own
    np.testing.assert_array_equal(x.get(), np.zeros(3))


def test_an_idle_queue_is_sent_without_any_read(client: ah.Client) -> None:
    """Seen from a second session: the queued op runs on its own after about 1 ms."""
    with ah.connect(client.address, client_name="watcher") as watcher:
        def arrays() -> int:
            return len(watcher.list_arrays(all_sessions=True))
        ah.synchronize()
        gc.collect()
        client.flush()
        before = arrays()
        kept = ah.zeros(1000)  # queued: no handle, nothing on the server yet
        deadline = time.monotonic() + 10
        while arrays() == before and time.monotonic() < deadline:
            time.sleep(0.01)
        assert arrays() == before + 1
        assert kept.shape == (1000,)


def test_a_full_queue_is_sent_without_waiting(client: ah.Client) -> None:
    y = ah.zeros(4)
    pipeline = client._pipeline
    with pipeline._lock:  # The idle flush cannot run: only the size can send.
        for _ in range(_pipeline.MAX_OPS - 1):  # with the zeros: MAX_OPS ops
            y = y + 1
        assert pipeline._current is None and pipeline._in_flight is not None
    assert float(y[0]) == _pipeline.MAX_OPS - 1


class _GatedBatch:
    """Stands in for the pipeline's Batch call: while ``gate`` is clear, calls made off the
    test's thread (the pipeline's sender, in flight) are held back, as a slow server would
    hold them."""

    def __init__(self, call: object) -> None:
        self.real = call
        self.gate = threading.Event()
        self.gate.set()
        self.sent: list[object] = []
        self.test_thread = threading.current_thread()

    def __call__(self, request: object, waited: bool = False) -> object:
        self.sent.append(request)
        if threading.current_thread() is not self.test_thread:
            assert self.gate.wait(30), "the gate was never opened"
        return self.real(request, waited)


@pytest.fixture
def gated(client: ah.Client) -> Iterator[_GatedBatch]:
    pipeline = client._pipeline
    ah.synchronize()
    gate = _GatedBatch(pipeline._call)
    pipeline._call = gate
    try:
        yield gate
    finally:
        gate.gate.set()
        ah.synchronize()
        del pipeline._call


def test_ops_naming_results_of_the_batch_in_flight_queue_without_waiting(
        client: ah.Client, gated: _GatedBatch) -> None:
    """While a Batch is in flight its results are named by stand-ins: nothing waits for its
    reply before the read, and the next Batch carries their real handles."""
    pipeline = client._pipeline
    host = np.arange(6.0)
    x = ah.asarray(host)
    ah.synchronize()  # (its small upload is a Batch too)
    sent_before = len(gated.sent)
    gated.gate.clear()
    with pipeline._lock:  # no idle flush before this one
        y = x + 1
        pipeline._send()  # as the idle or size flush does
    flight = pipeline._in_flight
    assert flight is not None and _queued(y)
    z = y * 2  # an elementwise operand
    w = ah.take(z, ah.arange(3)) + y[1:4]  # a view of it, and an array op after it
    ah.add(y, 10, out=y)  # an out= write into it
    total = (z + y).sum()
    assert pipeline._in_flight is flight and not gated.gate.is_set()  # nothing waited
    gated.gate.set()
    assert float(total) == float(((host + 1) * 2 + host + 11).sum())
    np.testing.assert_array_equal(w.get(), (host[:3] + 1) * 2 + host[1:4] + 1)
    later = gated.sent[sent_before + 1]
    handles = [operand.handle for op in later.ops for operand in op.elementwise.operands]
    assert y.handle in handles and not any(h.startswith("~") for h in handles)


def test_while_a_batch_is_in_flight_the_queue_goes_once_its_reply_has_come(
        client: ah.Client, gated: _GatedBatch) -> None:
    """Past its size too: it waits for nothing, and goes within LOOK_EVERY ops of the reply."""
    pipeline = client._pipeline
    gated.gate.clear()
    with pipeline._lock:
        y = ah.zeros(4)
        pipeline._send()
        for _ in range(_pipeline.MAX_OPS + 10):  # the reply held back
            y = y + 1
        assert len(pipeline._current) == _pipeline.MAX_OPS + 10
        gated.gate.set()
        pipeline._in_flight.reply._done.wait()  # the reply has come, not yet taken
        issued = _pipeline.MAX_OPS + 10
        while pipeline._current is not None:
            assert issued < _pipeline.MAX_OPS + 10 + _pipeline.LOOK_EVERY
            y = y + 1
            issued += 1
        assert pipeline._in_flight is not None  # sent without waiting
    assert float(y[0]) == issued


def test_a_failed_batch_in_flight_discards_the_ops_that_named_its_results(
        client: ah.Client, gated: _GatedBatch) -> None:
    pipeline = client._pipeline
    x = ah.arange(4.0)
    index = ah.asarray(np.array([8]))
    ah.synchronize()
    gated.gate.clear()
    with pipeline._lock:
        y = x * 2
        ah.take(x, index)  # fails on the server
        pipeline._send()
    z = y + 1  # names y in flight
    gated.gate.set()
    with pytest.raises(ah.ArrayHubIndexError, match="index 8 is out of bounds"):
        z.get()
    with pytest.raises(ah.ArrayHubIndexError, match="index 8 is out of bounds"):
        z.get()  # discarded: it never ran
    np.testing.assert_array_equal(y.get(), [0, 2, 4, 6])  # made again: before the failure


def test_the_flusher_thread_sleeps_while_nothing_is_queued() -> None:
    assert float(ah.ones(3).sum()) == 3.0  # the thread exists once something was queued
    time.sleep(0.05)
    flusher = [t for t in threading.enumerate() if t.name == "arrayhub-pipeline"]
    assert flusher and not _pipeline._flusher._waiting  # no pipeline to watch: it waits
    cpu = time.process_time()  # every thread of the process
    time.sleep(0.5)
    assert time.process_time() - cpu < 0.1


def test_dropped_intermediates_never_reach_the_server(client: ah.Client) -> None:
    ah.synchronize()
    gc.collect()
    client.flush()
    before = len(client.list_arrays())
    x = ah.ones(100)
    for _ in range(50):
        x = ah.sqrt(x * 4) / 2  # every intermediate is dropped before the queue goes
    assert float(x[0]) == 1.0
    assert len(client.list_arrays()) == before + 1


def test_frees_ride_with_the_queued_work(client: ah.Client) -> None:
    if not client._pipeline.batch_fields:
        pytest.skip("this server takes no BatchRequest.free")
    with ah.connect(client.address, client_name="frees") as own, own.use():
        own._connection.stop_housekeeping()  # only the pipeline sends frees
        arrays = [ah.asarray(np.ones(10)) for _ in range(5)]
        count = len(own.list_arrays())
        calls = []
        stub = own._connection.stub
        original = stub.Free
        stub.Free = lambda *args, **kwargs: calls.append(1) or original(*args, **kwargs)
        del arrays
        gc.collect()
        assert len(own._pending_frees) == 5
        total = ah.ones(3).sum()  # queued: the frees go with it
        assert float(total) == 3.0
        assert not own._pending_frees and not calls
        assert len(own.list_arrays()) == count - 5 + 1  # and the kept total


def _count_rpcs(log: str, start: int) -> list[str]:
    return re.findall(r"rpc /arrayhub\.v1\.ArrayHub/(\w+) ", log[start:])


@pytest.fixture(scope="module")
def logged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """A daemon that logs one line per RPC."""
    started = start_daemon(tmp_path_factory.mktemp("pipeline") / "arrayhubd.log",
                           log_level="debug")
    yield started
    stop_daemon(started)


def test_one_op_then_a_read_is_one_round_trip(logged: Daemon) -> None:
    with ah.connect(logged.address) as client, client.use():
        if not client._pipeline.batch_fields:
            pytest.skip("this server takes no GetItem or read in a Batch")
        x = ah.asarray(np.arange(10, dtype=np.float32))
        # The session's batch lane or stream opens at its first Batch (OpenBatchLane is a
        # call of its own), and stays open while it is used.
        assert float(x[1]) == 1.0
        time.sleep(0.1)
        start = len(logged.log.read_text())
        value = float((x + 1)[0])
        time.sleep(0.1)  # the log line is written after the answer
        assert value == 1.0
        log = logged.log.read_text()
        # One Batch: on the session's batch lane or BatchStream (a line per batch), or as a
        # unary call.
        streamed = len(re.findall(r"batch on a (stream|lane): ", log[start:]))
        assert _count_rpcs(log, start) == ([] if streamed else ["Batch"])
        assert streamed == (1 if client._pipeline._stream is not None else 0)


def test_a_small_upload_rides_in_the_batch_of_the_ops_that_use_it(logged: Daemon) -> None:
    with ah.connect(logged.address) as client, client.use():
        if not client._inline_create_bytes:
            pytest.skip("this server takes no inline create data")
        assert float(ah.asarray(np.ones(2))[0]) == 1.0  # the lane or stream opens
        time.sleep(0.1)
        start = len(logged.log.read_text())
        host = np.array([[3, -1], [2**40, 7]], dtype=">i8")  # big-endian: sent little
        x = ah.asarray(host)
        assert _queued(x) and (x.shape, x.dtype, x.strides) == ((2, 2), np.int64, (16, 8))
        host[0, 0] = 99  # the bytes were taken when asarray returned
        value = int((x * 2).sum())
        time.sleep(0.1)
        assert value == 2 * (3 - 1 + 2**40 + 7)
        log = logged.log.read_text()
        streamed = len(re.findall(r"batch on a (stream|lane): ", log[start:]))
        assert _count_rpcs(log, start) == ([] if streamed else ["Batch"])  # no Upload
        np.testing.assert_array_equal(x.get(), [[3, -1], [2**40, 7]])


def test_ops_whose_shape_depends_on_the_data_go_with_the_queue_in_one_round_trip(
        logged: Daemon) -> None:
    """unique and a boolean mask: the client cannot say their shapes, so each is queued
    behind the ops before it and the queue sent at once, one Batch each (on the lane or
    stream where there is one), not a drain and a unary call."""
    with ah.connect(logged.address) as client, client.use():
        if not client._pipeline.batch_fields:
            pytest.skip("this server takes no GetItem or read in a Batch")
        x = ah.asarray(np.array([3, 1, 3, 2, 1], dtype=np.int32))
        assert float(x[0]) == 3  # the lane or stream opens
        time.sleep(0.1)
        start = len(logged.log.read_text())
        y = x * 2  # queued
        assert _queued(y)
        u = ah.unique(y)
        assert not _queued(u) and not _queued(y) and u.shape == (3,) and u.dtype == np.int32
        m = y[y > 2]
        assert not _queued(m) and m.shape == (3,)
        time.sleep(0.1)
        log = logged.log.read_text()
        streamed = len(re.findall(r"batch on a (stream|lane): ", log[start:]))
        assert _count_rpcs(log, start) == ([] if streamed else ["Batch"] * 2)
        assert streamed == (2 if client._pipeline._stream is not None else 0)
        np.testing.assert_array_equal(u.get(), [2, 4, 6])
        np.testing.assert_array_equal(m.get(), [6, 6, 4])


def test_linalg_routines_giving_one_array_ride_the_queue(logged: Daemon) -> None:
    """solve and cholesky (their results not inferred) go as one Batch each, waited for at
    once; svd's tuple is a Linalg call of its own; a singular matrix raises at the call."""
    with ah.connect(logged.address) as client, client.use():
        if not client._pipeline.batch_fields:
            pytest.skip("this server takes no pipelined Batch fields")
        a = ah.asarray(np.array([[4.0, 2.0], [2.0, 3.0]]))
        assert float(a[0, 0]) == 4.0  # the lane or stream opens
        time.sleep(0.1)
        start = len(logged.log.read_text())
        b = a * 1  # queued before them
        x = ah.linalg.solve(b, ah.asarray(np.array([2.0, 1.0])))
        c = ah.linalg.cholesky(b)
        assert not _queued(x) and not _queued(c)
        u, sv, vt = ah.linalg.svd(b)
        time.sleep(0.1)
        log = logged.log.read_text()
        streamed = len(re.findall(r"batch on a (stream|lane): ", log[start:]))
        assert _count_rpcs(log, start) == (["Linalg"] if streamed else ["Batch", "Batch", "Linalg"])
        assert streamed == (2 if client._pipeline._stream is not None else 0)
        np.testing.assert_allclose(x.get(), np.linalg.solve([[4.0, 2.0], [2.0, 3.0]], [2.0, 1.0]))
        np.testing.assert_allclose(c.get(), np.linalg.cholesky([[4.0, 2.0], [2.0, 3.0]]))
        np.testing.assert_allclose(sv.get(), np.linalg.svd([[4.0, 2.0], [2.0, 3.0]])[1])
        with pytest.raises(ah.ArrayHubLinAlgError, match="^Singular matrix$"):
            ah.linalg.solve(ah.zeros((2, 2)), ah.ones(2))


def test_events_recorded_around_queued_ops_ride_in_their_batch(logged: Daemon) -> None:
    """An event's record gives no array, and is queued like the ops it times (what
    profiler.benchmark's device times rely on), and the elapsed time is asked in their Batch:
    one round trip."""
    with ah.connect(logged.address) as client, client.use():
        x = ah.ones(8)
        assert float(x[0]) == 1.0  # the lane or stream opens
        time.sleep(0.1)
        start = len(logged.log.read_text())
        begin, end = ah.cuda.Event(), ah.cuda.Event()
        begin.record()
        y = x + 1
        end.record()
        assert _queued(y)
        assert ah.cuda.get_elapsed_time(begin, end) >= 0
        time.sleep(0.1)
        log = logged.log.read_text()
        streamed = len(re.findall(r"batch on a (stream|lane): ", log[start:]))
        assert _count_rpcs(log, start) == ([] if streamed else ["Batch"])
        assert streamed == (1 if client._pipeline._stream is not None else 0)


def test_an_error_the_client_cannot_foresee_is_raised_at_the_call_as_numpy_words_it() -> None:
    x = ah.arange(5.0)
    y = x + 1  # queued before the failing op, in its Batch
    with pytest.raises(ah.ArrayHubValueError,
                       match="^repeats may not contain negative values$"):
        ah.repeat(x, -1)
    np.testing.assert_array_equal(y.get(), np.arange(1.0, 6.0))  # made again: it survives
    np.testing.assert_array_equal((x * 2).get(), np.arange(0.0, 10.0, 2))  # raised once


def test_an_earlier_op_s_error_is_raised_at_an_op_the_client_cannot_describe() -> None:
    x = ah.arange(5)
    ah.take(x, ah.asarray(np.array([7])))  # the earlier failure
    with pytest.raises(ah.ArrayHubIndexError) as raised:
        ah.unique(x)  # waits: the earlier op's error, named with its line, comes first
    assert str(raised.value) == (f"array_op take at {__file__}:{_line_of('# the earlier fa')}: "
                                 f"index 7 is out of bounds for axis 0 with size 5")
    np.testing.assert_array_equal(ah.unique(x).get(), np.arange(5))  # raised once


def test_small_uploads_from_many_threads_each_get_their_own_bytes(client: ah.Client) -> None:
    """Threads queue small uploads into one pipeline at once, each changing its host buffer
    right after the call: every array holds the bytes its thread had at the call."""
    errors: list[BaseException] = []
    sums: dict[int, list[float]] = {}

    def work(thread: int) -> None:
        try:
            host = np.full(64, float(thread))
            arrays = []
            for step in range(40):
                host[:] = thread * 1000 + step
                arrays.append(ah.asarray(host) * 1)  # queued with the op that reads it
                host[:] = -1  # taken already
            sums[thread] = [float(a.sum()) for a in arrays]
        except BaseException as error:  # reported below, in the test's thread
            errors.append(error)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    for t in range(8):
        assert sums[t] == [64.0 * (t * 1000 + step) for step in range(40)]


def test_uploads_past_the_inline_size_and_with_progress_are_their_own_calls(
        logged: Daemon) -> None:
    with ah.connect(logged.address) as client, client.use():
        small = np.arange(4.0)
        for data, progress in ((np.zeros(_pipeline.INLINE_UPLOAD_BYTES // 8 + 1), None),
                               (small, True)):
            start = len(logged.log.read_text())
            x = ah.asarray(data, progress=progress)
            assert not _queued(x)
            time.sleep(0.1)
            assert any(call in ("Upload", "CopyFromSharedMemory")
                       for call in _count_rpcs(logged.log.read_text(), start))
            np.testing.assert_array_equal(x.get(), data)
        # Types the server has no dtype for are refused as an upload refuses them.
        with pytest.raises(TypeError):
            ah.asarray(np.array(["a", "b"]))


def test_sync_mode_sends_each_op_alone(logged: Daemon) -> None:
    with ah.connect(logged.address) as client, client.use():
        x = ah.ones(4)
        ah.set_sync(True)
        try:
            start = len(logged.log.read_text())
            y = x + 1
            assert not _queued(y)
            z = y * 2
            time.sleep(0.1)
            assert _count_rpcs(logged.log.read_text(), start) == ["Elementwise", "Elementwise"]
            assert ah.is_sync()
        finally:
            ah.set_sync(False)
        assert _queued(z * 1) and float(z.sum()) == 16.0


def test_arrayhub_sync_in_the_environment_starts_in_sync_mode() -> None:
    code = "import arrayhub; print(arrayhub.is_sync())"
    for value, expected in (("1", "True"), ("0", "False"), ("", "False")):
        env = dict(os.environ, ARRAYHUB_SYNC=value)
        result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                text=True, timeout=60)
        assert result.stdout.strip() == expected, result.stderr


def test_a_quota_refuses_queued_work_at_the_next_wait(tmp_path: pathlib.Path) -> None:
    quota = 1 << 20
    daemon = start_daemon(tmp_path / "arrayhubd.log", "--tenant-max-bytes", str(quota))
    try:
        with ah.connect(daemon.address) as client, client.use():
            small = ah.ones(1000)
            big = ah.zeros(quota)  # 8 MiB: over the tenant's quota
            with pytest.raises(ah.ArrayHubMemoryError) as raised:
                float(small.sum())
            assert str(raised.value).startswith(
                f"create zeros at {__file__}:{_line_of('over the tenant')}: ")
            with pytest.raises(MemoryError):
                big.get()
            info = client.server_info()
            assert info.tenant_bytes_in_use == small.nbytes  # nothing of the failed op stays
            assert float(small.sum()) == 1000.0
    finally:
        stop_daemon(daemon)
