#!/usr/bin/env bash
# ./dev check-all: `hone check` of every shipped config with every configuration compiled, where
# CI (tests/CMakeLists.txt) compiles a fixed sample of the large spaces. Hours of CPU on a
# two-core machine; minutes on a large one (-j: one compile worker per core).
#   scripts/check_all.sh [CONFIG...]   default: configs/*.yaml
# Exit code 1 if any configuration of any config fails to compile.
set -euo pipefail
cd "$(dirname "$0")/.."
hone=${HONE:-build/hone}
# sgemm_large's 137,088 valid configurations would take days even here: a sample 20 times CI's.
declare -A extra=([sgemm_large]="--sample 400 --seed 1")
configs=("$@")
((${#configs[@]})) || configs=(configs/*.yaml)
status=0
for cfg in "${configs[@]}"; do
  name=$(basename "$cfg" .yaml)
  # shellcheck disable=SC2086  # the extra arguments are words
  "$hone" check "$cfg" --arch sm_90 --failures-only ${extra[$name]:-} || status=1
done
exit $status
