#!/usr/bin/env bash
# Beyond one process (docs/distributed.md), on one multi-GPU host: MPI with one rank per GPU
# against one rank, the single-process run over every GPU where this hone has --devices, and two
# shards on two GPUs merged against one run (same configurations and statuses; times within
# their CIs). Prints a table. The default config is the 2,064-configuration exhaustive
# sgemm_large_subset (~75 s on one H200): MPI pays ~1-2 s to launch and open the ranks' GPUs,
# which a run of a few seconds could not show apart from the scaling. About 4.5 minutes on a
# 4-GPU host.
#   bench/dist.sh OUT_DIR            (CONFIG=..., SETS="--set N=...", GPUS=4 to override;
#                                     DIST_STEPS="one mpi devices shards", the default, or fewer)
set -uo pipefail
out=${1:?usage: bench/dist.sh OUT_DIR}
mkdir -p "$out"
B=${HONE_BIN_DIR:-$PWD/.carry}
hone="$B/hone"
config=${CONFIG:-configs/sgemm_large_subset.yaml}
read -r -a sets <<<"${SETS:-}"
gpus=${GPUS:-$(nvidia-smi -L 2>/dev/null | wc -l)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpirun=$(command -v mpirun || true)
mpi_flags=(--allow-run-as-root --oversubscribe --bind-to none -x PATH -x LD_LIBRARY_PATH -x HONE_CACHE_DIR)

echo "dist: $config ${sets[*]} on $gpus GPUs ($(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c | xargs))"
if ((gpus < 2)); then echo "dist: needs 2 GPUs or more; skipped"; exit 0; fi

ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
rows=()
row() { rows+=("| $1 | $2 | $3 | $4 |"); }

# The compile cache warm for every run: what is compared is measuring, not compiling.
"$hone" tune "$config" "${sets[@]}" --dry-run --quiet >/dev/null 2>"$out/dist_warm.err" ||
  { echo "dist: warming the compile cache failed:"; tail -5 "$out/dist_warm.err"; exit 1; }

steps=" ${DIST_STEPS:-one mpi devices shards} "
if [[ $steps == *" one "* ]]; then
  t=$(date +%s%N)
  "$hone" tune "$config" "${sets[@]}" --device 0 --quiet -o "$work/one.db" >"$out/dist_one.txt" 2>&1
  one_rc=$?; one_ms=$(ms "$t")
  row "one process, GPU 0" 1 "$one_ms" "rc $one_rc"
fi

# MPI: one rank per GPU (each takes its share of the host's GPUs by local rank), then one rank.
plugin=""
for p in "$B/libhone_mpi.so" "$B/prefix/lib/libhone_mpi.so" "$(dirname "$(readlink -f "$hone")")/../lib/libhone_mpi.so"; do
  [ -f "$p" ] && plugin=$p && break
done
if [[ $steps != *" mpi "* ]]; then
  :
elif [ -z "$mpirun" ]; then
  row "MPI" - - "skipped: no mpirun"
elif [ -z "$plugin" ]; then
  row "MPI" - - "skipped: hone was built without libhone_mpi.so"
else
  for n in 1 "$gpus"; do
    # One rank sees GPU 0 only (else it would take every GPU of the host); n ranks share all.
    visible=()
    ((n == 1)) && visible=(-x CUDA_VISIBLE_DEVICES=0)
    t=$(date +%s%N)
    # Each rank's start and end on stderr, to tell the launch and the ranks' exit apart from
    # the tuning run (whose own wall time the output gives).
    "$mpirun" -n "$n" "${mpi_flags[@]}" "${visible[@]}" -x HONE_MPI_PLUGIN="$plugin" \
      bash -c 'r=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-?}}; echo "rank $r start $(date +%s.%N)" >&2
               "$0" "$@"; rc=$?; echo "rank $r end $(date +%s.%N)" >&2; exit $rc' \
      "$hone" tune "$config" "${sets[@]}" --mpi -o "$work/mpi$n.db" >"$out/dist_mpi$n.txt" 2>&1
    rc=$?; eval "mpi${n}_ms=$(ms "$t")"
    phases=$(python3 - "$out/dist_mpi$n.txt" "$t" "$(date +%s%N)" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
t0, t1 = int(sys.argv[2]) / 1e9, int(sys.argv[3]) / 1e9
starts = [float(x) for x in re.findall(r"rank \S+ start (\d+\.\d+)", text)]
ends = [float(x) for x in re.findall(r"rank \S+ end (\d+\.\d+)", text)]
ready = re.search(r"ready in ([\d.]+) s", text)
wall = re.search(r"time: wall ([\d.]+) s", text)
if starts and ends and ready and wall:
    print(f"launch {max(starts) - t0:.2f} s, ranks ready {float(ready.group(1)):.2f} s, tuning "
          f"{float(wall.group(1)):.2f} s, last rank ended {t1 - max(ends):.2f} s before mpirun, "
          f"first to last rank end {max(ends) - min(ends):.2f} s")
PY
)
    row "MPI, $n rank(s)" "$n" "$(eval echo \$mpi${n}_ms)" "rc $rc; $phases"
  done
fi

# The single-process run over every GPU, where this hone has it (--devices).
if [[ $steps != *" devices "* ]]; then
  :
elif "$hone" tune --help 2>/dev/null | grep -q -- '--devices'; then
  t=$(date +%s%N)
  "$hone" tune "$config" "${sets[@]}" --devices all --quiet -o "$work/devices.db" >"$out/dist_devices.txt" 2>&1
  rc=$?; row "one process, --devices all" "$gpus" "$(ms "$t")" "rc $rc"
else
  row "one process, --devices all" "$gpus" - "skipped: this hone has no --devices"
fi

# Two shards at once on GPUs 0 and 1, merged.
if [[ $steps == *" shards "* ]]; then
t=$(date +%s%N)
"$hone" tune "$config" "${sets[@]}" --device 0 --shard 0/2 --quiet -o "$work/s0.db" >"$out/dist_s0.txt" 2>&1 &
p0=$!
"$hone" tune "$config" "${sets[@]}" --device 1 --shard 1/2 --quiet -o "$work/s1.db" >"$out/dist_s1.txt" 2>&1 &
p1=$!
wait $p0; r0=$?; wait $p1; r1=$?
"$hone" merge "$work/s0.db" "$work/s1.db" -o "$work/merged.db" >"$out/dist_merge.txt" 2>&1
rm=$?
row "2 shards on GPUs 0, 1, merged" 2 "$(ms "$t")" "rc $r0/$r1, merge rc $rm"
fi

echo
echo "| run | GPUs | wall ms | exit |"
echo "|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
mpin_ms=$(eval echo "\${mpi${gpus}_ms:-}")
python3 - "$work" "$gpus" "${mpi1_ms:-}" "$mpin_ms" <<'PY'
import os, sqlite3, sys
work, gpus, mpi1, mpin = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
def load(name):
    path = os.path.join(work, name)
    if not os.path.exists(path): return None
    db = sqlite3.connect(path)
    return {k: (s, m, lo, hi) for k, s, m, lo, hi in
            db.execute("SELECT key, status, median, ci_low, ci_high FROM results")}
one = load("one.db") or load("mpi1.db")  # without the one-process run, MPI's one rank
def compare(name, label):
    other = load(name)
    if other is None or one is None:
        print(f"{label}: no results"); return
    same_keys = set(one) == set(other)
    same_status = same_keys and all(one[k][0] == other[k][0] for k in one)
    timed = [k for k in one if k in other and one[k][1] > 0 and other[k][1] > 0]
    overlap = sum(1 for k in timed if one[k][2] <= other[k][3] and other[k][2] <= one[k][3])
    ratios = sorted(other[k][1] / one[k][1] for k in timed)
    med = ratios[len(ratios) // 2] if ratios else float("nan")
    best = lambda d: min((v[1], k) for k, v in d.items() if v[1] > 0)[1] if any(v[1] > 0 for v in d.values()) else "-"
    print(f"{label}: {len(other)} results (one run {len(one)}); same configurations {same_keys}; "
          f"same statuses {same_status}; CIs overlap {overlap}/{len(timed)}; median time ratio "
          f"{med:.4f}; best {best(other)} (one run {best(one)})")
compare("merged.db", "2 shards merged vs one run")
compare(f"mpi1.db", "MPI 1 rank vs one run")
for f in sorted(os.listdir(work)):
    if f.startswith("mpi") and f != "mpi1.db" and f.endswith(".db"):
        compare(f, f"MPI {f[3:-3]} ranks vs one run")
if os.path.exists(os.path.join(work, "devices.db")): compare("devices.db", "--devices all vs one run")
if mpi1 and mpin:
    print(f"MPI speed-up of wall time, {gpus} ranks against 1 rank: {float(mpi1) / float(mpin):.2f}x")
PY
cp -f "$work"/*.db "$out"/ 2>/dev/null
true
