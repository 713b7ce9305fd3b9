"""The pipelined client's caches (inferred results in _infer.py, shared operand messages in
_ops.py, the idle flusher's watch list) change no result: values that Python finds equal
but NumPy does not (1, 1.0 and True; 0.0 and -0.0) stay apart, an op with out= answers its
own out, the caches stay bounded, and a queue started while the flusher still watches the
pipeline goes out on its own."""

from __future__ import annotations

import time

import numpy as np
import pytest

import arrayhub as ah
from arrayhub import _infer, _ops

pytestmark = [pytest.mark.requires_compute("Elementwise"),
              pytest.mark.skipif(ah.is_sync(), reason="tests the pipelined mode (ARRAYHUB_SYNC)")]


def test_equal_scalars_of_other_types_give_their_own_dtypes_and_values() -> None:
    host = np.arange(4, dtype=np.int8)
    a = ah.asarray(host)
    for scalar in (1, 1.0, True, 1, True, 1.0):  # each type after each other one
        queued = a + scalar
        assert queued.dtype == (host + scalar).dtype
        np.testing.assert_array_equal(queued.get(), host + scalar)


def test_zero_and_negative_zero_scalars_stay_apart() -> None:
    a = ah.asarray(np.ones(3))
    for zero in (0.0, -0.0, 0.0, -0.0):
        assert np.signbit((a * zero).get()).tolist() == [np.signbit(zero)] * 3


def test_an_index_equal_to_a_cached_one_but_of_another_type_is_inferred_anew() -> None:
    meta = _infer.contiguous((3, 4), np.float64)
    assert _infer.getitem(meta, (1,)).shape == (4,)
    assert _infer.getitem(meta, (True,)) is None  # a boolean index: left to the server


def test_a_cached_result_with_out_is_the_ops_own_out() -> None:
    first = _infer.Meta((3,), np.dtype(np.float64), (8,), True, True, True, True)
    second = _infer.Meta((3,), np.dtype(np.float64), (8,), True, True, True, True)
    assert _infer.elementwise("add", [first, 1], first, None) is first
    assert _infer.elementwise("add", [second, 1], second, None) is second


def test_the_caches_stay_bounded() -> None:
    for n in range(_infer._MAX_RESULTS + 10):
        _infer.elementwise("add", [_infer.contiguous((n + 1,), np.float32), 1], None, None)
        _ops._scalar_operand(n)
    assert 0 < len(_infer._RESULTS) <= _infer._MAX_RESULTS
    assert 0 < len(_ops._SCALAR_OPERANDS) <= _ops._MAX_SCALAR_OPERANDS


def test_a_queue_started_while_the_flusher_still_watches_goes_out_when_idle(
        client: ah.Client) -> None:
    """The flusher is not woken for a pipeline it still watches after a read: the queued op
    must still run on its own, seen from a second session."""
    with ah.connect(client.address, client_name="watcher") as watcher:
        def made() -> int:  # the arrays of the op below (the read leaves others)
            return sum(tuple(info.shape) == (1237,)
                       for info in watcher.list_arrays(all_sessions=True))
        before = made()
        assert float(ah.ones(3).sum()) == 3.0  # a queue, sent by the read
        kept = ah.zeros(1237)  # queued at once after: no handle, nothing on the server yet
        deadline = time.monotonic() + 10
        while made() == before and time.monotonic() < deadline:
            time.sleep(0.01)
        assert made() == before + 1
        assert kept.shape == (1237,)
