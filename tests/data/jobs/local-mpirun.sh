#!/bin/bash
# torchdeck job mnist-local-mpi: 1 node(s) x 2 rank(s), one mpirun for all nodes.
# Rendered from its JobSpec (docs/job-scripts.md); this text is what gets submitted.

set -euo pipefail
td_job_id=${TORCHDECK_LOCAL_JOB_ID:-$$} # the id the dashboard knows this run by: its runner's PID
cd -- /home/ada/.local/state/torchdeck/runs/mnist-local
exec >>/home/ada/.local/state/torchdeck/runs/mnist-local/mnist-local-mpi-"$td_job_id".out 2>&1
MASTER_ADDR=127.0.0.1
export MASTER_ADDR
td_job_number=${td_job_id%%[!0-9]*}
export MASTER_PORT=$((15000 + ${td_job_number:-0} % 10000))
export OMP_NUM_THREADS=1

# On USR2 the ranks checkpoint and stop: the shell passes it on and waits for them.
td_pid=
td_forward() { if [ -n "$td_pid" ]; then kill -s USR2 "$td_pid" 2>/dev/null || true; fi; }
trap td_forward USR2
mpirun -np 2 --map-by ppr:2:node --bind-to none --oversubscribe --allow-run-as-root -x MASTER_ADDR -x MASTER_PORT -x OMP_NUM_THREADS \
  /home/ada/.local/share/torchdeck/trainer/3f9a1c/bin/torchdeck-train --model ae --epochs 10 --metrics metrics.jsonl --checkpoint-dir checkpoints --resume auto &
td_pid=$!
td_status=0
while :; do
  wait "$td_pid" && td_status=0 || td_status=$?
  kill -0 "$td_pid" 2>/dev/null || break # still running: the signal cut the wait short
done
exit "$td_status"
