#!/bin/bash
# torchdeck job hello: 1 node(s) x 1 rank(s), srun, one task per rank.
# Rendered from its JobSpec (docs/job-scripts.md); this text is what gets submitted.
#SBATCH --job-name=hello
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=1
#SBATCH --cpus-per-task=1
#SBATCH --gres=gpu:1
#SBATCH --time=00:10:00
#SBATCH --output=hello-%j.out
#SBATCH --open-mode=append

set -euo pipefail
first_node=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | sed -n 1p)
MASTER_ADDR=$(scontrol show node "$first_node" 2>/dev/null | sed -n 's/.*NodeAddr=\([^ ]*\).*/\1/p' || true)
MASTER_ADDR=${MASTER_ADDR:-$first_node}
export MASTER_ADDR
export MASTER_PORT=$((15000 + SLURM_JOB_ID % 10000))

srun --ntasks-per-node=1 \
  bash -c 'export RANK=$SLURM_PROCID LOCAL_RANK=$SLURM_LOCALID NODE_RANK=$SLURM_NODEID WORLD_SIZE=1 LOCAL_WORLD_SIZE=1; exec bash -c "$1"' torchdeck-rank 'nvidia-smi; python -c '\''import torch; print(torch.cuda.is_available())'\'''
