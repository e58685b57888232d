#!/usr/bin/env bash
# A Slurm job array that tunes one config in N shards, one GPU each, then a job that merges the
# shards' databases once every task has ended (docs/distributed.md). Adapt the #SBATCH lines
# (partition, account, time, modules) to your site, then submit from the repository root:
#   examples/slurm_shards.sh configs/sgemm_large_subset.yaml 8
# The config's strategy must be exhaustive or random (--shard refuses one that learns from every
# result). A failed shard is re-run with the same command (it resumes) and the merge run again
# (merging is idempotent).
set -euo pipefail
config=${1:?usage: examples/slurm_shards.sh CONFIG [SHARDS] [OUT_DIR]}
shards=${2:-4}
out=${3:-shards-$(basename "$config" .yaml)}
hone=${HONE:-hone}  # the hone executable (on every node's PATH, or give its path)
mkdir -p "$out"

# One shard per array task: task i of N tunes the configurations that shard i/N owns, on the GPU
# Slurm gave it, into a database of its own. The compile cache may be shared (HONE_CACHE_DIR).
array_job=$(sbatch --parsable \
  --job-name="hone-$(basename "$config" .yaml)" \
  --array="0-$((shards - 1))" \
  --gpus=1 --cpus-per-task=16 --time=02:00:00 \
  --output="$out/shard-%a.log" \
  --wrap "$hone tune '$config' --shard \$SLURM_ARRAY_TASK_ID/\$SLURM_ARRAY_TASK_COUNT \
          -o '$out'/shard-\$SLURM_ARRAY_TASK_ID.db --quiet")

# Once every task has ended (afterany: what failed shards stored is merged too).
merge_job=$(sbatch --parsable \
  --job-name=hone-merge --dependency="afterany:$array_job" \
  --cpus-per-task=1 --time=00:20:00 --output="$out/merge.log" \
  --wrap "$hone merge '$out'/shard-*.db -o '$out'/all.db && $hone show '$out'/all.db --top 10")

echo "submitted: shards $array_job (array 0-$((shards - 1))), merge $merge_job -> $out/all.db"

# The same run over MPI instead (one run, any strategy; rank 0 writes $out/mpi.db):
#   sbatch --ntasks=8 --gpus-per-task=1 --cpus-per-task=16 \
#          --wrap "srun $hone tune '$config' -o '$out'/mpi.db"
# or, inside an allocation or on one multi-GPU host:
#   mpirun -n 4 $hone tune '$config' -o '$out'/mpi.db
