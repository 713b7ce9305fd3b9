#!/usr/bin/env bash
# Runs on a GPU machine from a bundle made by `device-bundle` (see docs/gpu-testing.md):
# the GPU-labelled suites, the server-level suites against the CUDA backend, and the demo.
# Logs go to $OUT (or /tmp/arrayhub-gpu) so they come back from the device machine.
set -uo pipefail
out=${OUT:-/tmp/arrayhub-gpu}
mkdir -p "$out"
# Every daemon the suites start (the Python suite starts many) shares one kernel cache, so each
# kernel is compiled once for the whole run rather than once per daemon (docs/operations.md).
export ARRAYHUB_KERNEL_CACHE_DIR=${ARRAYHUB_KERNEL_CACHE_DIR:-/tmp/arrayhub-gpu-kernels}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/device.txt"
failures=0
run() {  # run NAME COMMAND...: logs to $out/NAME.log, prints the last lines.
  local name=$1; shift
  echo "=== $name"
  if "$@" >"$out/$name.log" 2>&1; then echo "ok"; else echo "FAILED"; failures=$((failures + 1)); fi
  grep -E '^\[  (PASSED|FAILED|SKIPPED) |tests? from .* ran' "$out/$name.log" | tail -4
}
run cuda_backend_test cuda_backend_test
run cuda_codegen_test cuda_codegen_test
run cuda_device_loss_test cuda_device_loss_test
run transport_test_cuda env ARRAYHUB_TEST_BACKEND=cuda transport_test
run client_test_cuda env ARRAYHUB_TEST_BACKEND=cuda client_test
run client_test_cuda_sync env ARRAYHUB_TEST_BACKEND=cuda ARRAYHUB_SYNC=1 client_test
run safety_test_cuda env ARRAYHUB_TEST_BACKEND=cuda safety_test

# The Python client's suite against the CUDA backend, with the machine's own python3.
if python3 -c 'import grpc, google.protobuf, numpy, pytest' 2>/dev/null; then
  run python_tests_cuda env PYTHONPATH="$PWD/client_python" ARRAYHUB_DAEMON="$(command -v arrayhubd)" \
    ARRAYHUB_TEST_BACKEND=cuda python3 -m pytest -p no:cacheprovider -q client_python/tests
  tail -3 "$out/python_tests_cuda.log"
  # The same suite in sync mode (one blocking call per op), as python-tests.sh does in part.
  run python_tests_cuda_sync env PYTHONPATH="$PWD/client_python" \
    ARRAYHUB_DAEMON="$(command -v arrayhubd)" ARRAYHUB_TEST_BACKEND=cuda ARRAYHUB_SYNC=1 \
    python3 -m pytest -p no:cacheprovider -q client_python/tests
  tail -3 "$out/python_tests_cuda_sync.log"
else
  echo "=== python_tests_cuda: skipped (python3 lacks grpc, protobuf, numpy or pytest)"
fi

# The demo against a daemon that picks its backend itself.
log="$out/arrayhubd.log"
arrayhubd --listen 127.0.0.1:0 --backend auto >"$log" 2>&1 &
daemon=$!
for _ in $(seq 100); do grep -q "listening on" "$log" && break; sleep 0.1; done
address=$(sed -n 's/.*arrayhubd .* listening on \([^ ]*\).*/\1/p' "$log")
run demo arrayhub_demo "$address"
cat "$out/demo.log"
kill -TERM $daemon; wait $daemon; echo "arrayhubd exit status $?"
grep -E 'backend|stopped' "$log"
echo "failures: $failures"
exit $failures
