"""``cupy.cuda.runtime``'s device queries, answered by the server's devices (GetServerInfo).

Device ids are the indexes of ``ServerInfo.devices``: the devices of the daemon this process's
current client is connected to, not the GPUs of this machine. A CPU daemon has one device, 0,
unless started with ``--cpu-devices N``.
Errors are CuPy's: :class:`CUDARuntimeError` with CUDA's status name and description.
"""

from __future__ import annotations

import weakref
from typing import Any

from arrayhub import _client, _events
from arrayhub.v1 import arrays_pb2

__all__ = ["CUDARuntimeError", "getDeviceCount", "getDevice", "setDevice",
           "getDeviceProperties", "memGetInfo", "deviceSynchronize"]

# CUDA's status codes and descriptions (cudaGetErrorName / cudaGetErrorString) of the errors
# these calls raise.
errorInvalidDevice = 101
errorInvalidResourceHandle = 400
_STATUS = {errorInvalidDevice: ("cudaErrorInvalidDevice", "invalid device ordinal"),
           errorInvalidResourceHandle: ("cudaErrorInvalidResourceHandle",
                                        "invalid resource handle")}


class CUDARuntimeError(RuntimeError):
    """CuPy's error for a failed CUDA runtime call; ``status`` is CUDA's code."""

    def __init__(self, status: int) -> None:
        self.status = status
        name, description = _STATUS[status]
        super().__init__(f"{name}: {description}")

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.status,)


# Each client's devices, asked once: a daemon's devices do not change while it runs.
_devices: weakref.WeakKeyDictionary[Any, tuple[Any, ...]] = weakref.WeakKeyDictionary()


def _server_devices() -> tuple[Any, ...]:
    client = _client.get_client()
    devices = _devices.get(client)
    if devices is None:
        # Not Client.server_info: that runs the queued operations first, which a device
        # query has no need to wait for.
        info = client._rpc("GetServerInfo", arrays_pb2.ServerInfoRequest())
        devices = _devices[client] = tuple(info.devices)
    return devices


def _device_info(device: int, fresh: bool = False) -> Any:
    """The server's DeviceInfo of ``device`` (asked again with ``fresh``, for its free
    memory); CUDARuntimeError for an id the server does not have."""
    devices = _server_devices()
    if not 0 <= device < len(devices):
        raise CUDARuntimeError(errorInvalidDevice)
    if fresh:
        return _client.get_client()._rpc("GetServerInfo",
                                         arrays_pb2.ServerInfoRequest()).devices[device]
    return devices[device]


def getDeviceCount() -> int:
    """How many devices the server has (1 for a CPU daemon)."""
    return len(_server_devices())


def getDevice() -> int:
    """The current device's id: the one :func:`setDevice` or ``with Device(i):`` chose in
    this thread or task, else the current client's session device (``Client.device``; 0 on a
    daemon with one device)."""
    device = _client.current_device.get()
    return _client.get_client().device if device is None else device


def setDevice(device: int) -> None:
    """Makes ``device`` current in this thread or task: new arrays and every operation go
    there (calls carry it to the server). CUDARuntimeError (cudaErrorInvalidDevice) when the
    server has no such device."""
    _device_info(device)
    _client.current_device.set(device)


def getDeviceProperties(device: int) -> dict[str, Any]:
    """The properties the server reports of ``device``: ``name`` (bytes, as CuPy's) and
    ``totalGlobalMem`` (device memory; host RAM for a CPU daemon)."""
    info = _device_info(device)
    name = info.description.split(", compute capability")[0] or info.name
    return {"name": name.encode(), "totalGlobalMem": info.total_memory_bytes}


def memGetInfo() -> tuple[int, int]:
    """``(free, total)`` bytes of the current device, as the server reads them now."""
    info = _device_info(getDevice(), fresh=True)
    return info.free_memory_bytes, info.total_memory_bytes


def deviceSynchronize() -> None:
    """Waits until this process's operations issued in the current client have run on the
    server's device (the session's order is the only one: see arrayhub.cuda)."""
    _events.wait_for_device(_client.get_client())
