"""A session's events (the WatchSession stream) as an iterator: :meth:`Client.watch_session`.

The server sends ``watching`` first, ``lease_expiring`` when the lease has mostly passed
without a renewal, and last ``session_ended`` (the session's arrays freed) or ``draining`` (the
server is stopping), after which the iteration ends. An open watch takes one of the tenant's
--tenant-max-transfers slots on the server, so nothing in the client opens one on its own.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Iterator, Optional

import grpc

from arrayhub._errors import error_from_rpc
from arrayhub.v1 import arrays_pb2

__all__ = ["SessionEvent", "SessionWatch"]

_KINDS = {
    arrays_pb2.SessionEvent.KIND_WATCHING: "watching",
    arrays_pb2.SessionEvent.KIND_LEASE_EXPIRING: "lease_expiring",
    arrays_pb2.SessionEvent.KIND_SESSION_ENDED: "session_ended",
    arrays_pb2.SessionEvent.KIND_DRAINING: "draining",
}
_REASONS = {
    arrays_pb2.SessionEnded.REASON_CLOSED: "closed",
    arrays_pb2.SessionEnded.REASON_LEASE_EXPIRED: "lease_expired",
}


@dataclasses.dataclass(frozen=True)
class SessionEvent:
    """One event of a watched session.

    Attributes:
        kind: ``"watching"``, ``"lease_expiring"``, ``"session_ended"`` or ``"draining"``
            (``"unknown"`` for a kind this client does not know).
        lease_expires_at: for ``watching`` and ``lease_expiring``, when the lease runs out
            unless renewed, in seconds since the epoch (as :func:`time.time`); else None.
        reason: for ``session_ended``, ``"closed"`` or ``"lease_expired"``; else None.
        arrays_freed: for ``session_ended``, how many of the session's arrays the server
            freed; else None.
    """

    kind: str
    lease_expires_at: Optional[float] = None
    reason: Optional[str] = None
    arrays_freed: Optional[int] = None

    @classmethod
    def from_message(cls, message: arrays_pb2.SessionEvent) -> SessionEvent:
        """The event a SessionEvent message describes."""
        kind = _KINDS.get(message.kind, "unknown")
        if kind in ("watching", "lease_expiring"):
            return cls(kind, lease_expires_at=message.lease_expires_unix_ms / 1000)
        if kind == "session_ended":
            ended = message.session_ended
            return cls(kind, reason=_REASONS.get(ended.reason, "unknown"),
                       arrays_freed=ended.arrays_freed)
        return cls(kind)


class SessionWatch:
    """An open WatchSession stream: iterate it for :class:`SessionEvent`\\ s, and close it (or
    leave its ``with`` block) to stop watching. Errors of the call (the session is not open,
    the tenant's transfer slots are in use) are raised as ArrayHub errors when iterating."""

    def __init__(self, call: Any) -> None:
        self._call = call  # The stub's WatchSession call: an iterator of messages.
        self._closed = False

    def __iter__(self) -> Iterator[SessionEvent]:
        return self

    def __next__(self) -> SessionEvent:
        try:
            return SessionEvent.from_message(next(self._call))
        except grpc.RpcError as error:
            if self._closed and error.code() == grpc.StatusCode.CANCELLED:
                raise StopIteration from None
            raise error_from_rpc(error) from None

    def close(self) -> None:
        """Stops watching: the server lets go of the watch at once."""
        self._closed = True
        self._call.cancel()

    def __enter__(self) -> SessionWatch:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()
