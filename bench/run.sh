#!/usr/bin/env bash
# The benchmarks of bench/RESULTS.md, on the GPU machine:
#   bench/run.sh OUT_DIR [PHASE...]   phases: va24 va16 fixed compile sgemm baselines overhead
#                                     euclid ab w12 timers clocks kernel sgemm_large
#                                     sgemm_large_random sgemm_large_ab sgemm_resume (default: all but ab,
#                                     w12, timers, clocks, kernel and the sgemm_large ones)
# Each tuning run writes OUT_DIR/<label>.json (`hone tune --json`); bench/summarize.py turns
# them into the tables. Binaries come from $HONE_BIN_DIR (default .carry/).
set -uo pipefail
out=${1:?usage: bench/run.sh OUT_DIR [PHASE...]}
shift
mkdir -p "$out"
phases=${*:-va24 va16 fixed compile sgemm baselines overhead euclid}
B=${HONE_BIN_DIR:-$PWD/.carry}
work=$(mktemp -d)
jobs_all=$(nproc)
# An earlier build with workers of its own (hone-worker, on since its change) needs its own worker.
prev_worker=$([ -x "$B/hone-worker_prev" ] && echo "$B/hone-worker_prev")

tune() {  # tune LABEL CONFIG [hone tune options...]   ($HONE: the binary, default $B/hone)
  local label=$1 cfg=$2
  shift 2
  local t0=$(date +%s%N)
  "${HONE:-$B/hone}" tune "$cfg" --json --quiet -o "$work/$label.db" "$@" >"$out/$label.json" 2>"$out/$label.err"
  local rc=$? ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  echo "$ms" >"$out/$label.ms"  # the process's wall, start to exit (bench/summarize_measure.py)
  printf '%-22s rc=%s %8d ms\n' "$label" "$rc" "$ms"
  return $rc
}

# sgemm_search_run LABEL SEARCH_YAML: tunes configs/sgemm_large.yaml for $SGEMM_EVALS evaluations
# with its search section replaced (a copy beside it, so that its relative paths hold). The copy
# differs from the shipped config (which CI checks) only there, so an input error (exit 2) means
# this build refuses the search block: it falls back to random search, and OUT_DIR/LABEL.meta.json
# says what was asked and what ran.
sgemm_search_run() {
  local label=$1 search=$2 evals=${SGEMM_EVALS:-500}
  local cfg=configs/.$label.yaml used=$2 note=""
  sgemm_config "$search" "$cfg"
  tune $label "$cfg" -j $jobs_all --cache-dir $work/cache-$label --max-evals $evals
  if [ $? -eq 2 ]; then
    note="refused by this build: $(head -c 400 "$out/$label.err")"
    used="{strategy: random, seed: ${SGEMM_SEED:-1}}"
    echo "$label: the search block was refused ($(head -c 200 "$out/$label.err")); running $used"
    sgemm_config "$used" "$cfg"
    tune $label "$cfg" -j $jobs_all --cache-dir $work/cache-$label --max-evals $evals
  fi
  python3 -c 'import json, sys; print(json.dumps(dict(zip(["requested", "used", "max_evals", "note"], sys.argv[1:]))))' \
    "$search" "$used" "$evals" "$note" >"$out/$label.meta.json"
  cp -f "$work/$label.db" "$out/$label.sqlite" 2>/dev/null
  mv -f "$cfg" "$out/$label.yaml"
}

sgemm_config() {  # sgemm_config SEARCH_YAML DEST: configs/sgemm_large.yaml with that search block
  python3 - "$1" "$2" <<'PY'
import sys
search, dst = sys.argv[1], sys.argv[2]
text = open("configs/sgemm_large.yaml").read()
head, rest = text.split("\nsearch:", 1)
tail = rest[rest.index("\noutput:"):]
open(dst, "w").write(head + "\nsearch: " + search + "\n" + tail)
PY
}

