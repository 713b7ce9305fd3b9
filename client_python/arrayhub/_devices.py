"""Placement on the server's devices: ``device=`` arguments, copies between devices
(CopyToDevice) and running a few calls on a chosen device (docs/devices.md).

Every call runs on the current device (``with arrayhub.cuda.Device(i):``, else the session's),
which the client sends as ``x-arrayhub-device`` metadata, or a Batch's ``device``, when it is
not the session's; new arrays go there. An operation whose operand lies on another device
fails on the server with an error naming both (CuPy's rule); copies are explicit:
``x.to_device(d)``, ``arrayhub.asarray(x, device=d)``.
"""

from __future__ import annotations

import contextlib
import operator
from typing import Any, ContextManager, Iterator

from arrayhub import _client, _infer, _ndarray, _ops
from arrayhub._errors import ArrayHubValueError, client_error

__all__ = ["device_index", "placed", "copy_to_device"]


def device_index(device: Any) -> int:
    """The index of ``device`` (an :class:`arrayhub.cuda.Device` or its id), checked against
    the current client's server; ValueError for anything else."""
    from arrayhub.cuda import runtime

    try:
        index = operator.index(device)
    except TypeError:
        raise client_error(ArrayHubValueError,
                           f"device must be an arrayhub.cuda.Device or its id, not {device!r}") \
            from None
    count = runtime.getDeviceCount()
    if not 0 <= index < count:
        raise client_error(ArrayHubValueError,
                           f"device {index}: the server has {count} device(s)")
    return index


_NOWHERE_ELSE: ContextManager[None] = contextlib.nullcontext()


def placed(device: Any) -> ContextManager[Any]:
    """A block whose calls run on ``device`` (checked first), the current device for its
    length; nothing changes for None (a creation function's default ``device=``)."""
    return _NOWHERE_ELSE if device is None else _on(device_index(device))


@contextlib.contextmanager
def _on(index: int) -> Iterator[None]:
    token = _client.current_device.set(index)
    try:
        yield
    finally:
        _client.current_device.reset(token)


def copy_to_device(array: _ndarray.ndarray, index: int) -> _ndarray.ndarray:
    """A C-contiguous copy of ``array`` on device ``index`` (CopyToDevice), queued like any op
    in the session of the client the operation runs in."""
    client = _ops.client_for(array)
    if array._batch is not None and array._batch._state == "recording":
        # CopyToDevice names its source by handle: a result still queued is sent first (one
        # of an arrayhub.batch() block being recorded raises: it has no handle yet).
        array._info
    meta = _infer.contiguous(array._shape, array._dtype) if _ops.pipelined(client) else None
    copied = _ops._submit(client, "CopyToDevice",
                          lambda refs: {"handle": refs.handle(array), "device": index},
                          meta=meta, arrays=(array,))
    copied._device = index
    return copied
