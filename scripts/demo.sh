#!/usr/bin/env bash
# Installs what is missing, builds, then runs the C++ demo (scripts/run-demo.sh): starts
# arrayhubd (CUDA backend where a GPU is visible, CPU otherwise) on a free loopback port, runs
# examples/demo.cc against it, and stops it.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
exec "$root/scripts/run-demo.sh" auto
