"""CuPy's functions that tell or change which library holds an array:
``get_array_module`` and ``from_dlpack`` (``asnumpy`` is in _creation.py)."""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any, Optional

import numpy as np

from arrayhub._creation import asarray
from arrayhub._ndarray import ndarray

__all__ = ["get_array_module", "from_dlpack"]


def get_array_module(*args: Any) -> ModuleType:
    """``arrayhub`` when any argument is an arrayhub array, else ``numpy``: the ``xp`` of
    code written once for both (CuPy's ``cupy.get_array_module``)."""
    for arg in args:
        if isinstance(arg, ndarray):
            return sys.modules["arrayhub"]
    return np


def from_dlpack(x: Any, /, *, device: Any = None, copy: Optional[bool] = None) -> ndarray:
    """An arrayhub array of the data of ``x``, an object with ``__dlpack__``.

    An arrayhub array is returned as it is (its data is already on the server), or copied
    with ``copy=True``. Any other producer must hold its data in host memory: it is read
    through ``numpy.from_dlpack`` (without a copy) and uploaded, so the result is a copy,
    unlike CuPy's, and ``copy=False`` raises BufferError. A producer on a GPU of this process
    raises NumPy's BufferError: this process's GPUs are not the server's. ``device`` names
    where the result lies, as in :func:`arrayhub.asarray` (an arrayhub array of another
    device is copied there).
    """
    if isinstance(x, ndarray):
        return asarray(x, device=device, copy=copy)
    if copy is False:
        raise BufferError("from_dlpack: a producer in this process's memory can only be "
                          "uploaded, which copies (copy=False refuses it)")
    return asarray(np.from_dlpack(x), device=device)
