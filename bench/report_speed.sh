#!/usr/bin/env bash
# Times `hone import` and `hone report` on a synthetic space of 100,000 configurations
# (bench/synthetic_space.py) and on the shared brute-forced spaces when present:
#   bench/report_speed.sh [OUT_DIR]        (default: build/bench/report)
# Prints wall and CPU seconds of each step and the sizes of what they wrote.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
hone=$root/build/hone
out=${1:-$root/build/bench/report}
mkdir -p "$out"
timed() {  # label, command...: wall and CPU (user + sys) seconds
  local label=$1; shift
  /usr/bin/time -f "$label: wall %e s, CPU %U + %S s, max RSS %M KiB" "$@" > /dev/null
}
python3 "$root/bench/synthetic_space.py" "$out/synthetic.json" 100000
rm -f "$out/synthetic.db"
timed "import 100k" "$hone" import "$out/synthetic.json" -o "$out/synthetic.db"
for i in 1 2 3; do timed "report 100k (#$i)" "$hone" report "$out/synthetic.db" -o "$out/synthetic.html"; done
timed "export t4 100k" "$hone" export "$out/synthetic.db" --format t4 -o "$out/synthetic.t4.json"
timed "export kt-cache 100k" "$hone" export "$out/synthetic.db" --format kt-cache -o "$out/synthetic_cache.json"
timed "export csv 100k" "$hone" export "$out/synthetic.db" --format csv -o "$out/synthetic.csv"
for f in "$root"/../shared/spaces/*.json.gz "$root"/../../shared/spaces/*.json.gz; do
  [ -f "$f" ] || continue
  name=$(basename "$f" .json.gz)
  rm -f "$out/$name.db"
  timed "import $name" "$hone" import "$f" -o "$out/$name.db"
  timed "report $name" "$hone" report "$out/$name.db" -o "$out/$name.html"
done
ls -l "$out"/*.html "$out"/*.db "$out"/synthetic.* | awk '{print $5, $9}'
