#!/usr/bin/env bash
# Compiling ahead (docs/strategies.md, "Compiling ahead") against not
# (HONE_COMPILE_AHEAD=0), alternated in one call: configs/sgemm_large.yaml with strategy auto
# and 500 evaluations, each run with an empty compile cache of its own, on one GPU and on every
# GPU of the machine. Per run: wall time, the time to reach 95% of the best the one-GPU run of
# the same seed and setting found, compiles ahead and used; then the medians.
#   bench/compile_ahead.sh OUT_DIR      (CA_SEEDS="1 2", CA_EVALS=500, CA_GPUS="1 N")
set -uo pipefail
out=${1:?usage: bench/compile_ahead.sh OUT_DIR}
mkdir -p "$out"
B=${HONE_BIN_DIR:-$PWD/.carry}
H="$B/hone"
G=$(nvidia-smi -L 2>/dev/null | wc -l)
[ "$G" -ge 1 ] || { echo "no GPU: nothing to measure"; exit 0; }
work=$(mktemp -d)
trap 'rm -rf "$work" configs/.compile_ahead_*.yaml' EXIT
gpus=${CA_GPUS:-$( ((G > 1)) && echo "1 $G" || echo 1)}
for seed in ${CA_SEEDS:-1 2}; do
  cfg=configs/.compile_ahead_$seed.yaml  # beside the original: its paths stay valid
  sed -E -e 's/^(  strategy: ).*/\1auto/' -e "s/^(  seed: ).*/\1$seed/" configs/sgemm_large.yaml >"$cfg"
  # The order of the settings alternates from seed to seed.
  modes=$( ((seed % 2)) && echo "1 0" || echo "0 1")
  for g in $gpus; do
    for m in $modes; do
      label=s${seed}_g${g}_a$m
      t0=$(date +%s.%N)
      HONE_COMPILE_AHEAD=$m "$H" tune "$cfg" --devices "$(seq -s, 0 $((g - 1)))" -o "$work/$label.db" \
        --fresh --cache-dir "$work/cache-$label" --max-evals "${CA_EVALS:-500}" -q --json \
        >"$out/$label.json" 2>"$out/$label.err"
      rc=$?
      echo "$t0" >"$out/$label.start"
      echo "  seed $seed, $g GPU(s), ahead $m: rc $rc, $(python3 -c "print(round($(date +%s.%N) - $t0, 2))") s"
    done
  done
done
python3 - "$work" "$out" "${CA_SEEDS:-1 2}" $gpus <<'PY'
import json, statistics, sys
from datetime import datetime, timezone
w, o, seeds, gs = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4:]
def load(label):
    r = json.load(open(f"{o}/{label}.json"))
    start = float(open(f"{o}/{label}.start").read())
    pts = []
    for x in r["results"]:
        t = (x.get("timing") or {}).get("median_us")
        if t and x.get("created_at"):
            at = datetime.strptime(x["created_at"], "%Y-%m-%dT%H:%M:%S.%fZ")
            pts.append((at.replace(tzinfo=timezone.utc).timestamp() - start, t))
    return r, sorted(pts)
def reach(pts, target):
    best = float("inf")
    for at, t in pts:
        best = min(best, t)
        if best <= target:
            return at
    return None
print("| seed | GPUs | ahead | wall s | to 95% of the 1-GPU best s | best us | compiled ahead, used | waiting for compiles s |")
print("|---|---|---|---|---|---|---|---|")
med = {}
for s in seeds:
    for m in ("0", "1"):
        _, one = load(f"s{s}_g{gs[0]}_a{m}")
        target = min(t for _, t in one) / 0.95
        for g in gs:
            r, pts = load(f"s{s}_g{g}_a{m}")
            tm = r["time"]
            t95 = reach(pts, target)
            med.setdefault((g, m), []).append((tm["wall_s"], t95))
            print(f"| {s} | {g} | {m} | {tm['wall_s']:.2f} | {t95 if t95 is None else round(t95, 2)} | "
                  f"{min(t for _, t in pts):.1f} | {tm.get('compiled_ahead', 0)}, {tm.get('ahead_used', 0)} | "
                  f"{tm['compile_wait_s']:.2f} |")
print()
print("| GPUs | ahead | median wall s | median to 95% s |")
print("|---|---|---|---|")
for (g, m), v in sorted(med.items()):
    t95 = [t for _, t in v if t is not None]
    print(f"| {g} | {m} | {statistics.median(x for x, _ in v):.2f} | "
          f"{statistics.median(t95) if t95 else float('nan'):.2f} |")
PY
