#!/usr/bin/env bash
# Issue 18: the launch methods start a user's own Python DDP script (tests/data/scripts, Debian's
# python3-torch) on a sandbox of its own with 2 nodes of 2 stand-in GPUs each (Slurm's GRES): srun, srun + torchrun and mpirun with 2 nodes x 2 ranks,
# and the local method with an mp.spawn script (1 x 2). The same script, unchanged, under the three methods.
# Usage: launch_test.sh start|stop|CASE (ctest sets TORCHDECK_SANDBOX_DIR and TORCHDECK_SSH_CONFIG to the
# 2-node sandbox's). Also seed 004's torch.distributed.launch, and the warning signal under torchrun.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
case "$1" in
    start) exec "$TORCHDECK_SOURCE_DIR/scripts/sandbox" start --nodes 2 --gpus 2 ;;
    stop) exec "$TORCHDECK_SOURCE_DIR/scripts/sandbox" stop ;;
esac
/usr/bin/python3 -c 'import torch.distributed' 2>/dev/null || { echo "SKIP: Debian's python3-torch is missing"; exit 77; }
# shellcheck source=term_helpers.sh
source "$here/term_helpers.sh"
scripts=$TORCHDECK_SOURCE_DIR/tests/data/scripts
td profile torchdeck-sandbox --work-dir "$home/work" >/dev/null

# Debian 12's own torchrun and torch.distributed.launch fail under Python 3.11 (see the fix's header): where the
# bug is present, the jobs get PYTHONPATH with tests/data/scripts/debian12-fix.
if /usr/bin/python3 -c 'import sys; from torch.distributed.elastic.multiprocessing.api import Std
sys.exit(Std.from_str("0") is None)' 2>/dev/null; then
    fix=()
else
    echo "launch_test: Debian's torchrun cannot start under Python 3.11: using tests/data/scripts/debian12-fix" >&2
    fix=(--env "PYTHONPATH=$scripts/debian12-fix")
fi

check_ranks() { # LOG WORLD: every rank's all_reduce agrees, rank 0's epoch lines are there once
    local rank sum=$(( $2 * ($2 + 1) / 2 ))
    for (( rank = 0; rank < $2; rank++ )); do
        grep -qE "^rank $rank of $2 .*: all_reduce sum $sum(, gpus .*)?\$" "$1" || fail "rank $rank's sum is missing: $(cat "$1")"
    done
    grep -q '^epoch: 3/3, loss = ' "$1" || fail "rank 0's last epoch line is missing: $(cat "$1")"
}

run_ddp() { # METHOD [SUBMIT OPTIONS...]: ddp_allreduce.py on 2 nodes x 2 ranks, followed to its end
    local method=$1 run log
    shift
    run=$(td submit torchdeck-sandbox --name "ddp-$method" --launch "$method" --nodes 2 --tasks-per-node 2 "$@" \
          --command "/usr/bin/python3 '$scripts/ddp_allreduce.py'" --json | json_field run)
    log=$home/$method.log
    td logs "$run" -f >"$log" 2>&1 || fail "the $method job failed: $(cat "$log")"
    check_ranks "$log" 4
    expect_eq "$(grep -c '^epoch: ' "$log")" 3 "epoch lines (rank 0 only)"
    expect_eq "$(td status "$run" --json | json_field state)" completed "the $method run's state"
}

check_gpus() { # LOG GPUS_OF_RANK...: what each rank saw in CUDA_VISIBLE_DEVICES
    local rank=0 gpus
    for gpus in "${@:2}"; do
        grep -q "^rank $rank of .*, gpus $gpus\$" "$1" || fail "rank $rank did not see GPUs $gpus: $(cat "$1")"
        (( ++rank ))
    done
}

case_srun() { # one GPU per task: each rank its own of its node's two
    run_ddp srun --gpus-per-task 1
    check_gpus "$home/srun.log" 0 1 0 1
}

case_torchrun() { # one torchrun per node, the script's default line and its default signal; the launcher gets
    # both of its node's GPUs (2 ranks x 1) and its workers see both
    run_ddp srun-per-node --per-node-launcher torchrun --gpus-per-task 1 "${fix[@]}"
    check_gpus "$home/srun-per-node.log" 0,1 0,1 0,1 0,1
}

case_distributed_launch() { # seed 004's launcher: python -m torch.distributed.launch, which passes --local_rank
    local rank log=$home/srun-per-node.log
    run_ddp srun-per-node --per-node-launcher "/usr/bin/python3 -m torch.distributed.launch" "${fix[@]}"
    for rank in 0 1 2 3; do # the local rank came as --local_rank, and it is the rank's place on its node
        grep -q "^rank $rank of 4 (local $(( rank % 2 ))): " "$log" || fail "rank $rank's --local_rank: $(cat "$log")"
    done
}

