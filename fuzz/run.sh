#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang in build-fuzz/ and runs each for FUZZ_SECONDS
# (default 60) from a seed corpus. Exit code 1 if a harness crashed; the reproducer is left
# in build-fuzz/ (crash-*, leak-*, timeout-*).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-fuzz
seconds=${FUZZ_SECONDS:-60}

CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DHONE_FUZZ=ON -DBUILD_TESTING=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 --target fuzz_spec fuzz_expr fuzz_kt_cache fuzz_t4 fuzz_t1 fuzz_wisdom \
  fuzz_row

# run HARNESS SEED_DIR...: the corpus grows in build-fuzz/corpus/HARNESS across runs.
run() {
  local harness=$1
  shift
  local corpus=$build/corpus/$harness
  mkdir -p "$corpus"
  local log=$build/$harness.log
  local rc=0
  (cd "$build" && "./fuzz/$harness" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
     -print_final_stats=1 "$corpus" "$@") >"$log" 2>&1 || rc=$?
  local execs
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  if [ "$rc" -eq 0 ]; then
    echo "$harness: ${execs:-?} executions in ${seconds} s, no crash"
  else
    echo "$harness: CRASHED (exit $rc) after ${execs:-?} executions; log: $log"
    grep -m 5 -E 'ERROR|SUMMARY|Test unit written' "$log" || true
  fi
  return "$rc"
}

status=0
run fuzz_spec "$root/configs" "$root/tests/bad_inputs" || status=1
run fuzz_expr "$root/fuzz/expr_seeds" || status=1
run fuzz_kt_cache "$root/fuzz/seeds/kt_cache" || status=1
run fuzz_t4 "$root/fuzz/seeds/t4" || status=1
run fuzz_t1 "$root/fuzz/seeds/t1" || status=1
run fuzz_wisdom "$root/fuzz/seeds/wisdom" || status=1
run fuzz_row "$root/fuzz/seeds/row" || status=1
exit $status
