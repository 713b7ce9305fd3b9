"""Connections to arrayhubd: sessions, keep-alive, transfers and batched frees.

A :class:`Client` is one server session. Clients opened on the same server by
:func:`arrayhub.session` share one gRPC channel (a ``_Connection``) and one background thread,
which renews every session's lease and sends the frees that garbage collection queued.
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import contextvars
import logging
import os
import socket
import threading
import time
import weakref
from typing import Any, Callable, Iterator, Optional

import grpc
import numpy as np

from arrayhub import (_connect_options, _cuda_ipc, _dtypes, _pipeline, _progress, _shared_memory,
                      _watch)
from arrayhub._errors import (ArrayHubBatchError, ArrayHubConnectionError, ArrayHubError,
                              SessionNotFoundError, client_error, error_from_rpc)
from arrayhub.v1 import arrays_pb2, service_pb2_grpc, types_pb2

__all__ = ["Client", "connect", "session", "get_client", "set_default_client"]

_log = logging.getLogger("arrayhub")

#: Upload chunk size: the contract's default server limit (ServerInfo.limits may allow more).
CHUNK_BYTES = 1 << 20
#: Queued frees that make the next call send them first.
FREE_BATCH = 64
#: How often (at most) the background thread sends queued frees and checks leases, in seconds.
_HOUSEKEEPING_SECONDS = 1.0
#: Deadline of the calls the client makes on its own (KeepAlive, Free, CloseSession), so
#: that closing or exiting never hangs on an unresponsive server.
_HOUSEKEEPING_TIMEOUT = 10.0
#: Largest message accepted from the server (download chunks are capped far below this).
_MAX_MESSAGE_BYTES = 64 << 20

TlsOption = _connect_options.TlsOption


class _Connection:
    """A gRPC channel to one server, shared by the sessions (Clients) opened over it."""

    def __init__(self, address: str, token: Optional[str], tls: TlsOption) -> None:
        options = [("grpc.max_receive_message_length", _MAX_MESSAGE_BYTES),
                   ("grpc.max_send_message_length", _MAX_MESSAGE_BYTES)]
        if tls is False:
            self.channel = grpc.insecure_channel(address, options=options)
        else:
            credentials = grpc.ssl_channel_credentials() if tls is True else tls
            self.channel = grpc.secure_channel(address, credentials, options=options)
        self.address = address
        self.tls = tls is not False
        self.stub = service_pb2_grpc.ArrayHubStub(self.channel)
        # Upload and Download with the messages' bytes as they are on the wire, so that array
        # data is copied once into an upload message and once out of a download message
        # (_chunk_prefix, _chunk_start), not also into and out of protobuf objects.
        self.raw_upload = self.channel.stream_unary(
            "/arrayhub.v1.ArrayHub/Upload", request_serializer=None,
            response_deserializer=arrays_pb2.UploadResponse.FromString)
        self.raw_download = self.channel.unary_stream(
            "/arrayhub.v1.ArrayHub/Download",
            request_serializer=arrays_pb2.DownloadRequest.SerializeToString,
            response_deserializer=None)
        # grpc.health.v1.Health/Check, read raw so that the package needs no
        # grpcio-health-checking: the request with no service named is the empty message.
        self.health_check = self.channel.unary_unary(
            "/grpc.health.v1.Health/Check", request_serializer=lambda _: b"",
            response_deserializer=lambda data: data)
        self.auth: tuple[tuple[str, str], ...] = (
            (("authorization", f"Bearer {token}"),) if token else ())
        self.sessions: weakref.WeakSet[Client] = weakref.WeakSet()
        self.limits: Optional[arrays_pb2.ServerLimits] = None  # Read by the first session.
        self.closed = False
        self._housekeeping = True
        self._wake = threading.Event()
        self._thread = threading.Thread(target=_housekeeping, args=(weakref.ref(self), self._wake),
                                        name=f"arrayhub-housekeeping-{address}", daemon=True)
        self._thread.start()
        _open_connections.add(self)

    def add_session(self, client: Client) -> None:
        self.sessions.add(client)
        self._wake.set()  # its lease may need renewing sooner than the thread would wake

    def housekeep(self) -> float:
        """Sends queued frees and renews due leases; returns seconds until the next round."""
        interval = _HOUSEKEEPING_SECONDS
        for client in list(self.sessions):
            try:
                client._housekeep()
            except Exception:  # e.g. the channel closed under it: never kill the thread
                _log.debug("arrayhub: housekeeping of %r failed", client, exc_info=True)
            interval = min(interval, client.lease_seconds / 4)
        return interval

    def stop_housekeeping(self) -> None:
        """Ends the background thread (leases then lapse unless renewed otherwise)."""
        self._housekeeping = False
        self._wake.set()
        if self._thread is not threading.current_thread():
            self._thread.join()

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.stop_housekeeping()
        for client in list(self.sessions):
            client._close_session()
        self.channel.close()


def _housekeeping(connection_ref: Callable[[], Optional[_Connection]],
                  wake: threading.Event) -> None:
    """Background loop: sends queued frees and renews leases until the connection goes.
    Holds the connection only weakly, so that an unreferenced connection can be collected."""
    interval = _HOUSEKEEPING_SECONDS
    while True:
        wake.wait(interval)
        wake.clear()
        connection = connection_ref()
        if connection is None or not connection._housekeeping:
            return
        interval = connection.housekeep()
        del connection


_open_connections: weakref.WeakSet[_Connection] = weakref.WeakSet()

#: The tag of ``bytes chunk = 2`` (length-delimited) in UploadRequest and DownloadResponse.
_CHUNK_TAG = 0x12


def _chunk_prefix(size: int) -> bytes:
    """The bytes before a chunk of ``size`` bytes in an UploadRequest: its tag and length."""
    prefix = bytearray((_CHUNK_TAG,))
    while size >= 0x80:
        prefix.append(size & 0x7F | 0x80)
        size >>= 7
    prefix.append(size)
    return bytes(prefix)


def _chunk_start(message: bytes) -> int:
    """Where the chunk starts in a DownloadResponse that holds one (every message after the
    first); raises ArrayHubError for anything else."""
    if message[:1] == bytes((_CHUNK_TAG,)):
        size = 0
        for i in range(1, min(len(message), 11)):
            size |= (message[i] & 0x7F) << (7 * (i - 1))
            if message[i] < 0x80:
                if i + 1 + size == len(message):
                    return i + 1
                break
    raise client_error(ArrayHubError, "a download message after the first holds no chunk")


@atexit.register
def _close_all_at_exit() -> None:
    for connection in list(_open_connections):
        connection.close()


# HealthCheckResponse{status: SERVING}: field 1 (varint) = 1.
_HEALTH_SERVING = b"\x08\x01"


class Client:
    """One session on an ArrayHub server: the arrays it creates belong to it.

    Made by :func:`connect` (a new connection) or :meth:`open_session` /
    :func:`arrayhub.session` (another session over the same connection). Arrays keep their
    client; closing a client frees, on the server, every array its session still holds.

    Used as a context manager, a client is the current one for the module-level functions
    (``arrayhub.zeros``, ...) inside the block, in this thread or task, and is closed at the
    end of the block; :meth:`use` makes it current without closing it.
    """

    def __init__(self, connection: _Connection, *, owns_connection: bool,
                 lease_seconds: int = 0, client_name: Optional[str] = None,
                 timeout: Optional[float] = None, device: Optional[int] = None) -> None:
        self._connection = connection
        self._owns_connection = owns_connection
        self._closed = False
        self._lease_lost = False
        self._pending_frees: collections.deque[str] = collections.deque()
        self._free_lock = threading.Lock()
        self._context_tokens: list[contextvars.Token[Optional[Client]]] = []
        name = client_name or f"python-{os.getpid()}@{socket.gethostname()}"
        try:
            opened = connection.stub.OpenSession(
                arrays_pb2.OpenSessionRequest(client_name=name, lease_seconds=lease_seconds,
                                              device=device),
                metadata=connection.auth, timeout=timeout)
        except grpc.RpcError as error:
            if owns_connection:
                connection.close()
            raise _unreachable(error, connection) from None
        self._session_id: str = opened.session_id
        self._lease_seconds: int = opened.lease_seconds
        self._tenant: str = opened.tenant
        self._device: int = opened.device
        self._metadata = connection.auth + (("x-arrayhub-session", opened.session_id),)
        # The metadata of calls on another device than the session's, by device (made once).
        self._device_metadata: dict[int, tuple[tuple[str, str], ...]] = {}
        self._renewed_at = time.monotonic()
        self._shared_memory = (_shared_memory.SharedMemoryTransfer(self._raw_rpc)
                               if _shared_memory.wanted(connection.address) else None)
        self._ipc: Optional[_cuda_ipc.IpcMappings] = None  # Made by the first CUDA IPC export.
        limits = self._server_limits()
        # Small uploads queued in the Batch (_ops.upload); 0 for a server that takes none.
        self._inline_create_bytes: int = min(limits.max_inline_create_bytes,
                                             _pipeline.INLINE_UPLOAD_BYTES)
        # A server that names its Batch size limit takes the pipelined Batch fields.
        self._pipeline = _pipeline.Pipeline(self, batch_fields=limits.max_batch_ops > 0,
                                            max_ops=limits.max_batch_ops,
                                            max_inline=limits.max_inline_read_bytes,
                                            batch_stream=limits.batch_stream,
                                            batch_lane=limits.batch_lane)
        connection.add_session(self)

    # -- Public API ---------------------------------------------------------------------------

    @property
    def address(self) -> str:
        """The server's address, as given to :func:`connect`."""
        return self._connection.address

    @property
    def session_id(self) -> str:
        """The server's id for this session (32 hex characters)."""
        return self._session_id

    @property
    def lease_seconds(self) -> int:
        """The lease the server granted; the client renews it in the background."""
        return self._lease_seconds

    @property
    def tenant(self) -> str:
        """The tenant the server maps this client's credentials to."""
        return self._tenant

    @property
    def device(self) -> int:
        """The session's device (an index of ``ServerInfo.devices``): where its calls run
        outside ``with arrayhub.cuda.Device(i):`` blocks. Named at :func:`connect` (or
        :meth:`open_session`), else the server's choice: its device with the least memory in
        use."""
        return self._device

    @property
    def uses_shared_memory(self) -> bool:
        """Whether transfers go through a shared-memory region registered with the server now.
        The region is made at the first transfer when the server is on this host (a loopback
        or unix address, or ARRAYHUB_SHARED_MEMORY=1; =0 never); if the server cannot use it,
        this session streams from then on."""
        return self._shared_memory is not None and self._shared_memory.active

    @property
    def closed(self) -> bool:
        """True once :meth:`close` ran (or the connection was closed)."""
        return self._closed

    def open_session(self, lease_seconds: int = 0, device: Optional[int] = None) -> Client:
        """Opens another session on the same connection (see :func:`arrayhub.session`), whose
        device is ``device``, by default the current device of this client's calls (so that
        the arrays of both sessions can be combined)."""
        self._check_open()
        return Client(self._connection, owns_connection=False, lease_seconds=lease_seconds,
                      device=self._current_device() if device is None else device)

    def ping(self) -> None:
        """One round trip that does nothing: ``grpc.health.v1.Health/Check`` on this client's
        channel. A liveness check, and the floor that benchmarks compare calls with.

        Raises ArrayHubConnectionError when the server is unreachable or answers that it is
        not serving (draining).
        """
        self._check_open()
        try:
            answer = self._connection.health_check(None, metadata=self._metadata)
        except grpc.RpcError as error:
            raise error_from_rpc(error) from None
        if answer != _HEALTH_SERVING:
            error = ArrayHubConnectionError(
                "the server answers but is not serving (it is draining or shutting down)")
            error.code = grpc.StatusCode.UNAVAILABLE
            raise error

    def server_info(self) -> arrays_pb2.ServerInfo:
        """The server's ServerInfo message (backend, devices, memory, live arrays, limits).

        Queued frees are sent first, so ``arrays`` and ``bytes_in_use`` count only arrays
        that are still referenced.
        """
        self.flush()
        return self._rpc("GetServerInfo", arrays_pb2.ServerInfoRequest())

    def watch_session(self) -> _watch.SessionWatch:
        """Watches this session: an iterator of :class:`arrayhub.SessionEvent`, ``watching``
        first, then ``lease_expiring`` when the lease is about to run out unrenewed, and last
        ``session_ended`` (with the arrays the server freed) or ``draining`` (the server is
        stopping), after which it ends. It blocks until the next event: read it on a thread of
        its own, and close it (or use it as a context manager) to stop watching. A watch takes
        one of the tenant's transfer slots on the server while it is open, so the client never
        opens one on its own."""
        self._check_open()
        call = self._connection.stub.WatchSession(arrays_pb2.WatchSessionRequest(),
                                                  metadata=self._metadata)
        return _watch.SessionWatch(call)

    def list_arrays(self, all_sessions: bool = False,
                    include_shared: bool = False) -> list[types_pb2.ArrayInfo]:
        """ArrayInfo of this session's arrays (all of the tenant's with ``all_sessions``);
        with ``include_shared`` also the publications this tenant may attach: its own, whatever
        session made them (a publication outlives its session and holds memory), and those
        other tenants published to it, with an empty handle (:func:`arrayhub.attach` them by
        ``name`` and ``owner``)."""
        self.flush()
        request = arrays_pb2.ListRequest(all_sessions=all_sessions, include_shared=include_shared)
        return list(self._rpc("List", request).arrays)

    def synchronize(self) -> None:
        """Waits until every operation queued in this session has run on the server (CUDA's
        ``synchronize``); raises the error of the first one that failed, if any (see
        docs/semantics.md, "Pipelined execution")."""
        if not self._closed:
            self._pipeline.drain()

    def flush(self) -> None:
        """Runs the queued operations (as :meth:`synchronize`), then frees on the server,
        now, the arrays garbage collection has queued, and unregisters the pinned host arrays
        it has collected."""
        self.synchronize()
        self._send_queued_frees()

    def _send_queued_frees(self) -> None:
        # Held until the server has answered, so that a flush on one thread (before a List
        # or GetServerInfo) waits for the frees the housekeeping thread took a moment before,
        # rather than counting arrays whose Free is still on the wire.
        with self._free_lock:
            handles = self._take_frees()
            if handles and not self._closed:
                self._send_frees(handles)
        self._send_releases()

    def _send_releases(self) -> None:
        """Unregisters the pinned host arrays and CUDA IPC leases garbage collection let go."""
        if self._shared_memory is not None and not self._closed:
            self._shared_memory.send_releases()
        if self._ipc is not None and not self._closed:
            for lease in self._ipc.take_releases():
                with contextlib.suppress(grpc.RpcError):
                    self._raw_rpc("ReleaseIpc", arrays_pb2.ReleaseIpcRequest(lease=lease))

    def close(self) -> None:
        """Closes the session, freeing its arrays on the server; and the connection, if
        this client opened it (with every other session on it)."""
        if self._owns_connection:
            self._connection.close()
        else:
            self._close_session()

    @contextlib.contextmanager
    def use(self) -> Iterator[Client]:
        """Makes this the current client inside the block (in this thread or task), without
        closing it at the end."""
        token = _current.set(self)
        try:
            yield self
        finally:
            _current.reset(token)

    def __enter__(self) -> Client:
        self._context_tokens.append(_current.set(self))
        return self

    def __exit__(self, *exc_info: Any) -> None:
        _current.reset(self._context_tokens.pop())
        try:
            if exc_info[0] is None:
                self.synchronize()  # The block's queued work, and its error, belong to it.
        finally:
            self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"session {self._session_id}"
        return f"<arrayhub.Client {self._connection.address} {state}>"

    # -- Used by the rest of the package ------------------------------------------------------

    def _current_device(self) -> int:
        """The device this thread's calls in this session run on: the current device
        (``with arrayhub.cuda.Device(i):``) if one is set, else the session's."""
        device = current_device.get()
        return self._device if device is None else device

    def _call_device(self) -> Optional[int]:
        """The device a call made now runs on when it is not the session's; None when it is
        (nothing to send)."""
        device = current_device.get()
        return None if device is None or device == self._device else device

    def _call_metadata(self) -> tuple[tuple[str, str], ...]:
        """The metadata of a call made now: the session's, and ``x-arrayhub-device`` when the
        current device is not the session's."""
        device = current_device.get()
        if device is None or device == self._device:
            return self._metadata
        metadata = self._device_metadata.get(device)
        if metadata is None:
            metadata = self._device_metadata[device] = self._metadata + (
                ("x-arrayhub-device", str(device)),)
        return metadata

    def _rpc(self, method: str, request: Any) -> Any:
        """Calls a unary (or client-streaming) RPC in this session, after the queued operations
        have run (raising their error, if any); errors become exceptions."""
        _check_not_recording(method)
        self._check_open()
        self._pipeline.drain()
        if len(self._pending_frees) >= FREE_BATCH:
            self._send_queued_frees()
        try:
            return getattr(self._connection.stub, method)(request,
                                                          metadata=self._call_metadata())
        except grpc.RpcError as error:
            raise error_from_rpc(error) from None

    def _raw_rpc(self, method: str, request: Any) -> Any:
        """A unary RPC in this session whose gRPC error is raised unchanged."""
        self._check_open()
        return getattr(self._connection.stub, method)(request, metadata=self._call_metadata())

    def _create(self, request: arrays_pb2.CreateRequest) -> types_pb2.ArrayInfo:
        return self._rpc("Create", request)

    def _upload(self, array: np.ndarray, target_handle: str = "",
                progress: Optional[bool] = None,
                progress_min_bytes: Optional[int] = None) -> types_pb2.ArrayInfo:
        """Sends a NumPy array's bytes (C order, little-endian), into a new array or over
        ``target_handle``: straight from a pinned host array of this session when the data
        lies in one, else through the session's shared-memory region when there is one (new
        arrays only), else streamed in chunks <= CHUNK_BYTES. ``progress`` and
        ``progress_min_bytes``: see _progress.bar."""
        _check_not_recording("Upload")
        if target_handle:  # Overwrites an array that queued operations may use.
            self._drain_connection()
        bar = _progress.bar(array.nbytes, "upload", progress, progress_min_bytes)
        try:
            info = self._send(array, target_handle, bar)
        finally:
            bar.close()
        return info

    def _send(self, array: np.ndarray, target_handle: str, bar: Any) -> types_pb2.ArrayInfo:
        """The transfer of _upload, counted on ``bar`` as it goes."""
        dtype = _dtypes.normalize(array.dtype)
        wire_dtype = _dtypes.to_wire(dtype)
        if self._shared_memory is not None:
            self._check_open()
            try:
                located = (self._shared_memory.locate(array)
                           if array.dtype == _dtypes.little_endian(dtype) else None)
                if located is not None:
                    info = self._shared_memory.upload_pinned(located, array, wire_dtype,
                                                             target_handle)
                    bar.update(array.nbytes)
                    return info
                if not target_handle:
                    info = self._shared_memory.upload(np.asarray(array),
                                                      _dtypes.little_endian(dtype), wire_dtype)
                    if info is not None:
                        bar.update(array.nbytes)
                        return info
            except grpc.RpcError as error:
                raise error_from_rpc(error) from None
        data = np.asarray(array, dtype=_dtypes.little_endian(dtype), order="C")
        header = arrays_pb2.UploadRequest(header=arrays_pb2.UploadHeader(
            dtype=wire_dtype, shape=data.shape, target_handle=target_handle))
        raw = data.reshape(-1).view(np.uint8).data

        def messages() -> Iterator[bytes]:
            yield header.SerializeToString()
            for start in range(0, len(raw), CHUNK_BYTES):
                # The message's bytes made in one copy, straight from the array.
                chunk = raw[start:start + CHUNK_BYTES]
                yield b"".join((_chunk_prefix(len(chunk)), chunk))
                bar.update(len(chunk))  # Taken by gRPC: the next is asked for when it is sent.

        self._check_open()
        try:
            return self._connection.raw_upload(messages(),
                                               metadata=self._call_metadata()).array
        except grpc.RpcError as error:
            raise error_from_rpc(error) from None

    def _download(self, handle: str, shape: tuple[int, ...], wire_dtype: int,
                  out: Optional[np.ndarray] = None, progress: Optional[bool] = None,
                  progress_min_bytes: Optional[int] = None) -> np.ndarray:
        """The array ``handle`` (of ``shape`` and ``wire_dtype``) in ``out`` (a writable NumPy
        array of that shape and dtype, any layout) or in a new C-order array: the server
        copies straight into ``out`` when it is a pinned host array of this session (or a
        contiguous part of one), else through the session's shared-memory region when there
        is one, else it streams into the result's memory. ``progress`` and
        ``progress_min_bytes``: see _progress.bar."""
        _check_not_recording("Download")
        self._check_open()
        self._drain_connection()
        dtype = _dtypes.little_endian(_dtypes.from_wire(wire_dtype))
        result = np.empty(shape, dtype=dtype) if out is None else out
        bar = _progress.bar(result.nbytes, "download", progress, progress_min_bytes)
        try:
            self._receive(handle, result, bar)
        finally:
            bar.close()
        return result

    def _receive(self, handle: str, result: np.ndarray, bar: Any) -> None:
        """The transfer of _download into ``result``, counted on ``bar`` as it goes."""
        if self._shared_memory is not None:
            try:
                located = self._shared_memory.locate(result)
                if located is not None:
                    self._shared_memory.download_pinned(located, handle)
                    bar.update(result.nbytes)
                    return
                if self._shared_memory.download(handle, result):
                    bar.update(result.nbytes)
                    return
            except grpc.RpcError as error:
                raise error_from_rpc(error) from None
        if result.flags.c_contiguous:
            self._stream_into(handle, result, bar)
        else:
            contiguous = np.empty(result.shape, dtype=result.dtype)
            self._stream_into(handle, contiguous, bar)
            np.copyto(result, contiguous)

    def _stream_into(self, handle: str, destination: np.ndarray, bar: Any) -> None:
        """Receives the Download stream of ``handle`` into ``destination`` (C-contiguous, of
        the array's size), each chunk copied once, to its place, counted on ``bar``."""
        stream = self._connection.raw_download(arrays_pb2.DownloadRequest(handle=handle),
                                               metadata=self._metadata)
        view = memoryview(destination.reshape(-1).view(np.uint8))
        expected = len(view)
        try:
            info = arrays_pb2.DownloadResponse.FromString(next(stream)).info
            received = 0
            if info.nbytes == expected:
                for message in stream:
                    start = _chunk_start(message)
                    end = received + len(message) - start
                    if end > expected:
                        break
                    view[received:end] = memoryview(message)[start:]
                    bar.update(end - received)
                    received = end
        except grpc.RpcError as error:
            raise error_from_rpc(error) from None
        if info.nbytes != expected or received != expected:
            stream.cancel()
            raise client_error(ArrayHubError, f"download of {handle} sent a wrong number of bytes:"
                                              f" expected {expected}, the server announced "
                                              f"{info.nbytes} and sent {received}")

    def _allocate_pinned(self, nbytes: int) -> Optional[Any]:
        """The memory of a new pinned host array (see _pinned.py), or None when this session
        cannot use shared memory."""
        self._check_open()
        if self._shared_memory is None:
            return None
        try:
            return self._shared_memory.allocate_pinned(nbytes)
        except grpc.RpcError as error:
            raise error_from_rpc(error) from None

    def _pinned_bytes(self) -> tuple[int, int]:
        """``(in use, registered)`` bytes of this session's pinned host arrays."""
        return (0, 0) if self._shared_memory is None else self._shared_memory.pinned_bytes()

    def _server_limits(self) -> arrays_pb2.ServerLimits:
        """The server's limits, read once per connection (an old server, or one that refuses,
        gives empty limits: no pipelined Batch fields)."""
        if self._connection.limits is None:
            try:
                info = self._connection.stub.GetServerInfo(
                    arrays_pb2.ServerInfoRequest(), metadata=self._metadata,
                    timeout=_HOUSEKEEPING_TIMEOUT)
                self._connection.limits = info.limits
            except grpc.RpcError:
                return arrays_pb2.ServerLimits()
        return self._connection.limits

    def _drain_connection(self) -> None:
        """Runs the queued operations of every session on this connection: before a host
        read, since an op of another session may write into the array (out=)."""
        for client in list(self._connection.sessions):
            if client is not self and not client._closed and not client._pipeline.idle:
                client._pipeline.settle()
        self._pipeline.drain()  # Raises this session's pending error even when idle.

    def _take_frees(self) -> list[str]:
        """The handles garbage collection has queued for freeing, taken off the queue."""
        handles: list[str] = []
        with contextlib.suppress(IndexError):
            while True:
                handles.append(self._pending_frees.popleft())
        return handles

    def _release(self, handle: str) -> None:
        """Queues a handle to be freed. Makes no call: it runs inside ``__del__``, on
        whatever thread the garbage collector picked."""
        if not self._closed:
            self._pending_frees.append(handle)

    def _ipc_mappings(self) -> _cuda_ipc.IpcMappings:
        """This session's CUDA IPC mappings (see _cuda_ipc.py)."""
        if self._ipc is None:
            self._ipc = _cuda_ipc.IpcMappings(self)
        return self._ipc

    def _check_open(self) -> None:
        if self._closed:
            raise client_error(SessionNotFoundError,
                               f"session {self._session_id} is closed; its arrays were freed")

    def _housekeep(self) -> None:
        """Called by the connection's thread every second, or every quarter lease if shorter:
        takes the answer of a finished Batch, sends queued frees (unless queued operations
        will carry them) and renews the lease once a third of it has passed."""
        self._pipeline.collect_if_done()
        self._pipeline.close_idle_stream()
        if self._pipeline.idle or not self._pipeline.batch_fields:
            self._send_queued_frees()
        else:
            self._send_releases()
        due = time.monotonic() - self._renewed_at >= self._lease_seconds / 3
        if not due or self._closed or self._lease_lost:
            return
        try:
            self._connection.stub.KeepAlive(arrays_pb2.KeepAliveRequest(),
                                            metadata=self._metadata,
                                            timeout=_HOUSEKEEPING_TIMEOUT)
            self._renewed_at = time.monotonic()
        except grpc.RpcError as error:
            if self._closed:
                return
            # A lost session stays lost; a server that is unreachable now may come back.
            self._lease_lost = error.code() == grpc.StatusCode.NOT_FOUND
            _log.warning("arrayhub: KeepAlive of session %s failed: %s", self._session_id,
                         error_from_rpc(error))

    def _send_frees(self, handles: list[str]) -> None:
        """One Free call for many handles. A failed batch is retried handle by handle, so an
        array that is already gone (freed with its session) does not keep others alive."""
        stub = self._connection.stub
        try:
            stub.Free(arrays_pb2.FreeRequest(handles=handles), metadata=self._metadata,
                      timeout=_HOUSEKEEPING_TIMEOUT)
            return
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.NOT_FOUND or len(handles) == 1:
                _log.debug("arrayhub: freeing %d arrays failed: %s", len(handles),
                           error_from_rpc(error))
                return
        for handle in handles:
            with contextlib.suppress(grpc.RpcError):
                stub.Free(arrays_pb2.FreeRequest(handles=[handle]), metadata=self._metadata,
                          timeout=_HOUSEKEEPING_TIMEOUT)

    def _close_session(self) -> None:
        if self._closed:
            return
        self._pipeline.close()
        self._send_queued_frees()
        self._closed = True
        self._pending_frees.clear()
        if self._shared_memory is not None:
            self._shared_memory.close()
        if self._ipc is not None:
            # Imported memory must be let go before the server frees it with the session.
            self._ipc.unmap_all()
        self._connection.sessions.discard(self)
        try:
            self._connection.stub.CloseSession(arrays_pb2.CloseSessionRequest(),
                                               metadata=self._metadata,
                                               timeout=_HOUSEKEEPING_TIMEOUT)
        except grpc.RpcError as error:
            _log.debug("arrayhub: closing session %s failed: %s", self._session_id,
                       error_from_rpc(error))


