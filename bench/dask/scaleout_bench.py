"""The issue-26 workload: a 4x4-chunked n x n float64 dask.array graph (elementwise, sums
over each axis, matmul, tsqr) run twice with the same graph: NumPy chunks under dask's
threaded scheduler in this process, and arrayhub chunks under a distributed.LocalCluster of
three worker processes, each bound to its own arrayhubd (CPU backend). Prints one line per
step for each run and the daemons' transfer counters.

Usage: python bench/dask/scaleout_bench.py [--n 2048] [--daemon build/server/arrayhubd]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import subprocess
import tempfile
import time

import dask
import dask.array as da
import distributed
import numpy as np

import arrayhub as ah
import arrayhub.dask  # noqa: F401

ROOT = pathlib.Path(__file__).resolve().parents[2]


def start_daemon(binary: str, log: pathlib.Path) -> tuple[subprocess.Popen, str]:
    sink = log.open("w")
    # Each pulls from the others, on ports not known before they start: any loopback port.
    process = subprocess.Popen([binary, "--listen", "127.0.0.1:0", "--backend", "cpu",
                                "--log-level", "info", "--peer-allow", "127.0.0.1:*"],
                               stdout=sink, stderr=subprocess.STDOUT)
    for _ in range(600):
        found = re.search(r"listening on (127\.0\.0\.1:\d+)", log.read_text())
        if found:
            return process, found.group(1)
        time.sleep(0.05)
    raise RuntimeError(f"arrayhubd did not start: {log.read_text()}")


def steps(x: da.Array) -> dict[str, da.Array]:
    """The workload, each step a graph on `x` (made by the step 'create')."""
    q, r = da.linalg.tsqr(x.rechunk((x.chunks[0], x.shape[1])))
    return {"elementwise": da.exp(-x) * 2 + x * x, "sum axis 0": x.sum(axis=0),
            "sum axis 1": x.sum(axis=1), "matmul": x @ x.T, "tsqr": r}


def timed(label: str, run) -> float:
    start = time.perf_counter()
    result = run()
    seconds = time.perf_counter() - start
    print(f"  {label:12s} {seconds * 1000:9.1f} ms")
    return result, seconds


def numpy_run(n: int, chunk: int) -> dict[str, float]:
    print("numpy chunks, threaded scheduler, one process:")
    times = {}
    with dask.config.set(scheduler="threads"):
        x, times["create"] = timed("create", lambda: da.random.default_rng(1).random(
            (n, n), chunks=chunk).persist())
        for name, graph in steps(x).items():
            _, times[name] = timed(name, lambda: graph.persist())
    return times


def arrayhub_run(n: int, chunk: int, addresses: list[str]) -> dict[str, float]:
    print("arrayhub chunks, LocalCluster of 3 worker processes, 3 daemons:")
    times = {}
    with distributed.LocalCluster(n_workers=3, threads_per_worker=1, processes=True,
                                  dashboard_address=None, worker_dashboard_address=None) \
            as cluster, distributed.Client(cluster) as client:
        client.register_plugin(ah.dask.WorkerPlugin(dict(enumerate(addresses))))

        def finished(collection: da.Array) -> da.Array:
            # A task ends once its operations are queued on its daemon (pipelined clients):
            # the step ends when every daemon has run them.
            distributed.wait(collection)
            client.run(ah.synchronize)
            return collection

        with dask.config.set({"array.backend": "arrayhub"}):
            x, times["create"] = timed("create", lambda: finished(
                da.random.default_rng(1).random((n, n), chunks=chunk).persist()))
        for name, graph in steps(x).items():
            _, times[name] = timed(name, lambda: finished(graph.persist()))
    return times


def move_costs(chunk: int, addresses: list[str]) -> None:
    """What one chunk move costs by itself: a capability issued on one daemon and pulled by
    another (the bytes daemon to daemon) or by the same one (shared), and a bare round trip."""
    sender, receiver = ah.connect(addresses[0]), ah.connect(addresses[1])
    with sender.use():
        block = ah.random.default_rng(2).random((chunk, chunk))
    for label, target in (("pull, other daemon", receiver), ("pull, same daemon", sender)):
        samples = []
        for _ in range(7):
            start = time.perf_counter()
            ah.pull(ah.issue_capability(block), client=target).handle
            samples.append(time.perf_counter() - start)
        print(f"  {label:20s} {np.median(samples) * 1000:7.2f} ms for {block.nbytes / 2**20:.0f} MiB")
    samples = []
    for _ in range(7):
        start = time.perf_counter()
        sender.ping()
        samples.append(time.perf_counter() - start)
    print(f"  {'round trip (ping)':20s} {np.median(samples) * 1000:7.2f} ms")
    sender.close()
    receiver.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=2048)
    parser.add_argument("--daemon", default=str(ROOT / "build" / "server" / "arrayhubd"))
    args = parser.parse_args()
    chunk = args.n // 4
    print(f"n={args.n} float64, chunks {chunk}x{chunk} (4x4), cores: {os.cpu_count()}")
    with tempfile.TemporaryDirectory() as scratch:
        daemons = [start_daemon(args.daemon, pathlib.Path(scratch) / f"d{i}.log")
                   for i in range(3)]
        try:
            # The graph-building process's own session (the collections' _meta).
            ah.set_default_client(ah.connect(daemons[0][1]))
            numpy_times = numpy_run(args.n, chunk)
            hub_times = arrayhub_run(args.n, chunk, [address for _, address in daemons])
            print("one chunk's move:")
            move_costs(chunk, [address for _, address in daemons])
            print(f"{'step':12s} {'numpy ms':>10s} {'arrayhub ms':>12s} {'ratio':>6s}")
            for name in numpy_times:
                print(f"{name:12s} {numpy_times[name] * 1000:10.1f} "
                      f"{hub_times[name] * 1000:12.1f} "
                      f"{numpy_times[name] / hub_times[name]:6.2f}")
            for _, address in daemons:
                with ah.connect(address) as probe:
                    stats = probe.server_info().transfers
                print(f"{address}: issued {stats.capabilities_issued}, pulled "
                      f"{stats.pulled_arrays} arrays / {stats.pulled_bytes / 2**20:.1f} MiB, "
                      f"served {stats.served_bytes / 2**20:.1f} MiB, shared "
                      f"{stats.shared_pulls}, through clients "
                      f"{(stats.client_upload_bytes + stats.client_download_bytes) / 2**20:.1f} MiB")
        finally:
            for process, _ in daemons:
                process.terminate()
                process.wait()


if __name__ == "__main__":
    main()
