#!/usr/bin/env bash
# kill -9 at a random moment, of the tuner and of its GPU worker: the database must open and
# the same command must resume, with at most the configuration in flight lost.
#   bench/kill.sh OUT_DIR
set -uo pipefail
out=${1:?usage: bench/kill.sh OUT_DIR}
B=${HONE_BIN_DIR:-$PWD/.carry}
db=$(mktemp -u).db
cfg=configs/vector_add.yaml
# --no-cache: every run compiles what it measures (576 configurations, a few seconds on the GPU
# machine), so that the kills below land mid-run however fast the measurement itself is (with a
# warm cache the whole space takes under a second there).
nc=--no-cache
run() { "$B/hone" tune $cfg --set N=1048576 -o "$db" --quiet $nc "$@"; }

left_behind() {  # left_behind DB PID: processes still running with this database on their
  # command line, or workers of tuner PID (`hone-worker ROLE ... --parent PID`)
  local n=0 c
  for c in /proc/[0-9]*/cmdline; do
    tr '\0' ' ' 2>/dev/null <"$c" | grep -qE -- "$1|--parent $2 " && n=$((n + 1))
  done
  echo $n
}

# The kills land at fractions of one whole run's wall time, timed here first: fixed delays
# missed on a faster machine (the run had ended before the signal came).
t0=$(date +%s.%N)
run --fresh >/dev/null 2>&1
whole=$(python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$t0" "$(date +%s.%N)")
at() { python3 -c "import sys; print(round(float(sys.argv[1]) * float(sys.argv[2]), 2))" "$whole" "$1"; }
echo "one whole run (no cache, 576 configurations): $(at 1) s"
rm -f "$db" "$db-wal" "$db-shm"
ended_first() {  # ended_first PID: the process had already exited when the signal was sent
  [ -e /proc/$1 ] && ! grep -q '^State:.*Z' /proc/$1/status 2>/dev/null && return 1 || return 0
}

# 1. The tuner, three times at different moments; each time the next run resumes. Started
# directly, not through run(): $! must be the tuner, not a subshell that would die in its place.
# Each run resumes the one before: at 30, 35 and 40% of a whole run all three land mid-run.
for frac in 0.30 0.35 0.40; do
  delay=$(at $frac)
  "$B/hone" tune $cfg --set N=1048576 -o "$db" --quiet $nc >/dev/null 2>&1 &
  pid=$!
  sleep $delay
  if ended_first $pid; then echo "MISSED: the tuner had ended before kill -9 after ${delay} s"; fi
  kill -9 $pid
  wait $pid 2>/dev/null
  sleep 0.2  # its workers get SIGKILL from the kernel (PR_SET_PDEATHSIG)
  stored=$("$B/hone" show "$db" --all --json 2>/dev/null | python3 -c "import json,sys; print(sum(len(r['results']) for r in json.load(sys.stdin)))" || echo "unreadable")
  echo "kill -9 tuner after ${delay} s: database opens, ${stored} results stored, $(left_behind "$db" $pid) processes left"
done

# 2. The GPU worker (the tuner's child that holds the GPU), mid-run: the tuner goes on.
"$B/hone" tune $cfg --set N=1048576 -o "$db" --quiet $nc --fresh --json >"$out/kill_worker.json" 2>"$out/kill_worker.err" &
pid=$!  # the tuner itself, not a subshell
sleep "$(at 0.5)"
children() {  # no procps on the GPU machine: read the parent pid from /proc
  for st in /proc/[0-9]*/stat; do
    read -r cpid _ _ ppid _ <"$st" 2>/dev/null && [ "$ppid" = "$1" ] && echo "$cpid"
  done
}
for child in $(children $pid); do
  # The GPU worker is the one with the CUDA device open.
  if ls -l /proc/$child/fd 2>/dev/null | grep -q nvidia; then kill -9 $child; echo "killed GPU worker $child after $(at 0.5) s"; killed=1; fi
done
[ -n "${killed:-}" ] || echo "MISSED: no GPU worker to kill after $(at 0.5) s (the run had ended?)"
wait $pid
echo "tuner after its worker was killed: rc=$?"
python3 - "$out/kill_worker.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
st = {}
for r in run["results"]:
    st[r["status"]] = st.get(r["status"], 0) + 1
print("statuses:", st, "; evaluated", run["evaluated"], "resumed", run["resumed"])
for r in run["results"]:
    if r["status"] == "runtime_fault":
        print("  ", r["key"], "->", r["message"])
PY

# 3. Resume after all that: nothing half-written, only what is missing is measured.
run --json >"$out/kill_resume.json" 2>/dev/null
echo "resume: rc=$? $(python3 -c "import json; r=json.load(open('$out/kill_resume.json')); print('evaluated', r['evaluated'], 'resumed', r['resumed'])")"

# 4. Ctrl-C: SIGINT to the tuner's whole process group, as a terminal sends it (its workers
# ignore it; the tuner abandons the configuration in flight, prints the summary, exits 130).
db2=$(mktemp -u).db
if command -v setsid >/dev/null; then
  setsid "$B/hone" tune $cfg --set N=1048576 -o "$db2" $nc >"$out/sigint.out" 2>"$out/sigint.err" &
  pid=$!
  sleep "$(at 0.5)"
  ended_first $pid && echo "MISSED: the tuner had ended before Ctrl-C"
  kill -INT -- -$pid
  how="process group"
else
  "$B/hone" tune $cfg --set N=1048576 -o "$db2" $nc >"$out/sigint.out" 2>"$out/sigint.err" &
  pid=$!
  sleep "$(at 0.5)"
  ended_first $pid && echo "MISSED: the tuner had ended before Ctrl-C"
  kill -INT $pid
  how="tuner only (no setsid here)"
fi
wait $pid
rc=$?
echo "Ctrl-C ($how) after $(at 0.5) s: rc=$rc (130 expected)"
grep -E "^results:|^time:" "$out/sigint.out"
echo "hone processes left behind for that run: $(left_behind "$db2" $pid)"
"$B/hone" tune $cfg --set N=1048576 -o "$db2" --quiet $nc --json >"$out/sigint_resume.json" 2>/dev/null
echo "resume after Ctrl-C: rc=$? $(python3 -c "import json; r=json.load(open('$out/sigint_resume.json')); print('evaluated', r['evaluated'], 'resumed', r['resumed'], '(576 in all)')")"
