"""``arrayhub bench``: a quick check of a server from where the client runs: the round trip
of a trivial RPC (KeepAlive), and upload and download rates of one float32 array."""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from arrayhub._cli_format import human_bytes, positive
from arrayhub._client import Client
from arrayhub._creation import asarray
from arrayhub.v1 import arrays_pb2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--requests", type=positive(int), default=200,
                        help="round trips to time (default 200)")
    parser.add_argument("--size", type=positive(float), default=64.0,
                        help="MiB to upload and download (default 64)")
    parser.add_argument("--repeat", type=positive(int), default=3,
                        help="transfers of each kind; the best is reported (default 3)")


def _percentile(sorted_values: list[float], fraction: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(fraction * len(sorted_values)))]


def run(client: Client, args: argparse.Namespace) -> int:
    info = client.server_info()
    print(f"server {client.address}: arrayhubd {info.version}, backend {info.backend}")

    latencies = []
    for _ in range(args.requests):
        start = time.perf_counter()
        client._rpc("KeepAlive", arrays_pb2.KeepAliveRequest())
        latencies.append((time.perf_counter() - start) * 1e3)
    latencies.sort()
    print(f"round trip (KeepAlive x{args.requests}): "
          f"p50 {_percentile(latencies, 0.5):.3f} ms  p90 {_percentile(latencies, 0.9):.3f} ms  "
          f"p99 {_percentile(latencies, 0.99):.3f} ms  max {latencies[-1]:.3f} ms  "
          f"mean {statistics.fmean(latencies):.3f} ms")

    elements = max(1, int(args.size * (1 << 20)) // 4)
    host = np.random.default_rng(0).random(elements, dtype=np.float32)
    nbytes = host.nbytes
    upload, download = [], []
    with client.use():
        for _ in range(args.repeat):
            start = time.perf_counter()
            remote = asarray(host)
            upload.append(time.perf_counter() - start)
            start = time.perf_counter()
            back = remote.get()
            download.append(time.perf_counter() - start)
            if not np.array_equal(back, host):
                print("arrayhub bench: the downloaded array differs from the uploaded one")
                return 1
            del remote
            client.flush()
    for name, seconds in (("upload", min(upload)), ("download", min(download))):
        print(f"{name:8} {human_bytes(nbytes)}: {nbytes / seconds / 1e9:.2f} GB/s "
              f"(best of {args.repeat}, {seconds * 1e3:.1f} ms)")
    return 0
