#!/bin/bash
# A GPU worker's start, step by step: vector_add_192 at 2^16, warm cache, no residents, on GPU 0
# and on every GPU, alternated three times, each command's timeline (HONE_TRACE=PATH: the
# workers' CUDA session, the range profiler's enable and first round, the run's phases) in
# OUT/tr_{one,all}_R.log, and a summary of those steps (RESULTS section 13, start costs).
#   bash bench/probes/worker_start.sh OUT [HONE]
set -uo pipefail
O=${1:?usage: worker_start.sh OUT [HONE]}
H=${2:-$PWD/.carry/hone}
C=$(mktemp -d)
mkdir -p "$O"
"$H" tune configs/vector_add_192.yaml --set N=65536 --dry-run --cache-dir "$C" -q >/dev/null 2>&1
"$H" workers --stop >/dev/null 2>&1
for r in 1 2 3; do
  for m in one all; do
    if [ $m = one ]; then d="--device 0"; else d="--devices all"; fi
    HONE_TRACE=$O/tr_${m}_$r.log "$H" tune configs/vector_add_192.yaml --set N=65536 $d \
      --cache-dir "$C" -o "$C/h.db" --fresh -q >/dev/null 2>"$O/err_${m}_$r.txt"
  done
done
python3 - "$O" <<'PY'
import glob, os, re, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "tr_*.log"))):
    marks = [l.split(None, 3) for l in open(f) if l.startswith("hone-trace")]
    t0 = float(marks[0][1])
    at = lambda what: [float(m[1]) - t0 for m in marks if re.search(what, m[3])]
    made, enabled, first = at("session made"), at("profiler enabled"), at("profiler's first round")
    prepared, ended = at("run: prepared"), at("run: search ended")
    print(f"{os.path.basename(f)}: wall {float(marks[-1][1]) - t0:.2f} s; session made "
          f"{max(made):.2f}, profiler enabled {max(enabled):.2f}, first round {max(first):.2f}, "
          f"run prepared {prepared[0]:.2f}, search ended {ended[0]:.2f} s (latest GPU's)")
PY
