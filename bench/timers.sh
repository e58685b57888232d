#!/usr/bin/env bash
# hone's timers (auto, the default; the range profiler, CUPTI's records, events) and Nsight
# Compute on the same configurations, on the GPU machine (bench/RESULTS.md section 5):
#   bench/timers.sh OUT_DIR            (TIMERS="auto profiler cupti events" by default)
# Configurations: vector_add_flat (configs/vector_add_192.yaml) BLOCK=256, one float4 a thread,
# at N = 2^10 .. 2^28 by 4x (kernels of ~2 us to ~1 ms), and SGEMM (configs/sgemm.yaml, the
# best tile of RESULTS.md) at 1024^3 and 2048^3. For each: `hone tune --only KEY` with each
# --timer (supervised worker, L2 flushed before each sample), and ncu's gpu__time_duration.sum
# over 30 launches of the same kernel in `hone tune --only KEY --in-process --timer events`
# (--cache-control all: caches flushed before each launch; --clock-control none: clocks as hone
# finds them). Writes OUT_DIR/timers_<label>_<timer>.json and timers_<label>_ncu.csv;
# bench/summarize_measure.py makes the table.
# Binaries from $HONE_BIN_DIR (default .carry/); ncu from $NCU, PATH, /opt/nvidia or the toolkit.
set -uo pipefail
out=${1:?usage: bench/timers.sh OUT_DIR}
mkdir -p "$out"
B=${HONE_BIN_DIR:-$PWD/.carry}
HONE=${HONE:-$B/hone}
work=$(mktemp -d)
cache=$work/cache
NCU=${NCU:-$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | tail -1)}
if [ -n "$NCU" ]; then
  echo "ncu: $NCU ($("$NCU" --version 2>/dev/null | tail -1))"
else
  echo "ncu: not found (set NCU=/path/to/ncu); the table will lack its column"
fi

va=configs/vector_add_192.yaml
va_key="BLOCK=256,STRIDED=false,VEC=4"
sg=configs/sgemm.yaml
sg_key="BM=128,BN=128,BK=16,TM=8,TN=8,VEC=4,PAD=4,UNROLL=true"

one() {  # one LABEL CONFIG KEY [--set ...]
  local label=$1 cfg=$2 key=$3
  shift 3
  local t0 rc timer
  for timer in ${TIMERS:-auto profiler cupti events}; do
    t0=$(date +%s%N)
    timeout 120 "$HONE" tune "$cfg" --only "$key" "$@" --timer $timer --json --quiet \
      -o "$work/$label-$timer.db" --cache-dir "$cache" \
      >"$out/timers_${label}_$timer.json" 2>"$out/timers_${label}_$timer.err"
    rc=$?
    printf '%-16s %-6s rc=%s %6d ms\n' "$label" $timer $rc $(( ($(date +%s%N) - t0) / 1000000 ))
  done
  [ -n "$NCU" ] || return 0
  local units
  for units in "--print-units base" ""; do  # older ncu lacks --print-units: units are parsed
    t0=$(date +%s%N)
    rm -f "$work/$label-ncu.db"
    # ncu's own output goes to the CSV file; hone's JSON is not needed here.
    # shellcheck disable=SC2086
    timeout 300 "$NCU" --metrics gpu__time_duration.sum --cache-control all --clock-control none \
      --kernel-name 'regex:^(vector_add_flat|sgemm)$' --launch-skip 2 --launch-count 30 \
      --csv $units --log-file "$out/timers_${label}_ncu.csv" \
      "$HONE" tune "$cfg" --only "$key" "$@" --timer events --in-process --json --quiet \
      -o "$work/$label-ncu.db" --cache-dir "$cache" >/dev/null 2>"$out/timers_${label}_ncu.err"
    rc=$?
    printf '%-16s %-6s rc=%s %6d ms\n' "$label" ncu $rc $(( ($(date +%s%N) - t0) / 1000000 ))
    grep -q '"Metric Name"' "$out/timers_${label}_ncu.csv" 2>/dev/null && return 0
  done
  echo "  ncu gave no metric for $label:"
  tail -3 "$out/timers_${label}_ncu.csv" "$out/timers_${label}_ncu.err" 2>/dev/null | sed 's/^/    /'
}

for p in 10 12 14 16 18 20 22 24 26 28; do
  one "va_2^$p" $va "$va_key" --set N=$((1 << p))
done
for n in 1024 2048; do
  one "sgemm_$n" $sg "$sg_key" --set M=$n --set N=$n --set K=$n
done
rm -rf "$work"
python3 bench/summarize_measure.py "$out" timers
