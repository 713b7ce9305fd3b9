#!/usr/bin/env bash
# The FFT benchmark on the GPU machine: CuPy's times, then the CUDA backend's next to them and
# to cuFFT called directly (bench/fft_bench.cc).
#   scripts/gpu-bench-fft.sh OUT_DIR
# Run from the repository root after `source <bundle>/env.sh` (fft_bench on PATH; see
# shared/DEVICE.md). Writes OUT_DIR/fft_cupy.txt and OUT_DIR/fft.md.
set -euo pipefail
out=${1:?usage: scripts/gpu-bench-fft.sh OUT_DIR}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
PYTHONUNBUFFERED=1 python3 bench/fft_cupy_bench.py "$out/fft_cupy.txt" --repeats 20
fft_bench --cupy "$out/fft_cupy.txt" --repeats 20 | tee "$out/fft.md"
