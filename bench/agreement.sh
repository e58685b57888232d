#!/usr/bin/env bash
# Do two warm runs agree? configs/vector_add_192.yaml at N = 2^16 and 2^24, each timer twice on
# GPU 0 with a warm compile cache: the per-configuration ratio of medians (second / first), its
# median and the 5th-95th percentiles, whether the first run's best is the second's (its rank
# there), and each run's wall time. On the GPU machine:
#   bench/agreement.sh OUT_DIR        (TIMERS="events profiler", SIZES="65536 16777216")
set -uo pipefail
out=${1:?usage: bench/agreement.sh OUT_DIR}
mkdir -p "$out"
B=${HONE_BIN_DIR:-$PWD/.carry}
H=${HONE:-$B/hone}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cfg=configs/vector_add_192.yaml
"$H" tune "$cfg" --dry-run --quiet --cache-dir "$work/cache" >/dev/null 2>&1
echo "| N | timer | wall s (run 1, run 2) | median ratio 2/1 | 5-95% of ratios | run 1's best ranks in run 2 |"
echo "|---|---|---|---|---|---|"
for n in ${SIZES:-65536 16777216}; do
  for timer in ${TIMERS:-events profiler}; do
    for k in 1 2; do
      t0=$(date +%s%N)
      "$H" tune "$cfg" --set N=$n --timer "$timer" --device 0 --cache-dir "$work/cache" --fresh \
        -o "$work/$n-$timer-$k.db" --json -q >"$out/agree_${n}_${timer}_$k.json" 2>"$out/agree_${n}_${timer}_$k.err"
      echo $(( ($(date +%s%N) - t0) / 1000000 )) >"$work/$n-$timer-$k.ms"
    done
    python3 - "$out/agree_${n}_${timer}_1.json" "$out/agree_${n}_${timer}_2.json" \
      "$(cat "$work/$n-$timer-1.ms")" "$(cat "$work/$n-$timer-2.ms")" "$n" "$timer" <<'PY'
import json, statistics, sys
a, b, ms1, ms2, n, timer = sys.argv[1:7]
def load(p):
    try:
        r = json.load(open(p))
    except Exception as e:
        return None
    return {x["key"]: x["timing"]["median_us"] for x in r["results"] if x.get("timing")}
x, y = load(a), load(b)
if not x or not y:
    print(f"| {n} | {timer} | {int(ms1)/1e3:.2f}, {int(ms2)/1e3:.2f} | (a run failed: see agree_*.err) | | |")
    sys.exit()
ks = sorted(set(x) & set(y))
r = sorted(y[k] / x[k] for k in ks)
q = lambda p: r[min(len(r) - 1, int(p * len(r)))]
best = min(x, key=x.get)
rank = sorted(y, key=y.get).index(best) + 1 if best in y else "-"
print(f"| {n} | {timer} | {int(ms1)/1e3:.2f}, {int(ms2)/1e3:.2f} | {statistics.median(r):.4f} | "
      f"{q(0.05):.4f}-{q(0.95):.4f} | #{rank} of {len(ks)} |")
PY
  done
done
