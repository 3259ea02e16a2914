#!/usr/bin/env bash
# Under a private instance of the project's sandbox Slurm (scripts/sandbox), `srun -n 2 torchdeck-train`
# and `mpirun -np 2 torchdeck-train` (inside a Slurm allocation) both train with world size 2.
# Usage: slurm_mpi_launch_test.sh TRAINER WORKDIR     (exit 77: skipped, Slurm or Open MPI missing)
set -euo pipefail
trainer=$1
work=$2
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
sandbox=$repo/scripts/sandbox
for tool in srun salloc mpirun slurmctld slurmd munged; do
    command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
[[ -x "$sandbox" ]] || { echo "SKIP: $sandbox missing"; exit 77; }

rm -rf "$work" && mkdir -p "$work"
state=$work/sandbox
cleanup() { "$sandbox" --dir "$state" --no-ssh-config stop >/dev/null 2>&1 || true; }
trap cleanup EXIT
"$sandbox" --dir "$state" --no-ssh-config start --nodes 1 >"$work/sandbox.log" 2>&1 || { cat "$work/sandbox.log"; exit 1; }
eval "$("$sandbox" --dir "$state" --no-ssh-config env)"

common=(--model ae --limit 256 --epochs 1 --batch-size 32 --log-every 2 --threads 1 --resume none --timeout 60)
# The sandbox's node names (node1...) do not resolve; on a real cluster the first host of the nodelist is
# the rendezvous address. Here it is given explicitly.
export MASTER_ADDR=127.0.0.1
check() { # NAME METRICS LAUNCHER
    local start
    start=$(grep '"event":"start"' "$2" || true)
    if [[ "$start" != *"\"launcher\":\"$3\",\"world_size\":2"* ]]; then
        echo "FAIL $1: start event: $start"; cat "$work/$1.log"; exit 1
    fi
    grep -q '"event":"stop".*"reason":"done","exit_code":0' "$2" || { echo "FAIL $1: no clean stop"; cat "$work/$1.log"; exit 1; }
    echo "ok $1: world size 2 via $3"
}

# srun: one task per rank, rank and master from SLURM_PROCID / SLURM_STEP_NODELIST.
timeout 180 srun -n 2 --overcommit -t 3 --export=ALL,MASTER_PORT=$((20000 + RANDOM % 20000)) \
    "$trainer" "${common[@]}" --metrics "$work/srun.jsonl" >"$work/srun.log" 2>&1 || { cat "$work/srun.log"; exit 1; }
check srun "$work/srun.jsonl" slurm

# mpirun inside a Slurm allocation: Open MPI starts the ranks (through Slurm), OMPI_COMM_WORLD_* set.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
timeout 180 salloc -n 2 --overcommit -t 3 mpirun -np 2 --oversubscribe \
    -x MASTER_ADDR -x MASTER_PORT=$((20000 + RANDOM % 20000)) \
    "$trainer" "${common[@]}" --metrics "$work/mpirun.jsonl" >"$work/mpirun.log" 2>&1 || { cat "$work/mpirun.log"; exit 1; }
check mpirun "$work/mpirun.jsonl" openmpi
