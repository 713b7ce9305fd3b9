"""Three daemons (CPU backend) under a distributed.LocalCluster of three worker processes,
each bound to one daemon by arrayhub.dask.WorkerPlugin: the dask.array workload computes with
every chunk on a daemon and matches NumPy, and the daemons' transfer counters show that the
chunks moved daemon to daemon, never through a client. Skipped without dask/distributed."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")

import arrayhub as ah  # noqa: E402
import arrayhub.dask  # noqa: E402,F401


def _transfers(address: str) -> "ah.v1.peer_pb2.TransferStats":
    with ah.connect(address) as probe:
        return probe.server_info().transfers


def test_three_daemons_move_chunks_daemon_to_daemon(launch, client: ah.Client) -> None:
    # Each pulls from the others, whose ports are picked as they start.
    daemons = [launch("--peer-allow", "127.0.0.1:*") for _ in range(3)]
    addresses = {index: daemon.address for index, daemon in enumerate(daemons)}
    with distributed.LocalCluster(n_workers=3, threads_per_worker=1, processes=True,
                                  dashboard_address=None, worker_dashboard_address=None) \
            as cluster, distributed.Client(cluster) as dask_client:
        dask_client.register_plugin(ah.dask.WorkerPlugin(addresses))
        bound = dask_client.run(lambda dask_worker: ah.get_client().address)
        assert sorted(bound.values()) == sorted(addresses.values())
        with dask.config.set({"array.backend": "arrayhub"}):
            x = da.random.default_rng(11).random((96, 64), chunks=(24, 16))
        q, r = da.linalg.tsqr(x.rechunk((24, 64)))
        futures = dask_client.compute([
            x, da.exp(x) * 2 - x, x.sum(axis=0), x.max(axis=1), x.T @ x, q @ r])
        # Gathered into the test's own session: its daemon pulls them from the workers'.
        values, elementwise, sums, maxima, gram, rebuilt = dask_client.gather(futures)
        before_reads = [_transfers(address) for address in addresses.values()]
        # An array of this process sent to a worker goes as a capability too.
        scattered = dask_client.scatter(ah.arange(5.0))
        assert dask_client.submit(lambda a: float(a.sum()), scattered).result() == 10.0
        host = values.get()
        np.testing.assert_allclose(elementwise.get(), np.exp(host) * 2 - host, rtol=1e-12)
        np.testing.assert_allclose(sums.get(), host.sum(axis=0), rtol=1e-12)
        np.testing.assert_allclose(maxima.get(), host.max(axis=1))
        np.testing.assert_allclose(gram.get(), host.T @ host, rtol=1e-10)
        np.testing.assert_allclose(rebuilt.get(), host, rtol=1e-10, atol=1e-12)
    # No chunk byte went through a client of the workers' daemons: the random chunks were made
    # there, and every move, between workers or to the test's daemon, was a pull.
    assert all(stats.client_upload_bytes == 0 and stats.client_download_bytes == 0
               for stats in before_reads)
    assert sum(stats.served_bytes for stats in before_reads) > 0
    pulled = sum(stats.pulled_bytes for stats in before_reads)
    gathered = client.server_info().transfers.pulled_bytes
    assert pulled > 0 and gathered >= values.nbytes
