#!/usr/bin/env bash
# debian_packages_test.sh BUILD_DIR: CPack makes the two Debian packages of the build
# (cmake/package.cmake), each with its component's files and the dependencies its users need.
# Exits 77 (skipped) without dpkg-deb.
set -euo pipefail
build=$1
command -v dpkg-deb > /dev/null || { echo "no dpkg-deb: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

(cd "$build" && cpack -B "$work" > "$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; fail "cpack"; }
server=$(find "$work" -maxdepth 1 -name 'arrayhubd_*.deb')
client=$(find "$work" -maxdepth 1 -name 'libarrayhub-client-dev_*.deb')
[ -n "$server" ] && [ -n "$client" ] || { ls "$work"; fail "cpack did not make both packages"; }

# has PACKAGE PATTERN...: every pattern matches a path in the package.
has() {
  local package=$1 contents
  contents=$(dpkg-deb -c "$package")
  shift
  for pattern in "$@"; do
    grep -q -E "$pattern" <<< "$contents" || fail "$(basename "$package") has no $pattern"
  done
}
has "$server" '/bin/arrayhubd$' '/bin/arrayhub-health$' '/lib/systemd/system/arrayhubd\.service$'
has "$client" '/include/arrayhub/client\.h$' '/libarrayhub-client\.so( -> |$)' '/libarrayhub-client\.a$' \
  '/libarrayhub-client-proto\.a$' '/cmake/arrayhub/arrayhubConfig\.cmake$' \
  '/pkgconfig/arrayhub-client\.pc$'
# Each package holds only its component's files.
[[ $(dpkg-deb -c "$server") != *arrayhub-client* ]] || fail "the server package holds client files"
[[ $(dpkg-deb -c "$client") != *bin/arrayhubd* ]] || fail "the client package holds the daemon"
# The daemon depends on the libraries it loads; the client on what find_package(arrayhub) finds.
[[ $(dpkg-deb -f "$server" Depends) == *libgrpc++* ]] || fail "arrayhubd does not depend on gRPC"
[[ $(dpkg-deb -f "$client" Depends) == *libgrpc-dev*libprotobuf-dev* ]] \
  || fail "libarrayhub-client-dev does not depend on gRPC's and protobuf's dev packages"
echo "ok: $(basename "$server") $(basename "$client")"