def _unreachable(error: grpc.RpcError, connection: _Connection) -> ArrayHubError:
    """The error of a session that could not be opened; when the server could not be reached,
    one that names the address and what to check."""
    converted = error_from_rpc(error)
    if converted.code != grpc.StatusCode.UNAVAILABLE:
        return converted
    if connection.tls:
        tls = ("this client used TLS: for a plaintext server pass tls=False and unset "
               "ARRAYHUB_TLS_CA and ARRAYHUB_TLS")
    else:
        tls = ("this client used plaintext: for a TLS server pass tls= or set ARRAYHUB_TLS_CA "
               "(arrayhub --tls-ca); a TLS server closes plaintext connections ('Socket closed')")
    message = (f"cannot reach arrayhubd at {connection.address}: {converted.details}. Check the "
               f"address (the argument, else $ARRAYHUB_ADDRESS, else "
               f"{_connect_options.DEFAULT_ADDRESS}), that arrayhubd is running and listening "
               f"there, and that client and server agree on TLS ({tls})")
    hinted = ArrayHubConnectionError(message)
    hinted.code, hinted.details = converted.code, message
    return hinted


def open_clients() -> list[Client]:
    """Every open session of this process."""
    return [client for connection in list(_open_connections)
            for client in list(connection.sessions) if not client.closed]


