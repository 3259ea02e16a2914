#!/usr/bin/env bash
# Issue 7's restarts against the real sandbox: Slurm's own warning signal at a real wall-time end with no front
# attached (the agent alone restarts the run), the in-job requeue that `check` proves and new runs then use by
# default (scontrol requeue by the script, one job id throughout), and a chain of jobs submitted up front
# (afternotok). Usage: requeue_test.sh CASE
# Needs what term_helpers.sh needs, and TORCHDECK_TRAIN_BINARY (set by ctest).
set -euo pipefail
# shellcheck source=term_helpers.sh
source "$(dirname "${BASH_SOURCE[0]}")/term_helpers.sh"

wait_offline() { # SECONDS RUN...: until the runs have ended, read from the store only: no front is attached
    local deadline=$(( SECONDS + $1 )) run state
    shift
    for run in "$@"; do
        while :; do
            state=$(td status "$run" --offline --json | json_field state)
            [[ "$state" == completed || "$state" == failed || "$state" == cancelled ]] && break
            (( SECONDS < deadline )) || fail "run $run still $state"
            sleep 1
        done
    done
}

mechanism_of_a_submission() { # TEXT: a submission says how it is restarted (it is cancelled at once)
    local out run
    out=$(td submit torchdeck-sandbox --tasks-per-node 1 --time 00:10:00 --model ae --epochs 1 --name mechanism \
          --json 2>"$home/mechanism.txt") || fail "submit: $(cat "$home/mechanism.txt")"
    run=$(json_field run <<<"$out")
    td cancel "$run" >/dev/null
    grep -qF "torchdeck submit: restarts: $1" "$home/mechanism.txt" || fail "the mechanism: $(cat "$home/mechanism.txt")"
}

steps_kept() { # RUN: the logged steps of the visible curve (discarded=0), in file order
    td metrics "$1" --csv | awk -F, '$2 == "step" && $12 == 0 { print $5 }' | tr '\n' ' '
}

