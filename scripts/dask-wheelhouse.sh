#!/usr/bin/env bash
# Downloads binary wheels of dask and distributed and of everything they need, for CPython 3.12
# on manylinux x86_64, into DIR: what the GPU machine (no package index, no dask) needs to run
# bench/dask/scaleout_bench.py --backend cuda. NumPy is left out on purpose: the GPU machine has
# its own NumPy, the one its CuPy was built against, and a wheel here must not replace it
# (dask.array needs nothing else; `dask[array]` adds only numpy).
#   scripts/dask-wheelhouse.sh DIR          (e.g. .gpux/wheelhouse: .gpux is git-ignored)
# Environment: DASK_VERSION (default 2026.8.0, the version test_dask*.py and bench/RESULTS.md
# ran with; distributed is released in lockstep), PIP (default "python3 -m pip").
#
# On the GPU machine, from the repository root (docs/gpu-testing.md, "Dask"):
#   python3 -m pip install --no-index --find-links .gpux/wheelhouse --target .gpux/site \
#       dask distributed
#   export PYTHONPATH=$PWD/client_python:$PWD/.gpux/site
# --no-index keeps pip off the network; --target installs beside, not into, the system
# packages, so the machine's NumPy and CuPy stay as they are.
set -euo pipefail
dir=${1:?usage: scripts/dask-wheelhouse.sh DIR}
version=${DASK_VERSION:-2026.8.0}
read -r -a pip <<<"${PIP:-python3 -m pip}"
mkdir -p "$dir"
# --only-binary with --python-version/--platform resolves for the target, not for this
# machine's Python; the platform list covers the manylinux tags wheels are published under.
"${pip[@]}" download --disable-pip-version-check --quiet --dest "$dir" --only-binary=:all: \
  --python-version 3.12 --implementation cp --abi cp312 \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 --platform any \
  "dask==$version" "distributed==$version"
if compgen -G "$dir/numpy-*" >/dev/null; then
  echo "dask-wheelhouse: a numpy wheel came in with the dependencies; remove it" >&2
  exit 1
fi
ls -1 "$dir"
du -sh "$dir"
