"""The Python client on a shared server: bearer tokens, TLS with a private CA, and sharing
arrays by name between tenants. Certificates and tokens are made here, at test time."""

from __future__ import annotations

import hashlib
import os
import pathlib
import subprocess
from typing import Iterator

import grpc
import numpy as np
import pytest

import arrayhub as ah
from conftest import DAEMON, Daemon, start_daemon, stop_daemon
from secure_helpers import TOKENS, make_certs, write_token_file

@pytest.fixture(scope="module")
def secure(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Daemon, bytes]]:
    """A daemon with authentication and TLS; yields it and the CA certificate (PEM)."""
    directory = tmp_path_factory.mktemp("secure")
    make_certs(directory)
    write_token_file(directory / "tokens")
    daemon = start_daemon(directory / "arrayhubd.log", "--auth-file", str(directory / "tokens"),
                          "--tls-cert", str(directory / "server.pem"),
                          "--tls-key", str(directory / "server.key"), log_level="debug")
    yield daemon, (directory / "ca.pem").read_bytes()
    stop_daemon(daemon)


def connect(secure: tuple[Daemon, bytes], tenant: str, token: str | None = None) -> ah.Client:
    daemon, ca = secure
    return ah.connect(daemon.address, token=token or TOKENS[tenant],
                      tls=grpc.ssl_channel_credentials(root_certificates=ca), timeout=10)


def test_tokens_over_tls_map_to_tenants(secure: tuple[Daemon, bytes]) -> None:
    with connect(secure, "alice") as alice:
        assert alice.tenant == "alice"
        assert alice.server_info().tenant == "alice"
        x = ah.arange(5)
        assert alice.server_info().tenant_bytes_in_use == x.nbytes
    with pytest.raises(ah.ArrayHubPermissionError, match="unknown bearer token"):
        connect(secure, "alice", token="a-wrong-token")
    with pytest.raises(ah.ArrayHubConnectionError):
        ah.connect(secure[0].address, token=TOKENS["alice"], timeout=5)  # Plaintext.


def test_publish_and_attach_between_tenants(secure: tuple[Daemon, bytes]) -> None:
    alice, bob = connect(secure, "alice"), connect(secure, "bob")
    try:
        host = np.arange(6, dtype=np.float32).reshape(2, 3)
        with alice.use():
            x = ah.asarray(host)
            published = x.publish("lab/data", readers=["bob"])
            assert published.handle == x.handle
        with bob.use():
            y = ah.attach("lab/data", owner="alice")
            assert y.handle != x.handle and not y.flags.writeable
            np.testing.assert_array_equal(y.get(), host)
            np.testing.assert_array_equal((y * 2).get(), host * 2)
            with pytest.raises(ah.ArrayHubPermissionError, match="read-only"):
                y += 1
            shared = bob.list_arrays(include_shared=True)
            assert [(a.owner, a.name) for a in shared if not a.handle] == [("alice", "lab/data")]
            with pytest.raises(ah.ArrayNotFoundError):
                ah.attach("lab/data")  # Bob's own tenant published nothing by that name.
            with pytest.raises(ah.ArrayNotFoundError):
                ah.open(x.handle)  # Alice's handle means nothing to bob.
        with alice.use():
            ah.unpublish("lab/data")
        with bob.use():
            with pytest.raises(ah.ArrayNotFoundError):
                ah.attach("lab/data", owner="alice")
            np.testing.assert_array_equal(y.get(), host)  # Bob's handle keeps the data.
    finally:
        alice.close()
        bob.close()


def test_a_tenant_cannot_scatter_into_anothers_array(secure: tuple[Daemon, bytes]) -> None:
    alice, bob = connect(secure, "alice"), connect(secure, "bob")
    try:
        with alice.use():
            x = ah.zeros(4)
            x.publish("lab/counts", readers=["bob"])
        with bob.use():
            y = ah.attach("lab/counts", owner="alice")
            with pytest.raises(ah.ArrayHubPermissionError, match="read-only"):
                ah.add.at(y, ah.asarray([0, 0]), 1.0)
            with pytest.raises(ah.ArrayNotFoundError):
                ah.open(x.handle)  # Alice's handle means nothing to bob.
            mine = ah.zeros(4)
            ah.add.at(mine, ah.asarray([1, 1]), 1.0)
            np.testing.assert_array_equal(mine.get(), [0.0, 2.0, 0.0, 0.0])
        with alice.use():
            ah.unpublish("lab/counts")
            np.testing.assert_array_equal(x.get(), np.zeros(4))
    finally:
        alice.close()
        bob.close()


def test_tokens_never_reach_the_log(secure: tuple[Daemon, bytes]) -> None:
    with pytest.raises(ah.ArrayHubPermissionError):
        connect(secure, "alice", token="secret-typo-token")
    with connect(secure, "bob"):
        ah.zeros(3).sum()
    log = secure[0].log.read_text()
    assert "rpc /arrayhub.v1.ArrayHub/OpenSession UNAUTHENTICATED" in log
    for secret in [*TOKENS.values(), "secret-typo-token"]:
        assert secret not in log


def test_a_token_file_others_can_read_is_refused(tmp_path: pathlib.Path) -> None:
    write_token_file(tmp_path / "tokens", mode=0o644)
    result = subprocess.run([DAEMON, "--listen", "127.0.0.1:0", "--backend", "cpu",
                             "--auth-file", str(tmp_path / "tokens")],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert "has mode 0644" in result.stdout + result.stderr


def test_other_hosts_need_auth_or_insecure() -> None:
    result = subprocess.run([DAEMON, "--listen", "0.0.0.0:0", "--backend", "cpu"],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert "--insecure" in result.stdout + result.stderr


def test_hash_token_prints_the_digest_for_the_token_file() -> None:
    result = subprocess.run([DAEMON, "--hash-token"], input="s3cret\n", capture_output=True,
                            text=True, timeout=30, env={**os.environ})
    assert result.returncode == 0
    assert result.stdout.strip() == hashlib.sha256(b"s3cret").hexdigest()
