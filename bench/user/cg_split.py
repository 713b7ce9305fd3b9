"""Where the conjugate-gradient script's time goes: the client's queueing against the daemon's
Batch, and the effect of the pipeline's flush size. Run against a daemon at --log-level debug
(its log gives the Batch handler's time), with CuPy beside when it imports.

    PYTHONPATH=client_python python3 bench/user/cg_split.py HOST:PORT
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

import arrayhub as ah
from arrayhub import _pipeline

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cases  # noqa: E402
import workloads  # noqa: E402


def median_ms(run: Callable[[], Any], settle: Callable[[], Any], repeats: int = 12) -> float:
    times = []
    for i in range(repeats + 3):
        settle()
        start = time.perf_counter()
        run()
        if i >= 3:
            times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main() -> None:
    host = cases._spd_system(2048)(np.random.default_rng(1))
    try:
        import cupy
        device = tuple(cupy.asarray(v) for v in host)
        peer = median_ms(lambda: workloads.conjugate_gradient(cupy, *device),
                         cupy.cuda.Device().synchronize)
        print(f"CuPy: {peer:.1f} ms")
    except ImportError:
        pass
    for max_ops in (32, 64, 128, 256, 1024):
        _pipeline.MAX_OPS = max_ops  # Read when a client connects.
        with ah.connect(sys.argv[1]) as client:
            ah.set_default_client(client)
            a, b = (ah.asarray(v) for v in host)
            total = median_ms(lambda: workloads.conjugate_gradient(ah, a, b), ah.synchronize)
            ah.synchronize()
            start = time.perf_counter()
            residual = workloads.cg_residual_norm(ah, a, b)
            queued = time.perf_counter() - start
            float(residual)
            read = time.perf_counter() - start - queued
            print(f"flush size {max_ops}: {total:.1f} ms; one run split: queueing "
                  f"{queued * 1e3:.1f} ms, then the read {read * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
