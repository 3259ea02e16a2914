#!/bin/bash -l
# torchdeck job resnet50-mpi: 2 node(s) x 4 rank(s), one mpirun for all nodes.
# Rendered from its JobSpec (docs/job-scripts.md); this text is what gets submitted.
#PBS -N resnet50-mpi
#PBS -S /bin/bash
#PBS -l select=2:ncpus=32:mpiprocs=4:ompthreads=8:ngpus=4:mem=64gb
#PBS -l place=scatter
#PBS -l walltime=24:00:00
#PBS -q gpu_q
#PBS -A st-lab-1-gpu
#PBS -j oe
#PBS -r y
#PBS -W depend=afternotok:1234.pbsserver

set -eo pipefail
td_job_id=${PBS_JOBID:-${SLURM_JOB_ID:-unknown}}
cd -- /scratch/ada/resnet50
exec >>/scratch/ada/resnet50/resnet50-mpi-"$td_job_id".out 2>&1
module load openmpi/4.1.4
module load cuda/11.7
set -u # after the modules: some module systems read unset variables
if [ -r "${PBS_NODEFILE:-}" ]; then MASTER_ADDR=$(head -n 1 "$PBS_NODEFILE"); else MASTER_ADDR=$(hostname); fi
export MASTER_ADDR
td_job_number=${td_job_id%%[!0-9]*}
export MASTER_PORT=$((15000 + ${td_job_number:-0} % 10000))
export OMP_NUM_THREADS=8
export NCCL_DEBUG=WARN
td_hostfile=()
if [ -r "${PBS_NODEFILE:-}" ]; then td_hostfile=(--hostfile "$PBS_NODEFILE"); fi

# On USR2 the ranks checkpoint and stop: the shell passes it on and waits for them.
td_pid=
td_forward() { if [ -n "$td_pid" ]; then kill -s USR2 "$td_pid" 2>/dev/null || true; fi; }
trap td_forward USR2
# PBS sends no warning before the wall time: this timer does, 300 s before it.
td_timer() { sleep "$1" & td_sleep=$!; trap 'kill "$td_sleep" 2>/dev/null; exit 0' TERM; wait "$td_sleep" && kill -s USR2 "$2"; }
td_timer 86100 "$$" &
td_timer_pid=$!
mpirun -np 8 --map-by ppr:4:node --bind-to none ${td_hostfile[@]+"${td_hostfile[@]}"} -x MASTER_ADDR -x MASTER_PORT -x OMP_NUM_THREADS -x NCCL_DEBUG \
  /project/torchdeck/trainer/bin/torchdeck-train --model resnet50 --data synthetic:100000 --batch-size 256 --checkpoint-dir /scratch/ada/resnet50/ckpt &
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
  if [ "$td_restarts" -lt 2 ]; then
    echo "$((td_restarts + 1))" >"$td_count_file"
    echo "torchdeck: requeueing job $td_job_id (restart $((td_restarts + 1)) of 2)" >&2
    qrerun "$td_job_id" || echo "torchdeck: requeue failed; the dashboard can resubmit" >&2
  else
    echo "torchdeck: not requeueing job $td_job_id: 2 restarts done" >&2
  fi
fi
exit "$td_status"
