"""arrayhub.batch(): operations recorded in a block run as one Batch call at its end, against
NumPy on random data; kept results, freed intermediates, pending arrays that refuse to be
read, and errors that name the op and leave nothing behind."""

from __future__ import annotations


import numpy as np
import pytest

import arrayhub as ah
from conftest import assert_matches, live_handles

pytestmark = pytest.mark.requires_compute("Elementwise")


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(8)


def test_a_chain_of_ops_matches_numpy_and_keeps_only_what_is_referenced(
        client: ah.Client, rng: np.random.Generator) -> None:
    x_host, y_host = rng.normal(size=(6, 5)), rng.normal(size=(5,))
    x, y = ah.asarray(x_host), ah.asarray(y_host)
    before = live_handles(client)
    with ah.batch() as b:
        t = x * y
        r = ah.exp(ah.sqrt(t * t + 1.0) - 2 * t).sum(axis=0)
        m = (x @ y.reshape(5, 1)).T
    assert len(b) == 11
    expected_t = x_host * y_host
    assert_matches(t, expected_t)
    assert_matches(r, np.exp(np.sqrt(expected_t * expected_t + 1.0) - 2 * expected_t).sum(axis=0))
    assert_matches(m, (x_host @ y_host.reshape(5, 1)).T)
    # Exactly the three kept results are new; every intermediate is gone.
    assert live_handles(client) == before | {t.handle, r.handle, m.handle}


def test_nothing_runs_until_the_block_ends(client: ah.Client) -> None:
    x = ah.zeros(3)
    before = live_handles(client)
    with ah.batch():
        y = x + 1
        x += 5  # In place into an existing array: recorded too, after y.
        z = ah.ones(2, dtype=np.int8)
    assert live_handles(client) == before | {y.handle, z.handle}
    np.testing.assert_array_equal(x.get(), [5, 5, 5])
    np.testing.assert_array_equal(y.get(), [1, 1, 1])
    assert z.dtype == np.int8 and z.shape == (2,)


def test_views_reductions_array_ops_and_creation(rng: np.random.Generator) -> None:
    host = rng.normal(size=(4, 6)).astype(np.float32)
    a = ah.asarray(host)
    with ah.batch():
        grid = ah.arange(24, dtype=np.float32).reshape(4, 6)
        view = (a + grid).T.swapaxes(0, 1).ravel()
        stacked = ah.concatenate([a, grid], axis=1)
        sorted_rows = ah.sort(a, axis=1)
        total = ah.cumsum(a, axis=0).max(axis=1, keepdims=True)
        cast = a.astype(np.int16)
        eye = ah.eye(4, dtype=np.float32) @ a
        scaled = a * np.float32(0.5)  # A NumPy scalar: its dtype takes part in promotion.
    expected_grid = np.arange(24, dtype=np.float32).reshape(4, 6)
    assert_matches(view, (host + expected_grid).T.swapaxes(0, 1).ravel())
    assert_matches(stacked, np.concatenate([host, expected_grid], axis=1))
    assert_matches(sorted_rows, np.sort(host, axis=1))
    assert_matches(total, np.cumsum(host, axis=0).max(axis=1, keepdims=True))
    assert_matches(cast, host.astype(np.int16))
    assert_matches(eye, np.eye(4, dtype=np.float32) @ host)
    assert_matches(scaled, host * np.float32(0.5))


def test_pending_arrays_refuse_anything_that_needs_their_data() -> None:
    x = ah.arange(4.0)
    with ah.batch():
        t = x * 2
        for attempt in (t.get, lambda: str(t), lambda: float(t),
                        lambda: len(t), lambda: t.shape, lambda: t.dtype, lambda: bool(t),
                        lambda: np.asarray(t), lambda: t.handle):
            with pytest.raises(ah.ArrayHubBatchError,
                               match=r"pending result of ops\[0\] \(elementwise multiply\) of "
                                     r"the arrayhub.batch\(\) block being recorded"):
                attempt()
        assert "pending" in repr(t)  # repr never raises.
    np.testing.assert_array_equal(t.get(), [0, 2, 4, 6])


def test_calls_a_batch_cannot_hold_raise_inside_the_block() -> None:
    x = ah.arange(6.0)
    with ah.batch():
        with pytest.raises(ah.ArrayHubBatchError, match="GetItem cannot run inside"):
            x[1:3]
        with pytest.raises(ah.ArrayHubBatchError, match="Download cannot run inside"):
            x.get()
        with pytest.raises(ah.ArrayHubBatchError, match="Upload cannot run inside"):
            ah.asarray(np.ones(3))
        with pytest.raises(ah.ArrayHubBatchError, match="split cannot be recorded"):
            ah.split(x, 2)
        t = x + 1
        with pytest.raises(ah.ArrayHubBatchError, match="cannot write into a pending result"):
            t += 1
        with pytest.raises(ah.ArrayHubBatchError, match="do not nest"):
            with ah.batch():
                pass
    np.testing.assert_array_equal(t.get(), np.arange(6.0) + 1)


def test_an_exception_in_the_block_runs_nothing(client: ah.Client) -> None:
    x = ah.zeros(3)
    before = live_handles(client)
    with pytest.raises(KeyError):
        with ah.batch():
            x += 1
            t = x * 2
            raise KeyError("stop")
    np.testing.assert_array_equal(x.get(), [0, 0, 0])
    assert live_handles(client) == before
    with pytest.raises(ah.ArrayHubBatchError, match="raised an exception, so it never ran"):
        t.get()


def test_a_failing_op_fails_the_batch_and_leaves_nothing(client: ah.Client) -> None:
    x, m = ah.arange(3.0), ah.ones((2, 2))
    before = live_handles(client)
    with pytest.raises(ah.ArrayHubValueError,
                       match=r"^ops\[2\] \(matmul\): matmul: Input operand 1 has a mismatch"):
        with ah.batch():
            x += 1
            t = x * 2
            r = t @ m
    assert live_handles(client) == before
    np.testing.assert_array_equal(x.get(), [1, 2, 3])  # The earlier in-place write stays.
    with pytest.raises(ah.ArrayHubBatchError, match=r"failed: ops\[2\] \(matmul\)"):
        r.get()


@pytest.mark.parametrize("fails, error", [
    (lambda x: ah.sum(x, axis=3), ah.ArrayHubAxisError),
    (lambda x: x.astype(np.float32) + ah.zeros(4), ah.ArrayHubValueError),
    (lambda x: ah.left_shift(x * 1.5, 1), ah.ArrayHubTypeError),
    (lambda x: ah.take(x + 1, 10), ah.ArrayHubIndexError),
])
def test_errors_of_batched_ops_map_as_outside_a_batch(fails, error) -> None:
    x = ah.arange(3, dtype=np.int64)
    with pytest.raises(error, match=r"^ops\[\d+\] \("):
        with ah.batch():
            fails(x)
