"""CuPy's times for the transforms fft_bench measures, on the same shapes and dtypes.

    python3 fft_cupy_bench.py OUT_FILE [--repeats N]

Writes "name milliseconds" lines (medians of N runs after warm-up, CUDA events on CuPy's
current stream; CuPy's plan cache warm) for fft_bench --cupy OUT_FILE.
"""
import cupy as cp

from cupy_timing import parse_args, write_times

LONG = 1 << 24  # One long transform.
SIDE = 4096  # Rows and columns of the batched cases.


def main():
    args = parse_args(20)
    rng = cp.random.default_rng(1)

    def complex_array(shape, dtype):
        real = cp.float32 if dtype == cp.complex64 else cp.float64
        return (rng.random(shape, dtype=real) + 1j * rng.random(shape, dtype=real)).astype(dtype)

    long64 = complex_array(LONG, cp.complex64)
    long128 = complex_array(LONG // 2, cp.complex128)
    square = complex_array((SIDE, SIDE), cp.complex64)
    real = rng.random(LONG, dtype=cp.float32)
    half = cp.fft.rfft(real)
    odd = complex_array(10**7, cp.complex64)
    work = {
        "c2c_2^24_c64": lambda: cp.fft.fft(long64),
        "c2c_2^23_c128": lambda: cp.fft.fft(long128),
        "c2c_rows_4096^2_c64": lambda: cp.fft.fft(square, axis=1),
        "c2c_cols_4096^2_c64": lambda: cp.fft.fft(square, axis=0),
        "r2c_2^24_f32": lambda: cp.fft.rfft(real),
        "c2r_2^24_f32": lambda: cp.fft.irfft(half, n=LONG),
        "c2c_1e7_c64": lambda: cp.fft.fft(odd),
        "c2c_2d_4096^2_c64": lambda: cp.fft.fft2(square),
        "r2c_2d_4096^2_f32": lambda: cp.fft.rfft2(real.reshape(SIDE, SIDE)),
    }
    write_times(args.out, work, args.repeats)


if __name__ == "__main__":
    main()
