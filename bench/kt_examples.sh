#!/usr/bin/env bash
# Kernel Tuner 1.4.0's CUDA examples (its repository's examples/cuda), each run with Kernel Tuner
# and again with tune_kernel switched to hone.compat's, in one GPU call; the table goes to
# $OUT/kt_examples/kt_examples.md with one log per run (bench/kt_examples.py says how). Each
# compared script runs twice in one interpreter (--runs 2): run 1 from empty compile caches
# (hone's and CuPy's, one pair an example), run 2 warm. Below the table, where each of hone's
# calls spent its time (hone.trace's phases; HONE_TRACE=1 also prints them into the logs).
#
# Here (network: PyPI), once, into .carry/kt (ignored, carried):
#   bench/kt_examples.sh prepare KT_SOURCE
#     KT_SOURCE: a git clone of KernelTuner/kernel_tuner (its tag 1.4.0 is read) or a folder
#     holding examples/cuda. The examples are not in the PyPI sdist, so they come from there.
#     Also builds the wheels that the GPU machine lacks (it has no package registry): Kernel
#     Tuner 1.4.0 and what it imports (numpy, scipy and pandas are installed there; its optional
#     scikit-learn and pymoo, for strategies these examples do not use, are left out).
#   scripts/build_python_device.sh PY312_INCLUDE   (the hone package, .carry/python)
# On the GPU machine, with .carry carried:
#   bash bench/kt_examples.sh [--budget S] [--runs N] [--only NAME...]   (default 320 s, 2 runs)
# Without a GPU, a dry run checks every example's tune_kernel call against hone.compat:
#   bash bench/kt_examples.sh --dry-run
set -uo pipefail
cd "$(dirname "$0")/.."
kt=.carry/kt

if [ "${1:-}" = prepare ]; then
  set -e
  src=${2:?usage: $0 prepare KT_SOURCE (a kernel_tuner git clone, or a folder with examples/cuda)}
  rm -rf "$kt"
  mkdir -p "$kt/wheels" "$kt/examples"
  if git -C "$src" rev-parse -q --verify "refs/tags/1.4.0^{commit}" >/dev/null 2>&1; then
    git -C "$src" archive 1.4.0 examples/cuda | tar -x -C "$kt/examples" --strip-components=2
  elif [ -d "$src/examples/cuda" ]; then
    cp -r "$src/examples/cuda/." "$kt/examples/"
  else
    echo "$src: neither a kernel_tuner clone with tag 1.4.0 nor a folder with examples/cuda" >&2
    exit 2
  fi
  dl() { python3 -m pip download -q --python-version 3.12 --only-binary=:all: \
           --platform manylinux2014_x86_64 -d "$kt/wheels" "$@"; }
  dl --no-deps kernel_tuner==1.4.0
  dl "python-constraint2>=2.4.0" jsonschema xmltodict packaging
  ls "$kt/examples" | wc -l | sed 's/$/ example files/'
  du -sh "$kt"
  exit 0
fi

OUT=${OUT:-/tmp/hone-out}
out=$OUT/kt_examples
rm -rf "$out"
mkdir -p "$out"
if [ "${1:-}" = --dry-run ]; then
  # The interpreter given (PYTHON) must import kernel_tuner and hone already.
  exec "${PYTHON:-python3}" bench/kt_examples.py all --examples "$kt/examples" --out "$out" "$@"
fi
[ -d "$kt/examples" ] && ls "$kt"/wheels/kernel_tuner-1.4.0-*.whl >/dev/null 2>&1 || {
  echo "no $kt: run 'bench/kt_examples.sh prepare KT_SOURCE' on the development machine" >&2
  exit 3
}
pkg=${HONE_PY_PACKAGE:-$PWD/.carry/python}
[ -d "$pkg/hone" ] || python3 -c 'import hone' 2>/dev/null || {
  echo "no $pkg/hone: run scripts/build_python_device.sh on the development machine" >&2
  exit 3
}
[ -d "$pkg/hone" ] && export PYTHONPATH=$pkg${PYTHONPATH:+:$PYTHONPATH}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# bench/kt_examples.py gives each example's runs their own empty compile caches (hone's and
# CuPy's); this one is for anything else that compiles.
export HONE_CACHE_DIR=$(mktemp -d /tmp/hone-kt-cache.XXXXXX)
export HONE_TRACE=1
# Kernel Tuner over the machine's numpy, scipy, pandas, CuPy and torch; nothing is downloaded.
# The wheels are unpacked onto PYTHONPATH (a wheel is a zip of its installed files): no venv or
# pip needed, which a distribution's Python may lack or refuse.
py=${PYTHON:-python3}
site=$(mktemp -d /tmp/kt-site.XXXXXX)
for w in "$kt"/wheels/*.whl; do
  "$py" -m zipfile -e "$w" "$site" || { echo "unpacking $w failed" >&2; exit 3; }
done
export PYTHONPATH=$site${PYTHONPATH:+:$PYTHONPATH}
"$py" - <<'EOF' 2>&1 | tee "$out/environment.txt"
import importlib, platform
print("python", platform.python_version())
for m in ("kernel_tuner", "hone", "numpy", "scipy", "pandas", "cupy", "torch", "cuda.bindings",
          "pycuda", "jinja2", "pynvml", "ray"):
    try:
        mod = importlib.import_module(m)
        print(f"{m} {getattr(mod, '__version__', '?')}")
    except Exception as e:  # noqa: BLE001
        print(f"{m}: not importable ({type(e).__name__})")
EOF
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1 | tee -a "$out/environment.txt"
"$py" bench/kt_examples.py all --examples "$kt/examples" --out "$out" "$@"
rc=$?
rm -rf "$out/work" "$site" "$HONE_CACHE_DIR"
exit $rc
