#!/usr/bin/env bash
# Issue 12: what is left between the range profiler and Nsight Compute at 2-4 us. Runs the float4
# probe beside ncu (--cache-control all) with the SMs' instruction, constant and/or translation
# caches evicted before each sample (bench/probe_profiler.cu: PROBE_ICACHE, PROBE_CCACHE,
# PROBE_TLB, PROBE_TLB_KB): every row of bench/RESULTS.md's table, two rounds, ~1 min.
set -u
B=${HONE_BIN_DIR:-.carry}  # probe_profiler: bench/build.sh .carry (scripts/carry.sh runs it)
NCU=${NCU:-$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | tail -1)}
out=${OUT:-/tmp}/probe_tlb; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
ncu_once() {
  PROBE_VEC4=1 "$NCU" --metrics gpu__time_duration.sum --cache-control all --clock-control none \
    --kernel-name regex:probe_vadd --csv --print-units base "$B/probe_profiler" plain 30 \
    >"$out/ncu$1.csv" 2>"$out/ncu$1.err"
  python3 "$(dirname "$0")/ncu_parse.py" "$out/ncu$1.csv" | sed -n 1,3p
}
for round in 1 2; do
  echo "== round $round"
  ncu_once $round
  for v in "" "PROBE_TLB=1" "PROBE_TLB=1 PROBE_TLB_KB=64" "PROBE_CCACHE=1" "PROBE_ICACHE=1" \
           "PROBE_ICACHE=1 PROBE_CCACHE=1" "PROBE_ICACHE=1 PROBE_TLB=1" \
           "PROBE_ICACHE=1 PROBE_TLB=1 PROBE_TLB_KB=64" "PROBE_ICACHE=1 PROBE_CCACHE=1 PROBE_TLB=1"; do
    echo "-- profiler ${v:-(L2 flush only)}"
    env PROBE_VEC4=1 $v "$B/probe_profiler" profiler 30 2>&1 | grep -E "N=2\^(14|16|18) "
  done
done
