#!/usr/bin/env bash
# On the development machine: builds everything the GPU machine runs and gathers it in .carry/
# (the device tool's `carry`), for scripts/device_session.sh there.
#   scripts/carry.sh [BUILD_DIR]          (default: build)
# .carry/hone_prev (an earlier build, for the before/after phases ab and w12) is kept as found.
# The GPU machine has the CUDA toolkit but no package registry: libraries that are not part of
# it or of the base system are copied into .carry/lib (a fallback on LD_LIBRARY_PATH there).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
cmake --build "$build" -j2 --target all hone_gpu_tests tuned_kernels hone_kernel_bench
mkdir -p .carry/lib
cp -f "$build/tests/hone_gpu_tests" "$build/tuned_kernels" "$build/hone_kernel_bench" .carry/
bash bench/build.sh .carry >/dev/null  # cuBLAS/runtime baselines, flush and clock probes
for bin in "$build/hone" .carry/hone_gpu_tests; do
  for lib in $(ldd "$bin" | awk '/libz\.so/ {print $3}'); do cp -L "$lib" .carry/lib/; done
done
bash scripts/carry_install.sh "$build"
# hone and hone-worker as installed (the same binaries), once: the tree that travels is limited
# to 64 MiB. The worker is found beside the resolved executable.
rm -f .carry/hone .carry/hone-worker .carry/hone_tests
ln -s prefix/bin/hone .carry/hone
ln -s prefix/bin/hone-worker .carry/hone-worker
find .carry -type f -perm -u+x -exec sh -c 'file "$1" | grep -q ELF && strip --strip-unneeded "$1"' _ {} \;
[ -x .carry/hone_prev ] || echo "note: no .carry/hone_prev: the ab and w12 phases will be skipped"
du -sh .carry
