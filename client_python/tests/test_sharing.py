"""Sharing arrays with other processes by handle."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

import arrayhub as ah


def test_another_process_opens_an_array_by_handle(client: ah.Client) -> None:
    host = np.arange(12, dtype=np.float32).reshape(3, 4) / 7
    x = ah.asarray(host)
    script = ("import sys, arrayhub as ah; y = ah.open(sys.argv[1]); "
              "print(y.shape, y.dtype, y.get().tobytes().hex())")
    result = subprocess.run([sys.executable, "-c", script, x.handle], capture_output=True,
                            text=True, timeout=60,
                            env={**os.environ, "ARRAYHUB_ADDRESS": client.address})
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["(3,", "4)", "float32", host.tobytes().hex()]
    # The other process did not own the array: it is still here after that process exited.
    np.testing.assert_array_equal(x.get(), host)


def test_opened_arrays_are_not_freed_by_the_opener(client: ah.Client) -> None:
    x = ah.ones(3)
    before = client.server_info().arrays
    opened = ah.open(x.handle)
    assert opened.handle == x.handle and opened.shape == (3,)
    del opened
    assert client.server_info().arrays == before
    assert x.get().tolist() == [1.0, 1.0, 1.0]


def test_the_tenants_publications_are_listed_after_their_session_ended(
        client: ah.Client) -> None:
    with ah.session():
        ah.arange(3).publish("py/outlives")
    # The publishing session is closed; the publication outlives it and holds its memory.
    def listed() -> list[tuple[str, str, str, int]]:
        return [(a.handle, a.owner, a.name, a.nbytes)
                for a in client.list_arrays(all_sessions=True, include_shared=True)
                if a.name == "py/outlives"]

    assert listed() == [("", "anonymous", "py/outlives", 24)]
    ah.unpublish("py/outlives")
    assert listed() == []
