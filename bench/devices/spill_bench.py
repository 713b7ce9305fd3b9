"""Spilling benchmark (docs/operations.md "Spilling", issue 27), for the GPU machine.

    python3 bench/devices/spill_bench.py --daemon build/server/arrayhubd [--gib 10]
                                         [--chunk-gib 1] [--skip-oversubscribed]

1. Spill and return of --gib GiB to pinned host memory (--spill-host-bytes) and to disk
   (--data-dir only): a daemon with --tenant-soft-bytes of one chunk (and 64 MiB), so making
   chunk k spills chunk k-1, and reading each chunk back (a sum) brings it back and spills
   another, twice over (the first pass pins the host tier's blocks, the second reuses them).
   Rates come from the daemon's own counters (arrayhub_spill_seconds_total,
   arrayhub_spill_return_seconds_total on /metrics), beside pinned cudaMemcpy of one chunk each
   way (CuPy, CUDA events), which the issue's target compares against (>= 0.8x).
2. The oversubscribed workload: chunks totalling 1.5x the GPU's memory (--spill-host-bytes
   large enough for the rest), each read twice in a round-robin of (x * 2).sum(), against the
   same workload on chunks totalling 0.75x the GPU (nothing spills); time per chunk-op.

Prints a markdown table for bench/RESULTS.md (device, date and command go with it).
"""

from __future__ import annotations

import argparse
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "client_python"))
import arrayhub as ah  # noqa: E402

GIB = 1 << 30


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Daemon:
    def __init__(self, binary: str, extra: list[str]):
        self.port, self.metrics_port = free_port(), free_port()
        self.proc = subprocess.Popen(
            [binary, "--listen", f"127.0.0.1:{self.port}", "--log-level", "warn",
             "--metrics-listen", f"127.0.0.1:{self.metrics_port}",
             "--max-array-bytes", str(64 * GIB)] + extra)
        deadline = time.monotonic() + 60
        while True:
            try:
                self.client = ah.connect(f"127.0.0.1:{self.port}", timeout=600)
                self.client.server_info()
                break
            except Exception:  # noqa: BLE001 - not listening yet
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise
                time.sleep(0.2)

    def metric(self, name: str) -> float:
        text = urllib.request.urlopen(
            f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=30).read().decode()
        match = re.search(rf"^{name} (\S+)$", text, re.M)
        return float(match.group(1)) if match else 0.0

    def close(self) -> None:
        self.client.close()
        self.proc.terminate()
        self.proc.wait(timeout=60)


