"""Using arrays across processes: by handle (now) and by published name."""

from __future__ import annotations

from typing import Sequence

from arrayhub import _client, _ops
from arrayhub._ndarray import ndarray
from arrayhub.v1 import arrays_pb2

__all__ = ["open", "publish", "unpublish", "attach", "checkpoint"]


def open(handle: str) -> ndarray:
    """The array named by ``handle`` (``x.handle`` in another process of the same tenant).

    The opening process does not own the array: dropping the returned object frees nothing,
    and the array lives as long as the session that made it keeps it (publish it to let it
    outlive that session). Unknown handles raise :class:`arrayhub.ArrayNotFoundError`
    (a KeyError).
    """
    client = _client.get_client()
    info = client._rpc("Describe", arrays_pb2.DescribeRequest(handle=handle))
    return ndarray._wrap(client, info, owned=False)


def publish(x: ndarray, name: str, *, readers: Sequence[str] = (), all_tenants: bool = False,
            writable: bool = False, durable: bool = False, wait: bool = False) -> ndarray:
    """Publishes ``x`` under ``name`` (1-128 characters of ``[A-Za-z0-9._/-]``, unique per
    tenant) so that other processes can :func:`attach` to it. A published array outlives the
    session that made it, until :func:`unpublish`. ``readers`` names other tenants allowed to
    attach (``all_tenants``: every tenant); ``writable`` lets them write too.

    ``durable`` also writes it, as of this call, to the server's data directory (arrayhubd
    ``--data-dir``), from which a restarted server restores it; the call returns once the
    write is queued, or with ``wait`` once it is on disk. Later changes are written by
    :func:`checkpoint`."""
    client = _ops.client_for(_ops.require_array(x, "publish"))
    response = client._rpc("Publish", arrays_pb2.PublishRequest(
        handle=_ops.handle_of(x), name=name, reader_tenants=list(readers),
        all_tenants=all_tenants, writable=writable, durable=durable, wait_durable=wait))
    return ndarray._wrap(client, response.array, owned=False)


def unpublish(name: str) -> None:
    """Withdraws a name; the array is freed once nothing else uses it."""
    _client.get_client()._rpc("Unpublish", arrays_pb2.UnpublishRequest(name=name))


def attach(name: str, owner: str = "") -> ndarray:
    """A new handle, in the current session, to the array published as ``name`` by tenant
    ``owner`` (empty: the caller's own tenant)."""
    client = _client.get_client()
    response = client._rpc("Attach", arrays_pb2.AttachRequest(name=name, owner=owner))
    return ndarray._wrap(client, response.array)


def checkpoint(*, wait: bool = False) -> arrays_pb2.CheckpointResponse:
    """Writes every publication of the caller's tenant, as of this call, to the server's data
    directory (arrayhubd ``--data-dir``) and makes each durable; returns once the writes are
    queued, or with ``wait`` once they are all on disk. The answer counts the publications and
    their bytes, and the disk the tenant uses now."""
    return _client.get_client()._rpc("Checkpoint", arrays_pb2.CheckpointRequest(wait=wait))