for phase in $phases; do
  case $phase in
    va24|va16)
      n=$([ $phase = va24 ] && echo 16777216 || echo 65536)
      cfg=configs/vector_add.yaml
      cold1=$work/cache-$phase-j1 coldall=$work/cache-$phase-jall
      tune ${phase}_cold_jall $cfg --set N=$n -j $jobs_all --cache-dir $coldall
      tune ${phase}_warm_jall $cfg --set N=$n -j $jobs_all --cache-dir $coldall
      tune ${phase}_warm_inproc $cfg --set N=$n -j $jobs_all --cache-dir $coldall --in-process
      tune ${phase}_cold_j1 $cfg --set N=$n -j 1 --cache-dir $cold1
      ;;
    fixed)
      key="BLOCK=256,STRIDED=false,IDX_T=int,VEC=4,MEM=device,MAXREG=0,FAST=false"
      for n in 65536 16777216; do
        tune fixed_${n}_flush configs/vector_add.yaml --set N=$n --only "$key" --l2-flush on --cache-dir $work/c
        tune fixed_${n}_warm configs/vector_add.yaml --set N=$n --only "$key" --l2-flush off --cache-dir $work/c
      done
      ;;
    sgemm)
      tune sgemm_cold_jall configs/sgemm.yaml -j $jobs_all --cache-dir $work/cache-sgemm
      tune sgemm_warm_jall configs/sgemm.yaml -j $jobs_all --cache-dir $work/cache-sgemm
      ;;
    overhead)  # isolation overhead: warm-cache vector_add 2^24, isolated and in-process alternated, 5 each
      c=$work/cache-overhead
      "$B/hone" tune configs/vector_add.yaml --dry-run -j $jobs_all --cache-dir $c -q >/dev/null 2>&1
      for i in 1 2 3 4 5; do
        tune overhead_iso_$i configs/vector_add.yaml -j $jobs_all --cache-dir $c
        tune overhead_inp_$i configs/vector_add.yaml -j $jobs_all --cache-dir $c --in-process
      done
      ;;
    ab)  # this build against an earlier one ($B/hone_prev), warm cache, alternated, 3 runs each
      [ -x "$B/hone_prev" ] || { echo "ab: no $B/hone_prev"; continue; }
      c=$work/cache-ab
      "$B/hone" tune configs/vector_add.yaml --dry-run -j $jobs_all --cache-dir $c -q >/dev/null 2>&1
      "$B/hone" tune configs/vector_add.yaml --set N=65536 --dry-run -j $jobs_all --cache-dir $c -q >/dev/null 2>&1
      for n in 16777216 65536; do
        for i in 1 2 3; do
          HONE=$B/hone_prev HONE_WORKER=$prev_worker \
            tune ab${n}_prev_$i configs/vector_add.yaml --set N=$n -j $jobs_all --cache-dir $c
          tune ab${n}_new_$i configs/vector_add.yaml --set N=$n -j $jobs_all --cache-dir $c
        done
      done
      ;;
    w12)  # issue 12: the previous build ($B/hone_prev) and this one, warm cache, alternated,
          # 3 runs each (W12_RUNS), on the 192- and 576-configuration vector_add spaces at 2^16 and 2^24
          # (W12_TIMER, events by default: the timer both builds' auto was until d87c1a5; W12_TIMERS
          # ="auto cupti": this build also with those timers)
      w12_timer=${W12_TIMER:-events}
      prev=""
      if [ -x "$B/hone_prev" ]; then prev="$B/hone_prev"; else echo "w12: no $B/hone_prev: this build only"; fi
      c=$work/cache-w12
      for n in 65536 16777216; do
        for cfg in configs/vector_add_192.yaml configs/vector_add.yaml; do
          # each build's cache entries, if their keys differ (each with its own worker)
          [ -n "$prev" ] && HONE_WORKER=$prev_worker "$prev" tune $cfg --set N=$n --dry-run -j $jobs_all --cache-dir $c -q >/dev/null 2>&1
          "$B/hone" tune $cfg --set N=$n --dry-run -j $jobs_all --cache-dir $c -q >/dev/null 2>&1
        done
      done
      for i in $(seq ${W12_RUNS:-3}); do
        for n in 65536 16777216; do
          for sp in 192 576; do
            cfg=configs/vector_add.yaml
            [ $sp = 192 ] && cfg=configs/vector_add_192.yaml
            # A pause before each run: a tuner exits without waiting for its GPU worker's context
            # to be released (~0.1 s), which would otherwise overlap the next run's start.
            gap=${W12_GAP:-0.3}
            [ -n "$prev" ] && sleep $gap && HONE=$prev HONE_WORKER=$prev_worker tune w${sp}_${n}_prev_$i $cfg --set N=$n --timer $w12_timer -j $jobs_all --cache-dir $c
            sleep $gap
            tune w${sp}_${n}_new_$i $cfg --set N=$n --timer $w12_timer -j $jobs_all --cache-dir $c
            for t in ${W12_TIMERS:-}; do
              sleep $gap
              tune w${sp}_${n}_new${t}_$i $cfg --set N=$n -j $jobs_all --cache-dir $c --timer $t
            done
          done
        done
      done
      # An exhaustive vector_add database of this build, for `hone replay` (bench/strategies.py).
      cp "$work/w576_16777216_new_1.db" "$out/vector_add_576_2p24.sqlite" 2>/dev/null
      ;;
    timers)  # CUPTI, events and Nsight Compute on the same configurations
      bash bench/timers.sh "$out"
      ;;
    clocks)  # how the clock ramps and decays (the session's clock warm-up)
      "$B/probe_clocks" >"$out/probe_clocks.txt" 2>&1
      echo "probe_clocks rc=$?"
      cat "$out/probe_clocks.txt"
      ;;
    euclid)
      tune euclid_cold_jall configs/euclidean_distance.yaml -j $jobs_all --cache-dir $work/cache-euclid
      ;;
    compile)  # compile throughput alone: every vector_add configuration, no cache, 1 vs all workers
      for j in 1 $jobs_all; do
        "$B/hone" check configs/vector_add.yaml --arch sm_90 --json -j $j >"$out/compile_va_j$j.json" 2>"$out/compile_va_j$j.err"
        echo "compile vector_add -j $j rc=$?"
      done
      "$B/hone" check configs/sgemm.yaml --arch sm_90 --json -j $jobs_all >"$out/compile_sgemm_j$jobs_all.json" 2>/dev/null
      ;;
    kernel)  # the kernel handle: selection quality on ladders, launch overhead, first launches (~3 min)
      bash bench/kernel.sh "$out"
      ;;
    baselines)
      "$B/baselines" --json 4096 >"$out/baselines.json" 2>"$out/baselines.err"
      echo "baselines rc=$?"
      ;;
    sgemm_large)  # issue 11: configs/sgemm_large.yaml (137,088 valid) with a budget, against the
                  # exhaustive configs/sgemm_large_subset.yaml (2,064) and cuBLAS, 4096^3.
      # SGEMM_STRATEGY (default auto), SGEMM_SEARCH (a whole YAML search block, e.g.
      # "{strategy: genetic, seed: 3}", overrides it), SGEMM_EVALS (500), SGEMM_SEED (1).
      search="{strategy: ${SGEMM_STRATEGY:-auto}, seed: ${SGEMM_SEED:-1}}"
      sgemm_search_run sgemm_large_search "${SGEMM_SEARCH:-$search}"
      tune sgemm_large_subset configs/sgemm_large_subset.yaml -j $jobs_all --cache-dir $work/cache-sgemm-large-subset
      # The exhaustive database, for `hone replay` (.sqlite: device_session.sh packs no *.db).
      cp -f "$work/sgemm_large_subset.db" "$out/sgemm_large_subset.sqlite" 2>/dev/null
      if [ ! -s "$out/baselines.json" ]; then
        "$B/baselines" --json 4096 >"$out/baselines.json" 2>"$out/baselines.err"
        echo "baselines rc=$?"
      fi
      ;;
    sgemm_seeds)  # the default search alone on configs/sgemm_large.yaml, SGEMM_SEEDS (default
                  # 1 2 3) with SGEMM_EVALS each, and cuBLAS: the shipped default against cuBLAS
      for seed in ${SGEMM_SEEDS:-1 2 3}; do
        sgemm_search_run sgemm_seed_$seed "{strategy: ${SGEMM_STRATEGY:-auto}, seed: $seed}"
      done
      if [ ! -s "$out/baselines.json" ]; then
        "$B/baselines" --json 4096 >"$out/baselines.json" 2>"$out/baselines.err"
        echo "baselines rc=$?"
      fi
      python3 - "$out" ${SGEMM_SEEDS:-1 2 3} <<'PY'
