#!/usr/bin/env bash
# Builds the request fuzzer (clang, libFuzzer, ASan + UBSan, no CUDA) and runs it: first on every
# saved regression input (tests/fuzz/regressions: inputs that once crashed it), then for
# FUZZ_SECONDS (default 60) from the checked-in seed corpus (tests/fuzz/corpus). New inputs it
# finds go to a scratch directory, not into the checked-in corpus. A crash leaves its input in
# $FUZZ_BUILD/fuzz-artifacts: fix the bug, then keep the input in tests/fuzz/regressions.
#
# Environment: FUZZ_BUILD (default build-asan, shared with scripts/sanitizer-tests.sh),
# FUZZ_SECONDS.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FUZZ_BUILD:-$root/build-asan}
seconds=${FUZZ_SECONDS:-60}

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DARRAYHUB_CUDA=OFF \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DARRAYHUB_SANITIZE=address \
  -DARRAYHUB_FUZZ=ON >/dev/null
cmake --build "$build" --parallel "$(nproc)" --target request_fuzzer
fuzzer=$build/tests/fuzz/request_fuzzer

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_OPTIONS=allocator_may_return_null=1:abort_on_error=1
export LSAN_OPTIONS=suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0

regressions=("$root"/tests/fuzz/regressions/*)
if [ -e "${regressions[0]}" ]; then
  "$fuzzer" "${regressions[@]}"
  echo "fuzz: ${#regressions[@]} regression input(s) pass"
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$build/fuzz-artifacts"
log=$build/fuzz.log
if ! "$fuzzer" "$scratch" "$root/tests/fuzz/corpus" -max_total_time="$seconds" -timeout=20 \
  -rss_limit_mb=4096 -max_len=4096 -print_final_stats=1 \
  -artifact_prefix="$build/fuzz-artifacts/" >"$log" 2>&1; then
  tail -n 60 "$log" >&2
  echo "fuzz: the fuzzer failed; its input is in $build/fuzz-artifacts, its log $log" >&2
  exit 1
fi
grep -E '^stat::(number_of_executed_units|peak_rss_mb|new_units_added)|^Done' "$log" || true
echo "fuzz: no failure in $seconds s"
