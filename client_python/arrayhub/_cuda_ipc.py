"""CUDA IPC: a server's device arrays, mapped in place by a process on the same host.

``ndarray.__cuda_array_interface__`` and ``__dlpack__`` give CuPy, PyTorch, Numba and JAX the
array's own device memory: no copy, no transfer. Behind them (docs/ipc.md):

1. ``ExportIpc`` waits on the server for the work queued on the array, and takes a lease that
   keeps its memory alive;
2. the tenant's memory pool is imported once per process: its file descriptor comes over the
   server's IPC socket with a one-use ticket (``cuMemPoolImportFromShareableHandle``);
3. the allocation is imported once per lease (``cuMemPoolImportPointer``).

The CUDA driver library (libcuda.so.1) is called through ctypes, in the device's primary context,
the one the CUDA runtime and every framework use. A lease ends when the last array using it is
collected: the pointer is freed here first, then ``ReleaseIpc`` goes with the next call.
"""

from __future__ import annotations

import ctypes
import socket
import threading
import weakref
from typing import TYPE_CHECKING, Any

from arrayhub import _descriptor_socket, _dtypes
from arrayhub._errors import ArrayHubError, client_error
from arrayhub.v1 import arrays_pb2

if TYPE_CHECKING:
    from arrayhub._client import Client
    from arrayhub._ndarray import ndarray

_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 1


class _Driver:
    """The few CUDA driver calls IPC needs, each checked."""

    def __init__(self) -> None:
        try:
            self._lib = ctypes.CDLL("libcuda.so.1")
        except OSError as error:
            raise client_error(ArrayHubError, "CUDA IPC needs the CUDA driver (libcuda.so.1) in "
                                              f"this process: {error}") from None
        self._check(self._lib.cuInit(0), "cuInit")
        self._contexts: dict[int, ctypes.c_void_p] = {}
        # The _v2 entry point (CUDA 11.4 on) where the driver has it.
        self._get_uuid = getattr(self._lib, "cuDeviceGetUuid_v2", None) or self._lib.cuDeviceGetUuid

    def _check(self, result: int, call: str) -> None:
        if result != 0:
            name = ctypes.c_char_p()
            self._lib.cuGetErrorName(result, ctypes.byref(name))
            text = name.value.decode() if name.value else f"error {result}"
            raise client_error(ArrayHubError, f"{call} failed: {text}")

    def ordinal_of(self, uuid: str) -> int:
        """This process's ordinal of the device with ``uuid`` ("GPU-..."), which
        CUDA_VISIBLE_DEVICES may number differently than the server's."""
        count = ctypes.c_int()
        self._check(self._lib.cuDeviceGetCount(ctypes.byref(count)), "cuDeviceGetCount")
        wanted = uuid.removeprefix("GPU-").replace("-", "")
        for ordinal in range(count.value):
            device = ctypes.c_int()
            self._check(self._lib.cuDeviceGet(ctypes.byref(device), ordinal), "cuDeviceGet")
            raw = (ctypes.c_ubyte * 16)()
            self._check(self._get_uuid(raw, device), "cuDeviceGetUuid")
            if bytes(raw).hex() == wanted:
                return ordinal
        raise client_error(ArrayHubError, f"the server's GPU {uuid} is not visible to this process"
                                          " (CUDA_VISIBLE_DEVICES?)")

    def _enter(self, ordinal: int) -> None:
        context = self._contexts.get(ordinal)
        if context is None:
            device = ctypes.c_int()
            self._check(self._lib.cuDeviceGet(ctypes.byref(device), ordinal), "cuDeviceGet")
            context = ctypes.c_void_p()
            self._check(self._lib.cuDevicePrimaryCtxRetain(ctypes.byref(context), device),
                        "cuDevicePrimaryCtxRetain")
            self._contexts[ordinal] = context
        self._check(self._lib.cuCtxPushCurrent_v2(context), "cuCtxPushCurrent")

    def _leave(self) -> None:
        popped = ctypes.c_void_p()
        self._check(self._lib.cuCtxPopCurrent_v2(ctypes.byref(popped)), "cuCtxPopCurrent")

    def import_pool(self, ordinal: int, fd: int) -> ctypes.c_void_p:
        pool = ctypes.c_void_p()
        self._enter(ordinal)
        try:
            self._check(self._lib.cuMemPoolImportFromShareableHandle(
                ctypes.byref(pool), ctypes.c_void_p(fd), _CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
                ctypes.c_ulonglong(0)), "cuMemPoolImportFromShareableHandle")
        finally:
            self._leave()
        return pool

    def import_pointer(self, ordinal: int, pool: ctypes.c_void_p, export_data: bytes) -> int:
        if len(export_data) != 64:
            raise client_error(ArrayHubError, f"the server sent {len(export_data)} bytes of "
                                              "pointer export data, not 64")
        pointer = ctypes.c_uint64()
        data = (ctypes.c_ubyte * 64).from_buffer_copy(export_data)
        self._enter(ordinal)
        try:
            self._check(self._lib.cuMemPoolImportPointer(ctypes.byref(pointer), pool,
                                                         ctypes.byref(data)),
                        "cuMemPoolImportPointer")
        finally:
            self._leave()
        return pointer.value

    def free(self, ordinal: int, pointer: int) -> None:
        self._enter(ordinal)
        try:
            self._check(self._lib.cuMemFree_v2(ctypes.c_uint64(pointer)), "cuMemFree")
        finally:
            self._leave()


