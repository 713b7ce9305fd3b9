#!/usr/bin/env bash
# Installs every package ArrayHub needs to build and test (run as root), on Debian 12
# (bookworm) or Ubuntu 24.04 (noble, the base of NVIDIA's CUDA images that the Dockerfile
# builds on). Does nothing when they are all present already. The CUDA toolkit is not one of
# them: it comes with NVIDIA's images; without it the build has the CPU backend only.
#
#   install-deps.sh          install what is missing
#   install-deps.sh --list   print the package names for this system, one a line, and exit
#
# ARRAYHUB_OS_RELEASE names the os-release file to read (default /etc/os-release), so that the
# choice can be checked for another system.
set -euo pipefail

os_release=${ARRAYHUB_OS_RELEASE:-/etc/os-release}
system=$( . "$os_release" && echo "${ID:-unknown} ${VERSION_ID:-}")

# The same names on both systems: each is a -dev package or tool of the same upstream release
# line in bookworm and noble (gRPC 1.51, Protocol Buffers 3.21, abseil 20220623, prometheus-cpp
# 1.0). Only the runtime libraries' names differ (noble's 64-bit time_t rename, "t64"), and
# none is named here: the -dev packages pull them in, and the Docker image's runtime stage
# installs whatever owns the libraries arrayhubd links (scripts/runtime-packages.sh).
packages=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  ccache  # Keeps the release, ASan and TSan builds warm between runs on one machine.
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
  libspdlog-dev libfmt-dev libcli11-dev libgtest-dev libgmock-dev
  libopenblas-dev liblapacke-dev libimath-dev libssl-dev
  libfftw3-dev  # FFTW (double and single precision): the CPU backend's numpy.fft.
  libgoogle-perftools-dev  # tcmalloc, the daemon's allocator (server/CMakeLists.txt).
  prometheus-cpp-dev  # Metrics: the Prometheus data model and text format.
  clang-format
  clang libclang-rt-dev  # Sanitizer and libFuzzer builds (scripts/sanitizer-tests.sh).
  python3 python3-venv  # The Python client's tests run in a venv; packages come from PyPI.
)
case "$system" in
  "debian 12" | "ubuntu 24.04") ;;
  *)
    echo "install-deps: $system is neither Debian 12 nor Ubuntu 24.04; trying Debian 12's" \
      "package names" >&2
    ;;
esac

if [ "${1:-}" = "--list" ]; then
  printf '%s\n' "${packages[@]}"
  exit 0
elif [ $# -gt 0 ]; then
  echo "install-deps: unknown argument '$1' (the only option is --list)" >&2
  exit 2
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages (${missing[*]}); run as root to install them" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends "${missing[@]}"
