#!/usr/bin/env bash
# Tunes tests/gpu/faults_all.yaml (healthy and faulty kernels mixed) in the isolated worker and
# prints fault -> status -> time lost, for the closing note and bench/RESULTS.md.
set -uo pipefail
out=${1:?usage: bench/faults.sh OUT_DIR}
B=${HONE_BIN_DIR:-$PWD/.carry}
db=$(mktemp -u).db
t0=$(date +%s%N)
"$B/hone" tune tests/gpu/faults_all.yaml --json --quiet --no-cache -o "$db" >"$out/faults.json" 2>"$out/faults.err"
rc=$?
echo "faults run: rc=$rc wall $(( ($(date +%s%N) - t0) / 1000000 )) ms"
python3 - "$out/faults.json" <<'PY'
import json, sys
names = {0: "healthy", 1: "out-of-bounds write", 2: "assert(false)", 3: "__trap()", 4: "infinite loop",
         5: "misaligned float4", 6: "wrong by 1e-3", 7: "writes NaN", 8: "leaves output unwritten",
         9: "too many registers for 1024 threads", 10: "shared memory past the limit",
         99: "does not compile"}
run = json.load(open(sys.argv[1]))
def lost(r):  # GPU-side wall time of the configuration, including a worker restart if any
    return r.get("gpu_wall_s") or (r.get("timing") or {}).get("wall_s") or 0.0
print(f"| MODE | fault | BLOCK | status | time lost s | message |")
print("|---|---|---|---|---|---|")
for r in sorted(run["results"], key=lambda r: (r["params"]["MODE"], r["params"]["BLOCK"])):
    m = r["params"]["MODE"]
    msg = (r["message"] or "").replace("|", "/").replace("\n", " ")[:90]
    print(f"| {m} | {names.get(m, '?')} | {r['params']['BLOCK']} | {r['status']} | {lost(r):.3f} | {msg} |")
print(f"\nwall {run['time']['wall_s']:.2f} s, best {run['best']}")
PY
