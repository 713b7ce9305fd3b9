"""Issue 21's heavy operations timed on the device, ArrayHub beside CuPy: the same code runs
under each library's own ``profiler.benchmark`` (``arrayhub.profiler``, ``cupyx.profiler``),
which records a CUDA event before and after each call on the stream the call runs on (for
ArrayHub, the server's events on the session's queue). The figures are the device's time for
the work, without the Python client's time or its round trips, except where an op must wait
for its own result on the host mid-call (noted per op). Each pair of results is compared once
(exact, or within float32 rounding) before timing.

    python3 bench/user/gpu_times.py --address HOST:PORT [--repeats N] [--only fft,median]

Prints a markdown table: medians of ``--repeats`` calls after 3 warm-ups, and the speed ratio
CuPy / ArrayHub (above 1: ArrayHub is faster).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable

import numpy as np

import arrayhub
import arrayhub.profiler

N_100M = 100_000_000


@dataclass(frozen=True)
class Op:
    name: str
    label: str
    host: Callable[[np.random.Generator], tuple[np.ndarray, ...]]
    run: Callable[..., Any]  # run(xp, *device arrays)
    # What is compared between the two libraries' results (host arrays in, host value out).
    key: Callable[[Any], Any] = np.asarray
    exact: bool = False
    note: str = ""


def _complex64(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return (rng.standard_normal(shape, np.float32)
            + 1j * rng.standard_normal(shape, np.float32)).astype(np.complex64)


def _floats(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.random(shape, dtype=np.float32)


def _normals(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape, dtype=np.float32)


OPS = [
    Op("fft", "1-D fft, complex64 2^24", lambda r: (_complex64(r, (1 << 24,)),),
       lambda xp, x: xp.fft.fft(x)),
    Op("rfft2", "rfft2, float32 4096^2", lambda r: (_normals(r, 4096, 4096),),
       lambda xp, a: xp.fft.rfft2(a)),
    Op("fft_rows", "fft of 4096 rows of 4096, complex64", lambda r: (_complex64(r, (4096, 4096)),),
       lambda xp, x: xp.fft.fft(x, axis=-1)),
    Op("matmul", "matmul 4096^2 float32 (einsum's peer)",
       lambda r: (_normals(r, 4096, 4096), _normals(r, 4096, 4096)),
       lambda xp, a, b: a @ b),
    Op("einsum_mm", "einsum ij,jk->ik 4096^2 float32",
       lambda r: (_normals(r, 4096, 4096), _normals(r, 4096, 4096)),
       lambda xp, a, b: xp.einsum("ij,jk->ik", a, b)),
    Op("einsum_batched", "einsum bij,bjk->bik 256 x 256^2 float32",
       lambda r: (_normals(r, 256, 256, 256), _normals(r, 256, 256, 256)),
       lambda xp, a, b: xp.einsum("bij,bjk->bik", a, b)),
    Op("einsum_chain", "einsum ij,jk,kl,lm->im, four 2048^2 float32 (optimize=True)",
       lambda r: tuple(_normals(r, 2048, 2048) / 45 for _ in range(4)),
       lambda xp, a, b, c, d: xp.einsum("ij,jk,kl,lm->im", a, b, c, d, optimize=True)),
    Op("median", "median, float32 100M", lambda r: (_floats(r, N_100M),),
       lambda xp, a: xp.median(a), exact=True),
    Op("percentile", "percentile 90 (linear), float32 100M", lambda r: (_floats(r, N_100M),),
       lambda xp, a: xp.percentile(a, 90)),
    Op("histogram", "histogram, 1000 bins in [0, 1), float32 100M",
       lambda r: (_floats(r, N_100M),),
       lambda xp, a: xp.histogram(a, bins=1000, range=(0.0, 1.0))[0], exact=True),
    Op("unique", "unique, 10M int32 in [0, 2^20)",
       lambda r: (r.integers(0, 1 << 20, 10_000_000, dtype=np.int32),),
       lambda xp, i: xp.unique(i), exact=True,
       note="its size is read on the host mid-call (both libraries); ArrayHub's events then "
            "also span one batch-lane round trip"),
    Op("partition", "partition at n // 2, float32 100M", lambda r: (_floats(r, N_100M),),
       lambda xp, a: xp.partition(a, N_100M // 2), key=lambda p: p[N_100M // 2], exact=True),
]


def _host(value: Any) -> np.ndarray:
    return value.get() if hasattr(value, "get") else np.asarray(value)


def _agree(op: Op, ours: Any, theirs: Any) -> bool:
    a, b = op.key(_host(ours)), op.key(_host(theirs))
    if op.exact:
        return bool(np.array_equal(a, b))
    return bool(np.allclose(a, b, rtol=2e-3, atol=2e-3 * float(np.max(np.abs(b)))))


def _gpu_ms(benchmark: Callable[..., Any], run: Callable[..., Any], xp: ModuleType,
            arrays: tuple[Any, ...], repeats: int) -> float:
    result = benchmark(run, (xp, *arrays), n_repeat=repeats, n_warmup=3)
    return statistics.median(result.gpu_times[0]) * 1e3


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--address", required=True, help="the CUDA daemon (HOST:PORT)")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--only", default="", help="comma-separated op names")
    args = parser.parse_args()
    import cupy
    import cupyx.profiler

    chosen = [op for op in OPS if not args.only or op.name in args.only.split(",")]
    rng = np.random.default_rng(21)
    failed = False
    print("| operation | ArrayHub ms | CuPy ms | CuPy / ArrayHub |")
    print("| --- | ---: | ---: | ---: |")
    notes = []
    with arrayhub.connect(args.address) as client, client.use():
        for op in chosen:
            host = op.host(rng)
            ours = tuple(arrayhub.asarray(h) for h in host)
            theirs = tuple(cupy.asarray(h) for h in host)
            if not _agree(op, op.run(arrayhub, *ours), op.run(cupy, *theirs)):
                print(f"| {op.label} | results differ | | |")
                failed = True
                continue
            ours_ms = _gpu_ms(arrayhub.profiler.benchmark, op.run, arrayhub, ours, args.repeats)
            theirs_ms = _gpu_ms(cupyx.profiler.benchmark, op.run, cupy, theirs, args.repeats)
            mark = f" ({len(notes) + 1})" if op.note else ""
            print(f"| {op.label}{mark} | {ours_ms:.3f} | {theirs_ms:.3f} | "
                  f"{theirs_ms / ours_ms:.2f} |", flush=True)
            if op.note:
                notes.append(op.note)
            del ours, theirs
            cupy.get_default_memory_pool().free_all_blocks()
    for number, note in enumerate(notes, 1):
        print(f"\n({number}) {note}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
