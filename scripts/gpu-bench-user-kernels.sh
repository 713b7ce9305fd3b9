#!/usr/bin/env bash
# The user-kernel benchmark on the GPU machine: CuPy's example kernels on CuPy, then as
# ArrayHub user kernels on the CUDA backend (bench/user_kernel_bench.cc) beside them.
#   scripts/gpu-bench-user-kernels.sh OUT_DIR
# Run from the repository root after `source <bundle>/env.sh` (user_kernel_bench on PATH; see
# shared/DEVICE.md). Writes OUT_DIR/user_kernels_cupy.txt and OUT_DIR/user_kernels.md.
set -euo pipefail
out=${1:?usage: scripts/gpu-bench-user-kernels.sh OUT_DIR}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
PYTHONUNBUFFERED=1 python3 bench/user_kernel_cupy_bench.py "$out/user_kernels_cupy.txt" --repeats 20
user_kernel_bench --cupy "$out/user_kernels_cupy.txt" --repeats 20 | tee "$out/user_kernels.md"
