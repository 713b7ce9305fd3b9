"""The client side of the daemon's descriptor socket (``ServerInfo.shared_memory_socket``,
``ExportIpcResponse.socket_path``): one connection per request, one line each way, a file
descriptor attached (SCM_RIGHTS) to one of the two."""

from __future__ import annotations

import socket
from typing import Optional


def ask(path: str, line: str, fd: Optional[int] = None) -> tuple[str, list[int]]:
    """Sends ``line`` and a newline to the socket at ``path`` (``@name``: Linux's abstract
    namespace), with ``fd`` attached if given, and returns the reply line (without its
    newline) and the descriptors attached to it, which the caller owns. Raises OSError when the
    socket cannot be reached or does not answer within 10 s."""
    address = "\0" + path[1:] if path.startswith("@") else path
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(10)
        connection.connect(address)
        request = line.encode() + b"\n"
        if fd is None:
            connection.sendall(request)
        else:
            socket.send_fds(connection, [request], [fd])
        message, fds, _, _ = socket.recv_fds(connection, 512, 1)
    return message.decode(errors="replace").rstrip("\n"), fds
