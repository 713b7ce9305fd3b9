"""Where and how :func:`arrayhub.connect` connects: its arguments first, then the ``ARRAYHUB_*``
environment variables, so that the default client (and the ``arrayhub`` command) reach a
server with TLS and a token without code.

    ARRAYHUB_ADDRESS     host:port (default localhost:50051)
    ARRAYHUB_TOKEN       bearer token
    ARRAYHUB_TOKEN_FILE  file holding the bearer token (when ARRAYHUB_TOKEN is not set)
    ARRAYHUB_TLS_CA      PEM file of the CA that signed the server's certificate: TLS
    ARRAYHUB_TLS_CERT    PEM certificate chain of this client, for mutual TLS (with ..._KEY)
    ARRAYHUB_TLS_KEY     PEM private key of that certificate
    ARRAYHUB_TLS         1: TLS with the system's root certificates (when no file is named)
"""

from __future__ import annotations

import os
from typing import Optional, Union

import grpc

from arrayhub._errors import ArrayHubValueError, client_error

#: Address used when neither an argument nor ARRAYHUB_ADDRESS names one.
DEFAULT_ADDRESS = "localhost:50051"

TlsOption = Union[bool, grpc.ChannelCredentials]


def address(given: Optional[str]) -> str:
    """``given``, else ARRAYHUB_ADDRESS, else DEFAULT_ADDRESS."""
    return given or os.environ.get("ARRAYHUB_ADDRESS") or DEFAULT_ADDRESS


def _read(path: str, what: str) -> bytes:
    try:
        with open(path, "rb") as file:
            return file.read()
    except OSError as error:
        raise client_error(ArrayHubValueError,
                           f"cannot read {what} {path}: {error.strerror}") from None


def token(given: Optional[str], token_file: Optional[str] = None) -> Optional[str]:
    """``given``, else the contents of ``token_file``, else ARRAYHUB_TOKEN, else the contents
    of ARRAYHUB_TOKEN_FILE (surrounding whitespace and the final newline dropped); None when
    none is set."""
    if given is not None:
        return given
    if token_file is None:
        if "ARRAYHUB_TOKEN" in os.environ:
            return os.environ["ARRAYHUB_TOKEN"]
        token_file = os.environ.get("ARRAYHUB_TOKEN_FILE")
        if not token_file:
            return None
    text = _read(token_file, "the token file").decode("utf-8", "replace").strip()
    if not text:
        raise client_error(ArrayHubValueError, f"the token file {token_file} is empty")
    return text


def tls(given: Optional[TlsOption], ca: Optional[str] = None, cert: Optional[str] = None,
        key: Optional[str] = None) -> TlsOption:
    """``given`` when not None; else credentials from the PEM files named by ``ca``, ``cert``
    and ``key``, each defaulting to ARRAYHUB_TLS_CA, ARRAYHUB_TLS_CERT and ARRAYHUB_TLS_KEY;
    else True (the system's roots) when ARRAYHUB_TLS is 1; else False (plaintext)."""
    if given is not None:
        return given
    ca = ca or os.environ.get("ARRAYHUB_TLS_CA") or None
    cert = cert or os.environ.get("ARRAYHUB_TLS_CERT") or None
    key = key or os.environ.get("ARRAYHUB_TLS_KEY") or None
    if (cert is None) != (key is None):
        raise client_error(ArrayHubValueError,
                           "a client certificate needs its key and a key its certificate: "
                           "give both --tls-cert and --tls-key (ARRAYHUB_TLS_CERT and "
                           "ARRAYHUB_TLS_KEY), or neither")
    if ca is None and cert is None:
        return os.environ.get("ARRAYHUB_TLS") == "1"
    return grpc.ssl_channel_credentials(
        root_certificates=_read(ca, "the TLS CA file") if ca else None,
        private_key=_read(key, "the TLS key file") if key else None,
        certificate_chain=_read(cert, "the TLS certificate file") if cert else None)
