"""A session's Batches over a batch lane: a connection to the daemon's Unix socket, for a
client on its host (compute.proto, OpenBatchLaneResponse, has the protocol).

From Python a batch with its read took 241-439 us as a BatchStream message and 55-108 us
through the socket (H100 host, bench/user/read_cost.py), and a pipelined script waits for one
round trip at every host read. So where the daemon is on this host and grants lanes
(ServerLimits.batch_lane), a pipeline's Batches go this way; where a lane cannot be opened
(another host, a container without the daemon's socket, the tenant's transfers all in use)
they go over the BatchStream as before. ``ARRAYHUB_BATCH_LANE=0`` keeps them on the stream,
``=1`` tries a lane whatever the address.
"""

from __future__ import annotations

import hmac
import logging
import os
import socket
import struct
import threading
import time
from typing import Any, Callable, Optional

import grpc

from arrayhub import _host
from arrayhub._batch_stream import BatchFailed, IdleClosing
from arrayhub._errors import status_code
from arrayhub.v1 import compute_pb2

__all__ = ["BatchLane", "wanted"]

_log = logging.getLogger("arrayhub")

#: Seconds to connect and be answered when a lane opens.
_OPEN_TIMEOUT_SECONDS = 10.0


def _spin_seconds() -> float:
    """How long a call looks for its answer before it sleeps in the kernel
    (ARRAYHUB_LANE_SPIN_US, in microseconds). A thread that sleeps is woken when the answer
    comes, which on a virtual machine whose idle CPUs halt costs tens to hundreds of
    microseconds (bench/RESULTS.md, "The read floor is where the processes run"); CUDA makes
    the same choice for cudaStreamSynchronize, spinning while there are more CPUs than
    contexts. So by default a call spins 250 us on a host with 4 CPUs or more, and never on
    fewer, where the spinning client would take the CPU the daemon answers on."""
    setting = os.environ.get("ARRAYHUB_LANE_SPIN_US")
    if setting is not None:
        return max(0.0, float(setting)) / 1e6
    return 250e-6 if (os.cpu_count() or 1) >= 4 else 0.0
_LENGTH = struct.Struct("<I")


def wanted(address: str) -> bool:
    """Whether to try a lane to the daemon at ``address``, after ARRAYHUB_BATCH_LANE."""
    setting = os.environ.get("ARRAYHUB_BATCH_LANE", "")
    if setting in ("0", "1"):
        return setting == "1"
    return hasattr(socket, "AF_UNIX") and _host.on_this_host(address)


def _receive_exactly(connection: socket.socket, size: int, spin: float = 0.0) -> bytearray:
    """``size`` bytes from ``connection``; for the first, it looks without waiting for up to
    ``spin`` seconds before it waits in the kernel."""
    data = bytearray(size)
    view = memoryview(data)
    got = 0
    if spin > 0:
        until = time.perf_counter() + spin
        while True:
            try:
                got = connection.recv_into(view, size, socket.MSG_DONTWAIT)
            except BlockingIOError:
                if time.perf_counter() < until:
                    continue
            else:
                if got == 0:
                    raise ConnectionError("the daemon closed the batch lane")
            break
    while got < size:
        n = connection.recv_into(view[got:], size - got)
        if n == 0:
            raise ConnectionError("the daemon closed the batch lane")
        got += n
    return data


class BatchLane(IdleClosing):
    """The batch lane of one session, opened at the first Batch and closed after
    IDLE_CLOSE_SECONDS without one (it holds a thread and a transfer slot of the daemon).
    ``open_lane()`` asks the daemon for a ticket (OpenBatchLane); ``fallback`` (a
    BatchStream) takes the Batches when no lane can be opened. Calls are made one at a time
    (the pipeline's lock and its one Batch in flight see to that; a lock here too)."""

    def __init__(self, open_lane: Callable[[], Any], fallback: Any) -> None:
        self._open_lane = open_lane
        self._fallback = fallback
        self._lock = threading.Lock()
        self._connection: Optional[socket.socket] = None
        # Set when a lane could not be opened: the rest of the session uses the fallback.
        self._unavailable = False
        self._last_use = 0.0
        self._spin = _spin_seconds()

    @property
    def open(self) -> bool:
        """Whether a lane is open now."""
        return self._is_open()

    def call(self, request: compute_pb2.BatchRequest,
             waited: bool = False) -> compute_pb2.BatchResponse:
        """Runs one Batch; raises what the Batch RPC would raise (a grpc.RpcError).
        ``waited``: the calling thread is the one the user waits in (a host read), which then
        spins for the answer a while (ARRAYHUB_LANE_SPIN_US) before it sleeps; the pipeline's
        sender thread does not, which would hold the GIL from the thread queueing ops."""
        with self._lock:
            if self._connection is None and not self._unavailable:
                self._connection = self._connect()
                self._unavailable = self._connection is None
            if self._connection is None:
                return self._fallback.call(request, waited)
            data = request.SerializeToString()
            try:
                self._connection.sendall(_LENGTH.pack(len(data)) + data)
                (length,) = _LENGTH.unpack(
                    _receive_exactly(self._connection, _LENGTH.size,
                                     self._spin if waited else 0.0))
                reply = compute_pb2.BatchStreamResponse.FromString(
                    bytes(_receive_exactly(self._connection, length)))
            except OSError:
                # Sent or not, run or not: it cannot be known, so it is not sent again.
                self._close()
                raise BatchFailed(grpc.StatusCode.UNAVAILABLE,
                                  "the server ended the batch lane") from None
            self._last_use = time.monotonic()
        if reply.HasField("error"):
            raise BatchFailed(status_code(reply.error.code),
                              reply.error.message)
        return reply.response

    def _connect(self) -> Optional[socket.socket]:
        """A lane opened and proved to be the daemon's, or None (logged) when it cannot be."""
        try:
            grant = self._open_lane()
        except grpc.RpcError as error:
            _log.debug("arrayhub: no batch lane (%s): batches go on the stream", error.details())
            return None
        path = grant.socket_path
        address = "\0" + path[1:] if path.startswith("@") else path
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            connection.settimeout(_OPEN_TIMEOUT_SECONDS)
            connection.connect(address)
            connection.sendall(f"BATCHES {grant.ticket}\n".encode())
            line = b""
            while not line.endswith(b"\n") and len(line) < 256:
                chunk = connection.recv(1)
                if not chunk:
                    break
                line += chunk
            answer = line.decode(errors="replace").rstrip("\n")
            # The proof shows that the socket is the daemon's that issued the ticket, and not
            # a process's that took its name on this host.
            if not hmac.compare_digest(answer, f"OK {grant.proof}"):
                raise OSError(answer if answer.startswith("ERROR") else "the lane was not proved")
            connection.settimeout(None)
        except OSError as error:
            connection.close()
            _log.debug("arrayhub: no batch lane at %s (%s): batches go on the stream", path, error)
            return None
        return connection

    def close_if_idle(self) -> None:
        self._fallback.close_if_idle()
        super().close_if_idle()

    def _is_open(self) -> bool:
        return self._connection is not None

    def close(self) -> None:
        with self._lock:
            self._close()
        self._fallback.close()

    def _close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None
