"""Progress of long transfers: shown on stderr when asked for (progress=True or
ARRAYHUB_PROGRESS=1) and the transfer reaches the threshold (lowered here), with tqdm when it
is installed and as one plain line otherwise; streamed and shared-memory transfers alike."""

from __future__ import annotations

import sys
import types
from typing import Any, Iterator

import numpy as np
import pytest

import arrayhub as ah
from arrayhub import _progress
from arrayhub.v1 import arrays_pb2
from conftest import Daemon

DATA = np.arange(3 << 18, dtype=np.float64)  # 6 MiB: six stream chunks.


@pytest.fixture(autouse=True)
def _low_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_progress, "THRESHOLD_BYTES", 1 << 20)
    monkeypatch.delenv("ARRAYHUB_PROGRESS", raising=False)
    monkeypatch.setitem(sys.modules, "tqdm", None)  # Not installed: the plain line.


@pytest.fixture(params=["stream", "shared-memory"])
def transfer_client(request: pytest.FixtureRequest, daemon: Daemon,
                    monkeypatch: pytest.MonkeyPatch) -> Iterator[ah.Client]:
    monkeypatch.setenv("ARRAYHUB_SHARED_MEMORY", "1" if request.param == "shared-memory" else "0")
    with ah.connect(daemon.address) as connected:
        yield connected


def _lines(stderr: str) -> list[str]:
    """The states the plain line showed (each redraw starts with a carriage return)."""
    return [state for state in stderr.replace("\n", "").split("\r") if state]


def test_asked_for_progress_shows_upload_and_download(
        transfer_client: ah.Client, capsys: pytest.CaptureFixture[str]) -> None:
    with transfer_client.use():
        x = ah.asarray(DATA, progress=True)
        upload = capsys.readouterr().err
        np.testing.assert_array_equal(x.get(progress=True), DATA)
        download = capsys.readouterr().err
    for stderr, label in ((upload, "upload"), (download, "download")):
        states = _lines(stderr)
        assert states[0] == f"{label}: 0 B / 6.0 MiB (0%)", stderr
        assert states[-1] == f"{label}: 6.0 MiB / 6.0 MiB (100%)", stderr
        assert stderr.endswith("\n")


def test_the_environment_asks_for_progress_and_progress_false_wins(
        transfer_client: ah.Client, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    with transfer_client.use():
        monkeypatch.setenv("ARRAYHUB_PROGRESS", "1")
        x = ah.asarray(DATA)
        assert "upload: 6.0 MiB / 6.0 MiB (100%)" in capsys.readouterr().err
        ah.asnumpy(x, progress=False)
        x.set(DATA, progress=False)
        assert capsys.readouterr().err == ""


def test_no_progress_unless_asked_or_below_the_threshold(
        client: ah.Client, capsys: pytest.CaptureFixture[str]) -> None:
    x = ah.asarray(DATA)
    x.get()
    ah.asarray(DATA[:1000], progress=True).get(progress=True)  # 8000 B: under 1 MiB.
    assert capsys.readouterr().err == ""


def test_tqdm_is_used_when_installed(client: ah.Client, monkeypatch: pytest.MonkeyPatch) -> None:
    bars: list[dict[str, Any]] = []

    class FakeTqdm:
        def __init__(self, **options: Any) -> None:
            self.state = {"options": options, "counted": 0, "closed": False}
            bars.append(self.state)

        def update(self, count: int) -> None:
            self.state["counted"] += count

        def close(self) -> None:
            self.state["closed"] = True

    monkeypatch.setitem(sys.modules, "tqdm", types.SimpleNamespace(tqdm=FakeTqdm))
    ah.asarray(DATA, progress=True).get(progress=True)
    assert [(b["options"]["desc"], b["options"]["total"], b["counted"], b["closed"])
            for b in bars] == [("upload", DATA.nbytes, DATA.nbytes, True),
                               ("download", DATA.nbytes, DATA.nbytes, True)]
    assert bars[0]["options"]["unit"] == "B"


def test_a_failed_transfer_ends_its_line(client: ah.Client,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    x = ah.asarray(DATA)
    client._rpc("Free", arrays_pb2.FreeRequest(handles=[x.handle]))
    with pytest.raises(ah.ArrayNotFoundError):
        x.get(progress=True)
    stderr = capsys.readouterr().err
    assert set(_lines(stderr)) == {"download: 0 B / 6.0 MiB (0%)"} and stderr.endswith("\n")
