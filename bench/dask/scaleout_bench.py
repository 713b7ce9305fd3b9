"""The issue-26 workload: a 4x4-chunked n x n float64 dask.array graph (elementwise, sums
over each axis, matmul, tsqr) run twice with the same graph, and one line per step for each.

- CPU (default): NumPy chunks under dask's threaded scheduler in this process, then arrayhub
  chunks under a distributed.LocalCluster of --daemons worker processes (3), each bound to its
  own arrayhubd (CPU backend).
- CUDA (--backend cuda --gpus 2): CuPy chunks under a LocalCluster of one worker process per
  GPU (each pinned to its GPU before CuPy starts), then arrayhub chunks under a LocalCluster of
  one worker per GPU, each bound to an arrayhubd --backend cuda pinned to that GPU. CuPy is
  imported only in this mode.
- --latency-ms D puts a loopback proxy adding D each way (bench/user/latency_proxy.py) in front
  of every daemon: workers reach their daemon through it and daemons pull from each other
  through it, to simulate nodes apart (docs/scale-out.md, "A simulated 8-node run").

Then the cost of one chunk's move, the per-step task and pull counts, and the daemons'
transfer counters. arrayhub needs only to be importable (PYTHONPATH=client_python): importing
arrayhub.dask registers the `arrayhub` array backend without the installed entry point.

Usage: python bench/dask/scaleout_bench.py [--n 2048] [--daemon build/server/arrayhubd]
           [--backend cpu|cuda] [--daemons 3] [--gpus 2] [--latency-ms D]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable

import dask
import dask.array as da
import distributed
import numpy as np

import arrayhub as ah
import arrayhub.dask  # noqa: F401  (registers the `arrayhub` array backend and serialization)

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROXY = ROOT / "bench" / "user" / "latency_proxy.py"


def wait_for_address(process: subprocess.Popen, log: pathlib.Path) -> str:
    """The `listening on HOST:PORT` a daemon or proxy writes to its log once it serves."""
    for _ in range(600):
        found = re.search(r"listening on (127\.0\.0\.1:\d+)", log.read_text())
        if found:
            return found.group(1)
        if process.poll() is not None:
            break
        time.sleep(0.05)
    raise RuntimeError(f"{log.name}: did not start: {log.read_text()}")


def start_daemon(binary: str, log: pathlib.Path, backend: str,
                 gpu: int | None) -> tuple[subprocess.Popen, str]:
    env = dict(os.environ)
    if gpu is not None:
        env["CUDA_VISIBLE_DEVICES"] = str(gpu)
    # Each pulls from the others, on ports not known before they start: any loopback port.
    process = subprocess.Popen([binary, "--listen", "127.0.0.1:0", "--backend", backend,
                                "--log-level", "info", "--peer-allow", "127.0.0.1:*"],
                               stdout=log.open("w"), stderr=subprocess.STDOUT, env=env)
    return process, wait_for_address(process, log)


def start_proxy(target: str, delay_ms: float, log: pathlib.Path) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen([sys.executable, str(PROXY), target, "--delay-ms",
                                str(delay_ms)], stdout=log.open("w"), stderr=subprocess.STDOUT)
    return process, wait_for_address(process, log)


def steps(x: da.Array) -> dict[str, da.Array]:
    """The workload, each step a graph on `x` (made by the step 'create')."""
    q, r = da.linalg.tsqr(x.rechunk((x.chunks[0], x.shape[1])))
    return {"elementwise": da.exp(-x) * 2 + x * x, "sum axis 0": x.sum(axis=0),
            "sum axis 1": x.sum(axis=1), "matmul": x @ x.T, "tsqr": r}


def timed(label: str, run: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    result = run()
    seconds = time.perf_counter() - start
    print(f"  {label:12s} {seconds * 1000:9.1f} ms", flush=True)
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


def cluster_run(n: int, chunk: int, workers: int, backend: str, sync: Callable[[], None],
                plugin: distributed.WorkerPlugin | None = None,
                worker_class: type = distributed.Nanny,
                after_step: Callable[[str, da.Array], None] = lambda name, graph: None,
                describe: Callable[[], str] | None = None,
                rounds: int = 1) -> dict[str, float]:
    """The workload under a LocalCluster of `workers` single-threaded worker processes
    (started by `worker_class`, set up by `plugin`), chunks made by the dask.array backend
    `backend`; `sync`, run on every worker, waits for the work its tasks queued on the device;
    `describe`, run on every worker once set up, says what it runs on. Runs the workload
    `rounds` times on new random data each (new keys: nothing is reused) and answers the last
    round's times: the rounds before warm up what a first use pays (kernel compiles, pools)."""
    with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                  worker_class=worker_class, dashboard_address=None,
                                  worker_dashboard_address=None) \
            as cluster, distributed.Client(cluster) as client:
        if plugin is not None:
            client.register_plugin(plugin)
        if describe is not None:
            print(f"  workers: {sorted(client.run(describe).values())}")

        def finished(collection: da.Array) -> da.Array:
            # A task ends once its operations are queued (pipelined arrayhub clients, CUDA
            # streams): the step ends when every worker's device has run them.
            distributed.wait(collection)
            client.run(sync)
            return collection

        for round_ in range(rounds):
            if rounds > 1:
                print(f"  round {round_ + 1} of {rounds}"
                      f"{' (warm-up)' if round_ < rounds - 1 else ''}:")
            times = {}
            with dask.config.set({"array.backend": backend}):
                x = da.random.default_rng(1 + round_).random((n, n), chunks=chunk)
            x, times["create"] = timed("create", lambda: finished(x.persist()))
            after_step("create", x)
            for name, graph in steps(x).items():
                _, times[name] = timed(name, lambda: finished(graph.persist()))
                after_step(name, graph)
    return times


