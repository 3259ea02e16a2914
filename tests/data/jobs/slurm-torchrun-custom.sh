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

set -euo pipefail
cd -- /p/project/ada/lightning
first_node=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | sed -n 1p)
MASTER_ADDR=$(scontrol show node "$first_node" 2>/dev/null | sed -n 's/.*NodeAddr=\([^ ]*\).*/\1/p' || true)
MASTER_ADDR=${MASTER_ADDR:-$first_node}
export MASTER_ADDR
export MASTER_PORT=$((15000 + SLURM_JOB_ID % 10000))
td_torchrun=(torchrun)
# No torchrun on PATH (PyTorch 1.9, some modules): the same launcher, run as a module.
command -v torchrun >/dev/null 2>&1 || td_torchrun=(python3 -m torch.distributed.run)

# No checkpoint signal: torchrun dies of USR1/USR2, and srun ends the step on TERM, HUP and QUIT.
srun --ntasks-per-node=1 --cpus-per-task=24 \
  "${td_torchrun[@]}" --nnodes=2 --nproc_per_node=4 --rdzv_backend=c10d --rdzv_endpoint="$MASTER_ADDR:$MASTER_PORT" --rdzv_id="$SLURM_JOB_ID" --no_python bash -c 'source venv/bin/activate && exec python train.py --nodes "$SLURM_NNODES"'