def connect(address: Optional[str] = None, token: Optional[str] = None, *,
            tls: Optional[TlsOption] = None, token_file: Optional[str] = None,
            lease_seconds: int = 0, client_name: Optional[str] = None,
            timeout: Optional[float] = 30.0, device: Optional[int] = None) -> Client:
    """Connects to an arrayhubd and opens a session.

    Args:
        address: ``host:port``; default ``$ARRAYHUB_ADDRESS`` or ``localhost:50051``.
        token: bearer token sent as ``authorization`` metadata; default: read from
            ``token_file``, else ``$ARRAYHUB_TOKEN``, else read from ``$ARRAYHUB_TOKEN_FILE``.
        tls: False for plaintext, True for TLS with the system's root certificates, or a
            ``grpc.ChannelCredentials``: ``grpc.ssl_channel_credentials(ca_pem)`` to trust a
            private CA, with ``private_key=`` and ``certificate_chain=`` for mutual TLS.
            Default (None): from the PEM files named by ``$ARRAYHUB_TLS_CA``,
            ``$ARRAYHUB_TLS_CERT`` and ``$ARRAYHUB_TLS_KEY``, else TLS with the system's roots
            when ``$ARRAYHUB_TLS=1``, else plaintext.
        token_file: a file holding the bearer token (used when ``token`` is None).
        lease_seconds: session lease to ask for; 0 takes the server's default. The client
            renews it in the background while the process runs.
        client_name: shown by ``arrayhub ls``/``top``; default ``python-PID@HOST``.
        timeout: seconds to wait for the server to open the session.
        device: the session's device (an index of ``ServerInfo.devices``), where its calls
            run outside ``with arrayhub.cuda.Device(i):`` blocks; default: the server picks
            the device with the least memory in use (see :attr:`Client.device`).

    Raises:
        ConnectionError: the server cannot be reached (the message names the address and
            what to check).
        ValueError: a token or TLS file cannot be read, or a client certificate comes
            without its key.
    """
    address = _connect_options.address(address)
    token = _connect_options.token(token, token_file)
    connection = _Connection(address, token, _connect_options.tls(tls))
    return Client(connection, owns_connection=True, lease_seconds=lease_seconds,
                  client_name=client_name, timeout=timeout, device=device)


