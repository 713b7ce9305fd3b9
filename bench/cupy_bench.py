"""CuPy's times for the work compute_bench measures, on the same shapes.

    python3 cupy_bench.py OUT_FILE [--repeats N]

Writes "name milliseconds" lines (medians of N runs after warm-up, timed with CUDA events on
CuPy's current stream) for compute_bench --cupy OUT_FILE to print next to its own.
"""
import cupy as cp

from cupy_timing import parse_args, write_times

ELEMENTS = 100_000_000
SIDE = 10_000


def main():
    args = parse_args(30)

    rng = cp.random.default_rng(1)
    # Random data, never zeros, as compute_bench: uniform in [0.5, 1.5).
    a = rng.random(ELEMENTS, dtype=cp.float32) + cp.float32(0.5)
    b = rng.random(ELEMENTS, dtype=cp.float32) + cp.float32(0.5)
    out = cp.empty_like(a)
    square = a.reshape(SIDE, SIDE)
    one_a, one_b, one_out = a[:1], b[:1], out[:1]
    work = {
        "add_1": lambda: cp.add(one_a, one_b, out=one_out),
        "sum_1": lambda: one_a.sum(),
        "add": lambda: cp.add(a, b, out=out),
        "multiply": lambda: cp.multiply(a, b, out=out),
        "exp": lambda: cp.exp(a, out=out),
        "sum": lambda: a.sum(),
        "sum_axis0": lambda: square.sum(axis=0),
        "sum_axis1": lambda: square.sum(axis=1),
    }
    write_times(args.out, work, args.repeats)

if __name__ == "__main__":
    main()
