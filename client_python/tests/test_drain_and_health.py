"""Graceful drain on SIGTERM/SIGINT and the health service around it, against real daemons:
in-flight work finishes, new calls are refused, health turns NOT_SERVING, the deadline cuts
stragglers off, a second signal exits at once, and the exit status is 0 after a drain."""

from __future__ import annotations

import signal
import threading
import time
from typing import Any, Callable, Iterator

import grpc
import numpy as np
import pytest

# grpcio-health-checking is a test dependency of CI's venv; GPU machines may lack it.
health_pb2 = pytest.importorskip("grpc_health.v1.health_pb2")
health_pb2_grpc = pytest.importorskip("grpc_health.v1.health_pb2_grpc")

import arrayhub
from arrayhub.v1 import arrays_pb2, compute_pb2, types_pb2
from conftest import Daemon
from ops_helpers import raw_session, wait_exit

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


def _slow_upload(chunks: int, pause: float, started: threading.Event,
                 stall: threading.Event | None = None) -> Iterator[arrays_pb2.UploadRequest]:
    """An upload of `chunks` float64 chunks of 1 KiB, `pause` seconds apart; sets `started`
    once the header and first chunk are out, and, given `stall`, waits for it before the
    rest."""
    header = arrays_pb2.UploadHeader(dtype=types_pb2.DTYPE_FLOAT64, shape=[chunks * 128])
    yield arrays_pb2.UploadRequest(header=header)
    for index in range(chunks):
        yield arrays_pb2.UploadRequest(chunk=np.full(128, index, np.float64).tobytes())
        if index == 0:
            started.set()
            if stall is not None:
                stall.wait(60)
        time.sleep(pause)


