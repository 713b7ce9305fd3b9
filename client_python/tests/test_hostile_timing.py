"""Calls whose inputs another thread rewrites while they run, through the ordinary client, as a
hostile tenant would try them: the daemon must answer each with a result or a clean error and
stay up, and concurrent in-place updates from several sessions must all land."""

from __future__ import annotations

import threading
from typing import Callable

import grpc
import numpy as np
import pytest

import arrayhub as ah
from conftest import Daemon

pytestmark = pytest.mark.requires_compute("Elementwise")


def run_against(client: ah.Client, writer: Callable[[], None],
                readers: list[Callable[[], None]], rounds: int) -> None:
    """Runs `writer` in a loop on its own session and thread while each reader runs `rounds`
    times on a thread of its own; re-raises the first failure of any of them."""
    failures: list[BaseException] = []
    done = threading.Event()

    def write() -> None:
        with client.open_session():
            try:
                while not done.is_set():
                    writer()
            except BaseException as error:  # noqa: BLE001 - reported below
                failures.append(error)

    def read(reader: Callable[[], None]) -> None:
        try:
            with client.use():
                for _ in range(rounds):
                    reader()
        except BaseException as error:  # noqa: BLE001 - reported below
            failures.append(error)

    writing = threading.Thread(target=write)
    writing.start()
    reading = [threading.Thread(target=read, args=(reader,)) for reader in readers]
    for thread in reading:
        thread.start()
    for thread in reading:
        thread.join()
    done.set()
    writing.join()
    if failures:
        raise failures[0]


def is_race_error(error: ah.ArrayHubError) -> bool:
    return getattr(error, "code", None) == grpc.StatusCode.ABORTED


def test_nonzero_while_another_session_flips_the_array(client: ah.Client,
                                                       daemon: Daemon) -> None:
    mask = ah.zeros(30_000, dtype=bool)
    mask[::3] = True  # 10,000 true; flipped, 20,000.
    data = ah.arange(30_000, dtype=np.float32)

    def flip() -> None:
        ah.logical_not(mask, out=mask)

    def check(make: Callable[[], tuple[ah.ndarray, ...] | ah.ndarray]) -> Callable[[], None]:
        def reader() -> None:
            try:
                result = make()
            except ah.ArrayHubError as error:
                assert is_race_error(error), error
                return
            first = result[0] if isinstance(result, tuple) else result
            assert first.shape[0] in (10_000, 20_000)
        return reader

    run_against(client, flip, [check(lambda: ah.nonzero(mask)),
                               check(lambda: ah.compress(mask, data)),
                               check(lambda: data[mask])], rounds=40)
    assert daemon.process.poll() is None


def test_gathers_while_another_session_moves_the_indices_out_of_bounds(
        client: ah.Client, daemon: Daemon) -> None:
    data = ah.arange(1000, dtype=np.float64)
    index = ah.asarray(np.random.default_rng(5).integers(0, 1000, 512))

    def move() -> None:
        ah.add(index, 2**40, out=index)
        ah.subtract(index, 2**40, out=index)

    def gather() -> None:
        try:
            got = data[index].get()
        except IndexError as error:
            assert "out of bounds for axis 0 with size 1000" in str(error)
            return
        assert (((got >= 0) & (got < 1000)) | (got == -1)).all()  # -1: scattered.

    def scatter() -> None:
        try:
            data[index] = -1.0
        except IndexError as error:
            assert "out of bounds for axis 0 with size 1000" in str(error)

    run_against(client, move, [gather, scatter, gather], rounds=40)
    values = data.get()
    assert ((values == np.arange(1000)) | (values == -1)).all()
    assert daemon.process.poll() is None


def test_in_place_adds_from_two_sessions_all_land(client: ah.Client) -> None:
    x = ah.zeros(100_000, dtype=np.float32)
    rounds = 100

    def add_ones() -> None:
        with client.open_session():
            for _ in range(rounds):
                ah.add(x, 1, out=x)

    threads = [threading.Thread(target=add_ones) for _ in range(2)]
    for thread in threads:
        thread.start()
    for _ in range(rounds):
        ah.add(x, 1, out=x)
    for thread in threads:
        thread.join()
    np.testing.assert_array_equal(x.get(), np.full(100_000, 3 * rounds, np.float32))
