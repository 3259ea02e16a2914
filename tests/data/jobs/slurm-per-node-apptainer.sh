#!/bin/bash -l
# torchdeck job resnet50: 2 node(s) x 4 rank(s), srun, one trainer launcher per node, in apptainer.
# Rendered from its JobSpec (docs/job-scripts.md); this text is what gets submitted.
#SBATCH --job-name=resnet50
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --cpus-per-task=32
#SBATCH --gpus-per-node=4
#SBATCH --mem=64G
#SBATCH --time=1-00:00:00
#SBATCH --partition=gpu
#SBATCH --account=def-lab
#SBATCH --output=/scratch/ada/resnet50/logs/%x-%j.out
#SBATCH --open-mode=append
#SBATCH --signal=B:USR2@300
#SBATCH --requeue
#SBATCH --dependency=afterok:4242
#SBATCH --exclusive

set -eo pipefail
cd -- /scratch/ada/resnet50
module load StdEnv/2020
module load cuda/11.7
module load apptainer
set -u # after the modules: some module systems read unset variables
first_node=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | sed -n 1p)
MASTER_ADDR=$(scontrol show node "$first_node" 2>/dev/null | sed -n 's/.*NodeAddr=\([^ ]*\).*/\1/p' || true)
MASTER_ADDR=${MASTER_ADDR:-$first_node}
export MASTER_ADDR
export MASTER_PORT=$((15000 + SLURM_JOB_ID % 10000))
export OMP_NUM_THREADS=8
export NCCL_DEBUG=WARN

# Slurm sends USR2 to this shell 300 s before the wall time (--signal=B:USR2@300).
# On USR2 the ranks checkpoint and stop: the shell passes it on and waits for them.
td_pid=
td_forward() { if [ -n "$td_pid" ]; then kill -s USR2 "$td_pid" 2>/dev/null || true; fi; }
trap td_forward USR2
srun --ntasks-per-node=1 --cpus-per-task=32 \
  apptainer exec --nv --bind /scratch /project/images/torch-2.1.sif \
  /project/torchdeck/trainer/bin/torchdeck-train --nproc-per-node=4 --model resnet50 --data synthetic:100000 --batch-size 256 --checkpoint-dir /scratch/ada/resnet50/ckpt &
td_pid=$!
td_status=0
while :; do
  wait "$td_pid" && td_status=0 || td_status=$?
  kill -0 "$td_pid" 2>/dev/null || break # still running: the signal cut the wait short
done
# Exit code 75: the command checkpointed and asks to run again.
if [ "$td_status" -eq 75 ]; then
  td_restarts=${SLURM_RESTART_COUNT:-0}
  if [ "$td_restarts" -lt 5 ]; then
    echo "torchdeck: requeueing job $SLURM_JOB_ID (restart $((td_restarts + 1)) of 5)" >&2
    scontrol requeue "$SLURM_JOB_ID" || echo "torchdeck: requeue failed; the dashboard can resubmit" >&2
  else
    echo "torchdeck: not requeueing job $SLURM_JOB_ID: 5 restarts done" >&2
  fi
fi
exit "$td_status"