def _until_the_server_runs_it(session: Any, nbytes: int) -> None:
    """Waits until the server has taken an upload of `nbytes` (its array is charged to the
    tenant): the client's sending the first chunk does not mean the server has begun the call,
    and a call it has not begun when the drain starts is refused, not finished."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        info = session.stub.GetServerInfo(arrays_pb2.ServerInfoRequest(),
                                          metadata=session.metadata, timeout=5)
        if info.tenant_bytes_in_use >= nbytes:
            return
        time.sleep(0.01)
    raise AssertionError("the server did not begin the upload within 10 s")


def test_health_is_serving_until_a_signal_and_not_serving_while_draining(
        launch: Callable[..., Daemon]) -> None:
    daemon = launch()
    channel = grpc.insecure_channel(daemon.address)
    health = health_pb2_grpc.HealthStub(channel)
    assert health.Check(health_pb2.HealthCheckRequest(), timeout=10).status == SERVING
    service = health_pb2.HealthCheckRequest(service="arrayhub.v1.ArrayHub")
    assert health.Check(service, timeout=10).status == SERVING

    client = arrayhub.connect(daemon.address)
    client.ping()

    watch = health.Watch(health_pb2.HealthCheckRequest(), timeout=30)
    assert next(watch).status == SERVING
    daemon.process.send_signal(signal.SIGTERM)
    assert next(watch).status == NOT_SERVING
    # Answered NOT_SERVING, refused once the drain closed the listener, or cancelled by the
    # drain, depending on timing: an error every time, never a success.
    with pytest.raises(arrayhub.ArrayHubError):
        client.ping()
    # gRPC's health service keeps a Watch open through the drain (it would hold the drain to
    # its deadline); a watcher told NOT_SERVING goes away.
    watch.cancel()
    assert wait_exit(daemon.process, 20) == 0
    channel.close()


def test_drain_finishes_in_flight_work_refuses_new_calls_and_exits_0(
        launch: Callable[..., Daemon]) -> None:
    daemon = launch("--drain-seconds", "20")
    session = raw_session(daemon.address)
    started = threading.Event()
    upload = session.stub.Upload.future(_slow_upload(8, 0.1, started), metadata=session.metadata)
    assert started.wait(10)
    _until_the_server_runs_it(session, 8 * 128 * 8)

    daemon.process.send_signal(signal.SIGTERM)
    time.sleep(0.3)  # The signal is taken; the server stops accepting.
    with pytest.raises(grpc.RpcError) as refused:
        grpc.insecure_channel(daemon.address).unary_unary(
            "/arrayhub.v1.ArrayHub/GetServerInfo",
            request_serializer=arrays_pb2.ServerInfoRequest.SerializeToString,
            response_deserializer=arrays_pb2.ServerInfo.FromString,
        )(arrays_pb2.ServerInfoRequest(), timeout=5)
    assert refused.value.code() == grpc.StatusCode.UNAVAILABLE

    array = upload.result(timeout=30).array  # The call in flight completes normally.
    assert list(array.shape) == [8 * 128]
    assert wait_exit(daemon.process, 20) == 0
    log = daemon.log.read_text()
    assert "received signal 15: draining for up to 20 s" in log
    assert "arrayhubd stopped" in log
    session.close()


def test_drain_deadline_cancels_calls_still_running_and_sigint_drains_too(
        launch: Callable[..., Daemon]) -> None:
    daemon = launch("--drain-seconds", "1")
    session = raw_session(daemon.address)
    started, stall = threading.Event(), threading.Event()
    upload = session.stub.Upload.future(_slow_upload(2, 0, started, stall),
                                        metadata=session.metadata)
    assert started.wait(10)
    _until_the_server_runs_it(session, 2 * 128 * 8)

    begun = time.monotonic()
    daemon.process.send_signal(signal.SIGINT)
    assert wait_exit(daemon.process, 20) == 0
    assert time.monotonic() - begun < 10
    with pytest.raises(grpc.RpcError):
        upload.result(timeout=10)
    stall.set()
    session.close()


def test_a_second_signal_exits_at_once(launch: Callable[..., Daemon]) -> None:
    daemon = launch("--drain-seconds", "60")
    session = raw_session(daemon.address)
    started, stall = threading.Event(), threading.Event()
    upload = session.stub.Upload.future(_slow_upload(2, 0, started, stall),
                                        metadata=session.metadata)
    assert started.wait(10)
    _until_the_server_runs_it(session, 2 * 128 * 8)  # (a call not begun is refused, not held)

    daemon.process.send_signal(signal.SIGTERM)
    time.sleep(0.5)
    assert daemon.process.poll() is None, "the stalled upload should hold the drain"
    begun = time.monotonic()
    daemon.process.send_signal(signal.SIGTERM)
    assert wait_exit(daemon.process, 10) == 128 + signal.SIGTERM
    assert time.monotonic() - begun < 5
    with pytest.raises(grpc.RpcError):
        upload.result(timeout=10)
    stall.set()
    session.close()


def test_the_drain_ends_on_time_even_inside_work_that_cannot_stop(
        launch: Callable[..., Daemon]) -> None:
    """A product of two 4096 x 4096 matrices is one BLAS call, with no point where it could
    stop: the daemon exits a second past --drain-seconds without it (status 1, saying so)."""
    daemon = launch("--drain-seconds", "1")
    session = raw_session(daemon.address)
    n = 4096

    def random(seed: int) -> str:
        spec = arrays_pb2.RandomSpec(has_seed=True, seed=seed,
                                     uniform=arrays_pb2.RandomSpec.Uniform(high=1))
        request = arrays_pb2.CreateRequest(dtype=types_pb2.DTYPE_FLOAT64, shape=[n, n],
                                           random=spec)
        return session.stub.Create(request, metadata=session.metadata, timeout=60).handle

    a, b = random(1), random(2)
    product = session.stub.Matmul.future(
        compute_pb2.MatmulRequest(a=compute_pb2.Operand(handle=a),
                                  b=compute_pb2.Operand(handle=b)),
        metadata=session.metadata)
    time.sleep(0.5)  # The product is under way.

    begun = time.monotonic()
    daemon.process.send_signal(signal.SIGTERM)
    status = wait_exit(daemon.process, 30)
    took = time.monotonic() - begun
    assert took < 1 + 1 + 1.5, f"the drain took {took:.1f} s"
    if product.exception(timeout=10) is None:
        assert status == 0  # A fast machine finished the product within the drain.
    else:
        assert status == 1
        assert "calls still running 2 s after the drain began: exiting without them" in \
            daemon.log.read_text()
    session.close()
