"""CuPy's side of the linear-algebra benchmark: the same matmul and svd cases as
linalg_bench, timed the same way (host clock around the call and a stream synchronize,
median of several runs after a warm-up), with svd accuracy measured in float64.

Prints one line per case, `cupy <case> <median ms> [accuracy...]`, which
scripts/gpu-bench-linalg.sh joins with linalg_bench's lines. An argument runs only the
cases whose name contains it, as linalg_bench's does.
"""

import statistics
import sys
import time

import cupy as cp


def median_ms(fn, reps):
    fn()  # Warm-up: handles, workspaces, kernel loading.
    cp.cuda.Stream.null.synchronize()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        cp.cuda.Stream.null.synchronize()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def random(shape, dtype, seed):
    """Standard normal values of `dtype`, drawn in float64 for float64 as linalg_bench draws
    them: float32 values widened to float64 have 29 zero mantissa bits, which lets the GPU's
    float64 multipliers run about 10% faster than on full float64 data (measured on the H100,
    2026-11-26), and the comparison would then be about the data, not the call."""
    rng = cp.random.default_rng(seed)
    draw = cp.float64 if cp.dtype(dtype) == cp.float64 else cp.float32
    return rng.standard_normal(shape, dtype=draw).astype(dtype)


def matmul_cases():
    for n in (4096, 8192):
        for dtype in ("float32", "float64", "float16"):
            a, b = random((n, n), dtype, 1), random((n, n), dtype, 2)
            yield f"matmul {dtype} {n}x{n}x{n}", lambda a=a, b=b: a @ b, 10
    for dtype in ("float32", "float64", "float16"):
        a, b = random((1000, 64, 64), dtype, 3), random((1000, 64, 64), dtype, 4)
        yield f"matmul {dtype} 1000x64x64x64", lambda a=a, b=b: a @ b, 50


def svd_accuracy(a, u, s, vh):
    """Relative reconstruction error (Frobenius) and max |X^H X - I| of U and V."""
    a, u, s, vh = (x.astype(cp.float64) for x in (a, u, s, vh))
    k = s.shape[-1]
    u, vh = u[..., :k], vh[..., :k, :]
    recon = cp.linalg.norm(a - (u * s[..., None, :]) @ vh) / cp.linalg.norm(a)
    eye = cp.eye(k)
    orth_u = cp.abs(cp.swapaxes(u, -1, -2) @ u - eye).max()
    orth_v = cp.abs(vh @ cp.swapaxes(vh, -1, -2) - eye).max()
    return float(recon), float(orth_u), float(orth_v)


def svd_cases():
    for shape, full, reps in (
        ((64, 64), True, 20),
        ((1000, 64, 64), True, 1),
        ((1024, 1024), True, 5),
        ((4096, 4096), True, 3),
        ((4096, 1024), False, 3),
        ((4096, 1024), True, 3),
    ):
        a = random(shape, "float32", 5)
        name = "x".join(map(str, shape)) + ("" if full else " reduced")
        yield f"svd float32 {name}", a, full, reps


def main():
    selected = sys.argv[1] if len(sys.argv) > 1 else ""
    print(f"cupy {cp.__version__}, {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}")
    for name, fn, reps in matmul_cases():
        if selected in name:
            print(f"cupy {name} {median_ms(fn, reps):.4f}", flush=True)
    for name, a, full, reps in svd_cases():
        if selected not in name:
            continue
        ms = median_ms(lambda: cp.linalg.svd(a, full_matrices=full), reps)
        u, s, vh = cp.linalg.svd(a, full_matrices=full)
        recon, orth_u, orth_v = svd_accuracy(a, u, s, vh)
        print(f"cupy {name} {ms:.4f} recon {recon:.2e} orthU {orth_u:.2e} orthV {orth_v:.2e}",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
