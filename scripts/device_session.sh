#!/usr/bin/env bash
# Runs on the GPU machine (the `device` tool), from the repository root, with the binaries
# built here carried in .carry/ (hone and hone-worker side by side, the test binaries, and for
# `tune_in_app` the install and examples of scripts/carry_install.sh): GPU tests, then the
# benchmarks.
#   scripts/device_session.sh [smoke] [tests] [faults] [kill] [tune_in_app] [bench] [multi_gpu] [dist]
#                                                   (default: tests faults tune_in_app bench)
set -uo pipefail
# The device tool returns at most 8 files from $OUT: everything is written to $RES, packed into
# $OUT/results.tgz at the end, with the summary next to it.
export HONE_SOURCE_DIR=$PWD
OUT=${OUT:-/tmp/hone-out}
RES=${RES:-/tmp/hone-res}
mkdir -p "$OUT" "$RES"
B=${HONE_BIN_DIR:-$PWD/.carry}
export PATH="$B:$PATH"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}:$B/lib
export HONE_CACHE_DIR=${HONE_CACHE_DIR:-$RES/cache}
export HONE_EXPECT_PROFILER=${HONE_EXPECT_PROFILER:-1}  # Nsight Compute reads the counters here
steps=${*:-tests faults tune_in_app bench}
pack() {  # atomically: a run cut off while packing still returns the last complete archive
  tar czf "$OUT/.results.tgz" --exclude=cache --exclude='*.db' -C "$RES" . 2>/dev/null &&
    mv -f "$OUT/.results.tgz" "$OUT/results.tgz"
  cp -f "$RES"/summary.md "$OUT"/ 2>/dev/null
  true
}
trap pack EXIT

echo "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total,clocks.sm,clocks.mem --format=csv
nproc
"$B/hone" --version
[ -x "$B/hone-worker" ] || echo "WARNING: $B/hone-worker is missing: hone cannot compile or tune without it"
"$B/hone" devices | tee "$RES/devices.txt" | head -3

for step in $steps; do
  case $step in
    smoke)
      echo "== smoke: vector_add at N=2^16, 40 configurations"
      "$B/hone" tune configs/vector_add.yaml --set N=65536 --max-evals 40 -o "$RES/smoke.db" 2>&1 | tail -40
      ;;
    tests)
      echo "== GPU tests"
      "$B/hone_gpu_tests" 2>&1 | tee "$RES/gpu_tests.log" | tail -40
      if [ -x "$B/hone_tests" ]; then
        echo "== unit tests (CPU, on this machine too)"
        "$B/hone_tests" 2>&1 | tail -3
      fi
      ;;
    kill)
      echo "== kill -9 of the tuner and of its worker"
      bash bench/kill.sh "$RES" 2>&1 | tee "$RES/kill.log"
      ;;
    tune_in_app)
      echo "== tune() inside a CUDA application (examples/tune_in_app against the carried install)"
      bash bench/tune_in_app.sh "$RES" 2>&1 | tee "$RES/tune_in_app.log" | tail -40
      ;;
    multi_gpu)
      echo "== one run over 1, 2, 4 GPUs (bench/multi_gpu.sh; MG_* knobs there)"
      bash bench/multi_gpu.sh "$RES/multi_gpu" 2>&1 | tee "$RES/multi_gpu.log"
      ;;
    dist)
      echo "== beyond one process: MPI ranks, shards and merge (bench/dist.sh; 2 GPUs or more)"
      bash bench/dist.sh "$RES" 2>&1 | tee "$RES/dist.log" | tail -30
      ;;
    faults)
      echo "== fault isolation"
      bash bench/faults.sh "$RES" 2>&1 | tee "$RES/faults.log" | tail -40
      ;;
    bench)
      echo "== benchmarks"
      for phase in ${BENCH_PHASES:-va24 va16 fixed compile sgemm baselines}; do
        bash bench/run.sh "$RES" "$phase" 2>&1 | grep -v '^|\|^#\|^$\|^- '
        pack  # what is done comes back even if a later phase runs out of time
      done
      python3 bench/summarize.py "$RES" > "$RES/summary.md"; cat "$RES/summary.md"
      ;;
  esac
  pack  # each step's results come back even if a later one runs out of time
done
