"""What the runner times: each script of workloads.py with its starting data, its target
(ArrayHub time / peer time, from issue 18) and the tolerance its answer is checked with.

Starting data is made on the host with a seeded NumPy generator, so both modules start from
the same values; uploading it is not timed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

import workloads


@dataclass(frozen=True)
class Case:
    script: int  # The script's number in README.md (selects it with --scripts).
    name: str  # Row label of the table.
    workload: Callable[..., float]
    inputs: Callable[[np.random.Generator], tuple[np.ndarray, ...]]  # Host starting data.
    target: float  # Largest ArrayHub / peer time ratio that meets the target.
    rtol: float  # Relative tolerance between the two modules' answers.
    ops: int = 0  # Ops in the loop, to report time per op (0: not reported).


def _uniform(*shape: int) -> Callable[[np.random.Generator], tuple[np.ndarray, ...]]:
    """One float32 array per shape given, uniform in [0, 1)."""
    return lambda rng: tuple(rng.random(s, dtype=np.float32) for s in shape)


def _integers(n: int, high: int) -> Callable[[np.random.Generator], tuple[np.ndarray, ...]]:
    """n int32 uniform in [0, high)."""
    return lambda rng: (rng.integers(0, high, n, dtype=np.int32),)


def _spd_system(n: int) -> Callable[[np.random.Generator], tuple[np.ndarray, ...]]:
    """A float64 SPD matrix and a right-hand side. Its eigenvalues lie in about [0.05, 4.05]
    (Marchenko-Pastur plus a shift), so 50 CG steps shrink the residual by several orders of
    magnitude but stay well above rounding, where the two modules' answers would differ."""
    def make(rng: np.random.Generator) -> tuple[np.ndarray, ...]:
        m = rng.standard_normal((n, n))
        a = m @ m.T / n + 0.05 * np.eye(n)
        return a, rng.standard_normal(n)
    return make


def _blobs(n: int, k: int = 8,
           d: int = 4) -> Callable[[np.random.Generator], tuple[np.ndarray, ...]]:
    """n float32 points in k well-separated blobs (centers on corners of a hypercube of side
    10, unit noise), and one point of each blob as the starting centers: no point lies near a
    boundary, so both modules assign every point alike."""
    def make(rng: np.random.Generator) -> tuple[np.ndarray, ...]:
        corners = 10.0 * ((np.arange(k)[:, None] >> np.arange(d)[None, :]) & 1)
        labels = np.arange(n) % k
        points = corners[labels] + rng.standard_normal((n, d))
        return points.astype(np.float32), points[:k].astype(np.float32)
    return make


def _options(n: int) -> Callable[[np.random.Generator], tuple[np.ndarray, ...]]:
    """black_scholes.py's random options: stock prices in [5, 30), strikes in [1, 100),
    years in [0.25, 10), float32."""
    def make(rng: np.random.Generator) -> tuple[np.ndarray, ...]:
        return tuple(rng.uniform(low, high, n).astype(np.float32)
                     for low, high in ((5, 30), (1, 100), (0.25, 10)))
    return make


def _size_label(n: int) -> str:
    return f"1e{len(str(n)) - 1}"


def _count(n: int) -> str:
    """500k, 50M: element counts as the issue writes them."""
    for unit, scale in (("M", 10**6), ("k", 10**3)):
        if n >= scale and n % scale == 0:
            return f"{n // scale}{unit}"
    return str(n)


