#!/usr/bin/env bash
# run-demo.sh [BACKEND]: starts the built arrayhubd (build/, or $ARRAYHUB_BUILD_DIR) on a free
# loopback port with --backend BACKEND (default auto: CUDA where a GPU is visible, CPU
# otherwise), runs the C++ demo (examples/demo.cc) against it, and stops it. Exits with the
# demo's status. demo.sh runs it after installing and building; ctest's `demo` test runs it on
# the CPU backend.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ARRAYHUB_BUILD_DIR:-$root/build}
backend=${1:-auto}

log=$(mktemp /tmp/arrayhubd.XXXXXX.log)
# Port 0: the kernel picks a free port, which the daemon logs.
"$build/server/arrayhubd" --listen 127.0.0.1:0 --backend "$backend" >"$log" 2>&1 &
daemon=$!
trap 'kill $daemon 2>/dev/null; wait $daemon 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  grep -q "listening on" "$log" && break
  kill -0 $daemon 2>/dev/null || { cat "$log"; exit 1; }
  sleep 0.1
done
address=$(sed -n 's/.*arrayhubd .* listening on \([^ ]*\).*/\1/p' "$log")
[ -n "$address" ] || { cat "$log"; echo "run-demo.sh: arrayhubd did not start" >&2; exit 1; }
echo "--- arrayhubd (log: $log)"
cat "$log"
echo "--- arrayhub_demo $address"
"$build/examples/arrayhub_demo" "$address"
