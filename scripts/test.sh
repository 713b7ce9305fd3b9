#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test that needs no GPU: the Python client's
# suite with pytest against a real daemon, then the C++ suites through ctest, then the
# sanitizer builds and the fuzzer (scripts/sanitizer-tests.sh). On a
# machine with a GPU, run `ctest --test-dir build -L gpu` as well (see docs/gpu-testing.md).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ARRAYHUB_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
# The Python suite first: it makes build/python-venv (NumPy 2.4), which ctest's checks of the
# generated ufunc tables need (they skip without it).
"$root/scripts/python-tests.sh"
ctest --test-dir "$build" --label-exclude gpu --output-on-failure --parallel "$(nproc)" --timeout 600
if [ "${ARRAYHUB_SKIP_SANITIZERS:-0}" != 1 ]; then "$root/scripts/sanitizer-tests.sh"; fi
