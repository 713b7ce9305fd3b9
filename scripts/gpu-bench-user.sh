#!/usr/bin/env bash
# The user-level benchmark (bench/user, issue 18) on the GPU machine: starts a CUDA arrayhubd,
# runs the CuPy-style scripts with `import arrayhub as cp` and `import cupy as cp` in one
# process, then the small-op loop and the 50M chain through a loopback proxy adding 1 ms each
# way, and stops the daemon. Writes OUT_DIR/user.md (device, date, command, both tables) and
# the logs beside it.
#   scripts/gpu-bench-user.sh OUT_DIR [bench/user/run.py options...]
# Run from the repository root after `source <bundle>/env.sh` (arrayhubd on PATH; see
# shared/DEVICE.md), or here with build/server/arrayhubd. ARRAYHUB_BENCH_BACKEND (default cuda)
# picks the daemon's backend: `ARRAYHUB_BENCH_BACKEND=cpu scripts/gpu-bench-user.sh OUT --quick
# --peer numpy` tries the whole thing on a machine without a GPU.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:?usage: scripts/gpu-bench-user.sh OUT_DIR [bench/user/run.py options...]}
shift
mkdir -p "$out"
export PATH="$PATH:$root/build/server"
export PYTHONPATH="$root/client_python${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
python=${PYTHON:-python3}
report="$out/user.md"

log="$out/arrayhubd.log"
arrayhubd --listen 127.0.0.1:0 --backend "${ARRAYHUB_BENCH_BACKEND:-cuda}" >"$log" 2>&1 &
daemon=$!
trap 'kill -TERM $daemon 2>/dev/null; wait $daemon 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q "listening on" "$log" && break; sleep 0.1; done
address=$(sed -n 's/.*arrayhubd .* listening on \([^ ]*\).*/\1/p' "$log")
[ -n "$address" ] || { echo "arrayhubd did not start:"; cat "$log"; exit 1; }

{
  echo "# User-level benchmark (bench/user), $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "Command: \`scripts/gpu-bench-user.sh $out $*\`"
  echo
  if command -v nvidia-smi >/dev/null; then
    echo "Device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
  else
    echo "Device: no GPU (nvidia-smi not found)"
  fi
  echo
  echo "Daemon: $(grep -o 'arrayhubd .* listening on .*' "$log")"
} | tee "$report"

status=0
"$python" "$root/bench/user/run.py" --address "$address" "$@" 2>"$out/run-direct.log" |
  tee -a "$report" || status=1
"$python" "$root/bench/user/run.py" --address "$address" --via-proxy "$@" \
  2>"$out/run-proxy.log" | tee -a "$report" || status=1
if [ $status -ne 0 ]; then
  echo; echo "A script failed or the answers differed: see $out/run-*.log"
fi | tee -a "$report"
exit $status
