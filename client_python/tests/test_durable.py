"""Durable publications (arrayhubd --data-dir): what a restarted daemon restores, and what it
never serves. Each test starts its own daemons on a data directory of its own."""

from __future__ import annotations

import pathlib
import random
import signal
import stat
import threading
import time
from typing import Callable

import grpc
import numpy as np
import pytest

import arrayhub as ah
from arrayhub import _cli
from conftest import Daemon, stop_daemon
from secure_helpers import TOKENS, write_token_file

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]


def as_tenant(daemon: Daemon, tenant: str) -> ah.Client:
    return ah.connect(daemon.address, token=TOKENS[tenant], timeout=10)


def values(rng: np.random.Generator, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    """Every bit pattern is fair: NaNs, infinities and subnormals must come back bit-exact."""
    raw = rng.integers(0, 256, size=int(np.prod(shape)) * np.dtype(dtype).itemsize,
                       dtype=np.uint8)
    if dtype == "bool":
        raw &= 1
    return raw.view(dtype).reshape(shape)


def data_files(directory: pathlib.Path) -> list[pathlib.Path]:
    return sorted(directory.glob("*.npy"))


def test_restart_keeps_names_owners_readers_rights_and_data(
        launch: Callable[..., Daemon], tmp_path: pathlib.Path) -> None:
    data_dir = tmp_path / "data"
    write_token_file(tmp_path / "tokens")
    flags = ("--auth-file", str(tmp_path / "tokens"), "--data-dir", str(data_dir))
    rng = np.random.default_rng(27)
    shapes = [(3, 5), (7,), (), (0, 4), (2, 3, 2)]
    expected = {f"all/{dtype}": values(rng, dtype, shapes[i % len(shapes)])
                for i, dtype in enumerate(DTYPES)}
    daemon = launch(*flags)
    with as_tenant(daemon, "alice") as alice, alice.use():
        for name, host in expected.items():
            ah.asarray(host).publish(name, durable=True)
        # A view: written as the C-order array it shows.
        ah.asarray(np.arange(12.0).reshape(3, 4)).T.publish("view", durable=True)
        ah.asarray(np.arange(4)).publish("for-bob", readers=["bob"], durable=True)
        ah.asarray(np.arange(5)).publish("for-all", all_tenants=True, writable=True,
                                         durable=True, wait=True)
        ah.asarray(np.arange(3)).publish("not-durable")
        assert ah.checkpoint(wait=True).publications == len(expected) + 4
    stop_daemon(daemon)
    assert stat.S_IMODE(data_dir.stat().st_mode) == 0o700
    for file in data_dir.iterdir():
        assert stat.S_IMODE(file.stat().st_mode) == 0o600, file
    # NumPy reads the data without ArrayHub.
    on_disk = {(a.dtype.str, a.shape) for a in map(np.load, data_files(data_dir))}
    assert on_disk >= {(a.dtype.str, a.shape) for a in expected.values()}

    daemon = launch(*flags)
    with as_tenant(daemon, "alice") as alice, alice.use():
        listed = {a.name: a for a in alice.list_arrays(include_shared=True)}
        assert set(listed) == set(expected) | {"view", "for-bob", "for-all", "not-durable"}
        for name, host in expected.items():
            assert listed[name].owner == "alice"
            got = ah.attach(name).get()
            assert got.dtype == host.dtype and got.shape == host.shape
            assert got.tobytes() == host.tobytes(), name
        np.testing.assert_array_equal(ah.attach("view").get(), np.arange(12.0).reshape(3, 4).T)
        owned = ah.attach("for-bob")
        assert owned.flags.writeable
    with as_tenant(daemon, "bob") as bob, bob.use():
        for_bob = ah.attach("for-bob", owner="alice")
        assert not for_bob.flags.writeable
        np.testing.assert_array_equal(for_bob.get(), np.arange(4))
        for_all = ah.attach("for-all", owner="alice")
        assert for_all.flags.writeable
        # A reader that was never named gets what an unknown name gets, restored or not.
        for private in ("all/float64", "view"):
            with pytest.raises(ah.ArrayNotFoundError):
                ah.attach(private, owner="alice")
        shared = sorted(a.name for a in bob.list_arrays(include_shared=True) if not a.handle)
        assert shared == ["for-all", "for-bob"]


def test_unpublish_deletes_the_files_and_the_disk_quota_counts_them(
        launch: Callable[..., Daemon], tmp_path: pathlib.Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    data_dir = tmp_path / "data"
    # Room for one 2000-byte array and its 128-byte .npy header, not for two.
    daemon = launch("--data-dir", str(data_dir), "--tenant-max-disk-bytes", "3000")
    with ah.connect(daemon.address) as client, client.use():
        small = ah.zeros(500, dtype="float32")
        small.publish("small", durable=True, wait=True)
        assert len(data_files(data_dir)) == 1
        with pytest.raises(ah.ArrayHubMemoryError,
                           match=r"tenant 'anonymous' disk quota exceeded "
                                 r"\(--tenant-max-disk-bytes 3000\): the request needs 2128 "
                                 r"bytes and the tenant already uses 2128 bytes"):
            ah.zeros(500, dtype="float32").publish("second", durable=True)
        with pytest.raises(ah.ArrayNotFoundError):
            ah.attach("second")  # Refused as a whole.
        # A new version needs room beside the one it replaces until it is in place.
        with pytest.raises(ah.ArrayHubMemoryError, match="disk quota exceeded"):
            ah.checkpoint()
        ah.unpublish("small")
        assert list(data_dir.iterdir()) == []
        small.publish("small")
        assert ah.checkpoint(wait=True).tenant_disk_bytes == 2128
        assert client.server_info().tenant_disk_bytes == 2128
    assert _cli.main(["--address", daemon.address, "checkpoint", "--wait"]) == 1
    assert "disk quota exceeded" in capsys.readouterr().err
    with ah.connect(daemon.address) as client, client.use():
        ah.unpublish("small")
        ah.zeros(100).publish("tiny")
    assert _cli.main(["--address", daemon.address, "checkpoint", "--wait"]) == 0
    assert capsys.readouterr().out == ("1 publication(s), 800 B written; the tenant uses "
                                       "928 B of disk\n")
    stop_daemon(daemon)


def test_durable_needs_a_data_directory(client: ah.Client) -> None:
    with pytest.raises(ah.ArrayHubError, match="start arrayhubd with --data-dir") as error:
        ah.arange(3).publish("durable-without-dir", durable=True)
    assert error.value.code == grpc.StatusCode.FAILED_PRECONDITION
    with pytest.raises(ah.ArrayNotFoundError):
        ah.attach("durable-without-dir")


def test_a_corrupted_file_is_skipped_logged_and_never_served(
        launch: Callable[..., Daemon], tmp_path: pathlib.Path) -> None:
    data_dir = tmp_path / "data"
    daemon = launch("--data-dir", str(data_dir))
    with ah.connect(daemon.address) as client, client.use():
        ah.asarray(np.arange(1000, dtype=np.int64)).publish("flipped", durable=True)
        ah.asarray(np.arange(10.0)).publish("intact", durable=True)
        ah.asarray(np.arange(3.0)).publish("bad-manifest", durable=True, wait=True)
        ah.checkpoint(wait=True)
    stop_daemon(daemon)
    by_size = sorted(data_files(data_dir), key=lambda f: f.stat().st_size)
    flipped = by_size[-1]
    raw = bytearray(flipped.read_bytes())
    raw[len(raw) // 2] ^= 0x10
    flipped.write_bytes(bytes(raw))
    manifest = data_dir / (by_size[0].name.split(".")[0] + ".manifest")
    manifest.write_text(manifest.read_text().replace("shape 3", "shape 4"))

    daemon = launch("--data-dir", str(data_dir))
    log = daemon.log.read_text()
    assert f"skipping {manifest.name} (left in place): damaged manifest" in log
    with ah.connect(daemon.address) as client, client.use():
        with pytest.raises(ah.ArrayHubError, match="fails its checksum") as error:
            ah.attach("flipped")
        assert error.value.code == grpc.StatusCode.DATA_LOSS
        with pytest.raises(ah.ArrayNotFoundError):
            ah.attach("flipped")
        with pytest.raises(ah.ArrayNotFoundError):
            ah.attach("bad-manifest")
        np.testing.assert_array_equal(ah.attach("intact").get(), np.arange(10.0))
    assert "publication 'flipped' of tenant 'anonymous' is not served" in daemon.log.read_text()
    assert (data_dir / (flipped.name + ".corrupt")).exists()
    stop_daemon(daemon)


def test_kill_9_while_checkpointing_serves_the_last_good_version(
        launch: Callable[..., Daemon], tmp_path: pathlib.Path) -> None:
    """Each round writes version v into every array (all elements v) and checkpoints, some
    rounds waiting; SIGKILL comes at a random moment. The restarted daemon must serve each
    array whole, at a version no older than the last waited-for checkpoint and no newer than
    the last one asked for."""
    data_dir = tmp_path / "data"
    names = [f"k/{i}" for i in range(12)]
    shape = (64, 1024)  # 512 KiB of float64 each.
    confirmed = dict.fromkeys(names, 0)
    attempted = 0
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    for round_ in range(3):
        daemon = launch("--data-dir", str(data_dir))
        with ah.connect(daemon.address) as client, client.use():
            if round_ == 0:
                arrays = [ah.zeros(shape) for _ in names]
                for name, array in zip(names, arrays):
                    array.publish(name, durable=True, wait=True)
            else:
                arrays = [ah.attach(name) for name in names]
                for name, array in zip(names, arrays):
                    got = array.get()
                    assert (got == got.flat[0]).all(), f"torn {name} (seed {seed})"
                    assert confirmed[name] <= got.flat[0] <= attempted, (name, seed)
                    confirmed[name] = int(got.flat[0])
            killer = threading.Timer(rng.uniform(0.1, 0.6), daemon.process.send_signal,
                                     [signal.SIGKILL])
            killer.start()
            try:
                while True:
                    attempted += 1
                    for array in arrays:
                        array[...] = attempted
                    ah.checkpoint(wait=attempted % 3 == 0)
                    if attempted % 3 == 0:
                        confirmed = dict.fromkeys(names, attempted)
            except (ah.ArrayHubError, grpc.RpcError):
                pass
            killer.join()
        daemon.process.wait()
    daemon = launch("--data-dir", str(data_dir))
    with ah.connect(daemon.address) as client, client.use():
        for name in names:
            got = ah.attach(name).get()
            assert (got == got.flat[0]).all() and confirmed[name] <= got.flat[0] <= attempted
    # Nothing a killed writer left behind survives the restart's cleanup.
    assert not list(data_dir.glob("*.tmp"))
    assert len(data_files(data_dir)) == len(names)
    stop_daemon(daemon)
