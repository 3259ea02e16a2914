# Helpers of the terminal tests (term_test.sh, requeue_test.sh), sourced by them: the sandbox's env, a run
# store and profiles of the case's own ($home), the torchdeck binary as `td`, checks.
# shellcheck shell=bash
export LC_ALL=C.UTF-8 # the screen checks match braille and box characters
sandbox="$TORCHDECK_SOURCE_DIR/scripts/sandbox"
eval "$("$sandbox" env)"

fail() { echo "FAIL: $*" >&2; exit 1; }
expect_eq() { [[ "$1" == "$2" ]] || fail "$3: expected '$2', got '$1'"; }
json_field() { /usr/bin/python3 -c 'import json,sys; v=json.load(sys.stdin)
for k in sys.argv[1].split("."): v=v[int(k)] if isinstance(v,list) else v[k]
print(v)' "$1"; }

home=$(mktemp -d "$TORCHDECK_SANDBOX_DIR/term-test.XXXXXX")
export TORCHDECK_CONFIG_DIR=$home/config TORCHDECK_DATA_DIR=$home/data
td() { setsid -w "$TORCHDECK_BIN" "$@"; } # no controlling terminal: nothing may wait for an answer
# The sandbox is on this machine: its scheduler may be asked every second (a profile's default minimum is 10 s).
td profile torchdeck-sandbox --min-poll 1 >/dev/null
# The case's first command starts the agent of its store (torchdeck agent): it is stopped when the case ends,
# by its PID if it does not stop when asked. Cases with traps of their own call it from theirs.
stop_agent() {
    cancel_own_jobs
    local status pid
    if status=$("$TORCHDECK_BIN" agent status --json 2>&1); then
        pid=$(json_field pid <<<"$status" 2>/dev/null) || return 0
        timeout 120 "$TORCHDECK_BIN" agent stop >/dev/null 2>&1 || true
    else # none, or one that does not answer (a case that failed while it was stopped): the front named its pid
        pid=$(grep -oE 'the agent, pid [0-9]+' <<<"$status" | grep -oE '[0-9]+$') || return 0
        kill -CONT "$pid" 2>/dev/null || true
        kill -TERM "$pid" 2>/dev/null || true
    fi
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
}
# The case's jobs still in the sandbox's queue (a case that failed half-way): cancelled, so that they do not hold the
# sandbox's CPUs from the cases after it. Its jobs are those whose script is under its home.
cancel_own_jobs() {
    squeue -h -o '%i %o' 2>/dev/null | awk -v home="$home/" 'index($2, home) == 1 { print $1 }' |
        xargs -r scancel 2>/dev/null || true
}
trap stop_agent EXIT

remove_home() { # at the end of a case: a job's last files (Slurm's step flushing) may land while rm runs
    stop_agent
    local i
    for (( i = 0; i < 10; i++ )); do rm -rf "$home" 2>/dev/null && return 0; sleep 0.5; done
    rm -rf "$home"
}

wait_final() { # RUN [SECONDS]: polls its status (which follows a job that requeued itself) until the run has ended
    local state
    for _ in $(seq "${2:-600}"); do
        state=$(td status "$1" --json | json_field state)
        [[ "$state" == completed || "$state" == failed || "$state" == cancelled ]] && { echo "$state"; return; }
        sleep 1
    done
    fail "run $1 still $state after ${2:-600} s"
}

# JOB SECONDS: once the job runs, its end brought forward to SECONDS from then (scontrol, as the sandbox's SlurmUser).
# Slurm acts on it (its warning signal, TIMEOUT) at the controller's next check of time limits, within 30 s: a wall
# time's end without waiting out the minutes of the smallest --time.
end_job_in() {
    for _ in $(seq 300); do [[ "$(squeue -h -j "$1" -o %T)" == RUNNING ]] && break; sleep 0.2; done
    scontrol update JobId="$1" EndTime="$(date -d "+$2 sec" +%Y-%m-%dT%H:%M:%S)" || fail "the end of job $1"
}

close_sandbox_port() { # the sandbox out of reach for the case's next agent: its ssh config, the port closed
    stop_agent
    sed 's/^\( *Port\) .*/\1 1/' "$TORCHDECK_SANDBOX_SSH_CONFIG" >"$home/closed-ssh-config"
    export TORCHDECK_SSH_CONFIG=$home/closed-ssh-config
}

use_prebuilt_trainer() {
    td profile torchdeck-sandbox --work-dir "$home/work" --trainer-binary "$TORCHDECK_TRAIN_BINARY" >/dev/null
}

final_checkpoint() { # RUN: the newest checkpoint file of a run
    ls "$home/work/runs/$1/checkpoints"/checkpoint-*.pt | sort | tail -n1
}

same_parameters() { # FILE FILE: the models agree to 1e-6
    /usr/bin/python3 - "$1" "$2" <<'PY'
import sys, torch
a, b = (torch.load(p)["model"] for p in sys.argv[1:3])
diff = max((a[k].float() - b[k].float()).abs().max().item() for k in a)
print(f"max |difference| of the final parameters: {diff:.3g}")
sys.exit(0 if diff <= 1e-6 else 1)
PY
}

# The sshd processes serving SSH connections under the sandbox's listener. Only sshd: a dropped connection leaves
# the commands it started running, and killing one mid-way can strand a lock of the user's shell startup
# (pyenv's rehash lock stalls every later session for a minute).
sshd_sessions() {
    local listener
    listener=$(awk '$1 == "sshd" { print $2 }' "$TORCHDECK_SANDBOX_DIR/run/pids")
    ps -e -o pid=,ppid=,comm= | awk -v root="$listener" '
        $3 == "sshd" { parent[$1] = $2 }
        END { for (p in parent) { q = parent[p]; while (q != root && q in parent) q = parent[q]; if (q == root) print p } }'
}
logins() { grep -c "Accepted publickey" "$TORCHDECK_SANDBOX_DIR/log/sshd.out" || true; }
