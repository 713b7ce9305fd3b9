"""The ``arrayhub`` backend of dask.array's creation functions (``dask.config.set(
{"array.backend": "arrayhub"})``): ``da.ones``, ``da.zeros``, ``da.empty``, ``da.full``,
``da.arange`` and ``da.random`` make their chunks on the daemon of the thread that runs the
task (a worker's bound daemon: see _worker.py), as dask's ``cupy`` backend makes CuPy chunks.
Registered as the ``dask.array.backends`` entry point ``arrayhub`` (pyproject.toml)."""

from __future__ import annotations

from typing import Any

import numpy as np
import dask.array as da
from dask import config
from dask.array.backends import ArrayBackendEntrypoint
from dask.array.core import normalize_chunks

import arrayhub
from arrayhub.dask import _dispatch


class BitGenerator(np.random.PCG64):
    """The bit generator of ``da.random.default_rng()`` under this backend: a PCG64 whose
    type names the arrayhub module, so that dask hands each chunk's spawned generator to
    ``arrayhub.random.default_rng``, which draws on the server from its seed sequence."""


def empty_meta(dtype: Any = float) -> arrayhub.ndarray:
    """A zero-size arrayhub array: dask's ``_meta`` for arrayhub-backed collections."""
    return arrayhub.empty((0,), dtype=dtype)


def _block(name: str, *args: Any, element_type: Any, block_info: Any = None,
           **kwargs: Any) -> Any:
    # map_blocks keeps its own dtype= for the collection: the chunk's comes as element_type.
    shape = block_info[None]["chunk-shape"]
    return getattr(arrayhub, name)(shape, *args, dtype=element_type, **kwargs)


def _blocked(name: str, shape: Any, *args: Any, dtype: Any = None, chunks: Any = "auto",
             meta: Any = None, **kwargs: Any) -> da.Array:
    """A dask array whose chunks ``arrayhub.<name>(chunk_shape, *args)`` makes, task by task
    (no array is embedded in the graph: the meta stays with the collection)."""
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    dtype = np.dtype(float if dtype is None else dtype)
    chunks = normalize_chunks(chunks, shape, dtype=dtype)
    meta = empty_meta(dtype) if meta is None else meta
    return da.map_blocks(_block, name, *args, element_type=dtype, dtype=dtype, chunks=chunks,
                         meta=meta.reshape((0,) * len(shape)) if len(shape) else meta,
                         **kwargs)


class ArrayHubBackendEntrypoint(ArrayBackendEntrypoint):
    """dask.array's creation dispatch for arrayhub; constructing it registers the per-type
    lookups (concatenate, tensordot, ...) as CuPy's entry point does."""

    def __init__(self) -> None:
        _dispatch.register()

    @classmethod
    def to_backend_dispatch(cls) -> Any:
        return _dispatch.to_arrayhub_dispatch

    @classmethod
    def to_backend(cls, data: da.Array, **kwargs: Any) -> da.Array:
        if isinstance(data._meta, arrayhub.ndarray):
            return data
        return data.map_blocks(cls.to_backend_dispatch(), meta=empty_meta(data.dtype),
                               **kwargs)

    @property
    def RandomState(self) -> Any:
        return arrayhub.random.RandomState

    @property
    def default_bit_generator(self) -> Any:
        return BitGenerator

    @staticmethod
    def ones(shape: Any, *, dtype: Any = None, meta: Any = None, **kwargs: Any) -> da.Array:
        return _blocked("ones", shape, dtype=dtype, meta=meta, **kwargs)

    @staticmethod
    def zeros(shape: Any, *, dtype: Any = None, meta: Any = None, **kwargs: Any) -> da.Array:
        return _blocked("zeros", shape, dtype=dtype, meta=meta, **kwargs)

    @staticmethod
    def empty(shape: Any, *, dtype: Any = None, meta: Any = None, **kwargs: Any) -> da.Array:
        return _blocked("empty", shape, dtype=dtype, meta=meta, **kwargs)

    @staticmethod
    def full(shape: Any, fill_value: Any, *, dtype: Any = None, meta: Any = None,
             **kwargs: Any) -> da.Array:
        if dtype is None:
            dtype = np.asarray(fill_value).dtype
        return _blocked("full", shape, fill_value, dtype=dtype, meta=meta, **kwargs)

    @staticmethod
    def arange(start: Any, /, stop: Any = None, step: Any = 1, *, dtype: Any = None,
               meta: Any = None, **kwargs: Any) -> da.Array:
        # NumPy's arange graph, each chunk uploaded to the task's daemon: arange's chunks are
        # small to describe and the values are the same on every backend.
        with config.set({"array.backend": "numpy"}):
            host = da.arange(start, stop, step, dtype=dtype, **kwargs)
        return host.map_blocks(arrayhub.asarray, meta=meta if meta is not None else empty_meta(host.dtype))