def all_cases(quick: bool) -> list[Case]:
    """The scripts at full size (about 2.5 GB of device memory per module at most), or with
    --quick scaled down for a CPU daemon."""
    chain_n = 500_000 if quick else 50_000_000
    sum_n = 1_000_000 if quick else 100_000_000
    matmul_n = 256 if quick else 4096
    cg_n = 256 if quick else 2048
    kmeans_n = 20_000 if quick else 1_000_000
    rfft_n = 2**18 if quick else 2**24
    fft2_n = 512 if quick else 4096
    options_n = 100_000 if quick else 10_000_000
    stats_n = 1_000_000 if quick else 100_000_000
    unique_n = 100_000 if quick else 10_000_000
    by_size = [10**e for e in range(3, 7 if quick else 9)]
    cases = [
        Case(1, "1. 200 x `y = y + 1` (1000 float32), `float(y[0])`", workloads.small_op_loop,
             _uniform(1000), 2.0, 1e-6, ops=200),
        Case(2, "2. `float((x + 1)[0])` (1000 float32)", workloads.one_op_one_read,
             _uniform(1000), 5.0, 1e-6),
        Case(3, f"3. `a * b + a`, `exp(y) * 0.5`, `float(z.sum())` ({_count(chain_n)} float32)",
             workloads.chain_with_sum, _uniform(chain_n, chain_n), 1.0, 1e-4),
        Case(4, f"4. `float(a.sum())` ({_count(sum_n)} float32)", workloads.sum_all,
             _uniform(sum_n), 2.0, 1e-4),
        Case(5, f"5. `float((a @ b)[0, 0])` ({matmul_n}^2 float32)", workloads.matmul_corner,
             _uniform((matmul_n, matmul_n), (matmul_n, matmul_n)), 1.05, 1e-3),
    ]
    cases += [
        Case(6, f"6. `float((a * b + a).sum())` ({_size_label(n)} float32)", workloads.fma_sum,
             _uniform(n, n), 2.0 if n <= 10**6 else 1.0, 1e-4)
        for n in by_size]
    cases += [
        Case(7, f"7. conjugate gradient, 50 steps ({cg_n}^2 float64)",
             workloads.conjugate_gradient, _spd_system(cg_n), 1.5, 1e-4),
        Case(8, f"8. k-means, 10 iterations ({_count(kmeans_n)} points, 4-d, 8 clusters, float32)",
             workloads.kmeans, _blobs(kmeans_n), 1.5, 1e-4),
        Case(9, f"9. `float(cp.abs(cp.fft.rfft(a)).sum())` (2^{rfft_n.bit_length() - 1} float32)",
             workloads.rfft_magnitude, _uniform(rfft_n), 1.5, 1e-3),
        Case(10, f"10. `float(cp.abs(cp.fft.fft2(a)).sum())` ({fft2_n}^2 float32)",
             workloads.fft2_magnitude, _uniform((fft2_n, fft2_n)), 1.5, 1e-3),
        Case(11, f"11. black_scholes' `ElementwiseKernel`, calls and puts summed "
                 f"({_count(options_n)} float32 options)",
             workloads.black_scholes_kernel, _options(options_n), 1.5, 1e-4),
        Case(12, f"12. k-means with CuPy's example kernels, 10 iterations "
                 f"({_count(kmeans_n)} points, 2-d, 4 clusters, float32)",
             workloads.kmeans_custom_kernels, _blobs(kmeans_n, k=4, d=2), 1.5, 1e-4),
        Case(13, f"13. `einsum('ij,jk->ik', a, b)[0, 0]` ({matmul_n}^2 float32)",
             workloads.einsum_matmul, _uniform((matmul_n, matmul_n), (matmul_n, matmul_n)), 1.05,
             1e-3),
        Case(14, f"14. `float(cp.median(a))` ({_count(stats_n)} float32)", workloads.median_all,
             _uniform(stats_n), 1.0, 1e-6),
        Case(15, f"15. `cp.histogram(a, bins=1000, range=(0, 1))`, 10 bins read "
                 f"({_count(stats_n)} float32)",
             workloads.histogram_first_bins, _uniform(stats_n), 1.0, 0),
        Case(16, f"16. `cp.unique(i).size` ({_count(unique_n)} int32 in [0, 2^20))",
             workloads.unique_count, _integers(unique_n, 1 << 20), 1.0, 0),
        Case(17, f"17. `cp.partition(a, n // 2)[n // 2]` ({_count(stats_n)} float32)",
             workloads.partition_middle, _uniform(stats_n), 1.0, 0),
        Case(18, "18. 50 x `y = y + cp.asarray(row)` (1000 float32 host rows), "
                 "`float(y.sum())`",
             workloads.small_uploads, _uniform(1000), 2.0, 1e-5, ops=100),
    ]
    return cases
