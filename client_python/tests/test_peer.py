"""Daemon-to-daemon transfer (peer.proto): a capability pulled by another daemon copies the
array there without a client in the path; pulled by the daemon that issued it, it shares the
memory; it is single-use, bound to its tenant, and works over TLS between daemons. A daemon
pulls only from the origins its --peer-allow lists."""

from __future__ import annotations

import dataclasses
import gc
import pathlib

import grpc
import numpy as np
import pytest

import arrayhub as ah
from secure_helpers import TOKENS, make_certs, write_token_file


def test_pull_copies_between_daemons_and_shares_on_the_same_one(launch) -> None:
    first = launch()
    second = launch("--peer-allow", first.address)
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
    first = launch(*flags)
    second = launch(*flags, "--peer-allow", first.address)
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
    first = launch("--tenant-max-arrays", "2")
    second = launch("--tenant-max-arrays", "1", "--peer-allow", first.address)
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


def test_pulls_only_from_the_origins_peer_allow_lists(launch) -> None:
    """The receiving daemon dials only what its --peer-allow lists, compared as dialled (a
    name only by that name: localhost is not 127.0.0.1). A refused origin answers
    PERMISSION_DENIED before anything is reserved or dialled: the tenant's usage is as it was
    and the capability stays good for a listed origin."""
    first = launch()
    port = first.address.rsplit(":", 1)[1]
    receiver = launch("--peer-allow", f"10.0.0.0/8:{port},localhost:{port}")
    unlisted = launch()
    origin, there, elsewhere = (ah.connect(first.address), ah.connect(receiver.address),
                                ah.connect(unlisted.address))
    with origin.use():
        x = ah.arange(6.0)
    capability = ah.issue_capability(x)
    assert capability.origin == f"127.0.0.1:{port}"

    def usage(client: ah.Client) -> tuple[int, ...]:
        info = client.server_info()
        return (info.tenant_bytes_in_use, info.arrays, info.bytes_in_use,
                info.transfers.pulled_arrays)

    before = usage(there)
    with pytest.raises(ah.ArrayHubPermissionError,
                       match=rf"origin 127\.0\.0\.1:{port} refused: not in this daemon's "
                             r"--peer-allow"):
        ah.pull(capability, client=there)
    with pytest.raises(ah.ArrayHubPermissionError, match=r"its --peer-allow is empty"):
        ah.pull(capability, client=elsewhere)
    with pytest.raises(ah.ArrayHubValueError, match=r"origin 'unix:/run/x' is not HOST:PORT"):
        ah.pull(dataclasses.replace(capability, origin="unix:/run/x"), client=there)
    assert usage(there) == before
    assert origin.server_info().transfers.served_bytes == 0  # Never dialled.
    # The same daemon, named as the list names it.
    pulled = ah.pull(dataclasses.replace(capability, origin=f"localhost:{port}"), client=there)
    np.testing.assert_array_equal(pulled.get(), np.arange(6.0))
    assert origin.server_info().transfers.served_bytes == 48
    for client in (origin, there, elsewhere):
        client.close()
