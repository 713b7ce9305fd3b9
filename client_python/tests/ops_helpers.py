"""Helpers for the tests of the daemon's operational side: its metrics endpoint, raw gRPC
access for calls held open across a drain, and waiting for a daemon to exit."""

from __future__ import annotations

import re
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from typing import Any

import grpc

from arrayhub.v1 import arrays_pb2, service_pb2_grpc
from conftest import Daemon

_METRICS = re.compile(r"metrics on (http://\S+)")


def metrics_url(daemon: Daemon, timeout: float = 10) -> str:
    """The /metrics URL the daemon logged (it logs it just after "listening on")."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        match = _METRICS.search(daemon.log.read_text())
        if match:
            return match.group(1)
        time.sleep(0.05)
    raise AssertionError(f"no metrics line in the log:\n{daemon.log.read_text()}")


def scrape(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        return response.read().decode("utf-8")


@dataclass
class RawSession:
    """A channel, a stub and an open session's metadata, without the client library's
    background thread: for calls a test holds open on purpose."""
    channel: grpc.Channel
    stub: Any
    metadata: tuple[tuple[str, str], ...]

    def close(self) -> None:
        self.channel.close()


def raw_session(address: str) -> RawSession:
    channel = grpc.insecure_channel(address)
    stub = service_pb2_grpc.ArrayHubStub(channel)
    opened = stub.OpenSession(arrays_pb2.OpenSessionRequest(client_name="ops-test"), timeout=10)
    return RawSession(channel, stub, (("x-arrayhub-session", opened.session_id),))


def wait_exit(process: subprocess.Popen, timeout: float) -> int:
    """The exit status; fails the test (after killing it) if it does not exit in time."""
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise AssertionError(f"arrayhubd still running after {timeout} s") from None
