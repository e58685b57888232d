#!/usr/bin/env bash
# Installs hone's build dependencies (Debian packages) when missing, then builds into build/.
# Idempotent: a second run only rebuilds what changed.
#   scripts/bootstrap.sh          what building and tuning need (./dev tune)
#   scripts/bootstrap.sh --test   also what the tests need (./dev test)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

# ccache makes a rebuild after a branch switch or a fresh clone of an already built tree cost
# little; a machine that has never built hone gains nothing from it.
pkgs=(cmake ninja-build g++ libyaml-cpp-dev libsqlite3-dev libfmt-dev libcli11-dev
      nlohmann-json3-dev doctest-dev libxxhash-dev zlib1g-dev ccache)
if [ "${1:-}" = --test ]; then
  # clang and its runtime libraries (libFuzzer, sanitizers) build the fuzz harnesses;
  # python3-jsonschema validates hone's T4 output against the T4 schema; clang-format checks
  # the layout of the C++ sources; libopenmpi-dev and openmpi-bin build the MPI plugin
  # (libhone_mpi.so) and run its test under mpirun (hone builds without them, with no plugin).
  pkgs+=(clang libclang-rt-dev python3-jsonschema clang-format libopenmpi-dev openmpi-bin)
fi
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  echo "bootstrap: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

cuda_home=${CUDA_HOME:-/usr/local/cuda}
if [ ! -f "$cuda_home/include/nvrtc.h" ]; then
  echo "bootstrap: the CUDA toolkit (CUDA 13, for NVRTC: libnvrtc.so.13) was not found in $cuda_home;" \
       "install it or set CUDA_HOME" >&2
  exit 1
fi
export PATH="$cuda_home/bin:$PATH"

# The Python package (python/, docs/python.md) is built and tested when nanobind and pytest can be
# had (from PyPI, for the tests); without them the rest builds as before. NumPy, where it can be
# had, lets the tests of hone.compat (Kernel Tuner's arguments as a config) run without a GPU.
python=${PYTHON:-python3}
hone_python=OFF
if command -v "$python" >/dev/null; then
  if [ "${1:-}" = --test ]; then
    "$python" -c 'import nanobind, pytest' 2>/dev/null ||
      "$python" -m pip install -q nanobind pytest >/dev/null 2>&1 || true
    "$python" -c 'import numpy' 2>/dev/null ||
      "$python" -m pip install -q numpy >/dev/null 2>&1 || true
  fi
  "$python" -c 'import nanobind, pytest' 2>/dev/null && hone_python=ON
fi
[ "$hone_python" = ON ] || echo "bootstrap: no nanobind/pytest for $python: the Python package is not built"

launcher=()
if command -v ccache >/dev/null; then
  # Paths under the checkout are hashed relative to it, so that clones in other folders share
  # the cache.
  export CCACHE_BASEDIR=$root
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT="$cuda_home" \
  "${launcher[@]}" -DHONE_PYTHON=$hone_python -DPython_EXECUTABLE="$(command -v "$python" || echo python3)" >/dev/null
cmake --build build -j "$(nproc)"
