#!/usr/bin/env bash
# The service benchmark (issue 8's five measurements), in one command: starts arrayhubd
# (the CUDA backend where there is a GPU), measures cudaMemcpy from pinned memory as the
# transfer peer, then runs bench/service (C++ client) and the Python client's round trip. The
# batch scenario runs again on a second daemon with --fuse-batches=false, its peer.
#   scripts/service-bench.sh OUT_DIR [service_bench options...]
# Binaries come from PATH (a GPU bundle's env.sh) or build/. Writes OUT_DIR/service-bench.md.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:?usage: scripts/service-bench.sh OUT_DIR [service_bench options...]}
shift
mkdir -p "$out"
export PATH="$PATH:$root/build/server:$root/build/bench"
report="$out/service-bench.md"

# start_daemon NAME [arrayhubd options...]: starts arrayhubd, logging to OUT_DIR/NAME.log, and
# sets $address; every daemon started is stopped on exit.
daemons=()
trap 'for d in "${daemons[@]}"; do kill -TERM "$d" 2>/dev/null; wait "$d" 2>/dev/null || true; done' EXIT
start_daemon() {
  local log="$out/$1.log"
  shift
  arrayhubd --listen 127.0.0.1:0 --backend auto --log-level info "$@" >"$log" 2>&1 &
  daemons+=($!)
  for _ in $(seq 100); do grep -q "listening on" "$log" && break; sleep 0.1; done
  address=$(sed -n 's/.*arrayhubd .* listening on \([^ ]*\).*/\1/p' "$log")
  [ -n "$address" ] || { echo "arrayhubd did not start:"; cat "$log"; exit 1; }
}
start_daemon arrayhubd

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
# The batch scenario's peer: the same Batch on a daemon that runs each op on its own.
if [[ " $* " != *" --scenarios "* || " $* " == *batch* ]]; then
  fused_address=$address
  start_daemon arrayhubd-unfused --fuse-batches=false
  { echo; echo "Peer: the same on \`arrayhubd --fuse-batches=false\` (every op of a Batch on its own):"; } |
    tee -a "$report"
  others=()  # The options given, less --scenarios.
  while (($#)); do
    if [ "$1" = --scenarios ]; then shift 2; else others+=("$1"); shift; fi
  done
  set -- "${others[@]}"
  service_bench --address "$address" --scenarios batch "$@" | tee -a "$report"
  address=$fused_address
fi
export PYTHONPATH="$root/client_python${PYTHONPATH:+:$PYTHONPATH}"
python3 "$root/bench/service/python_roundtrip.py" "$address" | tee -a "$report"
# CUDA IPC needs a CUDA daemon and CuPy in this Python.
if command -v nvidia-smi >/dev/null && python3 -c "import cupy" 2>/dev/null; then
  python3 "$root/bench/service/python_ipc.py" "$address" | tee -a "$report"
fi
