#!/usr/bin/env bash
# The service benchmark (issue 8's five measurements), in one command: starts arrayhubd
# (the CUDA backend where there is a GPU), measures cudaMemcpy from pinned memory as the
# transfer peer, then runs bench/service (C++ client) and the Python client's round trip.
#   scripts/service-bench.sh OUT_DIR [service_bench options...]
# Binaries come from PATH (a GPU bundle's env.sh) or build/. Writes OUT_DIR/service-bench.md.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:?usage: scripts/service-bench.sh OUT_DIR [service_bench options...]}
shift
mkdir -p "$out"
export PATH="$PATH:$root/build/server:$root/build/bench"
report="$out/service-bench.md"

log="$out/arrayhubd.log"
arrayhubd --listen 127.0.0.1:0 --backend auto --log-level info >"$log" 2>&1 &
daemon=$!
trap 'kill -TERM $daemon 2>/dev/null; wait $daemon 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q "listening on" "$log" && break; sleep 0.1; done
address=$(sed -n 's/.*listening on \([^ ]*\).*/\1/p' "$log")
[ -n "$address" ] || { echo "arrayhubd did not start:"; cat "$log"; exit 1; }

{
  echo "# Service benchmark, $(date -u +%Y-%m-%d)"
  echo
  echo "Command: \`scripts/service-bench.sh $out $*\`"
  if command -v nvidia-smi >/dev/null; then
    echo; echo "Device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
  fi
} >"$report"

pinned=()
if command -v pinned_copy_bench >/dev/null && command -v nvidia-smi >/dev/null; then
  pinned_copy_bench >"$out/pinned-copy.txt"
  pinned=(--pinned-copy "$out/pinned-copy.txt")
fi
service_bench --address "$address" "${pinned[@]}" "$@" | tee -a "$report"
export PYTHONPATH="$root/client_python${PYTHONPATH:+:$PYTHONPATH}"
python3 "$root/bench/service/python_roundtrip.py" "$address" | tee -a "$report"
# CUDA IPC needs a CUDA daemon and CuPy in this Python.
if command -v nvidia-smi >/dev/null && python3 -c "import cupy" 2>/dev/null; then
  python3 "$root/bench/service/python_ipc.py" "$address" | tee -a "$report"
fi
