#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang in build-fuzz/ and runs each from a seed corpus.
# Time: FUZZ_BUDGET seconds of fuzzing in all (default 60), shared equally by the harnesses (at
# least 5 s each); FUZZ_SECONDS, when set, gives each harness that many seconds instead. The
# harnesses run FUZZ_JOBS at a time (default: one a core), each on a core of its own, so that
# the wall time is the budget divided by the cores. Exit code 1 if a harness crashed; the
# reproducer is left in build-fuzz/ (crash-*, leak-*, timeout-*).
#   fuzz/run.sh [--build-only | --no-build]   (./dev test builds beside ctest, then fuzzes)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-fuzz
step=${1:-all}
case $step in
  all | --build-only | --no-build) ;;
  *) echo "usage: fuzz/run.sh [--build-only | --no-build]" >&2; exit 2 ;;
esac

# -O1 and line tables only: the sanitizers' reports keep their file:line, and the build costs
# about half of -O2 -g's.
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=$root
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
if [ "$step" != --no-build ]; then
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DHONE_FUZZ=ON -DBUILD_TESTING=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" \
    "${launcher[@]}" >/dev/null
  cmake --build "$build" -j2 --target fuzzers
fi
[ "$step" = --build-only ] && exit 0

# run HARNESS SEED_DIR...: queues a harness; run_queued runs them all once every one is known,
# so that the budget is shared among however many there are.
queued=()
run() {
  queued+=("$*")
}

# fuzz HARNESS SECONDS SEED_DIR...: the corpus grows in build-fuzz/corpus/HARNESS across runs.
fuzz() {
  local harness=$1 seconds=$2
  shift 2
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

run_queued() {
  local n=${#queued[@]} seconds status=0 jobs=${FUZZ_JOBS:-$(nproc)}
  if [ -n "${FUZZ_SECONDS:-}" ]; then
    seconds=$FUZZ_SECONDS
  else
    seconds=$(( ${FUZZ_BUDGET:-60} / n ))
    (( seconds < 5 )) && seconds=5
  fi
  local entry harness names=()
  for entry in "${queued[@]}"; do
    # shellcheck disable=SC2086  # harness names and seed folders hold no spaces
    set -- $entry
    harness=$1
    shift
    names+=("$harness")
    while (( $(jobs -rp | wc -l) >= jobs )); do wait -n || true; done
    # Its summary and exit code go to files, printed in the queue's order once all have run.
    rm -f "$build/$harness.rc"
    (rc=0
     fuzz "$harness" "$seconds" "$@" >"$build/$harness.summary" 2>&1 || rc=$?
     echo $rc >"$build/$harness.rc") &
  done
  wait
  for harness in "${names[@]}"; do
    cat "$build/$harness.summary"
    [ "$(cat "$build/$harness.rc" 2>/dev/null)" = 0 ] || status=1
  done
  return $status
}

status=0
run fuzz_spec "$root/configs" "$root/tests/bad_inputs" || status=1
run fuzz_expr "$root/fuzz/expr_seeds" || status=1
run fuzz_kt_cache "$root/fuzz/seeds/kt_cache" || status=1
run fuzz_t4 "$root/fuzz/seeds/t4" || status=1
run fuzz_t1 "$root/fuzz/seeds/t1" || status=1
run fuzz_wisdom "$root/fuzz/seeds/wisdom" || status=1
run fuzz_row "$root/fuzz/seeds/row" || status=1
run_queued || status=1
exit $status
