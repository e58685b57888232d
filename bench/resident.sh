#!/bin/bash
# Resident GPU workers (`hone tune --keep-workers`) against workers started by each command:
# vector_add_192 at 2^16, warm compile cache, on GPU 0 alone and on every GPU, three runs each
# without residents, with them, and without again (RESULTS section 13). Prints each run's wall,
# its setup and GPU time, and the timer it used.
#   bash bench/resident.sh            (HONE=path/to/hone; KEEP=idle seconds, default 300)
H=${HONE:-$PWD/.carry/hone}
K=${KEEP:-300}
C=$(mktemp -d)
$H tune configs/vector_add_192.yaml --set N=65536 --dry-run --cache-dir $C -q >/dev/null 2>&1
run() { local label=$1; shift; local t0=$(date +%s.%N)
  "$@" --cache-dir $C -o $C/h.db --fresh -q --json > $C/h.json 2>$C/h.err || { echo "$label failed"; tail -3 $C/h.err; }
  local t1=$(date +%s.%N)
  python3 - "$label" "$t0" "$t1" "$C/h.json" <<'PY'
import json,sys
r=json.load(open(sys.argv[4])); r=r if isinstance(r,list) else [r]; x=r[0]
d=sorted({y.get('device') for y in x['results']})
nc=sum(1 for y in x['results'] if y['status']=='not_converged')
t=x['time']['setup'].get('timer','?')
print(f"{sys.argv[1]:8s} timer {t} wall {float(sys.argv[3])-float(sys.argv[2]):.2f} run {x['time']['wall_s']:.2f} setup {x['time']['setup_s']:.2f} gpu {x['time']['gpu_s']:.2f} devices {d} not_converged {nc} slowest config {max(y['gpu_wall_s'] for y in x['results']):.2f} s")
PY
}
# An idle resident holds its GPU's performance counters, so that another process there times
# with events: the runs without residents come first and last, with none left running.
$H workers --stop >/dev/null
for r in 1 2 3; do
  run cold1 $H tune configs/vector_add_192.yaml --set N=65536 --device 0
  run coldall $H tune configs/vector_add_192.yaml --set N=65536 --devices all
done
# The residents' first start, untimed: what a first command pays, as without them.
run start $H tune configs/vector_add_192.yaml --set N=65536 --devices all --keep-workers $K
$H workers
for r in 1 2 3; do
  run kept1 $H tune configs/vector_add_192.yaml --set N=65536 --device 0 --keep-workers $K
  run keptall $H tune configs/vector_add_192.yaml --set N=65536 --devices all --keep-workers $K
done
$H workers --stop
for r in 1 2 3; do
  run cold1 $H tune configs/vector_add_192.yaml --set N=65536 --device 0
  run coldall $H tune configs/vector_add_192.yaml --set N=65536 --devices all
done
$H workers --stop
rm -rf $C
