#!/usr/bin/env bash
# Installs hone's build dependencies (Debian packages) when missing, then builds into build/.
# Idempotent: a second run only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

# clang and its runtime libraries (libFuzzer, sanitizers) build the fuzz harnesses of ./dev test.
# python3-jsonschema validates hone's T4 output against the T4 schema in a test.
# libopenmpi-dev and openmpi-bin build the MPI plugin (libhone_mpi.so) and run its tests under
# mpirun (38 packages, about 52 MiB installed; hone builds without them, with no MPI plugin).
pkgs=(cmake ninja-build g++ libyaml-cpp-dev libsqlite3-dev libfmt-dev libcli11-dev
      nlohmann-json3-dev doctest-dev libxxhash-dev zlib1g-dev clang libclang-rt-dev
      python3-jsonschema libopenmpi-dev openmpi-bin)
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

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT="$cuda_home" >/dev/null
cmake --build build -j "$(nproc)"
