"""Daemon-to-daemon transfer (peer.proto): a capability pulled by another daemon copies the
array there without a client in the path; pulled by the daemon that issued it, it shares the
memory; it is single-use, bound to its tenant, and works over TLS between daemons."""

from __future__ import annotations

import gc
import pathlib

import grpc
import numpy as np
import pytest

import arrayhub as ah
from secure_helpers import TOKENS, make_certs, write_token_file


def test_pull_copies_between_daemons_and_shares_on_the_same_one(launch) -> None:
    first, second = launch(), launch()
    origin, receiver = ah.connect(first.address), ah.connect(second.address)
    host = np.arange(24.0).reshape(4, 6)
    with origin.use():
        x = ah.asarray(host)
        view = x[1:, ::2]
    capability = ah.issue_capability(view)
    assert (capability.origin, capability.shape, capability.lifetime_seconds) == (
        first.address, (3, 3), 60)
    del view  # The capability keeps the memory until it is used.
    gc.collect()
    origin.flush()
    pulled = ah.pull(capability, client=receiver)
    assert pulled.client is receiver
    np.testing.assert_array_equal(pulled.get(), host[1:, ::2])
    with pytest.raises(ah.ArrayNotFoundError, match="unknown, used or expired"):
        ah.pull(capability, client=receiver)  # One use.
    shared = ah.pull(ah.issue_capability(x), client=origin)
    assert not shared.flags.writeable
    np.testing.assert_array_equal(shared.get(), host)
    sent, received = origin.server_info().transfers, receiver.server_info().transfers
    assert (sent.capabilities_issued, sent.served_bytes, sent.shared_pulls) == (2, 72, 1)
    assert (received.pulled_arrays, received.pulled_bytes) == (1, 72)
    # The only client bytes: the upload of `host` and the two reads above.
    assert received.client_upload_bytes == 0 and received.client_download_bytes == 72
    with pytest.raises(ah.ArrayHubValueError, match="lifetime_seconds must be between 0 and 600"):
        ah.issue_capability(x, lifetime_seconds=601)
    origin.close()
    receiver.close()


def test_capability_is_bound_to_its_tenant_and_pulls_over_tls(launch,
                                                               tmp_path: pathlib.Path) -> None:
    make_certs(tmp_path)
    write_token_file(tmp_path / "tokens")
    flags = ("--auth-file", str(tmp_path / "tokens"), "--tls-cert", str(tmp_path / "server.pem"),
             "--tls-key", str(tmp_path / "server.key"), "--peer-tls-ca", str(tmp_path / "ca.pem"))
    first, second = launch(*flags), launch(*flags)
    tls = grpc.ssl_channel_credentials(root_certificates=(tmp_path / "ca.pem").read_bytes())

    def connect(address: str, tenant: str) -> ah.Client:
        return ah.connect(address, TOKENS[tenant], tls=tls, timeout=10)

    alice, alice_there, bob_there = (connect(first.address, "alice"),
                                     connect(second.address, "alice"),
                                     connect(second.address, "bob"))
    with alice.use():
        x = ah.arange(10.0)
    capability = ah.issue_capability(x)
    with pytest.raises(ah.ArrayNotFoundError, match="another tenant"):
        ah.pull(capability, client=bob_there)
    np.testing.assert_array_equal(ah.pull(capability, client=alice_there).get(), np.arange(10.0))
    for client in (alice, alice_there, bob_there):
        client.close()


def test_a_refused_pull_leaves_the_capability_unused(launch) -> None:
    """Over the array quota, the same-daemon pull is refused and the capability stays good;
    a remote pull refused by the receiver's quota before any byte moved also keeps it."""
    first, second = launch("--tenant-max-arrays", "2"), launch("--tenant-max-arrays", "1")
    origin, receiver = ah.connect(first.address), ah.connect(second.address)
    with origin.use():
        x = ah.arange(4.0)
        extra = ah.zeros(3)
    capability = ah.issue_capability(x)
    with pytest.raises(ah.ArrayHubMemoryError):
        ah.pull(capability, client=origin)  # x and extra hold the tenant's 2 handles.
    with receiver.use():
        occupant = ah.ones(2)
    with pytest.raises(ah.ArrayHubMemoryError):
        ah.pull(capability, client=receiver)  # Refused before the origin was asked.
    del extra, occupant
    gc.collect()
    origin.flush()
    receiver.flush()
    np.testing.assert_array_equal(ah.pull(capability, client=receiver).get(), np.arange(4.0))
    origin.close()
    receiver.close()
