"""Dask's serialization of arrayhub chunks: what goes over Dask's comms when the scheduler
moves a chunk between workers (or to the client) is a capability and the chunk's dtype and
shape, never its bytes. Deserializing pulls the chunk into the receiving process's current
client: its daemon reads the bytes from the origin daemon, or shares the memory when it is the
origin itself (arrayhub._peer)."""

from __future__ import annotations

from typing import Any

import numpy as np
from distributed.protocol import dask_deserialize, dask_serialize

from arrayhub._ndarray import ndarray
from arrayhub._peer import Capability, issue_capability, pull


def serialize_chunk(x: ndarray) -> tuple[dict[str, Any], list[bytes]]:
    capability = issue_capability(x)
    header = {"capability": capability.capability, "origin": capability.origin,
              "dtype": capability.dtype.str, "shape": list(capability.shape),
              "lifetime_seconds": capability.lifetime_seconds}
    return header, []


def deserialize_chunk(header: dict[str, Any], frames: list[bytes]) -> ndarray:
    return pull(Capability(header["capability"], header["origin"], np.dtype(header["dtype"]),
                           tuple(header["shape"]), header["lifetime_seconds"]))


def register() -> None:
    """Registers the two with distributed's "dask" serialization family (idempotent)."""
    dask_serialize.register(ndarray)(serialize_chunk)
    dask_deserialize.register(ndarray)(deserialize_chunk)
