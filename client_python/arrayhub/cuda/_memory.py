"""``cupy.get_default_memory_pool()`` and ``get_default_pinned_memory_pool()`` over the
server's accounting.

CuPy's pools cache freed blocks; the server has no such cache, but a client holds back the
frees of garbage-collected arrays and sends them in bulk (and the unregistering of collected
pinned host arrays), so "free blocks" are what this client has let go of and the server
still holds. Each figure is of the current client at the time of the call.
"""

from __future__ import annotations

from arrayhub import _client

__all__ = ["MemoryPool", "PinnedMemoryPool", "get_default_memory_pool",
           "get_default_pinned_memory_pool"]


class MemoryPool:
    """The server memory of the current client's session and of its tenant."""

    def used_bytes(self) -> int:
        """Bytes of the arrays of this session that own memory on the server (views share
        their base's), counted after the frees the client holds back are sent."""
        client = _client.get_client()
        return sum(info.nbytes for info in client.list_arrays()
                   if info.owns_data and info.owner == client.tenant)

    def total_bytes(self) -> int:
        """Bytes the server charges to this client's tenant: every session of the tenant,
        publications included (ServerInfo.tenant_bytes_in_use); at least
        :meth:`used_bytes`, as CuPy's total counts what its pool holds."""
        return _client.get_client().server_info().tenant_bytes_in_use

    def free_all_blocks(self) -> None:
        """Frees on the server, now, the arrays garbage collection let go of (their frees are
        otherwise sent in bulk, later)."""
        _client.get_client().flush()


class PinnedMemoryPool:
    """The pinned host arrays (:func:`arrayhub.empty_pinned`) of the current client's
    session: each a shared-memory object registered with the server, a page multiple."""

    def used_bytes(self) -> int:
        """Bytes of the pinned host arrays still referenced."""
        return _client.get_client()._pinned_bytes()[0]

    def total_bytes(self) -> int:
        """Bytes of the pinned host arrays registered with the server: those referenced and
        those collected but not yet unregistered."""
        return _client.get_client()._pinned_bytes()[1]

    def free_all_blocks(self) -> None:
        """Unregisters, now, the pinned host arrays garbage collection let go of."""
        _client.get_client()._send_releases()


_memory_pool = MemoryPool()
_pinned_memory_pool = PinnedMemoryPool()


def get_default_memory_pool() -> MemoryPool:
    """The pool reporting the server memory of the current client (see MemoryPool)."""
    return _memory_pool


def get_default_pinned_memory_pool() -> PinnedMemoryPool:
    """The pool reporting the current client's pinned host arrays."""
    return _pinned_memory_pool