case_torchrun_signal() { # at a short wall time, the signal the preview names reaches every rank under torchrun
    local options signal run log marks=$home/marks rank out job
    mkdir -p "$marks"
    # The workers wait for the signal. Its end 61 s after it starts: Slurm's warning (lead 60 s) comes within 30 s.
    options=(--launch srun-per-node --per-node-launcher torchrun --nodes 2 --tasks-per-node 2 --time 00:02:00
             --signal-lead 60 --requeue --max-restarts 1 "${fix[@]}")
    signal=$(td script torchdeck-sandbox "${options[@]}" --command true |
             sed -n 's/^#SBATCH --signal=\([A-Z0-9]*\)@60$/\1/p')
    expect_eq "$signal" INT "the signal of the preview's --signal (no B: for torchrun)"
    out=$(td submit torchdeck-sandbox --name ddp-signal "${options[@]}" \
          --command "/usr/bin/python3 '$scripts/signal_marker.py' $signal '$marks'" --json)
    run=$(json_field run <<<"$out")
    job=$(json_field job <<<"$out")
    end_job_in "$job" 61
    expect_eq "$(wait_final "$run")" completed "the run's end"
    log=$(td logs "$run")
    for rank in 0 1 2 3; do
        expect_eq "$(cat "$marks/rank$rank" 2>/dev/null)" "SIG$signal" "rank $rank's marker (log: $log)"
    done
    # torchrun exited 1, yet rank 0's exit code 75 requeued the job; the ranks resumed once.
    grep -q "torchdeck: requeueing job .* (restart 1 of 1)" <<<"$log" || fail "no requeue in the log: $log"
    expect_eq "$(grep -c ': resumed from the checkpoint$' <<<"$log")" 4 "ranks that resumed (log: $log)"
}

case_mpirun() {
    command -v mpirun >/dev/null || { echo "SKIP: Open MPI's mpirun is missing"; exit 77; }
    local root=()
    (( EUID != 0 )) || root=(--mpi-allow-run-as-root)
    run_ddp mpirun --gpus-per-node 2 "${root[@]}"
    check_gpus "$home/mpirun.log" 0,1 0,1 0,1 0,1
}

case_mpirun_pbs() { # seed 000's Sockeye line: mpirun on PBS (the sandbox's Torque wrappers, no PBS_NODEFILE)
    command -v mpirun >/dev/null || { echo "SKIP: Open MPI's mpirun is missing"; exit 77; }
    td profile torchdeck-sandbox --scheduler pbs --pbs-dialect torque --work-dir "$home/work-pbs" >/dev/null
    # A wall time, as PBS sites require: the script's own timer stands in for the warning signal.
    if (( EUID == 0 )); then run_ddp mpirun --time 00:10:00 --mpi-allow-run-as-root; else run_ddp mpirun --time 00:10:00; fi
}

case_spawn() { # the local method: the script's own mp.spawn starts the 2 ranks
    local run log=$home/spawn.log
    run=$(td submit torchdeck-sandbox --name ddp-spawn --launch local --nodes 1 --tasks-per-node 2 \
          --command "/usr/bin/python3 '$scripts/spawn_allreduce.py' 2" --json | json_field run)
    td logs "$run" -f >"$log" 2>&1 || fail "the spawn job failed: $(cat "$log")"
    check_ranks "$log" 2
    expect_eq "$(td status "$run" --json | json_field state)" completed "the spawn run's state"
}

case_torchrun_spellings() { # the options of the golden torchrun line, given to Debian's torchrun 1.13
    command -v torchrun >/dev/null || { echo "SKIP: no torchrun"; exit 77; }
    local line options port words
    [[ ${#fix[@]} -eq 0 ]] || export PYTHONPATH=$scripts/debian12-fix
    line=$(grep -o '"${td_torchrun\[@\]}" .* --no_python' "$TORCHDECK_SOURCE_DIR/tests/data/jobs/slurm-torchrun-custom.sh")
    port=$(( 20000 + RANDOM % 20000 ))
    # One node of one rank here, the rendezvous on loopback: the spellings are what is checked.
    options=$(sed -e 's/^"${td_torchrun\[@\]}" //' -e 's/--nnodes=[0-9]*/--nnodes=1/' \
                  -e 's/--nproc_per_node=[0-9]*/--nproc_per_node=1/' \
                  -e "s/\"\$MASTER_ADDR:\$MASTER_PORT\"/127.0.0.1:$port/" -e 's/"$SLURM_JOB_ID"/1/' <<<"$line")
    read -ra words <<<"$options"
    timeout 120 torchrun "${words[@]}" true || fail "torchrun refused the generated options: ${words[*]}"
}

"case_$1"
remove_home
