#!/bin/bash
# torchdeck job lightning: 2 node(s) x 4 rank(s), srun, one torchrun per node.
# Rendered from its JobSpec (docs/job-scripts.md); this text is what gets submitted.
#SBATCH --job-name=lightning
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --cpus-per-task=24
#SBATCH --gpus-per-node=4
#SBATCH --time=02:00:00
#SBATCH --output=/p/project/ada/lightning/lightning-%j.out
#SBATCH --open-mode=append
#SBATCH --signal=B:TERM@600

set -euo pipefail
cd -- /p/project/ada/lightning
MASTER_ADDR=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | sed -n 1p)
export MASTER_ADDR
export MASTER_PORT=$((15000 + SLURM_JOB_ID % 10000))

# Slurm sends TERM to this shell 600 s before the wall time (--signal=B:TERM@600).
# On TERM the ranks checkpoint and stop: the shell passes it on and waits for them.
td_pid=
td_forward() { if [ -n "$td_pid" ]; then kill -s TERM "$td_pid" 2>/dev/null || true; fi; }
trap td_forward TERM
srun --kill-on-bad-exit=1 --ntasks-per-node=1 --cpus-per-task=24 \
  torchrun --nnodes=2 --nproc-per-node=4 --rdzv-backend=c10d --rdzv-endpoint="$MASTER_ADDR:$MASTER_PORT" --rdzv-id="$SLURM_JOB_ID" --no-python bash -c 'source venv/bin/activate && exec python train.py --nodes "$SLURM_NNODES"' &
td_pid=$!
td_status=0
while :; do
  wait "$td_pid" && td_status=0 || td_status=$?
  kill -0 "$td_pid" 2>/dev/null || break # still running: the signal cut the wait short
done
exit "$td_status"
