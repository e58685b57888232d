#!/usr/bin/env bash
# Builds the baseline benchmark (CUDA runtime + cuBLAS) and the probes of bench/probes/ for Hopper:
#   bench/build.sh [OUTPUT_DIR]      (default: build/bench)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build/bench}
mkdir -p "$out"
nvcc -arch=sm_90 -O3 -std=c++17 -Xcompiler -Wall "$root/bench/baselines.cu" -o "$out/baselines" -lcublas
nvcc -arch=sm_90 -O3 -std=c++17 -Xcompiler -Wall "$root/bench/probes/probe_flush.cu" -o "$out/probe_flush" -lcuda
nvcc -arch=sm_90 -O3 -std=c++17 -Xcompiler -Wall "$root/bench/probes/probe_clocks.cu" -o "$out/probe_clocks"
nvcc -arch=sm_90 -O3 -std=c++17 -Xcompiler -Wall "$root/bench/probes/probe_pipeline.cu" -o "$out/probe_pipeline" -lcuda
nvcc -arch=sm_90 -O3 -std=c++17 -Xcompiler -Wall "$root/bench/probes/probe_init.cpp" -o "$out/probe_init" -lcuda
cuda_lib=$(dirname "$(command -v nvcc)")/../lib64
nvcc -arch=sm_90 -O3 -std=c++17 -Xcompiler -Wall "$root/bench/probes/probe_profiler.cu" -o "$out/probe_profiler" \
  -L"$cuda_lib" -lcupti -lcuda
echo "$out/baselines"