#: The ``arrayhub.batch()`` block being recorded in this thread or task (an
#: ``arrayhub._batch.Batch``), if any. While one is, the operations a batch can hold are
#: recorded (see ``_ops``) and nothing is sent to a server.
recording: contextvars.ContextVar[Optional[Any]] = contextvars.ContextVar(
    "arrayhub_recording_batch", default=None)


def _check_not_recording(method: str) -> None:
    """Refuses a call to the server while a batch is being recorded: it would run before the
    recorded ops (or read data they have not written yet)."""
    if recording.get() is not None:
        raise client_error(
            ArrayHubBatchError,
            f"{method} cannot run inside an arrayhub.batch() block: a batch records "
            f"elementwise ops, matmul, reductions, views, array ops and array creation only, "
            f"and sends nothing before the block ends; do this before or after the block")


_current: contextvars.ContextVar[Optional[Client]] = contextvars.ContextVar(
    "arrayhub_current_client", default=None)
#: The current device of this thread or task (CUDA's is per host thread), set by
#: ``arrayhub.cuda.Device`` and ``runtime.setDevice``; None: each session's own device.
current_device: contextvars.ContextVar[Optional[int]] = contextvars.ContextVar(
    "arrayhub_device", default=None)
_default: Optional[Client] = None
_default_lock = threading.Lock()
# Consulted where a thread has no current client, before the default: a library that binds
# threads it does not create to servers (arrayhub.dask: a Dask worker's task threads to the
# worker's daemon) answers for those threads and None elsewhere.
_resolvers: list[Callable[[], Optional[Client]]] = []