case_walltime() { # Slurm's warning signal before a real wall-time end: checkpoint, restart by the agent alone
    use_prebuilt_trainer
    # One rank each, so the reference runs beside it on the sandbox's 2 CPUs. The first job's end is brought forward
    # to 70 s after it starts (Slurm's smallest wall time is a minute): its warning signal, 60 s before the end, comes
    # at the controller's next check, 10-40 s in. The run trains 50 s of epochs at this machine's pace, measured
    # first (an idle fast machine trains an epoch in 3 s, a busy one in 8), so that the first job is cut short
    # and the next one (a whole 2 minutes, its signal after 60-90 s) usually ends it.
    local base=(--tasks-per-node 1 --model ae --data fashion-mnist --batch-size 8 --threads 1 --log-every 1500
                --seed 3) common ref run out first ids calibration seconds epochs
    calibration=$(td submit torchdeck-sandbox "${base[@]}" --epochs 1 --time 00:10:00 --name pace --json | json_field run)
    wait_offline 180 "$calibration"
    seconds=$(td metrics "$calibration" --csv | awk -F, '$2 == "epoch" { print $11 }' | tail -n1)
    epochs=$(python3 -c 'import math, sys; print(max(10, min(60, math.ceil(50 / float(sys.argv[1])))))' "$seconds")
    echo "an epoch takes $seconds s here: $epochs epochs"
    common=("${base[@]}" --epochs "$epochs")
    ref=$(td submit torchdeck-sandbox "${common[@]}" --time 00:10:00 --name reference --json | json_field run)
    run=$(td submit torchdeck-sandbox "${common[@]}" --time 00:02:00 --signal-lead 60 --max-restarts 6 --no-requeue \
          --name walltime --json | json_field run)
    first=$(td status "$run" --offline --json | json_field jobs.0.job)
    end_job_in "$first" 70
    # The submitting command has ended and no front is attached: the agent alone follows and restarts the run.
    wait_offline 420 "$ref" "$run"
    out=$(td status "$run" --json)
    expect_eq "$(json_field state <<<"$out")" completed "run state"
    expect_eq "$(json_field epochs_done <<<"$out")" "$epochs" "epochs"
    # The first job stopped on Slurm's signal, not on the wall time's kill: its trainer said "requeue me".
    expect_eq "$(json_field jobs.0.exit_code <<<"$out")" 75 "the first job's exit code"
    grep -q "restarted as job .*job $first stopped at its wall time's warning signal" "$TORCHDECK_DATA_DIR/agent.log" ||
        fail "the agent did not restart it at its wall time: $(cat "$TORCHDECK_DATA_DIR/agent.log")"
    # Each end is decided in the agent's log: the first jobs' restarts, then the last one's "not restarted".
    grep -q "run ${run:0:8} ended: restarting, job $first stopped at its wall time's warning signal" \
        "$TORCHDECK_DATA_DIR/agent.log" || fail "no restart decision logged: $(cat "$TORCHDECK_DATA_DIR/agent.log")"
    grep -qE 'stop: signal at step [0-9]+, exit code 75' <<<"$(td logs "$run" --attempt 0)" ||
        fail "no signal in the first job's log: $(td logs "$run" --attempt 0)"
    ids=$(python3 -c 'import json,sys; print(len(json.load(sys.stdin)["jobs"]))' <<<"$out")
    (( ids >= 2 )) || fail "only $ids job(s)"
    expect_eq "$(steps_kept "$run")" "$(seq 1500 1500 $(( epochs * 7500 )) | tr '\n' ' ')" "the visible curve's steps"
    same_parameters "$(final_checkpoint "$ref")" "$(final_checkpoint "$run")" || fail "the restarted run ended elsewhere"
    # With the reference measured, a spec whose wall time ends before one epoch's checkpoint is warned.
    out=$(td submit torchdeck-sandbox "${common[@]}" --time 00:01:00 --signal-lead 59 --name too-short --json \
          2>"$home/submit.txt") || fail "submit: $(cat "$home/submit.txt")"
    td cancel "$(json_field run <<<"$out")" >/dev/null
    grep -q "warning: wall time 00:01:00 cannot reach one epoch's checkpoint" "$home/submit.txt" ||
        fail "no warning: $(cat "$home/submit.txt")"
}

