"""Certificates and tokens for tests of a daemon with TLS and bearer tokens, made at test
time (nothing secret is committed)."""

from __future__ import annotations

import hashlib
import pathlib
import subprocess

TOKENS = {"alice": "alice-token-made-up-for-tests", "bob": "bob-token-made-up-for-tests"}


def make_certs(directory: pathlib.Path) -> None:
    """A throwaway CA (ca.pem), a server certificate for 127.0.0.1 and localhost
    (server.pem, server.key) and a client certificate for mutual TLS (client.pem,
    client.key), with the openssl CLI."""
    script = """
set -e
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1"; }
key ca.key
openssl req -x509 -new -key ca.key -out ca.pem -days 2 -subj /CN=arrayhub-test-ca
key server.key
openssl req -new -key server.key -out server.csr -subj /CN=localhost
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\n' > server.ext
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \\
  -extfile server.ext -out server.pem
key client.key
openssl req -new -key client.key -out client.csr -subj /CN=arrayhub-test-client
openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \\
  -out client.pem
"""
    subprocess.run(["bash", "-c", script], cwd=directory, check=True, capture_output=True)


def write_token_file(path: pathlib.Path, mode: int = 0o600) -> None:
    """The daemon's --auth-file for TOKENS: one ``tenant sha256(token)`` line each."""
    lines = [f"{tenant} {hashlib.sha256(token.encode()).hexdigest()}"
             for tenant, token in TOKENS.items()]
    path.write_text("# tenant sha256(token)\n" + "\n".join(lines) + "\n")
    path.chmod(mode)
