#!/bin/bash
# torchdeck job mnist-torque: 2 node(s) x 2 rank(s), one mpirun for all nodes.
# Rendered from its JobSpec (docs/job-scripts.md); this text is what gets submitted.
#PBS -N mnist-torque
#PBS -S /bin/bash
#PBS -l nodes=2:ppn=2
#PBS -l mem=8gb
#PBS -l walltime=00:30:00
#PBS -j oe
#PBS -r y

set -euo pipefail
td_job_id=${PBS_JOBID:-${SLURM_JOB_ID:-unknown}}
cd -- /home/ada/runs/mnist-ae
exec >>/home/ada/runs/mnist-ae/mnist-torque-"$td_job_id".out 2>>/home/ada/runs/mnist-ae/mnist-torque-"$td_job_id".err
if [ -r "${PBS_NODEFILE:-}" ]; then MASTER_ADDR=$(head -n 1 "$PBS_NODEFILE"); else MASTER_ADDR=$(hostname); fi
export MASTER_ADDR
td_job_number=${td_job_id%%[!0-9]*}
export MASTER_PORT=$((15000 + ${td_job_number:-0} % 10000))
td_hostfile=()
if [ -r "${PBS_NODEFILE:-}" ]; then td_hostfile=(--hostfile "$PBS_NODEFILE"); fi

# On USR1 the ranks checkpoint and stop: the shell passes it on and waits for them.
td_pid=
td_forward() { if [ -n "$td_pid" ]; then kill -s USR1 "$td_pid" 2>/dev/null || true; fi; }
trap td_forward USR1
# PBS sends no warning before the wall time: this timer does, 120 s before it.
td_timer() { sleep "$1" & td_sleep=$!; trap 'kill "$td_sleep" 2>/dev/null; exit 0' TERM; wait "$td_sleep" && kill -s USR1 "$2"; }
td_timer 1680 "$$" &
td_timer_pid=$!
mpirun -np 4 --map-by ppr:2:node --bind-to none --allow-run-as-root ${td_hostfile[@]+"${td_hostfile[@]}"} -x MASTER_ADDR -x MASTER_PORT --mca btl self,tcp \
  /home/ada/.local/share/torchdeck/trainer/3f9a1c/bin/torchdeck-train --model ae --epochs 10 --metrics metrics.jsonl --checkpoint-dir checkpoints --resume auto &
td_pid=$!
td_status=0
while :; do
  wait "$td_pid" && td_status=0 || td_status=$?
  kill -0 "$td_pid" 2>/dev/null || break # still running: the signal cut the wait short
done
kill "$td_timer_pid" 2>/dev/null || true
# Exit code 75: the command checkpointed and asks to run again.
if [ "$td_status" -eq 75 ]; then
  td_count_file=.torchdeck-restarts-$td_job_id
  td_restarts=$(cat "$td_count_file" 2>/dev/null || echo 0)
  if [ "$td_restarts" -lt 3 ]; then
    echo "$((td_restarts + 1))" >"$td_count_file"
    echo "torchdeck: requeueing job $td_job_id (restart $((td_restarts + 1)) of 3)" >&2
    qrerun "$td_job_id" || echo "torchdeck: requeue failed; the dashboard can resubmit" >&2
  else
    echo "torchdeck: not requeueing job $td_job_id: 3 restarts done" >&2
  fi
fi
exit "$td_status"