def transfer_totals(addresses: list[str]) -> np.ndarray:
    """Summed over the daemons: arrays pulled from others, bytes pulled, same-daemon pulls."""
    totals = np.zeros(3, dtype=np.int64)
    for address in addresses:
        with ah.connect(address) as probe:
            stats = probe.server_info().transfers
        totals += (stats.pulled_arrays, stats.pulled_bytes, stats.shared_pulls)
    return totals


def arrayhub_run(n: int, chunk: int, addresses: list[str],
                 rounds: int = 1) -> tuple[dict[str, float], dict]:
    """The workload with one worker per daemon; also each step's tasks and chunk moves."""
    print(f"arrayhub chunks, LocalCluster of {len(addresses)} worker processes, "
          f"{len(addresses)} daemons:")
    moves, last, persisted = {}, [transfer_totals(addresses)], set()

    def count(name: str, graph: da.Array) -> None:
        # A step's tasks: its graph's keys less those of the persisted input.
        keys = set(graph.__dask_graph__().keys())
        now = transfer_totals(addresses)
        moves[name] = (len(keys - persisted), *(now - last[0]))
        last[0] = now
        if name == "create":
            persisted.update(keys)

    times = cluster_run(n, chunk, len(addresses), "arrayhub", ah.synchronize,
                        plugin=ah.dask.WorkerPlugin(dict(enumerate(addresses))),
                        after_step=count, rounds=rounds)
    return times, moves


class GPUNanny(distributed.Nanny):
    """Starts worker `name` (LocalCluster numbers them 0, 1, ...) as a process that sees only
    GPU `name`: CUDA_VISIBLE_DEVICES is in its environment from the start, as dask_cuda's
    workers have it. (Setting it later, in a worker plugin, would come too late: importing
    dask.array imports CuPy.)"""

    def __init__(self, *args: Any, name: int, env: dict | None = None, **kwargs: Any) -> None:
        env = {**(env or {}), "CUDA_VISIBLE_DEVICES": str(name)}
        super().__init__(*args, name=name, env=env, **kwargs)


def cupy_sync() -> None:
    import cupy

    cupy.cuda.Device().synchronize()


def cupy_device() -> str:
    """The worker's GPU, to show that each worker has its own."""
    import cupy

    return cupy.cuda.Device(0).pci_bus_id


def cupy_run(n: int, chunk: int, gpus: int, rounds: int = 1) -> dict[str, float]:
    print(f"cupy chunks, LocalCluster of {gpus} worker processes, one GPU each:")
    return cluster_run(n, chunk, gpus, "cupy", cupy_sync, worker_class=GPUNanny,
                       describe=cupy_device, rounds=rounds)


def move_costs(chunk: int, addresses: list[str]) -> None:
    """What one chunk move costs by itself: a capability issued on one daemon and pulled by
    another (the bytes daemon to daemon) or by the same one (shared), and a bare round trip."""
    sender, receiver = ah.connect(addresses[0]), ah.connect(addresses[-1])
    with sender.use():
        block = ah.random.default_rng(2).random((chunk, chunk))
    pairs = [("pull, same daemon", sender)]
    if len(addresses) > 1:
        pairs.insert(0, ("pull, other daemon", receiver))
    for label, target in pairs:
        samples = []
        for _ in range(7):
            start = time.perf_counter()
            ah.pull(ah.issue_capability(block), client=target).handle
            samples.append(time.perf_counter() - start)
        print(f"  {label:20s} {np.median(samples) * 1000:7.2f} ms for {block.nbytes / 2**20:.1f} MiB")
    samples = []
    for _ in range(7):
        start = time.perf_counter()
        sender.ping()
        samples.append(time.perf_counter() - start)
    print(f"  {'round trip (ping)':20s} {np.median(samples) * 1000:7.2f} ms")
    sender.close()
    receiver.close()


