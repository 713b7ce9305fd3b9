"""The same-host transfer path: uploads and downloads through one POSIX shared-memory object
per session, registered with the server, instead of a gRPC stream.

Used when the server is on this host: its address is a loopback or unix-socket one, or
``ARRAYHUB_SHARED_MEMORY=1`` says so (``=0`` turns the path off). The client makes the object
in ``/dev/shm`` (mode 0600: the daemon must run as the same user, or as root), writes 32
random bytes at its start and sends them with the registration: the server accepts an object
only from a caller that can read it. The name is removed as soon as the server has opened the
object, so nothing is left behind. If the server cannot use it (another host or container:
NOT_FOUND; switched off: FAILED_PRECONDITION; another user: PERMISSION_DENIED; an older
server: UNIMPLEMENTED), the session streams for the rest of its life.
"""

from __future__ import annotations

import mmap
import os
import threading
from typing import Any, Callable, Optional

import grpc
import numpy as np

from arrayhub.v1 import arrays_pb2, types_pb2

#: The object's header, the registration key; array data starts after it.
HEADER_BYTES = 32
#: Smallest object made, and its unit of growth.
_MINIMUM_BYTES = 1 << 20
_REGION_NAME = "transfer"
_SHM_DIRECTORY = "/dev/shm"
#: Codes with which the server says it cannot use this client's objects at all.
_NEVER_ON_THIS_SERVER = frozenset({grpc.StatusCode.FAILED_PRECONDITION,
                                   grpc.StatusCode.NOT_FOUND, grpc.StatusCode.UNIMPLEMENTED,
                                   grpc.StatusCode.PERMISSION_DENIED})


def wanted(address: str) -> bool:
    """Whether ``address`` (a gRPC target) is on this host, after ARRAYHUB_SHARED_MEMORY."""
    setting = os.environ.get("ARRAYHUB_SHARED_MEMORY", "")
    if setting in ("0", "1"):
        return setting == "1"
    if not os.path.isdir(_SHM_DIRECTORY):
        return False
    target = address
    for scheme in ("dns:///", "ipv4:", "ipv6:"):
        target = target.removeprefix(scheme)
    if target.startswith(("unix:", "unix-abstract:")):
        return True
    return target == "localhost" or target.startswith(("localhost:", "127.", "[::1]:"))


class SharedMemoryTransfer:
    """One session's region. ``rpc(method, request)`` calls the session's unary RPCs and
    raises the gRPC error unchanged."""

    def __init__(self, rpc: Callable[[str, Any], Any]) -> None:
        self._rpc = rpc
        self._lock = threading.Lock()
        self._disabled = False
        self._map: Optional[mmap.mmap] = None

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
            region = np.frombuffer(self._map, dtype=dtype, count=data.size,
                                   offset=HEADER_BYTES).reshape(data.shape)
            # The one copy on this side, from any layout or byte order.
            np.copyto(region, data, casting="equiv")
            del region  # An export of the map would keep it from being closed or replaced.
            request = arrays_pb2.SharedMemoryCopyRequest(
                region_name=_REGION_NAME, offset_bytes=HEADER_BYTES, dtype=wire_dtype,
                shape=data.shape)
            return self._rpc("CopyFromSharedMemory", request).array

    def download(self, handle: str, nbytes: int, dtype: np.dtype) -> Optional[np.ndarray]:
        """The array ``handle`` (``nbytes`` bytes of ``dtype``) in a new NumPy array, or None
        when this transfer must stream instead."""
        with self._lock:
            if not self._reserve(nbytes):
                return None
            request = arrays_pb2.SharedMemoryCopyRequest(
                region_name=_REGION_NAME, offset_bytes=HEADER_BYTES, handle=handle)
            info = self._rpc("CopyToSharedMemory", request).array
            region = np.frombuffer(self._map, dtype=dtype, count=nbytes // dtype.itemsize,
                                   offset=HEADER_BYTES)
            result = region.reshape(tuple(info.shape)).copy()
            del region
            return result

    def close(self) -> None:
        """Unmaps the object (the server lets go of it when the session closes)."""
        with self._lock:
            self._unmap()

    def _unmap(self) -> None:
        if self._map is not None:
            self._map.close()
            self._map = None

    def _reserve(self, data_bytes: int) -> bool:
        """A registered region with room for ``data_bytes`` after its header; False when the
        transfer must stream."""
        if self._disabled:
            return False
        current = len(self._map) if self._map is not None else 0
        if current and data_bytes <= current - HEADER_BYTES:
            return True
        # Grown at least twofold, so that a run of growing transfers registers few objects.
        wanted_bytes = max(_MINIMUM_BYTES, data_bytes + HEADER_BYTES, 2 * current)
        size = -(-wanted_bytes // _MINIMUM_BYTES) * _MINIMUM_BYTES
        if self._map is not None:
            self._rpc("UnregisterSharedMemory",
                      arrays_pb2.UnregisterSharedMemoryRequest(region_name=_REGION_NAME))
            self._unmap()

        name = f"arrayhub-{os.getpid()}-{os.urandom(8).hex()}"
        path = os.path.join(_SHM_DIRECTORY, name)
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_RDWR | os.O_NOFOLLOW, 0o600)
        except OSError:
            return False
        try:
            try:
                # Reserves the pages now: a full /dev/shm fails here (stream instead) rather
                # than as SIGBUS when this process writes to the map.
                os.posix_fallocate(fd, 0, size)
                self._map = mmap.mmap(fd, size)
            finally:
                os.close(fd)
            return self._register("/" + name, size)
        except OSError:
            self._unmap()
            return False
        finally:
            # The name is needed only until the server has opened the object.
            os.unlink(path)

    def _register(self, shm_key: str, size: int) -> bool:
        key = os.urandom(HEADER_BYTES)
        self._map[:HEADER_BYTES] = key
        request = arrays_pb2.RegisterSharedMemoryRequest(
            region_name=_REGION_NAME, shm_key=shm_key, byte_size=size, key=key)
        try:
            self._rpc("RegisterSharedMemory", request)
            return True
        except grpc.RpcError as error:
            self._unmap()
            if error.code() in _NEVER_ON_THIS_SERVER:
                self._disabled = True
                return False
            # Larger than the server's region limit: this transfer streams, a smaller one may
            # not.
            if error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
                return False
            raise
