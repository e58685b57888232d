#!/usr/bin/env bash
# Issue 12: is the ~4% left between the range profiler and Nsight Compute at 2-4 us the SMs'
# idleness? hone's flush is a kernel on every SM just before the timed one; Nsight Compute's
# cache control is not, and it spends milliseconds between the launches it profiles. Runs the
# float4 probe beside ncu (--cache-control all) with the GPU idle between the flush and the
# timed launch (bench/probe_profiler.cu: PROBE_GAP_MS), with and without the instruction-cache
# eviction, two rounds.
set -u
B=${HONE_BIN_DIR:-.carry}  # probe_profiler: bench/build.sh .carry (scripts/carry.sh runs it)
NCU=${NCU:-$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | tail -1)}
out=${OUT:-/tmp}/probe_idle; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
for round in 1 2; do
  echo "== round $round"
  PROBE_VEC4=1 "$NCU" --metrics gpu__time_duration.sum --cache-control all --clock-control none \
    --kernel-name regex:probe_vadd --csv --print-units base "$B/probe_profiler" plain 30 \
    >"$out/ncu$round.csv" 2>"$out/ncu$round.err"
  echo "-- ncu"
  python3 "$(dirname "$0")/ncu_parse.py" "$out/ncu$round.csv" | sed -n 1,3p
  for v in "" "PROBE_GAP_MS=1" "PROBE_GAP_MS=20" "PROBE_ICACHE=1" "PROBE_ICACHE=1 PROBE_GAP_MS=1" \
           "PROBE_ICACHE=1 PROBE_GAP_MS=20"; do
    echo "-- profiler ${v:-(L2 flush only)}"
    env PROBE_VEC4=1 $v "$B/probe_profiler" profiler 30 2>&1 | grep -E "N=2\^(14|16|18) "
  done
done
