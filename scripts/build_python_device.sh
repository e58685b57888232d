#!/usr/bin/env bash
# On the development machine: builds the Python package for the GPU machines' CPython (3.12,
# no package registry there) from that CPython's headers, and lays it out in .carry/python/hone
# (the module hone/_hone.abi3.so with libhone linked in, hone-worker, libyaml-cpp, the Python
# files), for scripts/device_python.sh there (PYTHONPATH=.carry/python).
#   scripts/build_python_device.sh [PYTHON_INCLUDE_DIR]
# PYTHON_INCLUDE_DIR: the headers of that CPython (a copy of its /usr/include/python3.12);
# default $HONE_PY_INCLUDE. A stable-ABI module needs the headers only, not the interpreter.
set -euo pipefail
cd "$(dirname "$0")/.."
inc=${1:-${HONE_PY_INCLUDE:-}}
[ -n "$inc" ] && [ -f "$inc/Python.h" ] || {
  echo "usage: $0 PYTHON_INCLUDE_DIR (a folder with the target CPython's Python.h)" >&2
  exit 2
}
build=${HONE_PY_BUILD:-build-py312}
incs=$(cd "$inc" && pwd)
# Debian and Ubuntu's pyconfig.h includes <x86_64-linux-gnu/python3.X/pyconfig.h>, which lies
# outside the python3.X folder: HONE_PY_MULTIARCH_INCLUDE is the folder that holds it (the target's
# /usr/include). Without it, this machine's own Python's pyconfig.h stands in: an abi3 module
# uses only the limited API, whose layouts pyconfig.h does not change between CPython versions on
# the same platform (type sizes, no debug build).
ver=$(sed -n 's/^#define PY_MINOR_VERSION[[:space:]]*\([0-9]*\).*/\1/p' "$inc/patchlevel.h")
if grep -q "x86_64-linux-gnu/python3.$ver/pyconfig.h" "$inc/pyconfig.h"; then
  multi=${HONE_PY_MULTIARCH_INCLUDE:-}
  if [ -z "$multi" ] || [ ! -f "$multi/x86_64-linux-gnu/python3.$ver/pyconfig.h" ]; then
    multi=$PWD/$build/pyconfig
    mkdir -p "$multi/x86_64-linux-gnu/python3.$ver"
    host=$(python3 -c 'import sysconfig; print(sysconfig.get_config_h_filename())')
    cp "$host" "$multi/x86_64-linux-gnu/python3.$ver/pyconfig.h"
    echo "note: no multiarch pyconfig.h for python3.$ver given (HONE_PY_MULTIARCH_INCLUDE): using $host" >&2
  fi
  incs="$incs;$(cd "$multi" && pwd)"
fi
# nanobind's CMake files and sources (version-independent) from a venv of this machine's Python.
venv=$build/venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -c 'import nanobind' 2>/dev/null || "$venv/bin/python" -m pip install -q nanobind
export PATH=/usr/local/cuda/bin:$PATH
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DHONE_PYTHON=ON \
  -DHONE_PYTHON_INCLUDE_DIR="$incs" -DHONE_PYTHON_HOST="$PWD/$venv/bin/python" \
  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCUDAToolkit_ROOT=/usr/local/cuda >/dev/null
nice cmake --build "$build" -j2 --target _hone hone-worker
dest=.carry/python/hone
rm -rf "$dest"
mkdir -p "$dest"
cmake --install "$build" --component python --prefix "$dest" >/dev/null
cp python/hone/*.py "$dest"/
strip --strip-unneeded "$dest"/_hone*.so "$dest"/hone-worker
ls -la "$dest"
du -sh .carry/python
