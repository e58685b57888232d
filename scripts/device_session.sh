#!/usr/bin/env bash
# Runs on the GPU machine (the `device` tool), from the repository root, with the binaries
# built here carried in .carry/: GPU tests, then the benchmarks. Everything lands in $OUT.
#   scripts/device_session.sh [tests] [bench] [faults]     (default: all three)
set -uo pipefail
export HONE_SOURCE_DIR=$PWD
OUT=${OUT:-/tmp/hone-out}
mkdir -p "$OUT"
B=${HONE_BIN_DIR:-$PWD/.carry}
export PATH="$B:$PATH"
steps=${*:-tests faults bench}

echo "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total,clocks.sm,clocks.mem --format=csv
nproc
"$B/hone" --version
"$B/hone" devices | tee "$OUT/devices.txt" | head -3

for step in $steps; do
  case $step in
    tests)
      echo "== GPU tests"
      "$B/hone_gpu_tests" 2>&1 | tee "$OUT/gpu_tests.log" | tail -40
      echo "== unit tests (CPU, on this machine too)"
      "$B/hone_tests" 2>&1 | tail -3
      ;;
    faults)
      echo "== fault isolation"
      bash bench/faults.sh "$OUT" 2>&1 | tail -40
      ;;
    bench)
      echo "== benchmarks"
      bash bench/run.sh "$OUT" 2>&1 | tail -60
      ;;
  esac
done
