#!/usr/bin/env bash
# On the GPU machine: tune() inside a CUDA application. Runs examples/tune_in_app (built on the
# development machine against the installed hone by scripts/carry_install.sh) with the carried
# install: libhone.so from .carry/prefix/lib, hone-worker found beside it (../bin), on the fault
# kernel's space (configs/faults.yaml), then on tests/gpu/faults_all.yaml (adds the
# configurations that never run or never compile).
#   bench/tune_in_app.sh OUT_DIR
set -uo pipefail
out=${1:?usage: bench/tune_in_app.sh OUT_DIR}
prefix=${HONE_PREFIX:-$PWD/.carry/prefix}
app=${HONE_EXAMPLES:-$PWD/.carry/examples}/tune_in_app
if [ ! -x "$app" ] || [ ! -f "$prefix/lib/libhone.so" ]; then
  echo "tune_in_app: $app or $prefix/lib/libhone.so missing (run scripts/carry_install.sh here first)"
  exit 1
fi
export LD_LIBRARY_PATH=$prefix/lib:/usr/local/cuda/lib64:/usr/local/cuda/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset HONE_WORKER  # finding the installed hone-worker beside libhone is part of the test
echo "libhone: $(ldd "$app" | grep -o 'libhone[^ ]* => [^ ]*')"
missing=$(ldd "$prefix/lib/libhone.so" | grep "not found")
[ -n "$missing" ] && echo "libhone.so lacks: $missing"
status=0
for cfg in configs/faults.yaml tests/gpu/faults_all.yaml; do
  name=$(basename "$cfg" .yaml)
  t0=$(date +%s%N)
  "$app" "$cfg" "$out/tune_in_app_$name.db" >"$out/tune_in_app_$name.log" 2>&1
  rc=$?
  echo "tune_in_app $cfg: rc=$rc wall $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  cat "$out/tune_in_app_$name.log"
  [ $rc -eq 0 ] || status=1
done
exit $status
