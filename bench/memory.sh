#!/usr/bin/env bash
# Peak memory (max RSS) of `hone import`, `hone replay` and `hone report` against the size of
# their input, for the limit docs/limits.md states (at most 4 times the input plus a constant):
#   bench/memory.sh [OUT_DIR]        (default: build/bench/memory)
# Inputs: the largest shared brute-forced cache (../shared/spaces, inflated and gzipped, where
# present), a synthetic cache of 10^6 records of one parameter (44 MB) and one of 100,000
# records with 16 raw times each (bench/synthetic_space.py, 68 MB), and the databases their
# imports write (for report). Prints one line a command: input
# bytes, max RSS, and (RSS - constant) / input, the constant being the RSS of the same command
# on a one-record input.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
hone=${HONE:-$root/build/hone}
out=${1:-$root/build/bench/memory}
mkdir -p "$out"

rss_kib() {  # command...: its max RSS in KiB (output discarded; a failure stops the script)
  local log=$out/time.log
  /usr/bin/time -f "%M" -o "$log" "$@" > /dev/null
  tail -n 1 "$log"
}
report_line() {  # label, input file, rss KiB, constant KiB
  local bytes
  bytes=$(stat -L -c %s "$2")
  awk -v l="$1" -v b="$bytes" -v r="$3" -v c="$4" 'BEGIN {
    printf "%-34s input %8.1f MiB  max RSS %8.1f MiB  (RSS - %.0f MiB) / input = %.2f\n",
      l, b / 1048576, r / 1024, c / 1024, (r - c) * 1024 / b }'
}

# Inputs.
python3 - "$out/kt_1m.json" <<'EOF'
import sys
n = 1_000_000
with open(sys.argv[1], "w") as f:
    f.write('{"device_name": "GPU", "kernel_name": "k", "problem_size": [64],\n'
            '"tune_params_keys": ["x"], "tune_params": {"x": [')
    f.write(", ".join(map(str, range(n))))
    f.write(']},\n"cache": {\n')
    f.write(",\n".join(f'"{i}": {{"x": {i}, "time": {1 + i % 7}}}' for i in range(n)))
    f.write("}}\n")
EOF
[ -f "$out/synthetic_100k.json" ] ||
  python3 "$root/bench/synthetic_space.py" "$out/synthetic_100k.json" 100000
printf '%s\n' '{"device_name": "GPU", "kernel_name": "k", "tune_params_keys": ["x"],' \
  '"tune_params": {"x": [1, 2]}, "cache": {"1": {"x": 1, "time": 1.5}}}' > "$out/tiny.json"
inputs=("$out/kt_1m.json" "$out/synthetic_100k.json")
largest=$(ls -S "$root"/../shared/spaces/*.json.gz 2>/dev/null | head -n 1 || true)
if [ -n "$largest" ]; then
  cp "$largest" "$out/shared.json.gz"
  gzip -dc "$largest" > "$out/shared.json"
  inputs+=("$out/shared.json" "$out/shared.json.gz")
fi

# The constant: each command on a one-record cache.
rm -f "$out/tiny.db"
c_import=$(rss_kib "$hone" import "$out/tiny.json" -o "$out/tiny.db")
c_replay=$(rss_kib "$hone" replay "$out/tiny.json" --seeds 2 --max-evals 200 --strategy random)
c_report=$(rss_kib "$hone" report "$out/tiny.db" -o "$out/tiny.html")
echo "constants: import $((c_import / 1024)) MiB, replay $((c_replay / 1024)) MiB," \
  "report $((c_report / 1024)) MiB"

for f in "${inputs[@]}"; do
  name=$(basename "$f")
  db=$out/${name%%.*}.db
  rm -f "$db"
  # A gzipped input is measured against its inflated size (what the reader holds).
  measured=$f
  if [[ $f == *.gz ]]; then measured=${f%.gz}; fi
  report_line "import $name" "$measured" "$(rss_kib "$hone" import "$f" -o "$db")" "$c_import"
  report_line "replay $name" "$measured" \
    "$(rss_kib "$hone" replay "$f" --seeds 2 --max-evals 200 --strategy random)" "$c_replay"
  report_line "report ${name%%.*}.db" "$db" \
    "$(rss_kib "$hone" report "$db" -o "$out/report.html")" "$c_report"
done
