"""``cupy.cuda`` for a remote device: the server's devices, the session's order, the server's
memory accounting.

- :class:`Device` ids are the devices of the server the current client is connected to
  (``ServerInfo.devices``; a CPU daemon has one, 0), never this machine's GPUs. ``with
  Device(i):`` makes ``i`` current; an id the server does not have raises CuPy's
  ``CUDARuntimeError`` (cudaErrorInvalidDevice). ``ndarray.device`` is the array's Device.
- :class:`Stream` and :class:`Event` stand for the session's one order; an Event is recorded
  and timed by the server, in that order (see _stream.py for what ``get_elapsed_time``
  measures).
- :func:`get_default_memory_pool` reports the session's and its tenant's memory on the
  server; :func:`get_default_pinned_memory_pool` the session's pinned host arrays.

See client_python/README.md, "arrayhub.cuda: CuPy's device API on a remote server".
"""

from arrayhub.cuda import runtime
from arrayhub.cuda._device import Device, get_device_id
from arrayhub.cuda._memory import (MemoryPool, PinnedMemoryPool, get_default_memory_pool,
                                   get_default_pinned_memory_pool)
from arrayhub.cuda._stream import Event, Stream, get_current_stream, get_elapsed_time

__all__ = ["runtime", "Device", "get_device_id", "Stream", "Event", "get_current_stream",
           "get_elapsed_time", "MemoryPool", "PinnedMemoryPool", "get_default_memory_pool",
           "get_default_pinned_memory_pool"]
