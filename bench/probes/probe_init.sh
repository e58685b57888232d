#!/bin/bash
# CUDA start-up in fresh processes under environment variants (bench/probes/probe_init.cpp); 7 runs
# each, interleaved. Prints each run's line and each variant's medians.
set -euo pipefail
bin=${HONE_BIN_DIR:-.carry}/probe_init  # bench/build.sh .carry (scripts/carry.sh runs it)
variants=("" "CUDA_DEVICE_MAX_CONNECTIONS=1" "CUDA_DEVICE_MAX_CONNECTIONS=2" "CUDA_MODULE_LOADING=EAGER"
          "PROBE_CTX_FLAGS=4" "CUDA_DEVICE_MAX_CONNECTIONS=1 PROBE_CTX_FLAGS=4"
          "CUDA_SCALE_LAUNCH_QUEUES=0.25x" "CUDA_DEVICE_MAX_CONNECTIONS=1 CUDA_SCALE_LAUNCH_QUEUES=0.25x")
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for round in 1 2 3 4 5 6 7; do
  for i in "${!variants[@]}"; do
    line=$(env ${variants[$i]} "$bin")
    echo "$i $line" >> "$log"
  done
done
cat "$log"
python3 - "$log" "${variants[@]:-}" <<'PY'
import sys, statistics
log, names = sys.argv[1], sys.argv[2:]
rows = {}
for line in open(log):
    f = line.split()
    rows.setdefault(int(f[0]), []).append({f[k]: float(f[k + 1]) for k in range(1, len(f), 2) if f[k].endswith('_ms')})
for i, runs in sorted(rows.items()):
    name = names[i] if i < len(names) and names[i] else "default"
    print(f"{name}: " + ", ".join(f"{k} {statistics.median(r[k] for r in runs):.1f}" for k in runs[0]))
PY
