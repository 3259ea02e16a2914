#!/usr/bin/env bash
# Foundation tests against the real sandbox cluster. Usage: sandbox_test.sh CASE
# Needs TORCHDECK_SOURCE_DIR, TORCHDECK_SANDBOX_DIR and TORCHDECK_SSH_CONFIG (set by ctest).
set -euo pipefail
sandbox="$TORCHDECK_SOURCE_DIR/scripts/sandbox"

fail() { echo "FAIL: $*" >&2; exit 1; }
expect_eq() { [[ "$1" == "$2" ]] || fail "$3: expected '$2', got '$1'"; }
use_sandbox() { eval "$("$sandbox" env)"; }

wait_job_state() { # ID STATE SECONDS
    local i state=""
    for (( i = 0; i < $3 * 5; i++ )); do
        state=$(scontrol show job -o "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2 || true)
        [[ "$state" == "$2" ]] && return 0
        sleep 0.2
    done
    fail "job $1 is '$state' after $3 s, expected $2"
}

live_processes() { # PIDS recorded by the sandbox that still run (zombies are done)
    local dir=$1 name pid bin
    [[ -f "$dir/run/pids.last" ]] || return 0
    while read -r name pid bin; do
        [[ -e /proc/$pid ]] && [[ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ]] && echo "$name:$pid"
    done <"$dir/run/pids.last"
    return 0
}

case_start() { "$sandbox" start --gpus 2; } # stand-in GPUs (Slurm's GRES) for the GPU fields' jobs

case_ssh() { # plain ssh through the Include, remote exit code and quoting pass through
    local out rc=0
    out=$(ssh -F "$TORCHDECK_SSH_CONFIG" -o BatchMode=yes torchdeck-sandbox 'printf "%s|" "a b" "$SLURM_CONF"; exit 42') || rc=$?
    expect_eq "$rc" 42 "remote exit code"
    expect_eq "$out" "a b|$TORCHDECK_SANDBOX_DIR/slurm/slurm.conf|" "remote output"
}

case_sbatch() { # a batch job runs to COMPLETED and writes its output
    use_sandbox
    local work id
    work=$(mktemp -d)
    id=$(cd "$work" && sbatch --parsable --wrap 'echo "rank $SLURM_PROCID on $SLURMD_NODENAME"')
    [[ "$id" =~ ^[0-9]+$ ]] || fail "sbatch --parsable printed '$id'"
    wait_job_state "$id" COMPLETED 60
    expect_eq "$(cat "$work/slurm-$id.out")" "rank 0 on node1" "job output"
    rm -rf "$work"
}

case_srun() { # srun -n 2 starts two ranks
    use_sandbox
    local ranks
    ranks=$(srun -n 2 bash -c 'echo "$SLURM_PROCID/$SLURM_NTASKS"' | sort | tr '\n' ' ')
    expect_eq "$ranks" "0/2 1/2 " "srun ranks"
}

case_qsub() { # Slurm's PBS wrappers: qsub prints an id, qstat knows the job, #PBS lines are honoured
    use_sandbox
    local work id
    work=$(mktemp -d)
    printf '#!/bin/bash\n#PBS -N td-pbs\n#PBS -l walltime=00:01:00\necho "job $PBS_JOBID"\n' >"$work/job.pbs"
    id=$(cd "$work" && qsub job.pbs)
    [[ "$id" =~ ^[0-9]+ ]] || fail "qsub printed '$id'"
    wait_job_state "${id%%.*}" COMPLETED 60
    qstat -f "$id" | grep -q 'Job_Name = td-pbs' || fail "qstat -f does not show the job name"
    expect_eq "$(cat "$work"/job.pbs.o*)" "job ${id%%.*}" "PBS job output"
    rm -rf "$work"
}

case_clusters() { # torchdeck reads the ssh config the sandbox wrote, through its Include
    use_sandbox
    local out
    out=$("$TORCHDECK_BIN" clusters)
    grep -qE "^torchdeck-sandbox +$(id -un)@127\.0\.0\.1:$TORCHDECK_SANDBOX_SSH_PORT\$" <<<"$out" ||
        fail "torchdeck clusters did not list the sandbox: $out"
    out=$("$TORCHDECK_BIN" clusters --json)
    grep -q '"name":"torchdeck-sandbox"' <<<"$out" || fail "clusters --json printed: $out"
}

stop_agents() { # DATA_DIR...: the agents the checks started, each on a store of its own
    local data
    for data in "$@"; do TORCHDECK_DATA_DIR=$data timeout 60 "$TORCHDECK_BIN" agent stop >/dev/null 2>&1 || true; done
}

case_check() { # torchdeck check: every line passes on the sandbox; without a terminal nothing hangs
    use_sandbox
    local out rc=0 cfg home
    home=$(mktemp -d)
    # Stores of the check's own (each has its agent, started by the check): gone with the case.
    export TORCHDECK_DATA_DIR=$home/data TORCHDECK_CONFIG_DIR=$home/config
    # shellcheck disable=SC2064 # expand now
    trap "stop_agents '$home/data' '$home/data-unknown-key'; rm -rf '$home'" EXIT
    out=$(setsid -w "$TORCHDECK_BIN" check torchdeck-sandbox --work-dir "$TORCHDECK_SANDBOX_DIR/check-work") || rc=$?
    expect_eq "$rc" 0 "check exit code (output: $out)"
    expect_eq "$(grep -cE '^  [✓!] ' <<<"$out")" 13 "passed checks in: $out"
    # No accounting database and no quota tools on the sandbox: the two lines say so, and pass.
    grep -qE '^  ✓ Fair share: sshare reports no fair-share factor for you' <<<"$out" || fail "fair share: $out"
    grep -qE '^  ✓ Quota: no quota tools here' <<<"$out" || fail "quota: $out"
    grep -qE '^  ✓ Accounts: sacctmgr lists none for you \(.*accounting.*\): accounts and QOS limits are not checked' \
        <<<"$out" || fail "accounts: $out"
    # A tiny job that requeued itself: the sandbox's Slurm allows it.
    grep -qE '^  ✓ In-job requeue: a job may requeue itself' <<<"$out" || fail "no in-job requeue line in: $out"
    # Debian 12's torchrun is flagged (PyTorch 1.13 on Python 3.11): a warning, not a failure.
    grep -qE '^  [✓!] PyTorch launcher: .*PyTorch [0-9]' <<<"$out" || fail "no PyTorch launcher line in: $out"
    # The partitions, read with sinfo and kept in the profile: a job beyond their limits is refused before it is
    # sent, naming the limit and where it comes from.
    grep -qE '^  ✓ Partitions: debug \(default\): no time limit, 1 node, [0-9]+ CPUs, 2.0 GiB, 2 GPUs; short: 30 min, 1 node, .*, 2 GPUs$' \
        <<<"$out" || fail "partitions: $out"
    rc=0
    out=$(setsid -w "$TORCHDECK_BIN" submit torchdeck-sandbox --name too-long --partition short --time 01:00:00 \
          --launch local --command true 2>&1) || rc=$?
    expect_eq "$rc" 1 "submit's exit code for an hour on short (output: $out)"
    grep -qF "Partition 'short' allows at most 00:30:00 of wall time (sinfo, read" <<<"$out" ||
        fail "submit did not name the limit: $out"
    expect_eq "$(squeue -h --states=all -o %j | grep -c '^too-long-' || true)" 0 "jobs sent for it"
    setsid -w "$TORCHDECK_BIN" script torchdeck-sandbox --partition debug --time 01:00:00 --launch local \
        --command true >/dev/null || fail "an hour on debug was refused"
    # The nodes' memory (2000 MiB) and GPUs (2 each) are limits as well.
    rc=0
    out=$(setsid -w "$TORCHDECK_BIN" script torchdeck-sandbox --mem 4G --tasks-per-node 3 --gpus-per-task 1 \
          --launch srun --command true 2>&1) || rc=$?
    expect_eq "$rc" 1 "script's exit code for 4 GiB and 3 GPUs a node (output: $out)"
    grep -qF "Partition 'debug' has 2000 MiB of memory per node, not 4096 MiB (sinfo" <<<"$out" || fail "memory: $out"
    grep -qF "Partition 'debug' has 2 GPUs per node, not 3 (sinfo" <<<"$out" || fail "GPUs: $out"
    rc=0
    out=$(setsid -w "$TORCHDECK_BIN" check torchdeck-sandbox --scheduler sge 2>&1) || rc=$?
    expect_eq "$rc" 2 "exit code of a bad option"
    # An unknown host key and no terminal to ask on: a clear failure, not a hang.
    cfg=$(mktemp)
    sed "s|UserKnownHostsFile .*|UserKnownHostsFile $cfg.known_hosts|" "$TORCHDECK_SANDBOX_DIR/ssh/config" >"$cfg"
    rc=0
    # Another ssh config is another agent's: the agent reads the ssh config it was started with.
    out=$(TORCHDECK_DATA_DIR=$home/data-unknown-key TORCHDECK_SSH_CONFIG=$cfg timeout 60 \
          setsid -w "$TORCHDECK_BIN" check torchdeck-sandbox 2>&1) || rc=$?
    rm -f "$cfg" "$cfg.known_hosts"
    expect_eq "$rc" 1 "exit code with an unknown host key and no terminal"
    grep -q 'is not known and was not accepted' <<<"$out" || fail "unclear message: $out"
}

case_stop() { # stop ends every process start began, the jobs' processes, and what a killed test left inside
    use_sandbox
    local id marker="torchdeck-stop-test-$$" killed="$TORCHDECK_SANDBOX_DIR/term-test.killed" agent
    cp "$TORCHDECK_SANDBOX_DIR/run/pids" "$TORCHDECK_SANDBOX_DIR/run/pids.last"
    trap '"$sandbox" stop >/dev/null 2>&1' EXIT # the fixture's cleanup: stop even when a check fails
    id=$(sbatch --parsable -o /dev/null --wrap "exec bash -c 'exec -a $marker sleep 600'") # --wrap runs /bin/sh
    wait_job_state "$id" RUNNING 30
    # What a test killed at its timeout leaves (its trap never ran): a second sandbox and its store's agent.
    "$sandbox" --dir "$killed/b" --name torchdeck-killed --no-ssh-config start >/dev/null
    cp "$killed/b/run/pids" "$killed/b/run/pids.last"
    (export TORCHDECK_DATA_DIR=$killed/data TORCHDECK_CONFIG_DIR=$killed/config
     mkdir -p "$killed"
     setsid "$TORCHDECK_BIN" agent </dev/null >"$killed/agent.out" 2>&1 &
     for _ in $(seq 100); do "$TORCHDECK_BIN" agent status >/dev/null 2>&1 && exit 0; sleep 0.1; done
     exit 1) || fail "the killed test's agent did not start: $(cat "$killed/agent.out")"
    agent=$(TORCHDECK_DATA_DIR=$killed/data TORCHDECK_CONFIG_DIR=$killed/config "$TORCHDECK_BIN" agent status --json |
            /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
    "$sandbox" stop
    sleep 0.5
    local left
    left=$(live_processes "$TORCHDECK_SANDBOX_DIR")
    [[ -z "$left" ]] || fail "still running after stop: $left"
    left=$(live_processes "$killed/b")
    [[ -z "$left" ]] || fail "the killed test's sandbox still runs after stop: $left
$(ps -o pid,ppid,stat,lstart,args -p "$(sed 's/[^ ]*://g' <<<"$left" | tr '\n' ',')0" 2>&1)
$(cat "$killed/b/run/pids.last")"
    [[ -e /proc/$agent && "$(awk '{print $3}' "/proc/$agent/stat" 2>/dev/null)" != Z ]] &&
        fail "the killed test's agent ($agent) survived stop"
    rm -rf "$killed"
    pgrep -f "$marker" >/dev/null && fail "the job's process survived stop"
    "$sandbox" status && fail "status says running after stop"
    return 0
}

case_lifecycle() { # --nodes 2, start twice, a crash reported, restart, stop, forget
    local status_rc=0 ranks out
    dir=$(mktemp -d /tmp/torchdeck-lifecycle.XXXXXX) # global: the EXIT trap needs it
    cfg="$dir.ssh_config"
    printf 'Host other\n    HostName example.org\n' >"$cfg"
    export TORCHDECK_SANDBOX_DIR=$dir TORCHDECK_SSH_CONFIG=$cfg
    dir_b="$dir-b" # a second cluster beside it
    trap '"$sandbox" --dir "$dir_b" forget >/dev/null 2>&1; "$sandbox" forget >/dev/null 2>&1; rm -rf "$dir" "$dir_b" "$cfg"' EXIT
    "$sandbox" start --nodes 2
    out=$("$sandbox" start)
    grep -q 'already running' <<<"$out" || fail "second start did not see the running sandbox: $out"
    use_sandbox
    ranks=$(srun -N 2 -n 2 bash -c 'echo "$SLURM_PROCID:$SLURMD_NODENAME"' | sort | tr '\n' ' ')
    expect_eq "$ranks" "0:node1 1:node2 " "ranks over two nodes"
    ssh -F "$cfg" -o BatchMode=yes torchdeck-sandbox true || fail "ssh through the Include failed"

    # --name: a second cluster of its own name (ssh alias and Slurm ClusterName) beside the first; stop and forget
    # end only it and take out only its Include.
    "$sandbox" --dir "$dir_b" --name torchdeck-b start >/dev/null
    expect_eq "$(ssh -F "$cfg" -o BatchMode=yes torchdeck-b 'scontrol show config' | awk '$1=="ClusterName" {print $3}')" \
        torchdeck-b "the second cluster's name"
    expect_eq "$(ssh -F "$cfg" -o BatchMode=yes torchdeck-sandbox 'scontrol show config' | awk '$1=="ClusterName" {print $3}')" \
        torchdeck-sandbox "the first cluster's name"
    grep -q '^export TORCHDECK_SANDBOX_HOST=torchdeck-b$' <<<"$("$sandbox" --dir "$dir_b" env)" || fail "env of the second"
    "$sandbox" --dir "$dir_b" forget >/dev/null
    "$sandbox" status >/dev/null || fail "the first sandbox stopped with the second"
    ssh -F "$cfg" -o BatchMode=yes torchdeck-sandbox true || fail "the first's Include went with the second's"
    ssh -F "$cfg" -o BatchMode=yes -o ConnectTimeout=5 torchdeck-b true 2>/dev/null && fail "the second is still reachable"

    kill "$(awk '$1=="slurmd-node2"{print $2}' "$dir/run/pids")"
    sleep 0.5
    "$sandbox" status >"$dir/status.txt" 2>&1 || status_rc=$?
    expect_eq "$status_rc" 1 "status exit code with a crashed daemon"
    grep -q 'slurmd-node2 *CRASHED' "$dir/status.txt" || fail "status did not name the crashed daemon"

    out=$("$sandbox" start)
    grep -q 'ready: 2 node' <<<"$out" || fail "start did not bring back both nodes: $out"
    cp "$dir/run/pids" "$dir/run/pids.last"
    "$sandbox" forget
    sleep 0.5
    [[ -z "$(live_processes "$dir")" ]] || fail "still running after stop: $(live_processes "$dir")"
    expect_eq "$(cat "$cfg")" $'Host other\n    HostName example.org' "ssh config after forget"
}

"case_${1:?usage: sandbox_test.sh CASE}"
