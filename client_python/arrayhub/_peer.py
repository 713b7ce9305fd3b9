"""Daemon-to-daemon transfer (proto/arrayhub/v1/peer.proto): an array moves from the daemon
that holds it to another without passing through this process. The holder's client issues a
:class:`Capability` (a short-lived, one-use secret for reading that one array); whoever
receives it calls :func:`pull` on their own daemon, which fetches the bytes from the origin
itself, or, when both are the same daemon, shares the memory and copies nothing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from arrayhub import _client, _dtypes, _ops
from arrayhub._ndarray import ndarray
from arrayhub.v1 import peer_pb2

__all__ = ["Capability", "issue_capability", "pull"]


@dataclass(frozen=True)
class Capability:
    """What a receiving daemon needs to pull one array: the secret (keep it so: whoever has
    it may read the array once, as the issuing tenant, until it expires), the origin daemon's
    address and the array's dtype and shape."""

    capability: str
    origin: str
    dtype: np.dtype
    shape: tuple[int, ...]
    lifetime_seconds: int


def issue_capability(x: ndarray, lifetime_seconds: int = 0) -> Capability:
    """A capability for reading ``x`` once from another daemon (or sharing it on the same
    one), valid for ``lifetime_seconds`` (1-600; 0: the server's 60). It keeps ``x``'s memory
    alive, charged to its owner, until used or expired. Only the array's owner may issue one."""
    client = _ops.client_for(_ops.require_array(x, "issue_capability"))
    response = client._rpc("IssueCapability", peer_pb2.IssueCapabilityRequest(
        handle=_ops.handle_of(x), lifetime_seconds=lifetime_seconds))
    # Without --peer-address the daemon does not know how others reach it: the address this
    # client reaches it at serves daemons on the same network.
    return Capability(response.capability, response.origin or client.address, x.dtype, x.shape,
                      response.lifetime_seconds)


def pull(capability: Capability, client: Optional[_client.Client] = None) -> ndarray:
    """The array ``capability`` names, as a new array of ``client``'s session (default: the
    current client): its daemon reads the bytes from the origin daemon, or, when it issued
    the capability itself, shares the memory (the result is then read-only). Uses the
    capability up; an unknown, used or expired one raises :class:`arrayhub.ArrayNotFoundError`."""
    client = client or _client.get_client()
    response = client._rpc("PullArray", peer_pb2.PullArrayRequest(
        capability=capability.capability, origin=capability.origin,
        dtype=_dtypes.to_wire(capability.dtype), shape=list(capability.shape)))
    return ndarray._wrap(client, response.array)