case_requeue() { # in-job requeue: the script runs scontrol requeue itself; the run keeps one job throughout
    use_prebuilt_trainer
    # One rank each (the reference runs beside it); 3 epochs of 938 steps, ~10 s, so each run of the job is seen.
    local common=(--tasks-per-node 1 --time 00:10:00 --model ae --data fashion-mnist --batch-size 64 --threads 1
                  --log-every 100 --epochs 3 --seed 7) ref run id out states="" state log
    # Unknown at first: the outside restart. `check` proves a job may requeue itself here and keeps the answer.
    mechanism_of_a_submission "restarted from outside by the torchdeck agent (torchdeck check torchdeck-sandbox proves"
    out=$(td check torchdeck-sandbox) || fail "check: $out"
    grep -q "In-job requeue: a job may requeue itself (test job [0-9]*)" <<<"$out" || fail "the probe: $out"
    expect_eq "$(td profile torchdeck-sandbox --json | json_field in_job_requeue)" allowed "the profile's answer"
    grep -q "In-job requeue: allowed, found by an earlier check" <<<"$(td check torchdeck-sandbox)" ||
        fail "a second check probed again"
    ref=$(td submit torchdeck-sandbox "${common[@]}" --name reference --no-requeue --json | json_field run)
    # No --requeue: the default now.
    run=$(td submit torchdeck-sandbox "${common[@]}" --name requeued --trainer-arg --signal-at-step \
          --trainer-arg 1000 --json 2>"$home/submit.txt" | json_field run)
    grep -q "restarts: the job requeues itself: torchdeck check proved torchdeck-sandbox allows it" "$home/submit.txt" ||
        fail "the mechanism: $(cat "$home/submit.txt")"
    # Where a job may not requeue itself, the outside restart.
    td profile torchdeck-sandbox --in-job-requeue refused >/dev/null
    mechanism_of_a_submission "restarted from outside by the torchdeck agent: torchdeck-sandbox refused a job's own requeue"
    td profile torchdeck-sandbox --in-job-requeue allowed >/dev/null
    id=$(td status "$run" --offline --json | json_field jobs.0.job)
    # Every `status` refreshes the run (and would restart it from outside, were that wrong): record its states.
    # A watch asks the agent to poll every 0.3 s, so the statuses see the job's short first run.
    setsid "$TORCHDECK_BIN" watch "$run" --plain --interval 0.3 </dev/null >/dev/null 2>&1 &
    local watcher=$!
    for _ in $(seq 300); do
        out=$(td status "$run" --json)
        state=$(json_field state <<<"$out")
        [[ "${states##* }" == "$state" || "$state" == completing ]] || states="$states $state"
        expect_eq "$(json_field jobs.0.job <<<"$out")" "$id" "the job"
        expect_eq "$(json_field jobs.1.job <<<"$out" 2>/dev/null || echo none)" none "a second job"
        [[ "$state" == completed || "$state" == failed || "$state" == cancelled ]] && break
        sleep 0.5
    done
    kill "$watcher" 2>/dev/null || true
    echo "the run's states:$states"
    # Slurm shows the job pending again with a restart count: torchdeck calls that requeued. The first run is
    # short (1000 steps): a loaded machine may see it start only as requeued, so only the rerun is required.
    [[ "$states" =~ requeued\ running\ completed$ ]] || fail "the run's states: $states"
    grep -qE "^${run:0:8} +requeued +torchdeck-sandbox +completed +3/3 " <<<"$(td runs)" || fail "runs: $(td runs)"
    expect_eq "$(scontrol show job "$id" | grep -o 'Restarts=[0-9]*')" Restarts=1 "Slurm's restart count"
    log=$(td logs "$run")
    grep -q "torchdeck: requeueing job $id (restart 1 of 3)" <<<"$log" || fail "no requeue in the log: $log"
    grep -q 'resumed from .*checkpoint-0000001001.pt' <<<"$log" || fail "the second run did not resume: $log"
    grep -q 'stop: done at step 2814, exit code 0' <<<"$log" || fail "the log lacks the end: $log"
    expect_eq "$(json_field message <<<"$(td status "$run" --json)")" "" "the run's message"
    # The job's own requeue counts against the limit, as the agent's decision counts it.
    grep -qE '^restarts +automatic, 1 of 3 used' <<<"$(td status "$run" --offline)" ||
        fail "the restarts used: $(td status "$run" --offline)"
    timeout 120 setsid -w "$TORCHDECK_BIN" watch "$ref" --interval 0.5 </dev/null >/dev/null 2>&1 || fail "watch the reference"
    expect_eq "$(steps_kept "$run")" "$(steps_kept "$ref")" "the visible curve's steps"
    same_parameters "$(final_checkpoint "$ref")" "$(final_checkpoint "$run")" || fail "the requeued run ended elsewhere"
}

