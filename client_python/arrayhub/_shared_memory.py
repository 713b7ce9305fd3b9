"""The same-host transfer path: uploads and downloads through shared-memory objects registered
with the server, instead of a gRPC stream.

Two kinds of object: one per session that transfers copy through (the client copies the data
in or out, the server makes one copy between the object and the array), and pinned host
arrays (:func:`arrayhub.empty_pinned`), NumPy arrays whose memory is an object of their own,
which the server copies to and from directly: no copy on the client's side at all.

Used when the server is on this host: its address is a loopback or unix-socket one, or
``ARRAYHUB_SHARED_MEMORY=1`` says so (``=0`` turns the path off). An object is a memfd, which
has no name anyone could find, sized and sealed against shrinking; the client hands its
descriptor to the daemon over the daemon's Unix socket (``ServerInfo.shared_memory_socket``)
and registers it with the one-use ticket the socket answers (proto RegisterSharedMemory). If
the server cannot use it (switched off, or older: no socket; another host or container: the
socket cannot be reached, or the ticket is refused), the session streams for the rest of its
life.
"""

from __future__ import annotations

import collections
import fcntl
import logging
import mmap
import os
import threading
import weakref
from typing import Any, Callable, Optional

import grpc
import numpy as np

from arrayhub import _descriptor_socket, _host
from arrayhub.v1 import arrays_pb2, types_pb2

_log = logging.getLogger("arrayhub")

#: Smallest object made, and its unit of growth.
_MINIMUM_BYTES = 1 << 20
_REGION_NAME = "transfer"
#: Codes with which the server says it cannot use this client's objects at all.
_NEVER_ON_THIS_SERVER = frozenset({grpc.StatusCode.FAILED_PRECONDITION,
                                   grpc.StatusCode.NOT_FOUND, grpc.StatusCode.UNIMPLEMENTED,
                                   grpc.StatusCode.PERMISSION_DENIED})


def wanted(address: str) -> bool:
    """Whether ``address`` (a gRPC target) is on this host, after ARRAYHUB_SHARED_MEMORY."""
    setting = os.environ.get("ARRAYHUB_SHARED_MEMORY", "")
    if setting in ("0", "1"):
        return setting == "1"
    return hasattr(os, "memfd_create") and _host.on_this_host(address)


