#!/usr/bin/env bash
# Prints the Debian/Ubuntu packages that own the shared libraries the given binaries load (as
# ldd resolves them), one a line, sorted: what a runtime image must install to run them. The
# Dockerfile uses it so that its runtime stage never names library packages itself (their
# names change between releases, e.g. Ubuntu 24.04's "t64" renames). Libraries under
# /usr/local (the CUDA toolkit) are left out: NVIDIA's runtime image has them.
#   runtime-packages.sh BINARY...
set -euo pipefail

if [ $# -eq 0 ]; then
  echo "usage: runtime-packages.sh BINARY..." >&2
  exit 2
fi
for binary in "$@"; do
  if [ ! -f "$binary" ]; then
    echo "runtime-packages: no file $binary" >&2
    exit 2
  fi
done

libraries=$(ldd "$@")
if grep -q "not found" <<<"$libraries"; then
  echo "runtime-packages: unresolved libraries:" >&2
  grep "not found" <<<"$libraries" >&2
  exit 1
fi

mapfile -t needed < <(
  awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<<"$libraries" | sort -u)

# dpkg records the path a package shipped, which on merged-/usr systems may be the /lib or the
# /usr/lib spelling of where ldd found a library: ask about every spelling at once (one
# dpkg-query is much faster than one per library), then take the first that has an owner.
spellings() {
  local real
  real=$(readlink -f "$1")
  printf '%s\n' "$1" "$real" "/usr${real#/usr}" "${real#/usr}"
}
mapfile -t candidates < <(for library in "${needed[@]}"; do spellings "$library"; done)
owners=$(dpkg-query -S "${candidates[@]}" 2>/dev/null || true)

status=0
found=()
for library in "${needed[@]}"; do
  case "$(readlink -f "$library")" in
    /usr/local/*) continue ;;
  esac
  owner=""
  while read -r candidate; do
    # "libfoo1:amd64: /usr/lib/x86_64-linux-gnu/libfoo.so.1", or "pkg1, pkg2: /path" for a
    # path two packages ship; the first package will do.
    owner=$(awk -v path="$candidate" '/^diversion / { next }
      { p = substr($0, index($0, ": /") + 2) }
      p == path { sub(/[:,].*/, "", $1); print $1; exit }' <<<"$owners")
    [ -n "$owner" ] && break
  done < <(spellings "$library")
  if [ -n "$owner" ]; then
    found+=("$owner")
  else
    echo "runtime-packages: no package owns $library" >&2
    status=1
  fi
done
printf '%s\n' "${found[@]}" | sort -u
exit "$status"
