#!/usr/bin/env bash
# The indexing benchmark on the GPU machine: CuPy's times, then ArrayHub's next to them.
#   scripts/gpu-bench-indexing.sh OUT_DIR
# Run from the repository root with indexing_bench on PATH (the device bundle's env.sh; see
# docs/gpu-testing.md). Writes OUT_DIR/indexing_cupy.txt and OUT_DIR/indexing_bench.md.
set -euo pipefail
out=${1:?usage: scripts/gpu-bench-indexing.sh OUT_DIR}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
PYTHONUNBUFFERED=1 python3 bench/indexing_cupy_bench.py "$out/indexing_cupy.txt" --repeats 20
indexing_bench --cupy "$out/indexing_cupy.txt" --repeats 20 | tee "$out/indexing_bench.md"
