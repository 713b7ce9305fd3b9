#!/usr/bin/env bash
# Fails when the committed Python stubs (client_python/arrayhub/v1/*_pb2*.py and .pyi) are not
# what client_python/generate.sh makes from proto/ now: someone changed a .proto and did not
# regenerate, or edited a generated file. Runs generate.sh itself, unchanged, on a copy of
# proto/ in a scratch directory, so the source tree is never written. Exits 77 (ctest's skip)
# where generate.sh's tools (protoc, grpc_python_plugin) are not installed.
set -euo pipefail
source_dir=$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/..}" && pwd)
for tool in protoc grpc_python_plugin; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIP: $tool not found (apt-get install protobuf-compiler protobuf-compiler-grpc)"
    exit 77
  fi
done
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# generate.sh finds proto/ beside its own folder and writes into client_python/arrayhub/v1.
cp -r "$source_dir/proto" "$scratch/proto"
mkdir -p "$scratch/client_python/arrayhub/v1"
cp "$source_dir/client_python/generate.sh" "$scratch/client_python/"
bash "$scratch/client_python/generate.sh" >/dev/null
committed="$source_dir/client_python/arrayhub/v1"
generated="$scratch/client_python/arrayhub/v1"
# Every generated file, and every committed one that looks generated (a stale leftover too).
status=0
files=$(cd "$committed" && ls -- *_pb2*.py *_pb2*.pyi 2>/dev/null || true)
files=$(printf '%s\n%s\n' "$files" "$(cd "$generated" && ls -- *_pb2*.py *_pb2*.pyi)" | sort -u)
for f in $files; do
  if ! diff -u --label "committed/$f" --label "generated/$f" "$committed/$f" "$generated/$f" \
    2>&1; then
    status=1
  fi
done
if [ "$status" -ne 0 ]; then
  echo "FAIL: the committed stubs differ from what client_python/generate.sh makes; run it" \
    "and commit the result"
  exit 1
fi
echo "OK: $(echo "$files" | wc -l) stub files match client_python/generate.sh"
