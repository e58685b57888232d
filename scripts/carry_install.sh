#!/usr/bin/env bash
# On the development machine, after the build: installs hone into .carry/prefix and builds
# examples/ against that install (find_package(hone)) into .carry/examples, for the GPU
# machine, where scripts/device_session.sh's `tune_in_app` step runs them (bench/tune_in_app.sh).
#   scripts/carry_install.sh [BUILD_DIR]     (default: build)
# The GPU machine cannot build against the install (no yaml-cpp and the rest there): the
# examples are built here, and libhone.so's one dependency outside glibc, libstdc++ and the
# CUDA toolkit, libyaml-cpp.so.0.7, is carried beside it.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
prefix=$PWD/.carry/prefix
cuda_home=${CUDA_HOME:-/usr/local/cuda}
rm -rf "$prefix" .carry/examples .carry/examples-build
cmake --install "$build" --prefix "$prefix" >/dev/null
for lib in $(ldd "$prefix/lib/libhone.so" | awk '/libyaml-cpp/ {print $3}'); do
  cp -L "$lib" "$prefix/lib/"
done
cmake -S examples -B .carry/examples-build -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CUDA_COMPILER="$cuda_home/bin/nvcc" >/dev/null
cmake --build .carry/examples-build -j2 >/dev/null
mkdir -p .carry/examples
find .carry/examples-build -maxdepth 1 -type f -executable -exec cp {} .carry/examples/ \;
rm -rf .carry/examples-build "$prefix/include"  # headers are not needed to run
echo "carried: $(cd .carry && du -sh prefix examples | tr '\n' ' ')"
ls .carry/examples
