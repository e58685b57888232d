#!/usr/bin/env bash
# Issue 12: the driver's L2 reset (cuCtxResetPersistingL2Cache) after hone's read flush, which
# brought the range profiler within 1-4% of Nsight Compute's --cache-control all at 2-4 us
# (bench/RESULTS.md). Here at every size (2^14-2^28), with the reset before the flush instead of
# after it, with the reset alone (no read flush: does it leave L2 cold by itself?), and under ncu
# --cache-control none with the probe's flush and reset (does ncu then read what the profiler
# reads?). Three rounds, ~2 min.
set -u
. "$(dirname "$0")/probe_ncu_lib.sh"
probe_setup probe_l2_reset
export SIZES=8 PROBE_LINES='N=2\^|rror'
for round in 1 2 3; do
  echo "== round $round"
  echo "-- ncu --cache-control all"
  ncu_probe "$out/ncu-all-$round" all
  echo "-- ncu --cache-control none, the probe's flush and reset"
  ncu_probe "$out/ncu-none-reset-$round" none PROBE_PERSIST=1
  for v in "" "PROBE_PERSIST=1" "PROBE_PERSIST=before" "PROBE_NOFLUSH=1" \
           "PROBE_NOFLUSH=1 PROBE_PERSIST=1"; do
    echo "-- profiler ${v:-(L2 flush only)}"
    profiler_probe $v
  done
done
