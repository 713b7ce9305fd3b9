"""Pinned host arrays: NumPy arrays whose memory the server can copy to and from directly,
as CuPy's ``cupyx.empty_pinned`` and ``cupyx.zeros_pinned`` give memory the GPU can reach.

The memory is a shared-memory object (a memfd) of its own, registered with the current client's
session (on the CUDA backend the server pins it once, at registration). ``arrayhub.asarray``,
``arrayhub.array``, ``ndarray.set``, ``ndarray.get(out=...)`` and ``arrayhub.asnumpy(out=...)``
on such an array, or on a C-contiguous part of one, are then one DMA by the server and no copy
in this process. The server lets go of the object once the array and every view of it are
garbage-collected; closing the session releases it too (the NumPy array stays usable, and
transfers through it copy as with any other array).

Where the server cannot use this client's objects (another host, shared memory switched off,
``ARRAYHUB_SHARED_MEMORY=0``) these return ordinary NumPy arrays, which transfer as usual.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np
from numpy.typing import DTypeLike

from arrayhub import _client, _ops

__all__ = ["empty_pinned", "zeros_pinned", "empty_like_pinned", "zeros_like_pinned"]


def empty_pinned(shape: _ops.ShapeLike, dtype: DTypeLike = float,
                 order: str = "C") -> np.ndarray:
    """A new uninitialised NumPy array in memory registered with the current client's server.

    Raises ArrayHubMemoryError when the server's limits refuse another region
    (``--max-shared-memory-regions`` per session) or one this large
    (``--max-shared-memory-bytes``).
    """
    return _pinned(_ops.shape_tuple(shape), np.dtype(dtype), order, np.empty)


def zeros_pinned(shape: _ops.ShapeLike, dtype: DTypeLike = float,
                 order: str = "C") -> np.ndarray:
    """As :func:`empty_pinned`, filled with zeros."""
    # A new object's pages read as zeros already; only the fallback needs numpy.zeros.
    return _pinned(_ops.shape_tuple(shape), np.dtype(dtype), order, np.zeros)


def empty_like_pinned(a: Any, dtype: DTypeLike | None = None,
                      shape: Optional[_ops.ShapeLike] = None) -> np.ndarray:
    """:func:`empty_pinned` with the shape and dtype of ``a`` (a NumPy or arrayhub array)
    unless given."""
    return empty_pinned(a.shape if shape is None else shape, a.dtype if dtype is None else dtype)


def zeros_like_pinned(a: Any, dtype: DTypeLike | None = None,
                      shape: Optional[_ops.ShapeLike] = None) -> np.ndarray:
    """:func:`zeros_pinned` with the shape and dtype of ``a`` unless given."""
    return zeros_pinned(a.shape if shape is None else shape, a.dtype if dtype is None else dtype)


def _pinned(shape: tuple[int, ...], dtype: np.dtype, order: str, fallback: Any) -> np.ndarray:
    if order not in ("C", "F"):
        raise ValueError(f"order must be 'C' or 'F', got {order!r}")
    pinned = _client.get_client()._allocate_pinned(math.prod(shape) * dtype.itemsize)
    if pinned is None:
        return fallback(shape, dtype=dtype, order=order)
    return np.ndarray(shape, dtype=dtype, buffer=pinned, order=order)
