#!/bin/bash
# Two builds of hone alternated three times on vector_add_192 at 2^16, warm cache, on GPU 1
# alone and on every GPU: wall, setup and GPU time (RESULTS section 13: GPU workers that see
# every GPU, a5cc36c, against workers that see their own, e929e19; a host of several GPUs).
#   HONE_NEW=.../bin/hone HONE_OLD=.../bin/hone bash bench/ab_start.sh
NEW=${HONE_NEW:-$PWD/.carry/prefix/bin/hone}
OLD=${HONE_OLD:-$PWD/.carry/prefix_prev/bin/hone}
C=$(mktemp -d)
$NEW tune configs/vector_add_192.yaml --set N=65536 --dry-run --cache-dir $C -q >/dev/null 2>&1
run() { local label=$1; shift; local t0=$(date +%s.%N)
  "$@" --cache-dir $C -o /tmp/h.db --fresh -q --json > /tmp/h.json 2>/tmp/h.err || { echo "$label failed"; cat /tmp/h.err | tail -3; }
  local t1=$(date +%s.%N)
  python3 - "$label" "$t0" "$t1" <<'PY'
import json,sys
r=json.load(open('/tmp/h.json')); r=r if isinstance(r,list) else [r]; x=r[0]
s=x['time']['setup']; d=sorted({y.get('device') for y in x['results']})
print(f"{sys.argv[1]:8s} wall {float(sys.argv[3])-float(sys.argv[2]):.2f} run {x['time']['wall_s']:.2f} setup {x['time']['setup_s']:.2f} prepare {s['prepare_s']:.2f} gpu {x['time']['gpu_s']:.2f} devices {d} ok {sum(1 for y in x['results'] if y['status'] in ('ok','not_converged'))} not_converged {sum(1 for y in x['results'] if y['status']=='not_converged')} slowest config {max(y['gpu_wall_s'] for y in x['results']):.2f} s")
PY
}
for r in 1 2 3; do
  run old1 $OLD tune configs/vector_add_192.yaml --set N=65536 --device 1
  run new1 $NEW tune configs/vector_add_192.yaml --set N=65536 --device 1
  run oldall $OLD tune configs/vector_add_192.yaml --set N=65536 --devices all
  run newall $NEW tune configs/vector_add_192.yaml --set N=65536 --devices all
done
