#!/bin/bash
# CUDA's start on a multi-GPU host (bench/probes/probe_init.cpp): a process that sees every GPU
# against one that sees only its own (CUDA_VISIBLE_DEVICES), one at a time and all GPUs' at once
# (each process's finish from the common start), and which GPU CUDA_VISIBLE_DEVICES=k opens.
#   bench/probes/init_visible.sh      (on the GPU machine; bench/build.sh .carry built the probe)
P=${HONE_BIN_DIR:-.carry}/probe_init
nvidia-smi -q | grep -i -E "persistence mode|product name" | sort | uniq -c
G=$(nvidia-smi -L | wc -l)
echo "GPUs: $G"
echo "== the GPU each opens (first bytes of its UUID)"
for k in $(seq 0 $((G - 1))); do
  echo "ordinal $k: $(PROBE_DEVICE=$k $P | awk '{print $NF}')" \
    " CUDA_VISIBLE_DEVICES=$k: $(CUDA_VISIBLE_DEVICES=$k $P | awk '{print $NF}')"
done
echo "== one process at a time, 7 rounds interleaved (all: every GPU visible; one: GPU 1 only)"
for r in 1 2 3 4 5 6 7; do
  echo "all $(PROBE_DEVICE=1 $P)"
  echo "one $(CUDA_VISIBLE_DEVICES=1 $P)"
done
now() { date +%s.%N; }
since() { python3 -c "import sys; print(f'{(float(sys.argv[2]) - float(sys.argv[1])) * 1000:.0f}')" "$1" "$(now)"; }
echo "== $G processes: at once, and one after another (ms from the common start to each one's end)"
for r in 1 2 3; do
  t0=$(now)
  for k in $(seq 0 $((G - 1))); do (PROBE_DEVICE=$k $P >/dev/null; echo "at-once all $k $(since $t0)") & done
  wait
  t0=$(now)
  for k in $(seq 0 $((G - 1))); do (CUDA_VISIBLE_DEVICES=$k $P >/dev/null; echo "at-once one $k $(since $t0)") & done
  wait
  t0=$(now)
  for k in $(seq 0 $((G - 1))); do CUDA_VISIBLE_DEVICES=$k $P >/dev/null; echo "in-turn one $k $(since $t0)"; done
done
