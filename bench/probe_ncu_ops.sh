#!/usr/bin/env bash
# Issue 12: can a driver operation, not a kernel, leave the state Nsight Compute's cache control
# leaves (ncu --cache-control all reads 5-7% above hone's profiler timer at 2-4 us)? Runs the
# float4 probe (bench/probe_profiler.cu) under ncu (all, none) and its own range profiler with,
# after hone's L2 flush: a stream memory operation (PROBE_MEMOP: flush of remote writes, GPU or
# system memory barrier), cuCtxResetPersistingL2Cache (PROBE_PERSIST), cuFlushGPUDirectRDMAWrites
# (PROBE_RDMA), and an unmap with only some of the kernel's buffers' translations warmed again
# (PROBE_UNMAP=after PROBE_TOUCH=ab|c). Two rounds, ~2 min.
set -u
. "$(dirname "$0")/probe_ncu_lib.sh"
probe_setup probe_ncu_ops
export SIZES=5 PROBE_LINES='N=2\^(14|16|18|20|22) |rror'
for round in 1 2; do
  echo "== round $round"
  for cc in all none; do
    echo "-- ncu --cache-control $cc"
    ncu_probe "$out/ncu-$cc-$round" $cc
  done
  for v in "" "PROBE_ICACHE=1" "PROBE_MEMOP=flush" "PROBE_MEMOP=gpu" "PROBE_MEMOP=sys" \
           "PROBE_PERSIST=1" "PROBE_RDMA=1" "PROBE_ICACHE=1 PROBE_MEMOP=sys" \
           "PROBE_ICACHE=1 PROBE_PERSIST=1" "PROBE_UNMAP=after PROBE_TOUCH=ab" \
           "PROBE_UNMAP=after PROBE_TOUCH=c" "PROBE_UNMAP=after PROBE_TOUCH=abc" \
           "PROBE_ICACHE=1 PROBE_UNMAP=after PROBE_TOUCH=abc"; do
    echo "-- profiler ${v:-(L2 flush only)}"
    profiler_probe $v
  done
done
