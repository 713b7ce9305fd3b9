"""dask.array's per-type lookups for arrayhub chunks, as dask registers CuPy's
(dask/array/backends.py, ``register_cupy``): the functions dask.array calls on a chunk by the
chunk's type instead of through NumPy's protocols."""

from __future__ import annotations

from typing import Any

import numpy as np
from dask.array import backends as _backends
from dask.array.dispatch import (concatenate_lookup, empty_lookup, nannumel_lookup,
                                 numel_lookup, take_lookup, tensordot_lookup, to_numpy_dispatch)
from dask.utils import Dispatch

import arrayhub
from arrayhub._ndarray import ndarray

#: Moves a chunk to the arrayhub backend (``Array.to_backend("arrayhub")``), as dask's
#: ``to_cupy_dispatch`` moves one to CuPy: NumPy chunks are uploaded to the task's daemon.
to_arrayhub_dispatch = Dispatch("to_arrayhub_dispatch")


def _to_numpy(data: ndarray, **kwargs: Any) -> Any:
    return arrayhub.asnumpy(data, **kwargs)


def _from_numpy(data: np.ndarray, **kwargs: Any) -> ndarray:
    return arrayhub.asarray(data, **kwargs)


def _already_arrayhub(data: ndarray, **kwargs: Any) -> ndarray:
    return data


def register() -> None:
    """Registers arrayhub.ndarray with dask.array's dispatch tables (idempotent). Counts for
    mean/var stay arrayhub arrays (NumPy's would be refused in an arrayhub operation)."""
    concatenate_lookup.register(ndarray, arrayhub.concatenate)
    take_lookup.register(ndarray, arrayhub.take)
    tensordot_lookup.register(ndarray, arrayhub.tensordot)
    empty_lookup.register(ndarray, arrayhub.empty)
    numel_lookup.register(ndarray, _backends._numel_arraylike)
    nannumel_lookup.register(ndarray, _backends._nannumel)
    to_numpy_dispatch.register(ndarray, _to_numpy)
    to_arrayhub_dispatch.register(np.ndarray, _from_numpy)
    to_arrayhub_dispatch.register(ndarray, _already_arrayhub)
