#!/usr/bin/env bash
# One tuning run over 1, 2 and 4 GPUs of this machine (as many as it has), same machine, same
# call: wall times and speed-ups of three workloads, then faults on every GPU and a GPU worker
# killed mid-run (docs/multi-gpu.md).
#   bench/multi_gpu.sh OUT_DIR
# (a) configs/sgemm_large_subset.yaml, exhaustive, with a warm compile cache (a first run
#     warms it); (b) configs/vector_add_192.yaml at ten problem sizes in one command; (c)
#     configs/sgemm_large.yaml with strategy auto and $MG_C_EVALS evaluations: time to reach
#     95% of the best the 1-GPU run found (each g with a compile cache of its own, filled by
#     an untimed run of the same search first).
# Knobs (defaults sized for ~6 min on a 4-GPU H100 machine): MG_GPUS="1 2 4", MG_A_EVALS=0
# (0 = all 2,064), MG_SIZES=10, MG_C_EVALS=500, MG_C_SEEDS="1" (the search seeds of (c), each
# timed on every GPU count; a median over them), MG_STEPS="a b c faults kill", MG_KEEP=S (the
# timed runs of (b) and (c) with `--keep-workers S`, after an untimed run that starts the
# resident workers on every GPU; `hone workers --stop` at the end).
set -uo pipefail
out=${1:?usage: bench/multi_gpu.sh OUT_DIR}
mkdir -p "$out"
B=${HONE_BIN_DIR:-$PWD/.carry}
H="$B/hone"
work=$(mktemp -d)
G=$("$H" devices --json 2>/dev/null | python3 -c "import json,sys; print(len(json.load(sys.stdin)))" 2>/dev/null || echo 0)
[ "$G" -gt 0 ] || G=$(nvidia-smi -L 2>/dev/null | wc -l)
echo "GPUs on this machine: $G"
[ "$G" -ge 1 ] || { echo "no GPU: nothing to measure"; exit 0; }
gpus=()
for g in ${MG_GPUS:-1 2 4}; do [ "$g" -le "$G" ] && gpus+=("$g"); done
devs() { seq -s, 0 $(($1 - 1)); }  # devs 4 -> 0,1,2,3
steps=" ${MG_STEPS:-a b c faults kill} "
keep=()
if [ -n "${MG_KEEP:-}" ]; then
  keep=(--keep-workers "$MG_KEEP")
  "$H" tune configs/vector_add_192.yaml --set N=65536 --devices all "${keep[@]}" -o "$work/keep.db" -q >/dev/null 2>&1
  "$H" workers
fi
table="$out/multi_gpu_table.md"
echo "| workload | GPUs | wall s | speed-up | note |" >"$table"
echo "|---|---|---|---|---|" >>"$table"

# timed LABEL CMD...: runs CMD, records its wall time (s) in $work/LABEL.wall and its start
# (Unix seconds) in $work/LABEL.start; stdout to $out/LABEL.json, stderr to $out/LABEL.err.
timed() {
  local label=$1
  shift
  python3 - "$work/$label" "$out/$label" "$@" <<'PY'
import subprocess, sys, time
w, o, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
t0 = time.time()
with open(o + ".json", "w") as so, open(o + ".err", "w") as se:
    rc = subprocess.call(cmd, stdout=so, stderr=se)
t1 = time.time()
open(w + ".start", "w").write(repr(t0))
open(w + ".wall", "w").write(repr(t1 - t0))
print(f"  {' '.join(cmd[1:6])} ... rc={rc} wall {t1 - t0:.2f} s")
PY
}
row() {  # row WORKLOAD LABEL_1GPU LABEL G NOTE
  python3 - "$work" "$@" >>"$table" <<'PY'
import sys
w, workload, base, label, g, note = sys.argv[1:7]
t1 = float(open(f"{w}/{base}.wall").read()); t = float(open(f"{w}/{label}.wall").read())
print(f"| {workload} | {g} | {t:.2f} | {t1 / t:.2f}x | {note} |")
PY
}

