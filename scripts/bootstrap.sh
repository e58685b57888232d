#!/usr/bin/env bash
# Installs hone's build dependencies (Debian packages) when missing, then builds into build/.
# Idempotent: a second run only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

# clang and its runtime libraries (libFuzzer, sanitizers) build the fuzz harnesses of ./dev test.
# python3-jsonschema validates hone's T4 output against the T4 schema in a test.
pkgs=(cmake ninja-build g++ libyaml-cpp-dev libsqlite3-dev libfmt-dev libcli11-dev
      nlohmann-json3-dev doctest-dev libxxhash-dev zlib1g-dev clang libclang-rt-dev
      python3-jsonschema)
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
  echo "bootstrap: the CUDA toolkit (12.8 or newer, for NVRTC) was not found in $cuda_home;" \
       "install it or set CUDA_HOME" >&2
  exit 1
fi
export PATH="$cuda_home/bin:$PATH"

# The Python package (python/, docs/python.md) is built and tested when nanobind and pytest can be
# had from PyPI; without them the rest builds as before.
python=${PYTHON:-python3}
hone_python=OFF
if command -v "$python" >/dev/null; then
  "$python" -c 'import nanobind, pytest' 2>/dev/null ||
    "$python" -m pip install -q nanobind pytest >/dev/null 2>&1 || true
  "$python" -c 'import nanobind, pytest' 2>/dev/null && hone_python=ON
fi
[ "$hone_python" = ON ] || echo "bootstrap: no nanobind/pytest for $python: the Python package is not built"

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT="$cuda_home" \
  -DHONE_PYTHON=$hone_python -DPython_EXECUTABLE="$(command -v "$python" || echo python3)" >/dev/null
cmake --build build -j "$(nproc)"
