"""CuPy's times for the work indexing_bench measures, on the same shapes and dtypes.

    python3 indexing_cupy_bench.py OUT_FILE [--repeats N]

Writes "name milliseconds" lines (medians of N runs after warm-up, timed with CUDA events on
CuPy's current stream) for indexing_bench --cupy OUT_FILE to print next to its own.
"""
import cupy as cp

from cupy_timing import parse_args, write_times

ELEMENTS = 100_000_000
SIDE = 10_000
SORTED = 16_777_216
ROWS = 4096


def main():
    args = parse_args(20)

    rng = cp.random.default_rng(1)
    # Random data, never zeros, as indexing_bench: uniform in [0.5, 1.5).
    data = rng.random(ELEMENTS, dtype=cp.float32) + cp.float32(0.5)
    keys = rng.random(SORTED, dtype=cp.float32) + cp.float32(0.5)
    rows = keys.reshape(ROWS, ROWS)
    positions = rng.integers(0, ELEMENTS, SORTED, dtype=cp.int64)
    mask = rng.integers(0, 2, ELEMENTS, dtype=cp.int32)
    sorted_keys = cp.sort(keys)
    target = data.copy()
    square = data.reshape(SIDE, SIDE)
    work = {
        "sort": lambda: cp.sort(keys),
        "argsort": lambda: cp.argsort(keys),
        "sort_rows": lambda: cp.sort(rows, axis=-1),
        "cumsum": lambda: cp.cumsum(data),
        "take": lambda: data[positions],
        "scatter": lambda: target.__setitem__(positions, keys),
        "nonzero": lambda: cp.nonzero(mask),
        "searchsorted": lambda: cp.searchsorted(sorted_keys, keys),
        "transpose_copy": lambda: cp.ascontiguousarray(square.T),
    }
    write_times(args.out, work, args.repeats)

if __name__ == "__main__":
    main()
