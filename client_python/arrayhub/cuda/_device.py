"""``cupy.cuda.Device`` for the server's devices (see runtime.py for what an id means)."""

from __future__ import annotations

from typing import Any

from arrayhub.cuda import runtime

__all__ = ["Device", "get_device_id"]


class Device:
    """A device of the server; ``Device()`` is the current one. As in CuPy, making one checks
    nothing: using an id the server does not have (``with``, :meth:`use`,
    :meth:`synchronize`, :attr:`mem_info`) raises CUDARuntimeError."""

    __slots__ = ("id", "_previous")

    def __init__(self, device: Any = None) -> None:
        self.id = runtime.getDevice() if device is None else int(device)
        self._previous: list[int] = []

    def __int__(self) -> int:
        return self.id

    def __index__(self) -> int:
        return self.id

    def __enter__(self) -> Device:
        previous = runtime.getDevice()
        runtime.setDevice(self.id)
        self._previous.append(previous)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        runtime.setDevice(self._previous.pop())

    def __repr__(self) -> str:
        return f"<CUDA Device {self.id}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device) and self.id == other.id

    def __hash__(self) -> int:
        return hash(self.id)

    def __lt__(self, other: Device) -> bool:
        return self.id < other.id

    def use(self) -> Device:
        """Makes this device current (outside a ``with`` block)."""
        runtime.setDevice(self.id)
        return self

    def synchronize(self) -> None:
        """Waits until the operations queued in the current client have run."""
        with self:
            runtime.deviceSynchronize()

    @property
    def mem_info(self) -> tuple[int, int]:
        """``(free, total)`` bytes of this device, as the server reads them now."""
        with self:
            return runtime.memGetInfo()


def get_device_id() -> int:
    """The current device's id."""
    return runtime.getDevice()
