#!/usr/bin/env bash
# Builds the fuzzers (clang, libFuzzer, ASan + UBSan, no CUDA) and runs each: first on every
# saved regression input (inputs that once crashed it), then from its checked-in seed corpus
# for its share of FUZZ_SECONDS (default 60, split evenly):
#   request_fuzzer   one request of any RPC   tests/fuzz/corpus, tests/fuzz/regressions
#   stateful_fuzzer  programs of requests by several tenants, sessions and threads at once
#                    tests/fuzz/stateful_corpus, tests/fuzz/stateful_regressions
#   kernel_fuzzer    user kernels: the language's checker and the host evaluator
#                    tests/fuzz/kernel_corpus, tests/fuzz/kernel_regressions
# New inputs they find go to a scratch directory, not into the checked-in corpora. A crash
# leaves its input in $FUZZ_BUILD/fuzz-artifacts: fix the bug, then keep the input with the
# fuzzer's regressions.
#
# Environment: FUZZ_BUILD (default build-asan, shared with scripts/sanitizer-tests.sh),
# FUZZ_SECONDS.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FUZZ_BUILD:-$root/build-asan}
seconds=${FUZZ_SECONDS:-60}
fuzzers=(request_fuzzer stateful_fuzzer kernel_fuzzer)

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DARRAYHUB_CUDA=OFF \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DARRAYHUB_SANITIZE=address \
  -DARRAYHUB_FUZZ=ON >/dev/null
cmake --build "$build" --parallel "$(nproc)" --target "${fuzzers[@]}"

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_OPTIONS=allocator_may_return_null=1:abort_on_error=1
export LSAN_OPTIONS=suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$build/fuzz-artifacts"

run() {  # run <fuzzer> <corpus> <regressions> <seconds>
  local name=$1 corpus=$2 saved=$3 share=$4
  local fuzzer=$build/tests/fuzz/$name log=$build/$name.log
  local regressions=("$saved"/*)
  if [ -e "${regressions[0]}" ]; then
    "$fuzzer" "${regressions[@]}"
    echo "fuzz: ${#regressions[@]} $name regression input(s) pass"
  fi
  mkdir -p "$scratch/$name"
  if ! "$fuzzer" "$scratch/$name" "$corpus" -max_total_time="$share" -timeout=20 \
    -rss_limit_mb=4096 -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="$build/fuzz-artifacts/$name-" >"$log" 2>&1; then
    tail -n 60 "$log" >&2
    echo "fuzz: $name failed; its input is in $build/fuzz-artifacts, its log $log" >&2
    exit 1
  fi
  grep -E '^stat::(number_of_executed_units|peak_rss_mb|new_units_added)|^Done' "$log" || true
  echo "fuzz: $name found no failure in $share s"
}

share=$((seconds / ${#fuzzers[@]}))
run request_fuzzer "$root/tests/fuzz/corpus" "$root/tests/fuzz/regressions" "$share"
run stateful_fuzzer "$root/tests/fuzz/stateful_corpus" "$root/tests/fuzz/stateful_regressions" \
  "$share"
run kernel_fuzzer "$root/tests/fuzz/kernel_corpus" "$root/tests/fuzz/kernel_regressions" "$share"
