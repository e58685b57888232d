#!/usr/bin/env bash
# Two builds of hone alternated on issue 33's (b) (bench/multi_gpu.sh step b: vector_add_192 at
# ten sizes in one command, resident workers), so that their speed-ups come from one machine in
# one call; then each command's prepares and final words from its JSON.
#   HONE_OLD=DIR HONE_NEW=DIR bash bench/ab_multi_gpu.sh OUT_DIR
# DIR holds hone and hone-worker (default: .carry/prev and .carry). Knobs: AB_PASSES="1 2 3"
# (old then new, once a pass), AB_GPUS="1 2 4" (as MG_GPUS). Each command runs with
# HONE_TRACE=1: bench/probes/trace_gaps.py reads its timeline from OUT_DIR/<build><pass>/b_g*.err.
set -uo pipefail
out=${1:?usage: bench/ab_multi_gpu.sh OUT_DIR}
old=${HONE_OLD:-$PWD/.carry/prev}
new=${HONE_NEW:-$PWD/.carry}
mkdir -p "$out"
for pass in ${AB_PASSES:-1 2 3}; do
  for b in old new; do
    bin=$new
    [ "$b" = old ] && bin=$old
    "$bin/hone" workers --stop >/dev/null 2>&1
    HONE_TRACE=1 HONE_BIN_DIR=$bin MG_KEEP=300 MG_GPUS="${AB_GPUS:-1 2 4}" MG_STEPS=b \
      timeout 150 bash bench/multi_gpu.sh "$out/$b$pass" >"$out/$b$pass.log" 2>&1
    "$bin/hone" workers --stop >/dev/null 2>&1
    echo "$b pass $pass:"
    grep "^| (b)" "$out/$b$pass/multi_gpu_table.md"
  done
done
python3 - "$out" <<'PY'
import glob, json, os, sys
for d in sorted(glob.glob(os.path.join(sys.argv[1], "*/"))):
    for f in sorted(glob.glob(d + "b_g*.json")):
        runs = json.load(open(f))
        t = [r["time"] for r in runs]
        big = max(t, key=lambda x: x["setup"]["prepare_s"])["setup"]
        print(f"{os.path.basename(d[:-1])} {os.path.basename(f)}: runs' walls "
              f"{sum(x['wall_s'] for x in t):.3f} s, prepares {sum(x['setup']['prepare_s'] for x in t):.3f} s "
              f"(largest {big['prepare_s']:.3f}: inputs {big['inputs_s']:.3f}), final words "
              f"{sum(x['final_word_s'] for x in t):.3f} s")
PY