import json, sys
out, seeds = sys.argv[1], sys.argv[2:]
best_cublas = None  # GFLOP/s of cuBLAS's SGEMM (baselines.json: one JSON object a line)
try:
    for line in open(f"{out}/baselines.json"):
        try:
            j = json.loads(line)
        except ValueError:
            continue
        if j.get("bench") == "sgemm" and j.get("tflops"):
            best_cublas = 1000 * j["tflops"]
except OSError:
    pass
for s in seeds:
    try:
        r = json.load(open(f"{out}/sgemm_seed_{s}.json"))
    except Exception as e:
        print(f"sgemm seed {s}: no result ({e})"); continue
    g = max((x.get("gflops") or 0) for x in r["results"])
    share = f", {100 * g / best_cublas:.1f}% of cuBLAS ({best_cublas:.0f})" if best_cublas else ""
    print(f"sgemm_large {r.get('identity', {}).get('strategy', '')} seed {s}: {r['evaluated']} evaluated, best {g:.0f} GFLOP/s{share}")
PY
      ;;
    sgemm_large_ab)  # the default search of this build against an earlier one ($B/hone_prev), the
                     # same seeds alternated (SGEMM_SEEDS, default 1 2 3), no subset, no cuBLAS
      [ -x "$B/hone_prev" ] || { echo "sgemm_large_ab: no $B/hone_prev"; continue; }
      for seed in ${SGEMM_SEEDS:-1 2 3}; do
        HONE=$B/hone_prev HONE_WORKER=$prev_worker \
          sgemm_search_run sgemm_ab_prev_$seed "{strategy: ${SGEMM_STRATEGY:-auto}, seed: $seed}"
        sgemm_search_run sgemm_ab_new_$seed "{strategy: ${SGEMM_STRATEGY:-auto}, seed: $seed}"
      done
      ;;
    sgemm_resume)  # issue 35: random search stores 300, then a budget of 320 resumes from them
      # (expected: 300 evaluated; 20 evaluated, 300 resumed; 0 evaluated and the reason).
      cfg=configs/.sgemm_resume.yaml
      sgemm_config "{strategy: random, seed: 1}" "$cfg"
      for step in "a 300" "b 320" "c 320"; do
        set -- $step
        "$B/hone" tune "$cfg" --json --quiet -o "$work/sgemm_resume.db" -j $jobs_all \
          --cache-dir $work/cache-resume --max-evals $2 >"$out/sgemm_resume_$1.json" 2>"$out/sgemm_resume_$1.err"
        echo "sgemm_resume_$1 --max-evals $2 rc=$?: $(python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print("evaluated", j["evaluated"], "resumed", j["resumed"], "stop_reason:", repr(j.get("stop_reason")))' "$out/sgemm_resume_$1.json" 2>&1)"
      done
      rm -f "$cfg"
      ;;
    sgemm_large_random)  # the same budget, random search (the baseline auto is measured against)
      sgemm_search_run sgemm_large_random "{strategy: random, seed: ${SGEMM_SEED:-1}}"
      ;;
  esac
done
python3 bench/summarize.py "$out" | tee "$out/summary.md"
