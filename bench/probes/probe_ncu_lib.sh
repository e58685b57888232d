# Sourced by the bench/probes/probe_*.sh scripts that set bench/probes/probe_profiler.cu beside Nsight Compute.
#   probe_setup NAME                      B (the binaries), NCU, out=$OUT/NAME; prints the GPU
#   ncu_probe FILE CACHE_CONTROL [ENV..]  ncu's gpu__time_duration of the float4 probe (30 timed
#                                         launches a size), medians by size; SIZES lines (default 3)
#   profiler_probe [ENV..]                the probe's own range profiler, the 2^14-2^18 lines
probe_setup() {
  B=${HONE_BIN_DIR:-.carry}  # probe_profiler: bench/build.sh .carry (scripts/carry.sh runs it)
  NCU=${NCU:-$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | tail -1)}
  out=${OUT:-/tmp}/$1
  mkdir -p "$out"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
}
probe_lib_dir=$(dirname "${BASH_SOURCE[0]}")
ncu_probe() {
  local f=$1 cc=$2
  shift 2
  env PROBE_VEC4=1 "$@" "$NCU" --metrics gpu__time_duration.sum --cache-control "$cc" \
    --clock-control none --kernel-name regex:probe_vadd --csv --print-units base \
    "$B/probe_profiler" plain 30 >"$f.csv" 2>"$f.err"
  python3 "$probe_lib_dir/ncu_parse.py" "$f.csv" | sed -n "1,${SIZES:-3}p"
}
profiler_probe() {
  env PROBE_VEC4=1 "$@" "$B/probe_profiler" profiler 30 2>&1 | grep -E "${PROBE_LINES:-N=2\^(14|16|18) |rror}"
}
