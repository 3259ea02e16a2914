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
#SBATCH --signal=INT@300

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

# Slurm sends INT to torchrun and its workers, not to this shell, 300 s before the wall time (--signal=INT@300).
# The workers checkpoint and stop; torchrun then exits 1, so rank 0's exit code 75 is kept in a file.
td_stop_file="$PWD/.torchdeck-stop-$SLURM_JOB_ID"
rm -f -- "$td_stop_file"
td_status=0
srun --ntasks-per-node=1 --cpus-per-task=24 \
  "${td_torchrun[@]}" --nnodes=2 --nproc_per_node=4 --rdzv_backend=c10d --rdzv_endpoint="$MASTER_ADDR:$MASTER_PORT" --rdzv_id="$SLURM_JOB_ID" --no_python bash -c 'bash -c "$1"; td_status=$?; if [ "$td_status" -eq 75 ] && [ "${RANK:-}" = 0 ]; then : >"$2"; fi; exit "$td_status"' torchdeck-rank 'source venv/bin/activate && exec python train.py --nodes "$SLURM_NNODES"' "$td_stop_file" || td_status=$?
if [ -e "$td_stop_file" ]; then td_status=75; rm -f -- "$td_stop_file"; fi
exit "$td_status"