def print_comparison(reference: str, ref_times: dict[str, float], hub_times: dict[str, float],
                     moves: dict) -> None:
    print(f"{'step':12s} {reference + ' ms':>10s} {'arrayhub ms':>12s} {'ratio':>6s} "
          f"{'tasks':>6s} {'pulls':>6s} {'MiB':>7s} {'shared':>6s}")
    for name in ref_times:
        tasks, pulls, pulled, shared = moves[name]
        print(f"{name:12s} {ref_times[name] * 1000:10.1f} {hub_times[name] * 1000:12.1f} "
              f"{ref_times[name] / hub_times[name]:6.2f} {tasks:6d} {pulls:6d} "
              f"{pulled / 2**20:7.1f} {shared:6d}")
    total_ref, total_hub = sum(ref_times.values()), sum(hub_times.values())
    print(f"{'total':12s} {total_ref * 1000:10.1f} {total_hub * 1000:12.1f} "
          f"{total_ref / total_hub:6.2f}  (throughput of arrayhub / {reference})")


def print_transfers(addresses: list[str]) -> None:
    for address in addresses:
        with ah.connect(address) as probe:
            stats = probe.server_info().transfers
        print(f"{address}: issued {stats.capabilities_issued}, pulled "
              f"{stats.pulled_arrays} arrays / {stats.pulled_bytes / 2**20:.1f} MiB, "
              f"served {stats.served_bytes / 2**20:.1f} MiB, shared "
              f"{stats.shared_pulls}, through clients "
              f"{(stats.client_upload_bytes + stats.client_download_bytes) / 2**20:.1f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=2048)
    parser.add_argument("--daemon", default=str(ROOT / "build" / "server" / "arrayhubd"))
    parser.add_argument("--backend", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--daemons", type=int, default=3, help="CPU: daemons and workers")
    parser.add_argument("--gpus", type=int, default=2, help="CUDA: one daemon and worker each")
    parser.add_argument("--rounds", type=int, default=1,
                        help="rounds of the arrayhub and CuPy runs, the last one timed (2: one warm-up)")
    parser.add_argument("--latency-ms", type=float, default=None,
                        help="a proxy adding this delay each way in front of every daemon")
    args = parser.parse_args()
    chunk = args.n // 4
    nodes = args.gpus if args.backend == "cuda" else args.daemons
    gpus = range(nodes) if args.backend == "cuda" else [None] * nodes
    print(f"n={args.n} float64, chunks {chunk}x{chunk} (4x4), cores: {os.cpu_count()}, "
          f"backend {args.backend}, {nodes} daemons, latency "
          f"{'none' if args.latency_ms is None else f'{args.latency_ms} ms each way'}, "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    with tempfile.TemporaryDirectory() as scratch:
        processes = []
        try:
            direct = []
            for i, gpu in enumerate(gpus):
                process, address = start_daemon(args.daemon, pathlib.Path(scratch) /
                                                 f"d{i}.log", args.backend, gpu)
                processes.append(process)
                direct.append(address)
            addresses = direct
            if args.latency_ms is not None:
                proxies = [start_proxy(address, args.latency_ms,
                                       pathlib.Path(scratch) / f"p{i}.log")
                           for i, address in enumerate(direct)]
                processes += [process for process, _ in proxies]
                addresses = [address for _, address in proxies]
            # The graph-building process's own session (the collections' _meta).
            ah.set_default_client(ah.connect(direct[0]))
            if args.backend == "cuda":
                reference, ref_times = "cupy", cupy_run(args.n, chunk, nodes, args.rounds)
            else:
                reference, ref_times = "numpy", numpy_run(args.n, chunk)
            hub_times, moves = arrayhub_run(args.n, chunk, addresses, args.rounds)
            print("one chunk's move:")
            move_costs(chunk, addresses)
            print_comparison(reference, ref_times, hub_times, moves)
            print_transfers(direct)
            print(f"load average at the end {os.getloadavg()[0]:.1f}")
        finally:
            for process in processes:
                process.terminate()
                process.wait()


if __name__ == "__main__":
    main()
