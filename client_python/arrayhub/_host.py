"""Whether a gRPC target is on this host: the same-host fast paths (shared memory, batch
lanes) are tried only then."""

from __future__ import annotations

__all__ = ["on_this_host"]


def on_this_host(address: str) -> bool:
    """Whether ``address`` (a gRPC target) names this host: a loopback address, ``localhost``
    or a Unix socket."""
    target = address
    for scheme in ("dns:///", "ipv4:", "ipv6:"):
        target = target.removeprefix(scheme)
    if target.startswith(("unix:", "unix-abstract:")):
        return True
    return target == "localhost" or target.startswith(("localhost:", "127.", "[::1]:"))
