#!/usr/bin/env bash
# Issue 12: is the ~4% left between the range profiler and Nsight Compute at 2-4 us the SMs'
# idleness? hone's flush is a kernel on every SM just before the timed one; Nsight Compute's
# cache control is not, and it spends milliseconds between the launches it profiles. Runs the
# float4 probe beside ncu (--cache-control all) with the GPU idle between the flush and the
# timed launch (bench/probe_profiler.cu: PROBE_GAP_MS), with and without the instruction-cache
# eviction, two rounds.
set -u
. "$(dirname "$0")/probe_ncu_lib.sh"
probe_setup probe_idle
for round in 1 2; do
  echo "== round $round"
  echo "-- ncu"
  ncu_probe "$out/ncu$round" all
  for v in "" "PROBE_GAP_MS=1" "PROBE_GAP_MS=20" "PROBE_ICACHE=1" "PROBE_ICACHE=1 PROBE_GAP_MS=1" \
           "PROBE_ICACHE=1 PROBE_GAP_MS=20"; do
    echo "-- profiler ${v:-(L2 flush only)}"
    profiler_probe $v
  done
done
