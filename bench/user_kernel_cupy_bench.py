"""CuPy's times for the kernels user_kernel_bench measures: CuPy's own examples' kernels
(examples/kmeans/kmeans.py, examples/finance/black_scholes.py) and a cupy.fuse'd 6-op
expression, on the same shapes and data ranges.

    python3 user_kernel_cupy_bench.py OUT_FILE [--repeats N]

Writes "name milliseconds" lines (medians of N calls after warm-up, CUDA events on CuPy's
current stream) and "name_first milliseconds": each kernel's first call with CuPy's kernel
cache in a fresh directory (its NVRTC compile), host clock to the end of the call's work.
"""
import os
import tempfile
import time

os.environ["CUPY_CACHE_DIR"] = tempfile.mkdtemp(prefix="cupy-cache-")  # Before importing cupy.

import cupy as cp  # noqa: E402

from cupy_timing import median_ms, parse_args  # noqa: E402

var_kernel = cp.ElementwiseKernel(
    'T x0, T x1, T c0, T c1', 'T out',
    'out = (x0 - c0) * (x0 - c0) + (x1 - c1) * (x1 - c1)',
    'var_kernel')
sum_kernel = cp.ReductionKernel(
    'T x, S mask', 'T out', 'mask ? x : 0', 'a + b', 'out = a', '0', 'sum_kernel')
count_kernel = cp.ReductionKernel(
    'T mask', 'float32 out', 'mask ? 1.0 : 0.0', 'a + b', 'out = a', '0.0', 'count_kernel')
black_scholes_kernel = cp.ElementwiseKernel(
    'T s, T x, T t, T r, T v', 'T call, T put',
    '''
    const T sqrt_t = sqrt(t);
    const T d1 = (log(s / x) + (r + v * v / 2) * t) / (v * sqrt_t);
    const T d2 = d1 - v * sqrt_t;

    const T cnd_d1 = get_cumulative_normal_distribution(d1);
    const T cnd_d2 = get_cumulative_normal_distribution(d2);

    const T exp_rt = exp(- r * t);
    call = s * cnd_d1 - x * exp_rt * cnd_d2;
    put = x * exp_rt * (1 - cnd_d2) - s * (1 - cnd_d1);
    ''',
    'black_scholes_kernel',
    preamble='''
    __device__
    inline T get_cumulative_normal_distribution(T x) {
        const T A1 = 0.31938153;
        const T A2 = -0.356563782;
        const T A3 = 1.781477937;
        const T A4 = -1.821255978;
        const T A5 = 1.330274429;
        const T RSQRT2PI = 0.39894228040143267793994605993438;
        const T W = 0.2316419;

        const T k = 1 / (1 + W * abs(x));
        T cnd = RSQRT2PI * exp(- x * x / 2) *
            (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))));
        if (x > 0) {
            cnd = 1 - cnd;
        }
        return cnd;
    }
    ''')


@cp.fuse()
def fuse6(x, y):
    return cp.sqrt(x * x + y * y) * cp.exp(-x) + 1


def first_call_ms(work):
    start = time.perf_counter()
    work()
    cp.cuda.get_current_stream().synchronize()
    return (time.perf_counter() - start) * 1e3


def main():
    args = parse_args(20)
    rng = cp.random.default_rng(1)

    def uniform(shape, low, high):
        return rng.uniform(low, high, shape, dtype=cp.float32)

    n, k = 1_000_000, 8
    X = uniform((n, 2), 0, 1)
    centers = uniform((k, 2), 0, 1)
    distances = cp.empty((n, k), cp.float32)
    mask = (cp.arange(n) % k) == cp.arange(k)[:, None]
    options = 10_000_000
    s, x, t = uniform(options, 5, 30), uniform(options, 1, 100), uniform(options, 0.25, 10)
    call, put = cp.empty(options, cp.float32), cp.empty(options, cp.float32)
    a, b = uniform(100_000_000, 0, 1), uniform(100_000_000, 0, 1)
    work = {
        "kmeans_var": lambda: var_kernel(X[:, None, 0], X[:, None, 1], centers[None, :, 1],
                                         centers[None, :, 0], distances),
        "kmeans_sum": lambda: sum_kernel(X, mask[:, :, None], axis=1),
        "kmeans_count": lambda: count_kernel(mask, axis=1),
        "black_scholes": lambda: black_scholes_kernel(s, x, t, 0.02, 0.3, call, put),
        "fuse6": lambda: fuse6(a, b),
    }
    with open(args.out, "w") as f:
        for name, run in work.items():
            first = first_call_ms(run)
            ms = median_ms(run, args.repeats)
            f.write(f"{name} {ms:.6f}\n{name}_first {first:.3f}\n")
            print(f"cupy {name}: {ms:.3f} ms (first call {first:.1f} ms)", flush=True)


if __name__ == "__main__":
    main()
