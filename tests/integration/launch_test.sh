#!/usr/bin/env bash
# Issue 18: the launch methods start a user's own Python DDP script (tests/data/scripts, Debian's
# python3-torch) on a sandbox of its own with 2 nodes: srun, srun + torchrun and mpirun with 2 nodes x 2 ranks,
# and the local method with an mp.spawn script (1 x 2). The same script, unchanged, under the three methods.
# Usage: launch_test.sh start|stop|CASE (ctest sets TORCHDECK_SANDBOX_DIR and TORCHDECK_SSH_CONFIG to the
# 2-node sandbox's).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
case "$1" in
    start) exec "$TORCHDECK_SOURCE_DIR/scripts/sandbox" start --nodes 2 ;;
    stop) exec "$TORCHDECK_SOURCE_DIR/scripts/sandbox" stop ;;
esac
/usr/bin/python3 -c 'import torch.distributed' 2>/dev/null || { echo "SKIP: Debian's python3-torch is missing"; exit 77; }
# shellcheck source=term_helpers.sh
source "$here/term_helpers.sh"
scripts=$TORCHDECK_SOURCE_DIR/tests/data/scripts
td profile torchdeck-sandbox --work-dir "$home/work" >/dev/null

torchrun_path() { # PATH with a torchrun that starts: Debian 12's own fails under Python 3.11 (see the fix's header)
    if /usr/bin/python3 -c 'import sys; from torch.distributed.elastic.multiprocessing.api import Std
sys.exit(Std.from_str("0") is None)' 2>/dev/null; then
        echo "$PATH"
    else
        echo "launch_test: Debian's torchrun cannot start under Python 3.11: using tests/data/scripts/debian12-torchrun" >&2
        echo "$scripts/debian12-torchrun:$PATH"
    fi
}

check_ranks() { # LOG WORLD: every rank's all_reduce agrees, rank 0's epoch lines are there once
    local rank sum=$(( $2 * ($2 + 1) / 2 ))
    for (( rank = 0; rank < $2; rank++ )); do
        grep -q "^rank $rank of $2 .*: all_reduce sum $sum\$" "$1" || fail "rank $rank's sum is missing: $(cat "$1")"
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

case_srun() { run_ddp srun; }

case_torchrun() { # one torchrun per node, the script's default line; no "turn the signal off" needed
    run_ddp srun-per-node --per-node-launcher torchrun --env "PATH=$(torchrun_path)"
}

case_mpirun() {
    command -v mpirun >/dev/null || { echo "SKIP: Open MPI's mpirun is missing"; exit 77; }
    if (( EUID == 0 )); then run_ddp mpirun --mpi-allow-run-as-root; else run_ddp mpirun; fi
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
    PATH=$(torchrun_path)
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
