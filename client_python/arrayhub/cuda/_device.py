"""``cupy.cuda.Device`` for the server's devices (see runtime.py for what an id means)."""

from __future__ import annotations

import contextvars
import re
from typing import Any, Optional

from arrayhub import _client
from arrayhub.cuda import runtime

__all__ = ["Device", "get_device_id"]


class Device:
    """A device of the server; ``Device()`` is the current one. As in CuPy, making one checks
    nothing: using an id the server does not have (``with``, :meth:`use`,
    :meth:`synchronize`, :attr:`mem_info`) raises CUDARuntimeError."""

    __slots__ = ("id",)

    def __init__(self, device: Any = None) -> None:
        self.id = runtime.getDevice() if device is None else int(device)

    def __int__(self) -> int:
        return self.id

    def __index__(self) -> int:
        return self.id

    def __enter__(self) -> Device:
        previous = _client.current_device.get()  # None: no device chosen (the session's)
        runtime.setDevice(self.id)
        _entered.set((*_entered.get(), previous))
        return self

    def __exit__(self, *exc_info: Any) -> None:
        *outer, previous = _entered.get()
        _entered.set(tuple(outer))
        _client.current_device.set(previous)

    def __repr__(self) -> str:
        return f"<CUDA Device {self.id}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device) and self.id == other.id

    def __hash__(self) -> int:
        return hash(self.id)

    def __lt__(self, other: Device) -> bool:
        return self.id < other.id

    def use(self) -> Device:
        """Makes this device current (outside a ``with`` block) in this thread or task."""
        runtime.setDevice(self.id)
        return self

    def synchronize(self) -> None:
        """Waits until the operations queued in the current client have run."""
        with self:
            runtime.deviceSynchronize()

    @property
    def compute_capability(self) -> str:
        """CuPy's: the compute capability's digits ("90" for 9.0), from the server's
        description of the device; "" for a CPU device, which has none."""
        description = runtime._device_info(self.id).description
        match = re.search(r"compute capability (\d+)\.(\d+)", description)
        return match.group(1) + match.group(2) if match else ""

    @property
    def mem_info(self) -> tuple[int, int]:
        """``(free, total)`` bytes of this device, as the server reads them now."""
        with self:
            return runtime.memGetInfo()


# The devices current before each open ``with Device`` block of this thread or task, innermost
# last (one stack per context, not per Device: one Device may be entered in several threads);
# None where none was chosen.
_entered: contextvars.ContextVar[tuple[Optional[int], ...]] = contextvars.ContextVar(
    "arrayhub_device_blocks", default=())


def get_device_id() -> int:
    """The current device's id."""
    return runtime.getDevice()