def add_client_resolver(resolver: Callable[[], Optional[Client]]) -> None:
    """Makes get_client() ask ``resolver`` (once registered; later registrations of the same
    function are ignored) for threads with no ``with client:`` block of their own."""
    if resolver not in _resolvers:
        _resolvers.append(resolver)


def _resolved() -> Optional[Client]:
    current = _current.get()
    if current is not None:
        return current
    for resolver in _resolvers:
        client = resolver()
        if client is not None:
            return client
    return None


def get_client() -> Client:
    """The client module-level functions use: the innermost ``with client:`` or
    ``with arrayhub.session():`` of this thread, else the client a registered resolver names
    for this thread (arrayhub.dask: a Dask worker's session), else the default client, which
    is connected on first use from the ARRAYHUB_* environment variables (address, token, TLS:
    see :func:`connect`; and :func:`set_default_client`)."""
    global _default
    current = _resolved()
    if current is not None:
        return current
    with _default_lock:
        if _default is None or _default.closed:
            _default = connect()
        return _default


def current_client_if_any() -> Optional[Client]:
    """The client get_client() would return, without connecting one."""
    return _resolved() or _default


def set_default_client(client: Optional[Client]) -> None:
    """Makes ``client`` the default for module-level functions in every thread (None: the
    next use connects from the environment again). The previous default is not closed."""
    global _default
    with _default_lock:
        _default = client


@contextlib.contextmanager
def session(client: Optional[Client] = None, *, lease_seconds: int = 0) -> Iterator[Client]:
    """Scopes temporaries: arrays created inside the block are freed when it ends.

    Opens a new server session on the same connection as ``client`` (default: the current
    client) and makes it the current client inside the block. Operations inside the block
    may use arrays made outside it; their results belong to the new session. At the end of
    the block the session is closed and every array it made is freed on the server, even
    ones still referenced: using such an array afterwards raises
    :class:`arrayhub.ArrayNotFoundError`. Keep results by downloading them (``.get()``)
    inside the block. CuPy has no equivalent (its memory pool frees on garbage collection).
    The new session's device is the current device (see :meth:`Client.open_session`).
    """
    scoped = (client or get_client()).open_session(lease_seconds)
    with scoped:
        yield scoped
