#!/usr/bin/env bash
# Issue 12: is the ~4-7% between the range profiler and Nsight Compute at 2-4 us ncu's cache
# control, or ncu's way of launching and reading? Runs the float4 probe (bench/probe_profiler.cu,
# hone's L2 flush before each timed launch) under ncu with --cache-control all and with
# --cache-control none (then the probe's own flush is the only one), with and without the
# instruction-cache eviction (PROBE_ICACHE), and the probe's own range profiler with CUPTI's user
# replay (hone's) and kernel replay (PROBE_KREPLAY, as ncu replays), and with the GPU's translation
# caches invalidated by an unmap (PROBE_UNMAP) before or after the flush. Two rounds, ~1 min.
set -u
. "$(dirname "$0")/probe_ncu_lib.sh"
probe_setup probe_ncu_cc
export SIZES=8 PROBE_LINES='N=2\^|rror'  # every size, 2^14 to 2^28
for round in 1 2; do
  echo "== round $round"
  for cc in all none; do
    for v in "" "PROBE_ICACHE=1"; do
      echo "-- ncu --cache-control $cc ${v:-(probe: L2 flush only)}"
      ncu_probe "$out/ncu-$cc-${v:+icache-}$round" $cc $v
    done
  done
  for v in "" "PROBE_ICACHE=1" "PROBE_KREPLAY=1" "PROBE_KREPLAY=1 PROBE_ICACHE=1" \
           "PROBE_UNMAP=before" "PROBE_UNMAP=after" "PROBE_UNMAP=after PROBE_ICACHE=1" \
           "PROBE_UNMAP=after PROBE_TOUCH=far" "PROBE_UNMAP=after PROBE_TOUCH=abc" \
           "PROBE_TOUCH=far"; do
    echo "-- profiler ${v:-(user replay, L2 flush only)}"
    profiler_probe $v
  done
done
