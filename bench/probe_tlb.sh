#!/usr/bin/env bash
# Issue 12: what is left between the range profiler and Nsight Compute at 2-4 us. Runs the float4
# probe beside ncu (--cache-control all) with the SMs' instruction, constant and/or translation
# caches evicted before each sample (bench/probe_profiler.cu: PROBE_ICACHE, PROBE_CCACHE,
# PROBE_TLB, PROBE_TLB_KB): every row of bench/RESULTS.md's table, two rounds, ~1 min.
set -u
. "$(dirname "$0")/probe_ncu_lib.sh"
probe_setup probe_tlb
for round in 1 2; do
  echo "== round $round"
  ncu_probe "$out/ncu$round" all
  for v in "" "PROBE_TLB=1" "PROBE_TLB=1 PROBE_TLB_KB=64" "PROBE_CCACHE=1" "PROBE_ICACHE=1" \
           "PROBE_ICACHE=1 PROBE_CCACHE=1" "PROBE_ICACHE=1 PROBE_TLB=1" \
           "PROBE_ICACHE=1 PROBE_TLB=1 PROBE_TLB_KB=64" "PROBE_ICACHE=1 PROBE_CCACHE=1 PROBE_TLB=1"; do
    echo "-- profiler ${v:-(L2 flush only)}"
    profiler_probe $v
  done
done
