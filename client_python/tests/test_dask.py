"""arrayhub arrays as the chunks of dask.array collections (arrayhub.dask), computed with
dask's synchronous scheduler on the session's daemon: every chunk is an arrayhub array and
the results match NumPy's. Skipped when dask is not installed (the [dask] extra)."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

import arrayhub as ah  # noqa: E402
import arrayhub.dask  # noqa: E402,F401  (registers the dispatch and the backend)


@pytest.fixture(autouse=True)
def _synchronous() -> None:
    with dask.config.set(scheduler="sync"):
        yield


@pytest.fixture
def host() -> np.ndarray:
    return np.random.default_rng(7).random((12, 8))


@pytest.fixture
def chunked(host: np.ndarray) -> "da.Array":
    return da.from_array(ah.asarray(host), chunks=(4, 3))


def _check(result: "da.Array", expected: np.ndarray) -> None:
    assert isinstance(result._meta, ah.ndarray)
    computed = result.compute()
    assert isinstance(computed, ah.ndarray)
    np.testing.assert_allclose(computed.get(), expected, rtol=1e-10, atol=1e-12)


def test_meta_is_a_zero_size_arrayhub_array(chunked: "da.Array") -> None:
    assert isinstance(chunked._meta, ah.ndarray)
    assert chunked._meta.size == 0 and chunked._meta.dtype == np.float64


def test_elementwise_and_reductions_over_axes(chunked: "da.Array", host: np.ndarray) -> None:
    _check(da.sin(chunked) * 2 + chunked ** 2 - 1, np.sin(host) * 2 + host ** 2 - 1)
    _check(da.where(chunked > 0.5, chunked, -chunked), np.where(host > 0.5, host, -host))
    for axis in (0, 1, None):
        _check(chunked.sum(axis=axis), host.sum(axis=axis))
        _check(chunked.max(axis=axis), host.max(axis=axis))
        _check(chunked.mean(axis=axis), host.mean(axis=axis))
        _check(chunked.std(axis=axis), host.std(axis=axis))
    _check(chunked.argmin(axis=0), host.argmin(axis=0))
    _check(chunked.cumsum(axis=1), host.cumsum(axis=1))


def test_matmul_tensordot_and_rechunking(chunked: "da.Array", host: np.ndarray) -> None:
    _check(chunked @ chunked.T, host @ host.T)
    _check(da.tensordot(chunked, chunked, axes=((0,), (0,))), host.T @ host)
    _check(chunked.rechunk((5, 8)), host)
    _check(da.concatenate([chunked, chunked[::2]], axis=0), np.concatenate([host, host[::2]]))
    _check(chunked.T[1:7], host.T[1:7])


def test_tsqr_and_svd(chunked: "da.Array", host: np.ndarray) -> None:
    tall = chunked.rechunk((4, 8))
    q, r = da.linalg.tsqr(tall)
    _check(q @ r, host)
    _check(q.T @ q, np.eye(8))
    u, s, v = da.linalg.svd(tall)
    _check(s, np.linalg.svd(host, compute_uv=False))
    _check((u * s) @ v, host)


def test_creation_backend_makes_arrayhub_chunks() -> None:
    with dask.config.set({"array.backend": "arrayhub"}):
        _check(da.ones((5, 4), chunks=(2, 3)) + da.zeros((5, 4), chunks=2), np.ones((5, 4)))
        _check(da.full((7,), 2.5, chunks=3), np.full(7, 2.5))
        _check(da.arange(10, chunks=4), np.arange(10))
        draws = da.random.default_rng(5).standard_normal((40, 30), chunks=(20, 10))
        again = da.random.default_rng(5).standard_normal((40, 30), chunks=(20, 10))
        assert isinstance(draws._meta, ah.ndarray)
        values = draws.compute().get()
        np.testing.assert_array_equal(values, again.compute().get())
        assert abs(values.mean()) < 0.3 and 0.8 < values.std() < 1.2
        uploaded = da.from_array(np.arange(12.0).reshape(3, 4), chunks=2).to_backend("arrayhub")
        _check(uploaded * 2, np.arange(12.0).reshape(3, 4) * 2)
        legacy = da.random.RandomState(3).random_sample((6, 4), chunks=(3, 2))
        sample = legacy.compute().get()
        assert sample.shape == (6, 4) and ((0 <= sample) & (sample < 1)).all()


def test_worker_plugin_binds_the_worker_to_one_session(client: ah.Client) -> None:
    """A worker's tasks make their chunks in the worker's own session (not the test's
    default client), with the lease the plugin asked for; closing the cluster closes it."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as dask_client:
        dask_client.register_plugin(ah.dask.WorkerPlugin(client.address, lease_seconds=7))
        session, lease = dask_client.submit(
            lambda: (ah.get_client().session_id, ah.get_client().lease_seconds),
            pure=False).result()
        assert session != client.session_id and lease == 7
        with dask.config.set({"array.backend": "arrayhub"}):
            draws = da.random.default_rng(2).random((8, 6), chunks=(4, 3))
            total = dask_client.compute((draws @ draws.T).sum(axis=0)).result()
        assert total.client.session_id == session
        handle = total.handle
        np.testing.assert_allclose(ah.open(handle).get(), total.get())
    with pytest.raises(KeyError):
        ah.open(handle)