case_requeue_fails() { # a job whose own requeue fails (no scheduler commands in it) is restarted from outside
    use_prebuilt_trainer
    # scontrol finds no configuration in this SLURM_CONF; the trainer runs without srun, which would
    # need it too. As in a container without Slurm's commands.
    local run out first
    run=$(td submit torchdeck-sandbox --tasks-per-node 1 --time 00:10:00 --model ae --data fashion-mnist \
          --batch-size 64 --threads 1 --log-every 100 --epochs 2 --seed 7 --requeue --launch local \
          --env SLURM_CONF=/dev/null --name self-requeue-fails --trainer-arg --signal-at-step \
          --trainer-arg 500 --json | json_field run)
    first=$(td status "$run" --offline --json | json_field jobs.0.job)
    timeout 180 setsid -w "$TORCHDECK_BIN" watch "$run" --interval 0.5 </dev/null >"$home/watch.txt" 2>&1 ||
        fail "watch: $(cat "$home/watch.txt")"
    grep -q 'torchdeck: requeue failed; the dashboard can resubmit' <<<"$(td logs "$run" --attempt 0)" ||
        fail "the job's requeue did not fail: $(td logs "$run" --attempt 0)"
    grep -q "restarted as job .*(job $first checkpointed but did not requeue itself: restart 1 of 3" "$home/watch.txt" ||
        fail "no restart from outside: $(cat "$home/watch.txt")"
    out=$(td status "$run" --json)
    expect_eq "$(json_field state <<<"$out")" completed "run state"
    expect_eq "$(json_field jobs.0.exit_code <<<"$out")" 75 "the first job's exit code"
    expect_eq "$(json_field jobs.1.state <<<"$out")" completed "the job restarted from outside"
    expect_eq "$(json_field jobs.2.job <<<"$out" 2>/dev/null || echo none)" none "a third job"
    expect_eq "$(steps_kept "$run")" "$(seq 100 100 1800 | tr '\n' ' ')" "the visible curve's steps"
}

case_chain() { # submit --chain 3: the attempts wait up front (afternotok); the one left over is cancelled
    use_prebuilt_trainer
    local common=(--tasks-per-node 1 --time 00:10:00 --model ae --data fashion-mnist --batch-size 64 --threads 1
                  --log-every 100 --epochs 3 --seed 7) ref run out ids
    ref=$(td submit torchdeck-sandbox "${common[@]}" --name reference --json | json_field run)
    run=$(td submit torchdeck-sandbox "${common[@]}" --chain 3 --name chained --trainer-arg --signal-at-step \
          --trainer-arg 1000 --json 2>"$home/submit.txt" | json_field run) || fail "submit: $(cat "$home/submit.txt")"
    out=$(td status "$run" --offline --json)
    ids=("$(json_field jobs.0.job <<<"$out")" "$(json_field jobs.1.job <<<"$out")" "$(json_field jobs.2.job <<<"$out")")
    grep -q "Dependency=afternotok:${ids[1]}" <<<"$(scontrol show job "${ids[2]}")" ||
        fail "the last attempt does not wait: $(scontrol show job "${ids[2]}")"
    timeout 180 setsid -w "$TORCHDECK_BIN" watch "$ref" "$run" --interval 0.5 </dev/null >"$home/watch.txt" 2>&1 ||
        fail "watch: $(cat "$home/watch.txt")"
    grep -q 'restarted as job' "$home/watch.txt" && fail "restarted from outside as well: $(cat "$home/watch.txt")"
    out=$(td status "$run" --json)
    expect_eq "$(json_field state <<<"$out")" completed "run state"
    expect_eq "$(json_field jobs.0.exit_code <<<"$out")" 75 "the first job's exit code"
    expect_eq "$(json_field jobs.1.state <<<"$out")" completed "the second attempt, started by Slurm"
    expect_eq "$(json_field jobs.2.state <<<"$out")" cancelled "the attempt left over"
    expect_eq "$(json_field jobs.3.job <<<"$out" 2>/dev/null || echo none)" none "a fourth job"
    expect_eq "$(squeue -h -t all -j "${ids[2]}" -o %T)" CANCELLED "the left-over job in Slurm"
    out=$(td status "$run")
    grep -qE '^    ended: exit code 75: it checkpointed to be restarted$' <<<"$out" || fail "the first job's end: $out"
    grep -qE '^    ended: cancelled before it ran \(a spare of --chain\)$' <<<"$out" || fail "the spare's end: $out"
    expect_eq "$(steps_kept "$run")" "$(steps_kept "$ref")" "the visible curve's steps"
    same_parameters "$(final_checkpoint "$ref")" "$(final_checkpoint "$run")" || fail "the chained run ended elsewhere"
}

"case_$1"
remove_home
