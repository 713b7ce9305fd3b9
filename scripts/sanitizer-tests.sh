#!/usr/bin/env bash
# Builds the server's core, CPU backend and transport with clang and sanitizers (no CUDA) and
# runs the tests that need no GPU under them:
#   build-asan/  AddressSanitizer + UndefinedBehaviorSanitizer: the core, backend, transport and
#                safety suites; the same build (with libFuzzer coverage) makes the request and
#                stateful fuzzers, which scripts/fuzz.sh then runs.
#   build-tsan/  ThreadSanitizer: the handle table, sessions, tenants and the 64-thread engine
#                test (core_state_test).
# Only our code is instrumented: Debian's gRPC, protobuf and abseil are not. What that needs
# is in the *_OPTIONS below and in tests/support/tsan_absl_mutex.cc.
#
# Environment: ARRAYHUB_SANITIZER_BUILDS (default: the repository root) holds the two build
# directories; FUZZ_SECONDS is passed on to scripts/fuzz.sh.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
builds=${ARRAYHUB_SANITIZER_BUILDS:-$root}
jobs=$(nproc)

configure() {  # configure <dir> <cmake options...>
  local dir=$1
  shift
  cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DARRAYHUB_CUDA=OFF \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ "$@" >/dev/null
}

# A failed UBSan check stops the test (-fno-sanitize-recover) with a stack. ASan may return
# null for impossible allocations, so that the out-of-memory tests see what a real allocator
# does instead of ASan's report of a too-large request.
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1:abort_on_error=1
# gRPC's and protobuf's own allocations that live until exit (their global state, never freed
# by design) are not leaks of ours; the suppressions name only those libraries.
export LSAN_OPTIONS=suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1

start=$SECONDS
configure "$builds/build-asan" -DARRAYHUB_SANITIZE=address -DARRAYHUB_FUZZ=ON
cmake --build "$builds/build-asan" --parallel "$jobs" \
  --target core_test core_state_test host_backend_test transport_test safety_test request_fuzzer \
  stateful_fuzzer
# Suites of the other executables (client, examples) are not built here: gtest_discover_tests
# lists each of them as one <name>_NOT_BUILT test, left out.
ctest --test-dir "$builds/build-asan" --label-exclude gpu --exclude-regex _NOT_BUILT \
  --output-on-failure --parallel "$jobs" --timeout 900
echo "sanitizer-tests: ASan+UBSan suites passed ($((SECONDS - start)) s so far)"

configure "$builds/build-tsan" -DARRAYHUB_SANITIZE=thread
cmake --build "$builds/build-tsan" --parallel "$jobs" --target core_state_test
"$builds/build-tsan/tests/core_state_test" --gtest_brief=1
echo "sanitizer-tests: TSan suite passed ($((SECONDS - start)) s so far)"

FUZZ_BUILD="$builds/build-asan" "$root/scripts/fuzz.sh"
echo "sanitizer-tests: all passed in $((SECONDS - start)) s"
