#!/usr/bin/env bash
# Issue 12: is the ~4-7% between the range profiler and Nsight Compute at 2-4 us ncu's cache
# control, or ncu's way of launching and reading? Runs the float4 probe (bench/probe_profiler.cu,
# hone's L2 flush before each timed launch) under ncu with --cache-control all and with
# --cache-control none (then the probe's own flush is the only one), with and without the
# instruction-cache eviction (PROBE_ICACHE), and the probe's own range profiler with CUPTI's user
# replay (hone's) and kernel replay (PROBE_KREPLAY, as ncu replays), and with the GPU's translation
# caches invalidated by an unmap (PROBE_UNMAP) before or after the flush. Two rounds, ~1 min.
set -u
B=${HONE_BIN_DIR:-.carry}  # probe_profiler: bench/build.sh .carry (scripts/carry.sh runs it)
NCU=${NCU:-$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | tail -1)}
out=${OUT:-/tmp}/probe_ncu_cc; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
for round in 1 2; do
  echo "== round $round"
  for cc in all none; do
    for v in "" "PROBE_ICACHE=1"; do
      f="$out/ncu-$cc-${v:+icache-}$round"
      env PROBE_VEC4=1 $v "$NCU" --metrics gpu__time_duration.sum --cache-control $cc \
        --clock-control none --kernel-name regex:probe_vadd --csv --print-units base \
        "$B/probe_profiler" plain 30 >"$f.csv" 2>"$f.err"
      echo "-- ncu --cache-control $cc ${v:-(probe: L2 flush only)}"
      python3 "$(dirname "$0")/ncu_parse.py" "$f.csv"
    done
  done
  for v in "" "PROBE_ICACHE=1" "PROBE_KREPLAY=1" "PROBE_KREPLAY=1 PROBE_ICACHE=1" \
           "PROBE_UNMAP=before" "PROBE_UNMAP=after" "PROBE_UNMAP=after PROBE_ICACHE=1" \
           "PROBE_UNMAP=after PROBE_TOUCH=far" "PROBE_UNMAP=after PROBE_TOUCH=abc" \
           "PROBE_TOUCH=far"; do
    echo "-- profiler ${v:-(user replay, L2 flush only)}"
    env PROBE_VEC4=1 $v "$B/probe_profiler" profiler 30 2>&1 | grep -E "N=2\^|rror"
  done
done
