"""Memory overlap of arrayhub arrays: may_share_memory, shares_memory, byte_bounds.

Views share their base's memory on the server, and each array's ArrayInfo names its base (the
array that owns the memory), its byte offset in it and its strides. Arrays of different bases
never overlap; for one base, NumPy's own overlap test runs on stand-ins that have the same
offsets and strides (NumPy arrays over no real memory: NumPy's test reads only their layout).
Reading an array's ArrayInfo waits for a queued array to be made.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from arrayhub import _ops
from arrayhub._ndarray import ndarray

__all__ = ["may_share_memory", "shares_memory", "byte_bounds"]

#: Where the stand-ins' base pretends to start: far from address 0 and aligned for any dtype.
_FAKE_BASE = 1 << 44


class _Layout:
    """The __array_interface__ of an array's elements at their place in its base."""

    def __init__(self, array: ndarray) -> None:
        info = array._info
        self.__array_interface__ = {
            "shape": array.shape, "typestr": array.dtype.str, "version": 3,
            "strides": tuple(s * array.itemsize for s in info.strides),
            "data": (_FAKE_BASE + info.offset_bytes, False)}


def _base(array: ndarray) -> str:
    info = _ops.require_array(array, "shares_memory")._info
    return info.handle if info.owns_data else info.base_handle


def _overlap(test: Any, a: Any, b: Any, max_work: Optional[int]) -> bool:
    if not (isinstance(a, ndarray) and isinstance(b, ndarray)):
        # A host array and a server one never share; two host ones are NumPy's question.
        if isinstance(a, ndarray) or isinstance(b, ndarray):
            return False
        return test(a, b, max_work=max_work)
    if a._client._connection is not b._client._connection or _base(a) != _base(b):
        return False
    return bool(test(np.asarray(_Layout(a)), np.asarray(_Layout(b)), max_work=max_work))


def may_share_memory(a: Any, b: Any, max_work: Optional[int] = None) -> bool:
    """Whether ``a`` and ``b`` might share memory: views of one base whose byte ranges
    overlap (NumPy's bounds test)."""
    return _overlap(np.may_share_memory, a, b, max_work)


def shares_memory(a: Any, b: Any, max_work: Optional[int] = None) -> bool:
    """Whether ``a`` and ``b`` share an element's memory: NumPy's exact test on their
    layouts in their common base (``x[::2]`` and ``x[1::2]`` do not)."""
    return _overlap(np.shares_memory, a, b, max_work)


def byte_bounds(a: Any) -> tuple[int, int]:
    """The first byte and one past the last byte of ``a``'s elements, counted from the start
    of its base array's memory (CuPy answers device addresses; the server's are not shown)."""
    low, high = np.lib.array_utils.byte_bounds(np.asarray(_Layout(_ops.require_array(
        a, "byte_bounds"))))
    return low - _FAKE_BASE, high - _FAKE_BASE