if [[ $steps == *" a "* ]]; then
  echo "== (a) sgemm_large_subset exhaustive, warm compile cache"
  cache=$work/cache-a
  evals=()
  [ "${MG_A_EVALS:-0}" -gt 0 ] && evals=(--max-evals "$MG_A_EVALS")
  # --dry-run compiles every configuration into the cache and measures nothing.
  timed a_warm "$H" tune configs/sgemm_large_subset.yaml --dry-run --cache-dir "$cache" -q
  for g in "${gpus[@]}"; do
    timed a_g$g "$H" tune configs/sgemm_large_subset.yaml --devices "$(devs $g)" -o "$work/a_g$g.db" --fresh --cache-dir "$cache" -q --json "${evals[@]}"
    note=$(python3 -c "
import json,sys
r=json.load(open('$out/a_g$g.json')); f=r.get('final_word') or {}
best=min((x['timing']['median_us'] for x in r['results'] if x.get('timing')), default=0)
print(f\"{r['evaluated']} evaluated; best {best:.1f} us; winner {f.get('winner') or r['best']}; GPU/GPU median ratio {(f.get('agreement') or {}).get('median_ratio', '-')}\")" 2>/dev/null)
    row "(a) sgemm_large_subset" a_g1 a_g$g "$g" "$note"
  done
fi

if [[ $steps == *" b "* ]]; then
  n=${MG_SIZES:-10}
  sizes=$(python3 -c "print(','.join(str(65536 << k) for k in range($n)))")
  echo "== (b) vector_add_192 at $n sizes ($sizes) in one command"
  # Every size's kernels compiled first (sizes reach the kernel as defines), so that no
  # GPU count's run pays compiles that another's left in the cache.
  "$H" tune configs/vector_add_192.yaml --set "N=$sizes" --dry-run --cache-dir "$work/cache-b" -q >/dev/null 2>&1
  for g in "${gpus[@]}"; do
    timed b_g$g "$H" tune configs/vector_add_192.yaml --set "N=$sizes" --devices "$(devs $g)" -o "$work/b_g$g.db" --fresh --cache-dir "$work/cache-b" -q --json "${keep[@]}"
    note=$(python3 -c "
import json
r=json.load(open('$out/b_g$g.json')); r=r if isinstance(r,list) else [r]
print(f\"{len(r)} runs, {sum(x['evaluated'] for x in r)} evaluated\")" 2>/dev/null)
    row "(b) vector_add x$n sizes" b_g1 b_g$g "$g" "$note"
    # With HONE_TRACE=1: where the command's time went (bench/probes/trace_gaps.py).
    [ -n "${HONE_TRACE:-}" ] && python3 bench/probes/trace_gaps.py "$out/b_g$g.err" "$(cat "$work/b_g$g.start")" "$(cat "$work/b_g$g.wall")"
  done
  "$H" export "$work/b_g${gpus[-1]}.db" --wisdom "$out/b_wisdom.json" >/dev/null 2>&1 &&
    echo "  wisdom of the last run: $(python3 -c "import json; print(len(json.load(open('$out/b_wisdom.json'))['entries']), 'entries')")"
fi

if [[ $steps == *" c "* ]]; then
  echo "== (c) sgemm_large, strategy auto, ${MG_C_EVALS:-500} evaluations: time to 95% of the 1-GPU best (seeds ${MG_C_SEEDS:-1})"
  cfg=configs/.multi_gpu_sgemm_large_auto.yaml  # beside the original: its paths stay valid
  for seed in ${MG_C_SEEDS:-1}; do
    sed -E -e 's/^(  strategy: ).*/\1auto/' -e "s/^(  seed: ).*/\1$seed/" configs/sgemm_large.yaml >"$cfg"
    for g in "${gpus[@]}"; do
      # A first run fills this g's compile cache with what its search proposes; the timed run
      # (the same search, --fresh) then mostly measures, as in (a): with a cold cache the
      # compiles, not the GPUs, set the pace, and they run on the same CPUs whatever g is.
      "$H" tune "$cfg" --devices "$(devs $g)" -o "$work/c_warm$seed-$g.db" --cache-dir "$work/cache-c$seed-$g" --max-evals "${MG_C_EVALS:-500}" -q "${keep[@]}" >/dev/null 2>&1
      timed c_s${seed}_g$g "$H" tune "$cfg" --devices "$(devs $g)" -o "$work/c_s${seed}_g$g.db" --fresh --cache-dir "$work/cache-c$seed-$g" --max-evals "${MG_C_EVALS:-500}" -q --json "${keep[@]}"
    done
  done
  rm -f "$cfg"
  python3 - "$work" "$out" "${MG_C_SEEDS:-1}" "${gpus[@]}" >>"$table" <<'PY'
import json, statistics, sys
from datetime import datetime, timezone
w, o, seeds, gs = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4:]
def trace(s, g):
    r = json.load(open(f"{o}/c_s{s}_g{g}.json"))
    start = float(open(f"{w}/c_s{s}_g{g}.start").read())
    pts = []
    for x in r["results"]:
        t = (x.get("timing") or {}).get("median_us")
        if not t or not x.get("created_at"): continue
        at = datetime.strptime(x["created_at"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc).timestamp()
        pts.append((at - start, t))
    return sorted(pts)
fmt = lambda x: "-" if x is None else f"{x:.2f}"
ratios = {g: [] for g in gs}
for s in seeds:
    best1 = min(t for _, t in trace(s, gs[0]))
    def reach(g, share):  # seconds from the start until the best is within `share` of best1
        best = float("inf")
        for at, t in trace(s, g):
            best = min(best, t)
            if best <= best1 / share:
                return at
        return None
    b95, b100 = reach(gs[0], 0.95), reach(gs[0], 1.0)
    for g in gs:
        t95, t100 = reach(g, 0.95), reach(g, 1.0)
        bg = min(t for _, t in trace(s, g))
        wall = float(open(f"{w}/c_s{s}_g{g}.wall").read())
        sp = f"{b95 / t95:.2f}x" if t95 and b95 else "-"
        if t95 and b95: ratios[g].append(b95 / t95)
        sp100 = f"{b100 / t100:.2f}x" if t100 and b100 else "-"
        print(f"| (c) sgemm_large auto seed {s}, to 95% of 1-GPU best | {g} | {fmt(t95)} (wall {wall:.1f}) | {sp} | "
              f"to the 1-GPU best itself {fmt(t100)} s ({sp100}); best {bg:.1f} us vs 1-GPU {best1:.1f} us |")
for g in gs[1:]:
    if ratios[g]:
        print(f"| (c) median over {len(ratios[g])} seeds | {g} | | {statistics.median(ratios[g]):.2f}x | |")
PY
fi
echo
cat "$table"

if [[ $steps == *" faults "* ]]; then
  echo "== faults: configs/faults.yaml on 1 GPU and on all $G"
  "$H" tune configs/faults.yaml --device 0 -o "$work/f1.db" --fresh -q --json >"$out/faults_g1.json" 2>"$out/faults_g1.err"
  "$H" tune configs/faults.yaml --devices all -o "$work/fall.db" --fresh -q --json >"$out/faults_all.json" 2>"$out/faults_all.err"
  echo "  rc=$?"
  python3 - "$out" <<'PY'
import json, sys
o = sys.argv[1]
one = {x["key"]: x["status"] for x in json.load(open(f"{o}/faults_g1.json"))["results"]}
r = json.load(open(f"{o}/faults_all.json"))
allg = {x["key"]: x["status"] for x in r["results"]}
by = {}
for x in r["results"]:
    by[x.get("device")] = by.get(x.get("device"), 0) + 1
diff = [k for k in one if one[k] != allg.get(k)]
st = {}
for s in allg.values(): st[s] = st.get(s, 0) + 1
print(f"  all GPUs: {len(allg)} results {st}; per GPU {by}; dropped {r.get('dropped')}")
print(f"  statuses differing from the 1-GPU run: {len(diff)} {[(k, one[k], allg.get(k)) for k in diff]}")
PY
fi

if [[ $steps == *" kill "* ]]; then
  echo "== kill -9 of one GPU worker mid-run (vector_add, no cache, --devices all)"
  db=$work/kill.db
  cmd=("$H" tune configs/vector_add.yaml --set N=1048576 --devices all --no-cache -o "$db" --fresh -q --json)
  t0=$(date +%s.%N)
  "${cmd[@]}" >/dev/null 2>&1
  whole=$(python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$t0" "$(date +%s.%N)")
  echo "  one whole run: $whole s"
  "${cmd[@]}" >"$out/kill_one_worker.json" 2>"$out/kill_one_worker.err" &
  pid=$!
  sleep "$(python3 -c "print(round($whole * 0.5, 2))")"
  killed=""
  for st in /proc/[0-9]*/stat; do  # children of the tuner with a GPU open: its GPU workers
    read -r cpid _ _ ppid _ <"$st" 2>/dev/null || continue
    [ "$ppid" = "$pid" ] || continue
    if ls -l /proc/$cpid/fd 2>/dev/null | grep -q nvidia; then kill -9 "$cpid"; killed=$cpid; break; fi
  done
  [ -n "$killed" ] && echo "  killed GPU worker $killed" || echo "  MISSED: no GPU worker found (the run had ended?)"
  wait $pid
  echo "  tuner rc=$? (0 expected)"
  python3 - "$out/kill_one_worker.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
st = {}
for x in r["results"]: st[x["status"]] = st.get(x["status"], 0) + 1
print(f"  {len(r['results'])} results (576 expected) {st}; dropped {r.get('dropped')}; final word {bool(r.get('final_word'))}")
for x in r["results"]:
    if x["status"] != "ok": print("   ", x["key"], "GPU", x.get("device"), "->", x["message"][:100])
PY
fi
[ -n "${MG_KEEP:-}" ] && "$H" workers --stop
rm -rf "$work"
