#!/usr/bin/env bash
# On a GPU machine (the device tool), from the repository root: the Python package's tests
# (GPU ones included) with the package that scripts/build_python_device.sh laid out in
# .carry/python, and with `bench` then bench/python.sh. Writes its logs to $OUT.
#   scripts/device_python.sh [bench]
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/hone-out}
mkdir -p "$OUT"
pkg=${HONE_PY_PACKAGE:-$PWD/.carry/python}
[ -d "$pkg/hone" ] || { echo "no $pkg/hone: run scripts/build_python_device.sh here first and carry .carry" >&2; exit 3; }
export PYTHONPATH=$pkg${PYTHONPATH:+:$PYTHONPATH}
# NVRTC for the module and hone-worker, wherever the toolkit keeps it (as device_session.sh).
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export HONE_CACHE_DIR=${HONE_CACHE_DIR:-/tmp/hone-py-cache}
py=${PYTHON:-python3}
echo "== $("$py" --version 2>&1) at $(command -v "$py")"
"$py" -c 'import hone, os; print("hone", hone.__version__, "from", os.path.dirname(hone.__file__))' || exit 1
"$py" -c 'import torch, cupy; print("torch", torch.__version__, "cupy", cupy.__version__, "GPUs", torch.cuda.device_count())'
echo "== pytest python/tests"
"$py" -m pytest -q -rs -p no:cacheprovider python/tests 2>&1 | tee "$OUT/pytest.log" | tail -40
rc=${PIPESTATUS[0]}
echo "== examples"
for ex in examples/python/torch_model.py examples/python/cupy_example.py; do
  [ -f "$ex" ] || continue
  echo "-- $ex"
  "$py" "$ex" > "$OUT/$(basename "$ex" .py).log" 2>&1 || { echo "FAILED: $ex"; rc=1; }
  tail -15 "$OUT/$(basename "$ex" .py).log"
done
if [ "${1:-}" = bench ]; then
  bash bench/python.sh 2>&1 | tee "$OUT/bench_python.log"
fi
exit "$rc"