def spill_and_return(binary: str, data_dir: str, gib: int, chunk_gib: int,
                     host: bool) -> list[tuple[float, float]]:
    """GiB/s moving out and back, from the daemon's counters, for each of two passes over the
    chunks: the first pins the host tier's blocks as it goes, the second reuses them."""
    chunk = chunk_gib * GIB
    # A chunk and some slack: the reads' small results must not keep the tenant past its soft
    # limit, or they spill too and the rates (chunks moved / seconds) count them as chunks.
    extra = ["--tenant-soft-bytes", str(chunk + (64 << 20)), "--data-dir", data_dir,
             "--spill-host-bytes", str((gib + chunk_gib) * GIB if host else 0)]
    daemon = Daemon(binary, extra)
    names = ("arrayhub_spills_total", "arrayhub_spill_returns_total",
             "arrayhub_spill_seconds_total", "arrayhub_spill_return_seconds_total")
    rates = []
    try:
        with daemon.client.use():
            arrays = [ah.full(chunk // 4, float(i), dtype="float32")
                      for i in range(gib // chunk_gib + 1)]
            before = [0.0] * 4
            for _ in range(2):
                for x in arrays:  # Each comes back (and the one read before goes out).
                    float(x[:1].sum().get())
                daemon.client.flush()
                now = [daemon.metric(name) for name in names]
                spills, returns, out_s, back_s = (a - b for a, b in zip(now, before))
                rates.append((spills * chunk / GIB / out_s, returns * chunk / GIB / back_s))
                before = now
            del arrays
    finally:
        daemon.close()
    return rates


def pinned_memcpy(chunk_gib: int) -> tuple[float, float] | None:
    """GiB/s of cudaMemcpyAsync device->pinned host and back, or None without CuPy."""
    try:
        import cupy as cp
    except ImportError:
        return None
    nbytes = chunk_gib * GIB
    device = cp.empty(nbytes, dtype=cp.uint8)
    host = cp.cuda.alloc_pinned_memory(nbytes)
    start, end = cp.cuda.Event(), cp.cuda.Event()
    rates = []
    for kind in (cp.cuda.runtime.memcpyDeviceToHost, cp.cuda.runtime.memcpyHostToDevice):
        src, dst = (device.data.ptr, host.ptr) if kind == 2 else (host.ptr, device.data.ptr)
        cp.cuda.runtime.memcpy(dst, src, nbytes, kind)  # Warm.
        start.record()
        for _ in range(3):
            cp.cuda.runtime.memcpyAsync(dst, src, nbytes, kind, 0)
        end.record()
        end.synchronize()
        rates.append(3 * chunk_gib / (cp.cuda.get_elapsed_time(start, end) / 1000))
    return rates[0], rates[1]


def workload(binary: str, data_dir: str, chunk_gib: int, fraction: float,
             spill_host_gib: int) -> tuple[float, int]:
    """Seconds per chunk-op of two round-robin passes over chunks totalling `fraction` of
    the GPU, and the number of chunks."""
    daemon = Daemon(binary, ["--data-dir", data_dir, "--spill-host-bytes",
                             str(spill_host_gib * GIB)])
    try:
        total = daemon.client.server_info().devices[0].total_memory_bytes
        count = max(2, int(total * fraction) // (chunk_gib * GIB))
        with daemon.client.use():
            arrays = [ah.full(chunk_gib * GIB // 4, 1.0, dtype="float32") for _ in range(count)]
            daemon.client.flush()
            start = time.perf_counter()
            for _ in range(2):
                for x in arrays:
                    float((x * 2).sum().get())
            seconds = time.perf_counter() - start
            del arrays
    finally:
        daemon.close()
    return seconds / (2 * count), count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--daemon", default="build/server/arrayhubd")
    parser.add_argument("--gib", type=int, default=10)
    parser.add_argument("--chunk-gib", type=int, default=1)
    parser.add_argument("--data-dir", default=None, help="default: a temporary directory")
    parser.add_argument("--skip-oversubscribed", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.data_dir) as data_dir:
        print("| measure | GiB/s or s | reference |")
        print("| --- | --- | --- |")
        baseline = pinned_memcpy(args.chunk_gib)
        ref = (lambda i: f"pinned cudaMemcpy {baseline[i]:.1f} GiB/s") if baseline else (
            lambda i: "CuPy missing: no cudaMemcpy baseline")
        for host in (True, False):
            tier = "pinned host" if host else "disk"
            passes = spill_and_return(args.daemon, data_dir, args.gib, args.chunk_gib, host)
            for label, (out_rate, back_rate) in zip(("first pass", "second pass"), passes):
                print(f"| spill of {args.gib} GiB to {tier}, {label} | {out_rate:.2f} GiB/s | "
                      f"{ref(0)} |")
                print(f"| return of {args.gib} GiB from {tier}, {label} | {back_rate:.2f} GiB/s "
                      f"| {ref(1)} |")
        if not args.skip_oversubscribed:
            fits, fit_count = workload(args.daemon, data_dir, args.chunk_gib, 0.75, 0)
            over, over_count = workload(args.daemon, data_dir, args.chunk_gib, 1.5, 96)
            print(f"| {over_count} chunks of {args.chunk_gib} GiB (1.5x the GPU), per op | "
                  f"{over * 1000:.1f} ms | {fit_count} chunks (0.75x): {fits * 1000:.1f} ms "
                  f"({over / fits:.1f}x) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
