"""NumPy's time for the work of bench/user_kernel_host_bench.cc: CuPy's kmeans var_kernel
expression and the naive black_scholes of examples/finance/black_scholes.py on 1e6 elements of
float32 and float64, median of 20 runs after a warm-up.

Usage: python user_kernel_numpy_bench.py [ELEMENTS]
"""
import sys
import time

import numpy as np


def black_scholes(s, x, t, r, v):
    sqrt_t = np.sqrt(t)
    d1 = (np.log(s / x) + (r + v * v / 2) * t) / (v * sqrt_t)
    d2 = d1 - v * sqrt_t

    def cnd(x):
        k = 1 / (1 + 0.2316419 * np.abs(x))
        c = 0.39894228040143267793994605993438 * np.exp(-x * x / 2) * (
            k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (
                -1.821255978 + k * 1.330274429)))))
        return np.where(x > 0, 1 - c, c)

    cnd_d1 = cnd(d1)
    cnd_d2 = cnd(d2)
    exp_rt = np.exp(-r * t)
    return s * cnd_d1 - x * exp_rt * cnd_d2, x * exp_rt * (1 - cnd_d2) - s * (1 - cnd_d1)


def median_ms(run, repeats=20):
    run()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1e3)
    return sorted(times)[len(times) // 2]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    rng = np.random.default_rng(42)
    for dtype in (np.float32, np.float64):
        x0, x1 = (rng.uniform(-3, 3, n).astype(dtype) for _ in range(2))
        c0, c1 = (rng.uniform(-1, 1, n).astype(dtype) for _ in range(2))
        var_ms = median_ms(lambda: (x0 - c0) * (x0 - c0) + (x1 - c1) * (x1 - c1))
        s = rng.uniform(5, 30, n).astype(dtype)
        x = rng.uniform(1, 100, n).astype(dtype)
        t = rng.uniform(0.25, 10, n).astype(dtype)
        r, v = dtype(0.02), dtype(0.3)
        bs_ms = median_ms(lambda: black_scholes(s, x, t, r, v))
        print(f"numpy {np.dtype(dtype).name} n={n}: var_kernel {var_ms:.2f} ms, "
              f"black_scholes {bs_ms:.2f} ms")


if __name__ == "__main__":
    main()
