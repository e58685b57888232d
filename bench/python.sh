#!/usr/bin/env bash
# On the GPU machine: the Python package's benchmark (bench/python_bench.py): launch overhead of
# hone.Kernel on torch tensors against CuPy's RawKernel, and hone.tune against the CLI.
# Uses the package of .carry/python (scripts/build_python_device.sh) unless hone imports as is.
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-python3}
"$py" -c 'import hone' 2>/dev/null || export PYTHONPATH=$PWD/.carry/python${PYTHONPATH:+:$PYTHONPATH}
export HONE_CACHE_DIR=${HONE_CACHE_DIR:-/tmp/hone-py-cache}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1
exec "$py" bench/python_bench.py "$@"
