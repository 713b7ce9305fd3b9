"""The pipelined Python client's own cost: microseconds of client Python per queued op, and the
wall time of one op and one read next to a bare round trip (see README.md).

    python3 bench/user/client_overhead.py [--address HOST:PORT | --daemon PATH]
                                          [--runs 3] [--repeats 15] [--ops 200]
                                          [--profile CASE]

Without --address it starts ``arrayhubd --listen 127.0.0.1:0 --backend cpu`` (default
build/server/arrayhubd) and reads the port from its "listening on" line. Queued ops are only
recorded by the client: a case times ``--ops`` statements (below the pipeline's size flush)
and waits for the queue outside the timing, so the figure is the client's cost alone. Each
run gives the median of ``--repeats`` timings per case; the table shows the median of the
``--runs`` runs and their spread. ``--profile CASE`` prints cProfile's top functions of that
case instead.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import numpy as np

import arrayhub as cp

_ROOT = Path(__file__).resolve().parents[2]
_LISTENING = re.compile(r"listening on 127\.0\.0\.1:(\d+)")


def start_daemon(path: str) -> tuple[subprocess.Popen, str]:
    """A CPU arrayhubd on a free loopback port, and its address."""
    log = tempfile.NamedTemporaryFile("w+", prefix="arrayhubd-", suffix=".log", delete=False)
    process = subprocess.Popen([path, "--listen", "127.0.0.1:0", "--backend", "cpu",
                                "--log-level", "info"], stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        match = _LISTENING.search(Path(log.name).read_text())
        if match:
            return process, f"127.0.0.1:{match.group(1)}"
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.kill()
    sys.exit(f"arrayhubd did not start:\n{Path(log.name).read_text()}")


# -- Cases: each takes (x, n), runs its statement n times and answers what keeps the last
# -- result alive (so that it is kept, as in a user's loop).

def add(x: cp.ndarray, n: int) -> cp.ndarray:
    y = x
    for _ in range(n):
        y = y + 1
    return y


def fma(x: cp.ndarray, n: int) -> cp.ndarray:
    y = x
    for _ in range(n // 2):  # two ops per statement
        y = y * 2.0 + y
    return y


def exp(x: cp.ndarray, n: int) -> cp.ndarray:
    for _ in range(n):
        z = cp.exp(x)
    return z


def total(x: cp.ndarray, n: int) -> cp.ndarray:
    for _ in range(n):
        s = x.sum()
    return s


def tail(x: cp.ndarray, n: int) -> cp.ndarray:
    for _ in range(n):
        v = x[1:]
    return v


def reshape(x: cp.ndarray, n: int) -> cp.ndarray:
    for _ in range(n):
        r = x.reshape(10, 100)
    return r


QUEUED: dict[str, tuple[str, Callable[[cp.ndarray, int], cp.ndarray]]] = {
    "add": ("y = y + 1", add), "fma": ("y = y * 2.0 + y", fma), "exp": ("cp.exp(y)", exp),
    "sum": ("y.sum()", total), "slice": ("y[1:]", tail), "reshape": ("y.reshape(10, 100)", reshape)}


def time_queued(case: Callable[[cp.ndarray, int], cp.ndarray], x: cp.ndarray, ops: int,
                repeats: int) -> float:
    """Median microseconds per op of ``case``, the queue waited for outside the timing."""
    times = []
    for _ in range(repeats):
        cp.synchronize()
        start = time.perf_counter()
        kept = case(x, ops)
        times.append(time.perf_counter() - start)
        del kept
        cp.synchronize()
    return statistics.median(times) / ops * 1e6


def time_loop(x: cp.ndarray, ops: int, repeats: int) -> float:
    """Issue 18's script 1: ``ops`` dependent ``y = y + 1`` then ``float(y[0])``, in us per
    op, everything included."""
    times = []
    for _ in range(repeats):
        cp.synchronize()
        start = time.perf_counter()
        float(add(x, ops)[0])
        times.append(time.perf_counter() - start)
    return statistics.median(times) / ops * 1e6


def time_read(x: cp.ndarray, repeats: int) -> float:
    """Wall microseconds of ``float((x + 1)[0])``: one Batch round trip."""
    times = []
    for _ in range(repeats):
        cp.synchronize()
        start = time.perf_counter()
        float((x + 1)[0])
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def time_ping(client: cp.Client, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        client.ping()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def one_run(client: cp.Client, x: cp.ndarray, ops: int, repeats: int) -> dict[str, float]:
    results = {name: time_queued(case, x, ops, repeats) for name, (_, case) in QUEUED.items()}
    results["loop"] = time_loop(x, ops, repeats)
    results["read"] = time_read(x, repeats * 4)
    results["ping"] = time_ping(client, repeats * 4)
    return results


ROWS = [(name, f"`{label}` (us per queued op)") for name, (label, _) in QUEUED.items()] + [
    ("loop", "script 1: 200 x `y = y + 1`, `float(y[0])` (us per op)"),
    ("read", "`float((x + 1)[0])` (us, wall)"),
    ("ping", "`client.ping()` (us, wall)")]


def profile(client: cp.Client, x: cp.ndarray, name: str, ops: int) -> None:
    profiler = cProfile.Profile()
    for _ in range(20):
        cp.synchronize()
        if name == "read":
            profiler.runcall(lambda: float((x + 1)[0]))
        else:
            profiler.runcall(QUEUED[name][1], x, ops)
    pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--address", help="a running arrayhubd (default: start one)")
    parser.add_argument("--daemon", default=str(_ROOT / "build/server/arrayhubd"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--ops", type=int, default=200)
    parser.add_argument("--profile", choices=[*QUEUED, "read"])
    args = parser.parse_args()
    process, address = (None, args.address) if args.address else start_daemon(args.daemon)
    try:
        client = cp.connect(address)
        cp.set_default_client(client)
        x = cp.asarray(np.arange(1000, dtype=np.float32))
        for _ in range(3):  # warm-up: caches, threads, the server's first batches
            one_run(client, x, args.ops, 2)
        if args.profile:
            profile(client, x, args.profile, args.ops)
            return 0
        runs = [one_run(client, x, args.ops, args.repeats) for _ in range(args.runs)]
        print(f"python {sys.version.split()[0]}, numpy {np.__version__}, "
              f"{'sync' if cp.is_sync() else 'pipelined'}, {args.runs} runs x "
              f"{args.repeats} repeats, median of run medians (min-max of runs)")
        print("| measure | us |\n| --- | ---: |")
        for name, label in ROWS:
            values = [run[name] for run in runs]
            print(f"| {label} | {statistics.median(values):.1f} "
                  f"({min(values):.1f}-{max(values):.1f}) |")
        client.close()
        return 0
    finally:
        if process is not None:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=20)


if __name__ == "__main__":
    sys.exit(main())