_driver: _Driver | None = None
_driver_lock = threading.Lock()


def _get_driver() -> _Driver:
    global _driver
    with _driver_lock:
        if _driver is None:
            _driver = _Driver()
        return _driver


def fetch_pool_descriptor(socket_path: str, ticket: str, pool_id: str) -> int:
    """The pool's file descriptor, from the server's IPC socket (see proto ExportIpc)."""
    try:
        reply, fds = _descriptor_socket.ask(socket_path, ticket)
    except OSError as error:
        raise client_error(ArrayHubError, f"IPC socket {socket_path}: {error}") from None
    if reply != f"OK {pool_id}" or not fds:
        for fd in fds:
            socket.close(fd)
        raise client_error(ArrayHubError, f"IPC socket {socket_path}: {reply or 'no reply'}")
    return fds[0]


class _Lease:
    """One imported allocation, shared by every array of this process that uses it."""

    __slots__ = ("lease", "ordinal", "pointer", "users")

    def __init__(self, lease: str, ordinal: int, pointer: int) -> None:
        self.lease = lease
        self.ordinal = ordinal
        self.pointer = pointer
        self.users = 0


class IpcMappings:
    """A client's imported pools and allocations."""

    def __init__(self, client: Client) -> None:
        self._client = weakref.ref(client)
        self._lock = threading.Lock()
        self._pools: dict[str, ctypes.c_void_p] = {}
        self._leases: dict[str, _Lease] = {}
        self._users: set[int] = set()  # id() of the live arrays counted in a lease's users.
        self.pending_releases: list[str] = []

    def map(self, array: ndarray) -> tuple[int, int, Any]:
        """(device pointer of the first element, this process's device ordinal, the ExportIpc
        response) for ``array``, mapping it if this process has not yet."""
        client = self._client()
        assert client is not None
        response = client._rpc("ExportIpc", arrays_pb2.ExportIpcRequest(handle=array.handle))
        driver = _get_driver()
        with self._lock:
            lease = self._leases.get(response.lease)
            if lease is None:
                ordinal = driver.ordinal_of(response.device_uuid)
                pool = self._pools.get(response.pool_id)
                if pool is None:
                    fd = fetch_pool_descriptor(response.socket_path, response.pool_ticket,
                                               response.pool_id)
                    try:
                        pool = driver.import_pool(ordinal, fd)
                    finally:
                        socket.close(fd)
                    self._pools[response.pool_id] = pool
                pointer = driver.import_pointer(ordinal, pool, response.pointer_export_data)
                lease = _Lease(response.lease, ordinal, pointer)
                self._leases[response.lease] = lease
            if id(array) not in self._users:
                self._users.add(id(array))
                lease.users += 1
                weakref.finalize(array, self._drop, id(array), lease)
        return lease.pointer + response.offset_bytes, lease.ordinal, response

    def _drop(self, user: int, lease: _Lease) -> None:
        """An array using ``lease`` was collected; the last one frees the mapping. Makes no
        call to the server (it runs inside garbage collection): the release goes with the
        client's next flush."""
        with self._lock:
            self._users.discard(user)
            if lease.lease not in self._leases:
                return  # Unmapped with the session.
            lease.users -= 1
            if lease.users > 0:
                return
            del self._leases[lease.lease]
            self.pending_releases.append(lease.lease)
        _get_driver().free(lease.ordinal, lease.pointer)


    def take_releases(self) -> list[str]:
        """The leases whose mappings are gone, for ReleaseIpc."""
        with self._lock:
            released, self.pending_releases = self.pending_releases, []
        return released

    def unmap_all(self) -> None:
        """Frees every mapping (the session is closing; its leases end with it)."""
        with self._lock:
            leases = list(self._leases.values())
            self._leases.clear()
            self._users.clear()
            self.pending_releases.clear()
        for lease in leases:
            lease.users = 0
            _get_driver().free(lease.ordinal, lease.pointer)


def cuda_array_interface(array: ndarray) -> dict[str, Any]:
    """Version 3 of Numba's CUDA Array Interface for ``array``."""
    pointer, _, response = array.client._ipc_mappings().map(array)
    itemsize = array.itemsize
    info = response.array
    return {
        "shape": tuple(info.shape),
        "typestr": _dtypes.little_endian(array.dtype).str,
        "data": (pointer, not info.writable),
        "strides": None if info.c_contiguous else tuple(s * itemsize for s in info.strides),
        "version": 3,
        # The server finished the array's work before answering: nothing to wait for.
        "stream": None,
    }
