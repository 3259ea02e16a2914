#!/bin/bash
# torchdeck job bound: 1 node(s) x 4 rank(s), srun, one task per rank.
# Rendered from its JobSpec (docs/job-scripts.md); this text is what gets submitted.
#SBATCH --job-name=bound
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=4
#SBATCH --cpus-per-task=1
#SBATCH --gpus-per-task=a100:1
#SBATCH --mem=4G
#SBATCH --time=00:30:00
#SBATCH --partition=gpu
#SBATCH --output=/home/ada/runs/mnist-ae/bound-%j.out
#SBATCH --open-mode=append
#SBATCH --signal=B:USR2@120
#SBATCH --requeue

set -euo pipefail
cd -- /home/ada/runs/mnist-ae
first_node=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | sed -n 1p)
MASTER_ADDR=$(scontrol show node "$first_node" 2>/dev/null | sed -n 's/.*NodeAddr=\([^ ]*\).*/\1/p' || true)
MASTER_ADDR=${MASTER_ADDR:-$first_node}
export MASTER_ADDR
export MASTER_PORT=$((15000 + SLURM_JOB_ID % 10000))

# Slurm sends USR2 to this shell 120 s before the wall time (--signal=B:USR2@120).
# On USR2 the ranks checkpoint and stop: the shell passes it on and waits for them.
td_pid=
td_forward() { if [ -n "$td_pid" ]; then kill -s USR2 "$td_pid" 2>/dev/null || true; fi; }
trap td_forward USR2
srun --ntasks-per-node=4 --gpus-per-task=a100:1 \
  /home/ada/.local/share/torchdeck/trainer/3f9a1c/bin/torchdeck-train --model ae --epochs 10 --metrics metrics.jsonl --checkpoint-dir checkpoints --resume auto &
td_pid=$!
td_status=0
while :; do
  wait "$td_pid" && td_status=0 || td_status=$?
  kill -0 "$td_pid" 2>/dev/null || break # still running: the signal cut the wait short
done
# Exit code 75: the command checkpointed and asks to run again.
if [ "$td_status" -eq 75 ]; then
  td_restarts=${SLURM_RESTART_COUNT:-0}
  if [ "$td_restarts" -lt 3 ]; then
    echo "torchdeck: requeueing job $SLURM_JOB_ID (restart $((td_restarts + 1)) of 3)" >&2
    scontrol requeue "$SLURM_JOB_ID" || echo "torchdeck: requeue failed; the dashboard can resubmit" >&2
  else
    echo "torchdeck: not requeueing job $SLURM_JOB_ID: 3 restarts done" >&2
  fi
fi
exit "$td_status"