class SharedMemoryTransfer:
    """One session's objects: its transfer region and its pinned host arrays.
    ``rpc(method, request)`` calls the session's unary RPCs and raises the gRPC error
    unchanged."""

    def __init__(self, rpc: Callable[[str, Any], Any]) -> None:
        self._rpc = rpc
        self._lock = threading.Lock()
        self._disabled = False
        self._map: Optional[mmap.mmap] = None
        #: The daemon's descriptor socket, asked once ("" where there is none).
        self._socket_path: Optional[str] = None
        #: Regions of pinned host arrays that were garbage-collected, to unregister.
        self._released: collections.deque[str] = collections.deque()
        #: The size of each pinned host array's region until it is unregistered (the pinned
        #: memory pool's figures).
        self._pinned_sizes: dict[str, int] = {}

    @property
    def active(self) -> bool:
        """Whether a region is registered now."""
        return self._map is not None

    def upload(self, data: np.ndarray, dtype: np.dtype,
               wire_dtype: int) -> Optional[types_pb2.ArrayInfo]:
        """The new array holding ``data`` as ``dtype`` (its little-endian form), or None when
        this transfer must stream instead."""
        with self._lock:
            if not self._reserve(data.size * dtype.itemsize):
                return None
            region = np.frombuffer(self._map, dtype=dtype, count=data.size).reshape(data.shape)
            # The one copy on this side, from any layout or byte order.
            np.copyto(region, data, casting="equiv")
            del region  # An export of the map would keep it from being closed or replaced.
            request = arrays_pb2.SharedMemoryCopyRequest(
                region_name=_REGION_NAME, offset_bytes=0, dtype=wire_dtype, shape=data.shape)
            return self._rpc("CopyFromSharedMemory", request).array

    def download(self, handle: str, out: np.ndarray) -> bool:
        """Copies the array ``handle`` into ``out`` (a writable NumPy array of its shape and
        little-endian dtype, any layout); False when this transfer must stream instead."""
        with self._lock:
            if not self._reserve(out.nbytes):
                return False
            request = arrays_pb2.SharedMemoryCopyRequest(
                region_name=_REGION_NAME, offset_bytes=0, handle=handle)
            self._rpc("CopyToSharedMemory", request)
            region = np.frombuffer(self._map, dtype=out.dtype, count=out.size).reshape(out.shape)
            np.copyto(out, region)
            del region
            return True

    def upload_pinned(self, located: tuple[str, int], data: np.ndarray, wire_dtype: int,
                      target_handle: str) -> types_pb2.ArrayInfo:
        """Uploads ``data``, which lies in a pinned host array at ``located`` (see locate),
        into a new array or over ``target_handle``: one copy, by the server."""
        region_name, offset = located
        request = arrays_pb2.SharedMemoryCopyRequest(
            region_name=region_name, offset_bytes=offset, dtype=wire_dtype, shape=data.shape,
            handle=target_handle)
        return self._rpc("CopyFromSharedMemory", request).array

    def download_pinned(self, located: tuple[str, int], handle: str) -> types_pb2.ArrayInfo:
        """Downloads the array ``handle`` into a pinned host array at ``located``."""
        region_name, offset = located
        request = arrays_pb2.SharedMemoryCopyRequest(region_name=region_name,
                                                     offset_bytes=offset, handle=handle)
        return self._rpc("CopyToSharedMemory", request).array

    def close(self) -> None:
        """Unmaps the object (the server lets go of it when the session closes)."""
        with self._lock:
            self._unmap()

    def _unmap(self) -> None:
        if self._map is not None:
            self._map.close()
            self._map = None

    def _reserve(self, data_bytes: int) -> bool:
        """A registered region with room for ``data_bytes``; False when the transfer must
        stream."""
        if self._disabled:
            return False
        current = len(self._map) if self._map is not None else 0
        if current and data_bytes <= current:
            return True
        # Grown at least twofold, so that a run of growing transfers registers few objects.
        wanted_bytes = max(_MINIMUM_BYTES, data_bytes, 2 * current)
        size = -(-wanted_bytes // _MINIMUM_BYTES) * _MINIMUM_BYTES
        if self._map is not None:
            self._rpc("UnregisterSharedMemory",
                      arrays_pb2.UnregisterSharedMemoryRequest(region_name=_REGION_NAME))
            self._unmap()

        self._map = self._register(_REGION_NAME, size)
        return self._map is not None

    def allocate_pinned(self, nbytes: int) -> Optional[PinnedMap]:
        """A new object of its own holding ``nbytes`` from its start (page-aligned, as the
        pinned memory of cudaMallocHost is, so that DMA to and from it runs at the same rate),
        registered with the server, or None when the server cannot use this client's objects
        (the caller then uses ordinary memory). The server's limits (regions per session and
        tenant, bytes per region) raise."""
        self.send_releases()
        if self._disabled:
            return None
        # A page at least: an object cannot be empty.
        size = max(mmap.PAGESIZE, -(-nbytes // mmap.PAGESIZE) * mmap.PAGESIZE)
        region_name = f"pinned-{os.urandom(8).hex()}"
        pinned = self._register(region_name, size, PinnedMap, raise_limits=True)
        if pinned is None:
            return None
        pinned.region_name = region_name
        pinned.transfer = self
        self._pinned_sizes[region_name] = size
        probe = np.frombuffer(pinned, dtype=np.uint8, count=1)
        pinned.address = probe.__array_interface__["data"][0]
        del probe
        # The server lets go of the object once the last array using the memory is gone; the
        # call is made later, by the client's background thread or its next allocation,
        # because the collector may run this on any thread, in the middle of a call.
        weakref.finalize(pinned, self._released.append, region_name)
        return pinned

    def locate(self, array: np.ndarray) -> Optional[tuple[str, int]]:
        """The region and offset of ``array``'s data when it is C-contiguous and lies in a
        pinned host array this session registered (a slice of one included), else None."""
        if not array.flags.c_contiguous:
            return None
        owner: Any = array
        while True:
            if isinstance(owner, np.ndarray) and owner.base is not None:
                owner = owner.base
            elif isinstance(owner, memoryview):
                owner = owner.obj
            else:
                break
        if not isinstance(owner, PinnedMap) or owner.transfer is not self:
            return None
        offset = array.__array_interface__["data"][0] - owner.address
        return owner.region_name, offset

    def pinned_bytes(self) -> tuple[int, int]:
        """``(in use, registered)``: bytes of the pinned host arrays still referenced, and of
        all those still registered with the server (the collected ones too, until
        :meth:`send_releases`)."""
        # Copies first: the collector may add to _released, and another thread take from
        # both, meanwhile (copying a dict or a deque holds the GIL throughout).
        sizes, released = dict(self._pinned_sizes), list(self._released)
        registered = sum(sizes.values())
        collected = sum(sizes.get(name, 0) for name in released)
        return registered - collected, registered

    def send_releases(self) -> None:
        """Unregisters the pinned host arrays garbage collection has released."""
        while self._released:
            region_name = self._released.popleft()
            self._pinned_sizes.pop(region_name, None)
            try:
                self._rpc("UnregisterSharedMemory",
                          arrays_pb2.UnregisterSharedMemoryRequest(region_name=region_name))
            except grpc.RpcError as error:
                # NOT_FOUND: the session closed and took its regions along. Otherwise the
                # region stays until the session ends, as a failed Free leaves an array.
                _log.debug("arrayhub: unregistering region %s failed: %s", region_name,
                           error.details())

    def _socket(self) -> str:
        """The daemon's descriptor socket, "" where there is none (switched off, or a server
        older than the socket)."""
        if self._socket_path is None:
            self._socket_path = self._rpc("GetServerInfo",
                                          arrays_pb2.ServerInfoRequest()).shared_memory_socket
        return self._socket_path

    def _register(self, region_name: str, size: int, kind: type = mmap.mmap,
                  raise_limits: bool = False) -> Optional[Any]:
        """A new object of ``size`` bytes mapped as ``kind`` and registered as
        ``region_name``, or None when the transfer must stream (the object cannot be made or
        handed over now, or the server cannot use it; with ``raise_limits`` a server limit
        raises instead)."""
        socket_path = self._socket()
        if not socket_path:
            self._disabled = True
            return None
        try:
            fd = os.memfd_create("arrayhub-region", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        except OSError:
            return None
        try:
            try:
                # Reserves the pages now: a full tmpfs fails here (stream instead) rather than
                # as SIGBUS when this process writes to the map. The seal is what the daemon
                # requires: the object can never become shorter than the region.
                os.posix_fallocate(fd, 0, size)
                fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK)
                mapped = kind(fd, size)
            except OSError:
                return None
            try:
                reply, fds = _descriptor_socket.ask(socket_path, "REGION", fd)
            except OSError:
                # The socket is not on this host (a daemon elsewhere, or in another container).
                mapped.close()
                self._disabled = True
                return None
        finally:
            os.close(fd)  # The daemon holds its own descriptor once it has answered.
        for extra in fds:
            os.close(extra)
        if not reply.startswith("OK "):
            # The daemon cannot take a descriptor now (its limits): stream this time.
            _log.debug("arrayhub: the daemon refused a shared-memory object: %s", reply)
            mapped.close()
            return None
        return self._send_registration(region_name, reply[3:], mapped, raise_limits)

    def _send_registration(self, region_name: str, ticket: str, mapped: Any,
                           raise_limits: bool) -> Optional[Any]:
        request = arrays_pb2.RegisterSharedMemoryRequest(
            region_name=region_name, byte_size=len(mapped), descriptor_ticket=ticket)
        try:
            self._rpc("RegisterSharedMemory", request)
            return mapped
        except grpc.RpcError as error:
            mapped.close()
            if error.code() in _NEVER_ON_THIS_SERVER:
                self._disabled = True
                return None
            # Larger than the server's region limit: this transfer streams, a smaller one may
            # not.
            if error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and not raise_limits:
                return None
            raise


class PinnedMap(mmap.mmap):
    """The memory of a pinned host array: a mapped object registered with the server as
    ``region_name`` in ``transfer``'s session, whose first byte is at ``address``."""

    region_name: str
    transfer: SharedMemoryTransfer
    address: int
