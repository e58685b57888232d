#!/bin/bash
# Where a small run's time goes on one GPU and on all of a host's: vector_add_192 at 2^16, warm
# cache, each three times, the time split of `hone tune` (setup, GPU work, final word), and the
# parent's own CUDA start (`hone devices`).
#   bash bench/probes/mg_split.sh [HONE]
H=${1:-$PWD/.carry/prefix/bin/hone}
C=$(mktemp -d)
"$H" tune configs/vector_add_192.yaml --set N=65536 --dry-run --cache-dir "$C" -q >/dev/null 2>&1
for r in 1 2 3; do
  for d in "--device 0" "--devices all"; do
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    "$H" tune configs/vector_add_192.yaml --set N=65536 $d --cache-dir "$C" -o /tmp/mg.db --fresh -q > /tmp/mg.txt 2>&1
    t1=$(date +%s.%N)
    echo "== $d: wall $(python3 -c "print(f'{$t1-$t0:.2f}')") s"
    grep -E '^ *(time:|setup:|GPU work:|samples timed)' /tmp/mg.txt
  done
  t0=$(date +%s.%N); "$H" devices >/dev/null 2>&1; t1=$(date +%s.%N)
  echo "== hone devices: $(python3 -c "print(f'{$t1-$t0:.2f}')") s"
done
