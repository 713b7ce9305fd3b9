#!/usr/bin/env bash
# Runs the Python client's tests (client_python/tests) against a real arrayhubd.
#
# Creates a virtual environment at build/python-venv (or $ARRAYHUB_BUILD_DIR/python-venv) with
# the python3 on PATH, builds the client's wheel (pip wheel ./client_python, into
# build/python-wheel) and installs it with its [test] extras from PyPI (NumPy >= 2, grpcio,
# protobuf, pytest), so that the suite tests the wheel users get, not the source tree; then
# runs pytest with ARRAYHUB_DAEMON pointing at the built daemon. Build the daemon first
# (scripts/build.sh). With Debian's own python3 the venv needs the
# python3-venv package; pyenv's and python.org's Pythons include it.
#
# The whole suite runs with the client's default, pipelined execution; then the files that
# exercise every operation family and its errors run again with ARRAYHUB_SYNC=1 (one blocking
# call per op), so that both modes stay right. ARRAYHUB_TEST_SYNC=0 skips that second run.
#
# Environment: PYTHON (default python3), ARRAYHUB_DAEMON (default build/server/arrayhubd),
# ARRAYHUB_TEST_BACKEND (default cpu). Extra arguments go to pytest (both runs).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ARRAYHUB_BUILD_DIR:-$root/build}
venv=$build/python-venv
export ARRAYHUB_DAEMON=${ARRAYHUB_DAEMON:-$build/server/arrayhubd}

if [ ! -x "$ARRAYHUB_DAEMON" ]; then
  echo "python-tests: no daemon at $ARRAYHUB_DAEMON; run scripts/build.sh first" >&2
  exit 1
fi
if [ ! -x "$venv/bin/python" ]; then
  "${PYTHON:-python3}" -m venv "$venv" || {
    echo "python-tests: could not create a venv (Debian: apt-get install python3-venv)" >&2
    exit 1
  }
fi
pip=("$venv/bin/python" -m pip --quiet --disable-pip-version-check)
"${pip[@]}" install --upgrade pip "setuptools>=61"
# Built with the venv's setuptools (no isolated build environment to download each run).
# setuptools stages the package in client_python/build: cleared so that a file deleted from
# the source cannot ride along in the wheel.
wheels=$build/python-wheel
rm -rf "$wheels" "$root/client_python/build"
"${pip[@]}" wheel --no-deps --no-build-isolation --wheel-dir "$wheels" "$root/client_python"
wheel=("$wheels"/arrayhub-*.whl)
# The same version may be installed already (from an earlier wheel): replace it.
"${pip[@]}" uninstall --yes arrayhub
"${pip[@]}" install "${wheel[0]}[test]"

# Run outside the source tree so that `import arrayhub` finds the installed package; leave no
# cache directory in the work tree.
cd "$build"
tests=$root/client_python/tests
"$venv/bin/python" -m pytest -p no:cacheprovider -q -rs "$tests" "$@"

if [ "${ARRAYHUB_TEST_SYNC:-1}" != 0 ]; then
  echo "python-tests: again with ARRAYHUB_SYNC=1 (one blocking call per operation)"
  status=0
  ARRAYHUB_SYNC=1 "$venv/bin/python" -m pytest -p no:cacheprovider -q -rs \
    "$tests"/test_ufuncs.py "$tests"/test_reductions.py "$tests"/test_views.py \
    "$tests"/test_indexing.py "$tests"/test_errors.py "$tests"/test_manipulation.py \
    "$tests"/test_creation.py "$tests"/test_strided_inputs.py \
    "$tests"/test_batch.py "$tests"/test_batch_fusion.py "$tests"/test_lifetime.py \
    "$tests"/test_linalg.py "$tests"/test_math_functions.py \
    "$tests"/test_matrix_functions.py "$tests"/test_ufunc_methods.py \
    "$tests"/test_numpy_protocols.py "$tests"/test_shape_functions.py \
    "$tests"/test_complex_parts.py "$tests"/test_dtype_views.py "$tests"/test_memory_order.py \
    "$tests"/test_collectives.py "$@" || status=$?
  # 5: the extra arguments (-k ...) selected nothing in these files.
  [ "$status" = 0 ] || [ "$status" = 5 ] || exit "$status"
fi
