#!/usr/bin/env bash
# install_package_test.sh CMAKE BUILD_DIR SOURCE_DIR GENERATOR CXX: installs the build into a
# temporary prefix, checks what the shared client exports, builds examples/find_package out of
# tree against it (shared and static, by its CMake package) and by pkg-config, starts the
# installed arrayhubd (CPU backend) and runs the three builds against it. A user's first steps (README, "Using the C++ client from your project").
# KEEP=1 keeps the temporary folder (logs, prefix, builds) for a look after a failure.
set -euo pipefail
cmake=$1 build=$2 source=$3 generator=$4 cxx=$5

work=$(mktemp -d)
daemon=""
cleanup() {
  if [ -n "$daemon" ]; then kill "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true; fi
  [ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

prefix=$work/prefix
"$cmake" --install "$build" --prefix "$prefix" > "$work/install.log" || { cat "$work/install.log"; fail "cmake --install"; }
for file in bin/arrayhubd bin/arrayhub-health include/arrayhub/client.h \
    lib/systemd/system/arrayhubd.service share/arrayhub/examples/arrayhubd.toml; do
  [ -e "$prefix/$file" ] || fail "cmake --install did not install $file"
done
grep -q "^ExecStart=$prefix/bin/arrayhubd " "$prefix/lib/systemd/system/arrayhubd.service" \
  || fail "the unit does not name the installed arrayhubd"
pc=$(find "$prefix" -name arrayhub-client.pc)
[ -n "$pc" ] || fail "no arrayhub-client.pc"
libdir=$(dirname "$(dirname "$pc")")
for library in libarrayhub-client.so libarrayhub-client.a; do
  [ -e "$libdir/$library" ] || fail "no $library in $libdir"
done
# The client package is the client's: nothing of the server's backends (CUDA, BLAS) in it.
if ls "$libdir" | grep -v -E '^(libarrayhub-client|cmake$|pkgconfig$|systemd$)'; then
  fail "unexpected files in $libdir"
fi

# The shared library exports arrayhub::client's symbols only (client_cpp/arrayhub-client.map):
# no protocol code, no gRPC or protobuf instantiations.
symbols=$(nm -DC --defined-only "$libdir/libarrayhub-client.so" | cut -d' ' -f3-)
[[ $symbols == *"arrayhub::client::Client::Connect"* ]] || fail "libarrayhub-client.so exports no Client"
others=$(grep -v -E '^((typeinfo( name)?|vtable) for )?arrayhub::client::' <<< "$symbols" || true)
[ -z "$others" ] || fail "libarrayhub-client.so exports more than arrayhub::client: $(head -5 <<< "$others")"

example=$source/examples/find_package
for kind in client client_static; do
  "$cmake" -S "$example" -B "$work/$kind" -G "$generator" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_PREFIX_PATH="$prefix" -DARRAYHUB_CLIENT="arrayhub::$kind" > "$work/$kind.log" 2>&1 \
    || { cat "$work/$kind.log"; fail "configuring the example with arrayhub::$kind"; }
  "$cmake" --build "$work/$kind" > "$work/$kind-build.log" 2>&1 \
    || { cat "$work/$kind-build.log"; fail "building the example with arrayhub::$kind"; }
done
# ldd's output is kept whole: grep -q would stop reading it, and pipefail would see ldd's SIGPIPE.
shared_libraries=$(ldd "$work/client/add_arrays")
[[ $shared_libraries == *"$libdir/libarrayhub-client.so"* ]] \
  || fail "arrayhub::client did not link the installed shared library"
[[ $(ldd "$work/client_static/add_arrays") != *libarrayhub-client* ]] \
  || fail "arrayhub::client_static linked the shared library"
export PKG_CONFIG_PATH=$(dirname "$pc")
# shellcheck disable=SC2046  # pkg-config's flags are words
"$cxx" -std=c++20 -o "$work/add_arrays_pc" "$example/add_arrays.cc" \
  $(pkg-config --cflags --libs arrayhub-client) -Wl,-rpath,"$libdir" || fail "building by pkg-config"

log=$work/arrayhubd.log
"$prefix/bin/arrayhubd" --listen 127.0.0.1:0 --backend cpu > "$log" 2>&1 &
daemon=$!
for _ in $(seq 300); do grep -q "listening on" "$log" && break; sleep 0.1; done
address=$(sed -n 's/.*listening on \([^ ]*\).*/\1/p' "$log")
[ -n "$address" ] || { cat "$log"; fail "the installed arrayhubd did not start"; }

for program in "$work/client/add_arrays" "$work/client_static/add_arrays" "$work/add_arrays_pc"; do
  output=$("$program" "$address") || fail "$program $address failed: $output"
  [ "$output" = "[11 22 33 44]" ] || fail "$program printed '$output'"
done
echo "ok: installed into $prefix; the example built three ways and added on the installed daemon"
