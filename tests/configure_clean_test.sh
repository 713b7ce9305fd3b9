#!/usr/bin/env bash
# configure_clean_test.sh CMAKE SOURCE_DIR GENERATOR CUDA: configures the project afresh in a
# temporary folder, as a new user's first step does, and fails on any error or warning CMake
# prints, or a package configuration that names files which do not exist (Debian 12's Imath).
set -euo pipefail
cmake=$1 source=$2 generator=$3 cuda=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$cmake" -S "$source" -B "$work" -G "$generator" -DARRAYHUB_CUDA="$cuda" \
  -DARRAYHUB_BUILD_TESTS=OFF > "$work/configure.log" 2>&1 \
  || { cat "$work/configure.log"; echo "FAIL: configure failed" >&2; exit 1; }
if grep -n -E "CMake (Error|Warning)|does not exist" "$work/configure.log"; then
  echo "FAIL: the configure above printed an error or a warning" >&2
  exit 1
fi
