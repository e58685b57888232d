#!/usr/bin/env bash
# The kernel handle's figures (bench/RESULTS.md, "Tuned kernels in applications"), on the GPU
# machine, in about 3 minutes:
#   bench/kernel.sh OUT_DIR
# 1. vector_add (bench/configs/va_ladder.yaml, 36 configurations) tuned exhaustively at 33 sizes,
#    N = 2^10 .. 2^26 in steps of sqrt(2); SGEMM (bench/configs/sgemm_ladder.yaml, 51 valid
#    configurations) at the 27 shapes M, N, K in {256, 768, 2048}; each ladder stops early when
#    its time budget is spent (what was tuned is analysed).
# 2. `hone selection-quality` on each: held-out sizes, hone's rule against nearest volume.
# 3. The wisdom of both, exported; hone_kernel_bench with it: launch overhead, first launches.
# 4. examples/tuned_kernels with that wisdom at tuned and untuned sizes (results checked).
# Writes OUT_DIR/kernel/: *.md tables, kernel_bench.json, wisdom.json, example.log, the ladder
# databases gzipped (for analysis elsewhere), and the tuning logs.
set -uo pipefail
out=${1:?usage: bench/kernel.sh OUT_DIR}/kernel
mkdir -p "$out"
B=${HONE_BIN_DIR:-$PWD/.carry}
work=$(mktemp -d)
export HONE_CACHE_DIR=$work/cache
va=bench/configs/va_ladder.yaml
sg=bench/configs/sgemm_ladder.yaml
jobs=$(nproc)
t_all=$(date +%s)

ladder() {  # ladder NAME CONFIG BUDGET_S SETS...   (each SETS item: "N=1024" or "M=256,N=256,K=256")
  local name=$1 cfg=$2 budget=$3
  shift 3
  local start=$(date +%s) done=0
  for sets in "$@"; do
    if [ $(( $(date +%s) - start )) -ge "$budget" ]; then
      echo "$name: time budget of ${budget}s spent after $done of $# sizes"
      break
    fi
    local args=()
    IFS=, read -ra kv <<<"$sets"
    for x in "${kv[@]}"; do args+=(--set "$x"); done
    echo "== $sets" >>"$out/ladder_$name.log"
    "$B/hone" tune "$cfg" "${args[@]}" -o "$work/$name.db" -q -j "$jobs" --time-limit 20 >>"$out/ladder_$name.log" 2>&1 ||
      echo "$name $sets: rc=$?"
    done=$((done + 1))
  done
  echo "$name: $done sizes tuned in $(( $(date +%s) - start )) s"
}

va_sizes=()
for k in $(seq 20 52); do va_sizes+=("N=$(awk -v k="$k" 'BEGIN { printf "%d", 2 ^ (k / 2) + 0.5 }')"); done
ladder va "$va" 45 "${va_sizes[@]}"
sg_sizes=()
for m in 256 768 2048; do for n in 256 768 2048; do for kk in 256 768 2048; do
  sg_sizes+=("M=$m,N=$n,K=$kk")
done; done; done
ladder sgemm "$sg" 90 "${sg_sizes[@]}"

"$B/hone" selection-quality "$va" "$work/va.db" >"$out/selection_va.md" 2>&1 || echo "selection-quality va rc=$?"
"$B/hone" selection-quality "$sg" "$work/sgemm.db" >"$out/selection_sgemm.md" 2>&1 || echo "selection-quality sgemm rc=$?"
"$B/hone" selection-quality "$va" "$work/va.db" --json >"$out/selection_va.json" 2>/dev/null
"$B/hone" selection-quality "$sg" "$work/sgemm.db" --json >"$out/selection_sgemm.json" 2>/dev/null
"$B/hone" export "$work/va.db" --wisdom "$out/wisdom.json" || echo "export va rc=$?"
"$B/hone" export "$work/sgemm.db" --wisdom "$out/wisdom.json" --merge || echo "export sgemm rc=$?"
for db in va sgemm; do [ -f "$work/$db.db" ] && gzip -c "$work/$db.db" >"$out/ladder_$db.db.gz"; done

wisdom=()  # without a wisdom file (no ladder tuned) both still run, on the default tier
[ -f "$out/wisdom.json" ] && wisdom=(--wisdom "$out/wisdom.json")

# Launch overhead and first launches (its own empty caches), with the wisdom.
"$B/hone_kernel_bench" --vector-add "$va" --sgemm "$sg" "${wisdom[@]}" --json "$out/kernel_bench.json" \
  >"$out/kernel_bench.md" 2>"$out/kernel_bench.err"
echo "hone_kernel_bench rc=$?"

# The example at tuned sizes (2^10, 2^12, 2^20, a ladder shape) and untuned ones.
HONE_LOG=info "$B/tuned_kernels" "${wisdom[@]}" --vector-add "$va" --sgemm "$sg" \
  --sizes-va 1024,4096,5000,1048576,3000001 --sizes-sgemm 256x768x2048,512x512x512,768x256x1024 \
  >"$out/example.log" 2>&1
echo "tuned_kernels rc=$?"

echo "kernel phase: $(( $(date +%s) - t_all )) s"
for f in kernel_bench selection_va selection_sgemm; do echo; cat "$out/$f.md"; done
tail -12 "$out/example.log"
rm -rf "$work"
