#!/usr/bin/env bash
# What one host read costs with the daemon and the client on chosen CPUs (taskset), over TCP
# and a Unix socket: bench/user/read_cost.py against a fresh CUDA daemon per placement.
#   bench/user/placement.sh OUT_DIR
# Run from the repository root with arrayhubd on PATH (the GPU machine: source the bundle's
# env.sh first). ARRAYHUB_BENCH_BACKEND (default cuda) picks the daemon's backend.
set -uo pipefail
out=${1:?usage: bench/user/placement.sh OUT_DIR}
mkdir -p "$out"
export PYTHONPATH="$PWD/client_python${PYTHONPATH:+:$PYTHONPATH}"
python=${PYTHON:-python3}
backend=${ARRAYHUB_BENCH_BACKEND:-cuda}

start_daemon() {  # start_daemon LISTEN CPUS ("-": anywhere); sets daemon and address
  local listen=$1 cpus=$2 pin=()
  [ "$cpus" != "-" ] && pin=(taskset -c "$cpus")
  "${pin[@]}" arrayhubd --listen "$listen" --backend "$backend" >"$out/arrayhubd.log" 2>&1 &
  daemon=$!
  for _ in $(seq 100); do grep -q "listening on" "$out/arrayhubd.log" && break; sleep 0.1; done
  address=$(sed -n 's/.*listening on \([^ ]*\).*/\1/p' "$out/arrayhubd.log")
  case $listen in unix:*) address=$listen ;; esac
}

echo "# Placement of daemon and client, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs"
# transport | daemon CPUs | client CPUs
for placement in "tcp|-|-" "unix|-|-" "tcp|0|-" "tcp|0-1|-" "tcp|-|8" "tcp|0-1|8" "unix|0-1|8" \
                 "tcp|0|1" "tcp|0|0"; do
  IFS='|' read -r transport daemon_cpus client_cpus <<<"$placement"
  if [ "$transport" = tcp ]; then
    start_daemon 127.0.0.1:0 "$daemon_cpus"
  else
    rm -f "$out/arrayhubd.sock"
    start_daemon "unix:$out/arrayhubd.sock" "$daemon_cpus"
  fi
  pin=()
  [ "$client_cpus" != "-" ] && pin=(taskset -c "$client_cpus")
  echo "## $transport, daemon on CPUs $daemon_cpus, client on CPUs $client_cpus"
  "${pin[@]}" "$python" bench/user/read_cost.py "$address" --repeats 300
  kill "$daemon"
  wait "$daemon" 2>/dev/null
done
