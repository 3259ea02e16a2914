#!/usr/bin/env bash
# The terminal front (the real torchdeck binary) against the real sandbox. Usage: term_test.sh CASE
# Needs TORCHDECK_SOURCE_DIR, TORCHDECK_SANDBOX_DIR, TORCHDECK_SSH_CONFIG, TORCHDECK_BIN and, for the trainer
# cases, TORCHDECK_TRAIN_BINARY (set by ctest). Each case has its own run store and profiles.
set -euo pipefail
# shellcheck source=term_helpers.sh
source "$(dirname "${BASH_SOURCE[0]}")/term_helpers.sh"
job=(--tasks-per-node 2 --time 00:10:00 --model ae --data fashion-mnist --limit 4096 --batch-size 64 --threads 1
     --log-every 16)

case_flow() { # submit -> runs -> logs -f -> metrics --csv -> checkpoints -> resume -> status --json
    use_prebuilt_trainer
    local out run rc=0
    out=$(td submit torchdeck-sandbox "${job[@]}" --epochs 2 --name flow --json)
    run=$(json_field run <<<"$out")
    [[ "$run" =~ ^[0-9a-f-]{36}$ ]] || fail "submit --json printed $out"
    expect_eq "$(stat -c %a "$home/work/runs/$run")" 700 "the run directory's mode (its checkpoints are the user's)"
    td runs | grep -qE "^${run:0:8} +flow +torchdeck-sandbox +(pending|running|completed) " || fail "runs: $(td runs)"
    # What Tab offers for RUN (the completion scripts ask this): the short id and the name.
    expect_eq "$(td __complete runs | paste -sd' ')" "${run:0:8} flow" "__complete runs"
    out=$(td logs "${run:0:8}" -f) || rc=$?
    expect_eq "$rc" 0 "logs -f exit code (a completed job)"
    grep -q 'stop: done at step 64, exit code 0' <<<"$out" || fail "logs -f did not show the end: $out"
    td runs --offline | grep -qE "^${run:0:8} +flow +torchdeck-sandbox +completed +2/2 " || fail "runs: $(td runs)"
    out=$(td metrics flow --csv)
    expect_eq "$(head -n1 <<<"$out")" "attempt,event,time,epoch,step,loss,lr,samples_per_s,val_loss,val_accuracy,seconds,discarded,source" "csv header"
    expect_eq "$(grep -c '^[0-9]*,epoch,' <<<"$out")" 2 "epoch rows"
    expect_eq "$(grep -c '^[0-9]*,step,' <<<"$out")" 4 "step rows (every 16 of 64 steps)"
    out=$(td checkpoints flow)
    grep -qE '^64 +2 .*final +checkpoint-0000000064\.pt +\(latest, best val loss\)' <<<"$out" || fail "checkpoints: $out"
    grep -q 'deleted .*/checkpoint-0000000032.pt$' <<<"$(td checkpoints flow --delete 32)" || fail "delete"
    [[ ! -e "$home/work/runs/$run/checkpoints/checkpoint-0000000032.pt" ]] || fail "the file is still there"
    rc=0; out=$(td checkpoints flow --delete 64 2>&1) || rc=$?
    expect_eq "$rc" 1 "deleting the latest checkpoint"
    grep -q 'the one a resume starts from' <<<"$out" || fail "message: $out"
    grep -qE '^budget +wall time 00:10:00 holds [0-9]+ epoch\(s\) per job' <<<"$(td status flow)" || fail "no budget: $(td status flow)"
    out=$(td resume flow --epochs 3 --json)
    expect_eq "$(json_field attempt <<<"$out")" 1 "resumed attempt"
    td logs flow -f >"$home/resumed.log" || fail "logs -f of the resumed run: $(cat "$home/resumed.log")"
    grep -q 'resumed from .*checkpoint-0000000064.pt' "$home/resumed.log" || fail "no resume in: $(cat "$home/resumed.log")"
    out=$(td status flow --json)
    expect_eq "$(json_field state <<<"$out")" completed "run state"
    expect_eq "$(json_field epochs_done <<<"$out")" 3 "epochs done"
    expect_eq "$(json_field jobs.1.state <<<"$out")" completed "second job"
    expect_eq "$(td metrics flow --csv | grep -c '^[0-9]*,epoch,')" 3 "epochs over both jobs"
    # The user's resume is no restart of the agent's: the budget stays whole.
    grep -qE '^restarts +automatic, 0 of 3 used' <<<"$(td status flow --offline)" || fail "$(td status flow --offline)"
    expect_eq "$(td status flow --offline --json | json_field jobs.1.origin)" resume "the second job's origin"
    # Completed, it goes on only to more epochs than it did: a job that would train nothing is not sent.
    rc=0; out=$(td resume flow --epochs 3 2>&1) || rc=$?
    expect_eq "$rc" 1 "resume to the epochs done"
    grep -q "run ${run:0:8} completed its 3 epoch(s): give --epochs with more to train on" <<<"$out" || fail "$out"
    expect_eq "$(td status flow --offline --json | json_field jobs.2.job 2>/dev/null || echo none)" none "a third job"
    rc=0; out=$(td logs flow --attempt 5 2>&1) || rc=$?
    expect_eq "$rc" 1 "the log of an attempt the run never had"
    grep -q "run ${run:0:8} has no attempt 5 (its attempts: 0 to 1)" <<<"$out" || fail "logs --attempt 5: $out"
    # The trained model on this machine: the best checkpoint, the same bytes as on the cluster, loadable by torch.
    out=$(td files flow checkpoints)
    grep -qE '^[0-9.]+ [KM]iB .* 1 +checkpoints/checkpoint-0000000096\.pt +\(latest' <<<"$out" || fail "files: $out"
    out=$(td pull flow --checkpoint best --to "$home/pulled" --json)
    local remote local_copy
    remote=$(json_field 0.path <<<"$out")
    local_copy=$(json_field 0.local <<<"$out")
    expect_eq "$(sha256sum <"$local_copy")" "$(sha256sum <"$home/work/runs/$run/$remote")" "the pulled checkpoint"
    expect_eq "$(json_field 0.sha256 <<<"$out")  -" "$(sha256sum <"$local_copy")" "the checksum said"
    /usr/bin/python3 -c 'import sys, torch; torch.load(sys.argv[1])["model"]' "$local_copy" ||
        fail "torch.load of $local_copy"
    # ... and by the trainer here: one more epoch from it.
    out=$("$TORCHDECK_TRAIN_BINARY" --model ae --data fashion-mnist --limit 4096 --batch-size 64 --threads 1 --epochs 4 \
          --resume "$local_copy" --checkpoint-dir "$home/here" 2>&1) || fail "the trainer from the pulled checkpoint: $out"
    grep -q "resumed from $local_copy" <<<"$out" || fail "the trainer did not resume: $out"
    # Its cluster out of reach: its checkpoints are listed from the store, unchecked, and it says so.
    close_sandbox_port
    out=$(td checkpoints flow 2>"$home/said") || fail "checkpoints with the cluster out of reach: $(cat "$home/said")"
    grep -qE '^96 +3 .* checkpoint-0000000096\.pt +\(not checked\)$' <<<"$out" || fail "checkpoints unchecked: $out"
    grep -q 'the checkpoints on torchdeck-sandbox are listed unchecked' "$home/said" || fail "said: $(cat "$home/said")"
    # Its logs, kept here by the agent as each job ended: shown without the cluster, the same bytes.
    out=$(td logs flow --attempt 1 2>"$home/said") || fail "logs with the cluster out of reach: $(cat "$home/said")"
    expect_eq "$(tail -n +2 <<<"$out")" "$(cat "$home/work/runs/$run"/attempt-1-*.out)" "the kept log of attempt 1"
    grep -q 'resumed from .*checkpoint-0000000064.pt' <<<"$out" || fail "the kept log: $out"
    grep -q "epoch: 1/" <<<"$(td logs flow --attempt 0)" || fail "attempt 0's kept log: $(td logs flow --attempt 0 2>&1)"
}

case_cancel() { # a long job is cancelled; the run says so; cancelling again is harmless
    use_prebuilt_trainer
    local out run later
    # Why a job waits and when it may start, as the scheduler says: a start an hour from now.
    later=$(td submit torchdeck-sandbox "${job[@]}" --epochs 1 --name later --directive --begin=now+1hour --json |
            json_field run)
    out=$(td status "$later" --json)
    expect_eq "$(json_field state <<<"$out")" pending "a job that begins later"
    expect_eq "$(json_field reason <<<"$out")" BeginTime "the reason"
    [[ "$(json_field start_estimate <<<"$out")" =~ ^20[0-9-]+T ]] || fail "no start estimate: $out"
    grep -qE "^${later:0:8} +later .* pending .*its start time has not come yet \(BeginTime\); expected start " \
        <<<"$(td runs)" || fail "runs: $(td runs)"
    grep -q "waits: its start time has not come yet (BeginTime)" <<<"$(td status "$later")" || fail "$(td status "$later")"
    grep -q "^job [0-9]* is pending: its log begins when it runs$" <<<"$(td logs "$later")" || fail "$(td logs "$later" 2>&1)"
    td cancel "$later" >/dev/null
    out=$(td submit torchdeck-sandbox "${job[@]}" --epochs 500 --name long --json)
    run=$(json_field run <<<"$out")
    for _ in $(seq 100); do [[ "$(td status "$run" --json | json_field state)" == running ]] && break; sleep 0.2; done
    # Once steps are logged, status says when the running job's next checkpoint is due against its signal.
    for _ in $(seq 100); do grep -q '^now ' <<<"$(td status "$run")" && break; sleep 0.2; done
    grep -qE '^now +next checkpoint \(step [0-9]+\) in ~[0-9]+s, the warning signal in ~[0-9]m[0-9]{2}s: it fits$' \
        <<<"$(td status "$run")" || fail "no outlook: $(td status "$run")"
    expect_eq "$(td status "$run" --json | json_field next_checkpoint.fits)" True "next_checkpoint.fits"
    # What the running job uses: sampled on its node by a step inside the allocation, read from /proc (the sandbox
    # gathers no accounting for sstat), one task per rank, with the CPU it burns and its resident memory.
    out=$(td status "$run" --json)
    expect_eq "$(json_field resources.via <<<"$out")" proc "where the resources were read"
    /usr/bin/python3 -c 'import json,sys; r=json.load(sys.stdin)["resources"]
tasks=sorted(t["task"] for t in r["tasks"])
assert tasks == ["0", "1"], tasks
assert all(t["node"] == "node1" and t["rss_mib"] > 10 and t["cpu_seconds"] > 0 for t in r["tasks"]), r
assert r["cpu_percent"] > 10 and r["rss_mib"] > 20, r' <<<"$out" || fail "resources: $out"
    grep -qE '^uses +CPU [0-9]+% · RSS [0-9.]+ GiB · 2 tasks \(sampled [0-9]+ s ago\)$' <<<"$(td status "$run")" ||
        fail "no resource line: $(td status "$run")"
    # The running job's metrics stream as they are written, read by the login-node follower: over two of the agent's
    # polls the login node is asked the scheduler queries and nothing else (no command per file and poll, no SFTP
    # request), and new steps arrive meanwhile.
    local before steps
    for _ in $(seq 150); do
        td agent status | grep -q "files followed by: login-node follower (compiled)$" && break
        sleep 0.2
    done
    before=$(td agent status --json)
    steps=$(td metrics "$run" --csv --offline | grep -c '^[0-9]*,step,')
    load_since() { /usr/bin/python3 -c 'import json,sys
load=lambda s: json.loads(s)["clusters"][0]["load"]
a, b = load(sys.argv[1]), load(sys.argv[2])
print(" ".join(f"{k}={b[k] - a[k]}" for k in a if isinstance(a[k], int)))' "$before" "$(td agent status --json)"; }
    # Files of runs no front shows are looked at once per (possibly stretched) poll interval: wait for a look too.
    for _ in $(seq 150); do
        out=$(load_since)
        [[ "$out" =~ scheduler_queries=([2-9]|[0-9][0-9]) && "$out" =~ bytes_in=[1-9] ]] && break
        sleep 0.2
    done
    out=$(load_since)
    /usr/bin/python3 -c 'import sys; d=dict(kv.split("=") for kv in sys.argv[1].split()); d={k: int(v) for k, v in d.items()}
assert d["scheduler_queries"] >= 2 and d["sftp_requests"] == 0 and d["bytes_in"] > 0, d
assert d["commands"] - d["scheduler_queries"] <= 1, d' "$out" || fail "the metrics did not stream: $out"
    (($(td metrics "$run" --csv --offline | grep -c '^[0-9]*,step,') > steps)) || fail "no new steps"
    td agent status | grep -q "files followed by: login-node follower (compiled)$" ||
        fail "the files are not followed on the login node: $(td agent status)"
    # The profile's minimum bounds the scheduler queries whatever a front asks: watch at 0.2 s, polled every 3 s.
    td profile torchdeck-sandbox --min-poll 3 >/dev/null
    before=$(td agent status --json)
    timeout 7 setsid -w "$TORCHDECK_BIN" watch "$run" --plain --interval 0.2 </dev/null >"$home/watch.txt" 2>&1 || true
    out=$(load_since)
    [[ "$out" =~ scheduler_queries=([0-9]+) ]] && ((BASH_REMATCH[1] <= 4)) || fail "polled too often: $out"
    grep -q "torchdeck-sandbox's scheduler is asked every 3 s at most (min_poll_seconds of its profile)" \
        "$home/watch.txt" || fail "watch did not say so: $(cat "$home/watch.txt")"
    td profile torchdeck-sandbox --min-poll 1 >/dev/null
    out=$(td cancel "$run")
    grep -q "cancelled run ${run:0:8}" <<<"$out" || fail "cancel said: $out"
    for _ in $(seq 50); do [[ "$(td status "$run" --json | json_field state)" == cancelled ]] && break; sleep 0.2; done
    expect_eq "$(td status "$run" --json | json_field state)" cancelled "state after cancel"
    grep -q 'no unfinished job' <<<"$(td cancel "$run")" || fail "second cancel"
}

case_stall() { # a straggler is named; a hanging rank raises the stall alarm, named; its stack shows where it hangs
    use_prebuilt_trainer
    local run out waiting
    # Rank 1 takes 20 ms longer in every step, then hangs for 100 s inside step 40.
    run=$(td submit torchdeck-sandbox --tasks-per-node 2 --time 00:10:00 --model ae --data fashion-mnist --limit 4096 \
          --batch-size 64 --threads 1 --log-every 4 --epochs 50 --stall-after 6 --name stall \
          --trainer-arg --slow-rank --trainer-arg 1:0.02 --trainer-arg --sleep-in-step --trainer-arg 40:1:100 \
          --json | json_field run)
    # shellcheck disable=SC2064 # the locals are gone when the trap runs: expand them now
    trap "td cancel '$run' >/dev/null 2>&1 || true; stop_agent" EXIT
    for _ in $(seq 150); do grep -q 'slowest rank' <<<"$(td status "$run")" && break; sleep 0.2; done
    grep -qE '^ranks +slowest rank 1: [0-9.]+x the median compute per step \([0-9.]+ ms vs [0-9.]+ ms\)$' \
        <<<"$(td status "$run")" || fail "no straggler: $(td status "$run")"
    expect_eq "$(td status "$run" --json | json_field slowest_rank.rank)" 1 "the slowest rank"
    # A job the scheduler keeps waiting (both CPUs are taken) past the profile's limit: told once.
    td profile torchdeck-sandbox --wait-notice 2 >/dev/null
    waiting=$(td submit torchdeck-sandbox --tasks-per-node 1 --time 00:05:00 --command true --name waiting --json |
              json_field run)
    # shellcheck disable=SC2064 # the locals are gone when the trap runs: expand them now
    trap "td cancel '$run' '$waiting' >/dev/null 2>&1 || true; stop_agent" EXIT
    for _ in $(seq 60); do grep -q "run ${waiting:0:8} job" "$TORCHDECK_DATA_DIR/agent.log" && break
                           td status "$waiting" >/dev/null; sleep 0.5; done
    grep -qE "run ${waiting:0:8} job [0-9]+ on torchdeck-sandbox: waiting for [0-9]+s: .*\((Resources|Priority)\)" \
        "$TORCHDECK_DATA_DIR/agent.log" || fail "no waiting notice: $(tail -5 "$TORCHDECK_DATA_DIR/agent.log")"
    td cancel "$waiting" >/dev/null
    # No new step event for 6 s: stalled, and the ranks' heartbeats say which one holds the others up.
    for _ in $(seq 120); do grep -q 'rank 1 is still' <<<"$(td status "$run" --json | json_field message)" && break
                            sleep 0.5; done
    out=$(td status "$run" --json | json_field message)
    grep -qE '^stalled: no new output for [0-9]+s .*; rank 1 is still computing step 40 while the others wait in the all-reduce$' \
        <<<"$out" || fail "no stall: $out"
    grep -q "run ${run:0:8} stalled: " "$TORCHDECK_DATA_DIR/agent.log" || fail "the agent did not tell: $(tail -5 "$TORCHDECK_DATA_DIR/agent.log")"
    # The stacks of its ranks: rank 1 sleeps in the testing aid, rank 0 waits in the all-reduce.
    out=$(td stack "$run" 2>"$home/stack.err") || fail "stack: $(cat "$home/stack.err")"
    /usr/bin/python3 -c 'import re,sys; text=sys.stdin.read()
blocks=dict((m.group(1), m.group(2)) for m in re.finditer(r"== node1 pid \d+ rank (\d) \(torchdeck-train\) ==\n(.*?)(?=\n== |\Z)", text, re.S))
assert set(blocks) == {"0", "1"}, blocks.keys()
assert "sleepForTesting" in blocks["1"] and "sleepForTesting" not in blocks["0"], text' <<<"$out" || fail "stacks: $out"
    grep -q "kept in .*/stacks/$run/" "$home/stack.err" || fail "not kept: $(cat "$home/stack.err")"
    td cancel "$run" >/dev/null
    for _ in $(seq 100); do [[ "$(td status "$run" --json | json_field state)" == cancelled ]] && break; sleep 0.2; done
}

case_local() { # the local scheduler (a background process on the cluster): submit, follow, cancel
    use_prebuilt_trainer
    td profile torchdeck-sandbox --scheduler local >/dev/null
    local run out state
    run=$(td submit torchdeck-sandbox --launch local --command 'echo local-ran' --name quick --json | json_field run)
    td logs "$run" -f >"$home/local.log" || fail "the local job: $(cat "$home/local.log")"
    # Its line came through (a login shell on the cluster may add its own, such as pyenv's rehash warning).
    grep -qx local-ran "$home/local.log" || fail "the local job's output: $(cat "$home/local.log")"
    run=$(td submit torchdeck-sandbox --launch local --command 'sleep 600' --name slow --json | json_field run)
    grep -q "cancelled run ${run:0:8}" <<<"$(td cancel "$run")" || fail "cancel"
    for _ in $(seq 50); do
        state=$(td status "$run" --json | json_field state)
        [[ "$state" == cancelled || "$state" == failed ]] && break
        sleep 0.2
    done
    [[ "$state" == cancelled || "$state" == failed ]] || fail "state after cancel: $state"
    pgrep -f 'sleep 600' >/dev/null && fail "the local job still runs"
    return 0
}

case_hostile() { # hostile values are quoted (they come back unchanged) or refused, never run
    use_prebuilt_trainer
    local marker="$home/pwned" value out run rc=0
    value='a b "$(touch '"$marker"')" `touch '"$marker"'` $HOME ; touch '"$marker"
    out=$(td submit torchdeck-sandbox --launch local --env "TD_VALUE=$value" --command 'printf "%s\n" "$TD_VALUE"' \
          --name hostile --json)
    run=$(json_field run <<<"$out")
    td logs "$run" -f >"$home/hostile.log" || fail "the job failed: $(cat "$home/hostile.log")"
    expect_eq "$(cat "$home/hostile.log")" "$value" "the value as the job saw it"
    [[ ! -e "$marker" ]] || fail "a hostile value ran"
    out=$(td submit torchdeck-sandbox --command true --name 'x$(touch '"$marker"')' 2>&1) || rc=$?
    expect_eq "$rc" 1 "exit code of a hostile job name"
    grep -q 'name' <<<"$out" || fail "unclear message: $out"
    [[ ! -e "$marker" ]] || fail "a hostile name ran"
}

case_edit() { # submit --edit: the script is changed in the editor and submitted as changed; a failed editor stops it
    use_prebuilt_trainer
    local run out rc=0 editor="$home/editor.sh"
    printf '#!/bin/sh\nsed -i "s/^set -euo pipefail$/&\\necho edited-by-hand/" "$1"\n' >"$editor"
    chmod +x "$editor"
    run=$(EDITOR=$editor td submit torchdeck-sandbox --command 'echo job-ran' --name edited --edit --json | json_field run)
    td logs "$run" -f >"$home/edited.log" || fail "the edited job failed: $(cat "$home/edited.log")"
    expect_eq "$(cat "$home/edited.log")" $'edited-by-hand\njob-ran' "the edited job's output"
    grep -q '^echo edited-by-hand$' "$home/work/runs/$run/job-0.sh" || fail "the submitted script is not the edited one"
    out=$(EDITOR=false td submit torchdeck-sandbox --command true --name never --edit 2>&1) || rc=$?
    expect_eq "$rc" 1 "exit code when the editor fails"
    grep -q 'nothing was submitted' <<<"$out" || fail "message: $out"
    rc=0; out=$(unset EDITOR VISUAL; td submit torchdeck-sandbox --command true --name never --edit </dev/null 2>&1) ||
        rc=$?
    expect_eq "$rc" 1 "exit code with no editor and no terminal"
    grep -q -- '--edit needs \$VISUAL or \$EDITOR' <<<"$out" || fail "no editor: $out"
    td runs --offline | grep -q ' never ' && fail "a run was recorded although nothing was submitted"
    return 0
}

case_errors() { # exit codes scripts rely on, and one-line messages that say what to do
    local out rc
    rc=0; out=$(td submit 2>&1) || rc=$?
    expect_eq "$rc" 2 "submit without a cluster"
    rc=0; out=$(td submit torchdeck-sandbox --time soon 2>&1) || rc=$?
    expect_eq "$rc" 2 "a malformed wall time"
    grep -q -- '--time wants a wall time' <<<"$out" || fail "message: $out"
    rc=0; out=$(td submit torchdeck-sandbox --nodes 0 --command true 2>&1) || rc=$?
    expect_eq "$rc" 1 "zero nodes"
    grep -q -- '--nodes: A job needs at least one node' <<<"$out" || fail "message: $out"
    # The bundled trainer's arguments, read by its own parser before anything is sent.
    rc=0; out=$(td submit torchdeck-sandbox --name bad-lr --lr abc 2>&1) || rc=$?
    expect_eq "$rc" 1 "a learning rate that is no number"
    grep -qF "the trainer's options: The trainer would refuse it: --lr: 'abc' is not a number" <<<"$out" ||
        fail "message: $out"
    expect_eq "$(squeue -h --states=all -o %j | grep -c '^bad-lr-' || true)" 0 "jobs sent for it"
    rc=0; out=$(td status no-such-run 2>&1) || rc=$?
    expect_eq "$rc" 1 "an unknown run"
    grep -q "no run 'no-such-run' (torchdeck runs lists them)" <<<"$out" || fail "message: $out"
    touch "$home/a-file"
    rc=0; out=$(TORCHDECK_CONFIG_DIR=$home/a-file td profile torchdeck-sandbox --min-poll 5 2>&1) || rc=$?
    expect_eq "$rc" 1 "a configuration directory that is a file"
    grep -qF "cannot write $home/a-file/clusters.json: its directory $home/a-file cannot be made" <<<"$out" ||
        fail "message: $out"
    expect_eq "$(td runs --cluster nowhere --offline)" "No runs on nowhere" "runs of a cluster with none"
    rc=0; out=$(td frobnicate 2>&1) || rc=$?
    expect_eq "$rc" 2 "an unknown command"
    rc=0; out=$(td profile torchdeck-sandbox --scheduler sge 2>&1) || rc=$?
    expect_eq "$rc" 2 "a bad scheduler"
    # The agent reads the cluster's shape itself (no `check` ran here): an hour on short is refused before anything
    # is sent, naming the limit and where it comes from, and the profile file keeps the partitions for the fronts.
    rc=0; out=$(td submit torchdeck-sandbox --name too-long --partition short --time 01:00:00 --launch local \
                --command true 2>&1) || rc=$?
    expect_eq "$rc" 1 "an hour on short"
    # The agent's refusal names the job's own keys; the terminal says them as its options.
    grep -qF -- "--time: Partition 'short' allows at most 00:30:00 of wall time (sinfo, read " <<<"$out" ||
        fail "message: $out"
    grep -q 'Connecting to' <<<"$out" || fail "not the agent's refusal: $out"
    expect_eq "$(squeue -h --states=all -o %j | grep -c '^too-long-' || true)" 0 "jobs sent for it"
    grep -q '"name": "short"' "$TORCHDECK_CONFIG_DIR/clusters.json" || fail "no partitions kept: $(cat "$TORCHDECK_CONFIG_DIR/clusters.json")"
    # Those partitions, fresh: the terminal refuses it itself, before connecting.
    rc=0; out=$(td submit torchdeck-sandbox --name too-long --partition short --time 01:00:00 --launch local \
                --command true 2>&1) || rc=$?
    expect_eq "$rc" 1 "an hour on short, again"
    grep -qF -- "--time: Partition 'short' allows at most 00:30:00 of wall time" <<<"$out" || fail "message: $out"
    grep -q 'Connecting to' <<<"$out" && fail "it connected first: $out"
    # What only the site knows is its to refuse: its words come back with the command that got them.
    rc=0; out=$(td submit torchdeck-sandbox --name no-feature --directive --constraint=nosuchfeature --launch local \
                --command true 2>&1) || rc=$?
    expect_eq "$rc" 1 "a constraint no node has"
    grep -qE "the scheduler refused the job: \`sbatch --parsable [^ ]*/runs/[^ ]*/job-0\.sh\` exited 1 saying: sbatch: error: .*Invalid feature" \
        <<<"$out" || fail "message: $out"
    # The run it would have been leaves no record, nor its directory on the cluster.
    local refused
    refused=$(grep -oE '[^ ]*/runs/[^ /]*/job-0\.sh' <<<"$out" | head -n1)
    refused=${refused%/job-0.sh}
    [[ "$refused" == /*/runs/* ]] || fail "the refused run's directory: '$refused' in $out"
    for _ in $(seq 100); do [[ -e "$refused" ]] || break; sleep 0.1; done
    [[ ! -e "$refused" ]] || fail "the refused run's directory is left: $refused"
    expect_eq "$(td runs --offline --json)" "[]" "runs after the refusals"
    echo '{ broken' >"$TORCHDECK_CONFIG_DIR/clusters.json" 2>/dev/null || { mkdir -p "$TORCHDECK_CONFIG_DIR"; echo '{ broken' >"$TORCHDECK_CONFIG_DIR/clusters.json"; }
    rc=0; out=$(td profile torchdeck-sandbox --partition debug 2>&1) || rc=$?
    expect_eq "$rc" 1 "a broken profile file"
    expect_eq "$(cat "$TORCHDECK_CONFIG_DIR/clusters.json")" '{ broken' "the broken file is left as it was"
}

case_deployed() { # submit uploads the bundled trainer and builds it in a short job (srun, then qsub), then runs it
    td profile torchdeck-sandbox --work-dir "$home/work" --build-on job --build-cpus 1 >/dev/null
    local out run
    out=$(td submit torchdeck-sandbox "${job[@]}" --epochs 1 --name deployed --json 2>"$home/progress.txt") ||
        fail "submit: $(tail -n 30 "$home/progress.txt")"
    run=$(json_field run <<<"$out")
    grep -q 'Building the trainer in a job (srun)' "$home/progress.txt" || fail "progress: $(head -n 20 "$home/progress.txt")"
    grep -q 'Built target torchdeck-train' "$home/progress.txt" || fail "no build output: $(tail -n 20 "$home/progress.txt")"
    td logs "$run" -f >"$home/deployed.log" || fail "the job failed: $(cat "$home/deployed.log")"
    grep -q 'stop: done at step 32, exit code 0' "$home/deployed.log" || fail "log: $(cat "$home/deployed.log")"
    grep -q "$home/work/trainer/[0-9a-f]*/build/torchdeck-train" <<<"$(td script torchdeck-sandbox --epochs 1)" ||
        fail "the script does not run the deployed trainer"
    # PBS has no blocking launcher: the build is a qsub job, followed until it ends (a fresh work directory,
    # so the same bundle is built again rather than reused).
    td profile torchdeck-sandbox --scheduler pbs --pbs-dialect torque --work-dir "$home/work-pbs" >/dev/null
    out=$(td submit torchdeck-sandbox "${job[@]}" --launch mpirun --mpi-allow-run-as-root --epochs 1 --name pbs-built \
          --json 2>"$home/progress.txt") || fail "submit through PBS: $(tail -n 30 "$home/progress.txt")"
    grep -q 'Building the trainer in a job (qsub)' "$home/progress.txt" || fail "progress: $(head -n 20 "$home/progress.txt")"
    grep -qE 'build job [0-9]+.* submitted; its output follows' "$home/progress.txt" || fail "no job: $(head -n 20 "$home/progress.txt")"
    grep -q 'Built target torchdeck-train' "$home/progress.txt" || fail "no build output: $(tail -n 20 "$home/progress.txt")"
    run=$(json_field run <<<"$out")
    td logs "$run" -f >"$home/deployed.log" || fail "the PBS job failed: $(cat "$home/deployed.log")"
    grep -q 'stop: done at step 32, exit code 0' "$home/deployed.log" || fail "log: $(cat "$home/deployed.log")"
    out=$(td profile torchdeck-sandbox --scheduler local 2>&1) && fail "a build job without a scheduler was accepted"
    grep -q 'build_on: Building the trainer in a job needs a scheduler' <<<"$out" || fail "message: $out"
}

case_watch() { # the full-screen dashboard in tmux: curve, keys, cancel with confirmation, quit
    use_prebuilt_trainer
    local run out socket="torchdeck-test-$$" pane
    td submit torchdeck-sandbox "${job[@]}" --epochs 2 --name first >/dev/null
    run=$(td submit torchdeck-sandbox "${job[@]}" --epochs 500 --name endless --json | json_field run)
    tm() { tmux -L "$socket" "$@"; }
    # shellcheck disable=SC2064 # the locals are gone when the trap runs: expand them now
    trap "tmux -L '$socket' kill-server 2>/dev/null || true; td cancel '$run' >/dev/null 2>&1 || true; stop_agent" EXIT
    tm new-session -d -x 120 -y 40 "env TORCHDECK_CONFIG_DIR=$TORCHDECK_CONFIG_DIR TORCHDECK_DATA_DIR=$TORCHDECK_DATA_DIR \
        TORCHDECK_SSH_CONFIG=$TORCHDECK_SSH_CONFIG $TORCHDECK_BIN watch --interval 0.5; echo watch-exit=\$?; sleep 60"
    screen_has() { # PATTERN SECONDS
        for _ in $(seq $(( $2 * 5 ))); do
            pane=$(tm capture-pane -p) && grep -qE "$1" <<<"$pane" && return 0
            sleep 0.2
        done
        fail "the screen never showed '$1':"$'\n'"$pane"
    }
    screen_has "^${run:0:8} +endless +torchdeck-sandbox +RUNNING" 60
    screen_has '⣀|⠉|⠒|⠤|⡇|⢸' 30                 # the braille loss curve
    screen_has 'epoch [0-9]+ step' 30            # the log lines
    screen_has 'q quit +next poll at [0-9]{2}:[0-9]{2}:[0-9]{2}' 30 # the agent's next scheduler query
    tm send-keys r
    screen_has "run ${run:0:8} is running: it goes on without a resume" 10
    tm send-keys c
    screen_has "Cancel run ${run:0:8} \(endless\)\? y/n" 10
    tm send-keys y
    screen_has "cancelled run ${run:0:8}" 20
    screen_has "^${run:0:8} +endless +torchdeck-sandbox +CANCELLED" 30
    tm send-keys c
    screen_has "run ${run:0:8} has ended \(cancelled\): nothing to cancel" 10
    tm send-keys j
    tm send-keys q
    screen_has 'watch-exit=0' 10
    expect_eq "$(td status "$run" --json | json_field state)" cancelled "state after cancelling in watch"
}

case_plain() { # without a terminal, watch prints plain lines and ends with its runs
    use_prebuilt_trainer
    local run out
    run=$(td submit torchdeck-sandbox "${job[@]}" --epochs 2 --name plain --json | json_field run)
    out=$(timeout 120 setsid -w "$TORCHDECK_BIN" watch "$run" --interval 0.5 </dev/null)
    grep -q $'\e' <<<"$out" && fail "escape codes in plain output: $out"
    grep -qE "run ${run:0:8} .*COMPLETED.*epoch 2/2" <<<"$out" || fail "plain watch printed: $out"
}

case_restart() { # a job that checkpoints and asks to be requeued is restarted from outside, as one run
    use_prebuilt_trainer
    local common=("${job[@]}" --epochs 3 --seed 7) ref run out steps
    ref=$(td submit torchdeck-sandbox "${common[@]}" --name reference --json | json_field run)
    run=$(td submit torchdeck-sandbox "${common[@]}" --name interrupted --trainer-arg --signal-at-step \
          --trainer-arg 40 --json | json_field run)
    timeout 240 setsid -w "$TORCHDECK_BIN" watch "$ref" "$run" --interval 0.5 </dev/null >"$home/watch.txt" 2>&1 ||
        fail "watch: $(cat "$home/watch.txt")"
    grep -q "restarted as job" "$home/watch.txt" || fail "no restart in: $(cat "$home/watch.txt")"
    out=$(td status "$run" --json)
    expect_eq "$(json_field state <<<"$out")" completed "run state"
    expect_eq "$(json_field jobs.0.state <<<"$out")" failed "the interrupted job"
    expect_eq "$(json_field jobs.1.state <<<"$out")" completed "the restarted job"
    expect_eq "$(json_field epochs_done <<<"$out")" 3 "epochs"
    # One continuous curve: every step once, in order, across both jobs.
    steps=$(td metrics "$run" --csv | awk -F, '$2 == "step" { print $5 }' | tr '\n' ' ')
    expect_eq "$steps" "16 32 48 64 80 96 " "logged steps over both attempts"
    same_parameters "$(final_checkpoint "$ref")" "$(final_checkpoint "$run")" || fail "the restarted run ended elsewhere"
}

case_restart_pbs() { # the same through Slurm's PBS wrappers (qsub/qstat: every ended job shows as C)
    use_prebuilt_trainer
    td profile torchdeck-sandbox --scheduler pbs --pbs-dialect torque >/dev/null
    local run out steps
    run=$(td submit torchdeck-sandbox "${job[@]}" --epochs 3 --seed 7 --launch mpirun --mpi-allow-run-as-root \
          --name pbs --trainer-arg --signal-at-step --trainer-arg 40 --json | json_field run)
    timeout 240 setsid -w "$TORCHDECK_BIN" watch "$run" --interval 0.5 </dev/null >"$home/watch.txt" 2>&1 ||
        fail "watch: $(cat "$home/watch.txt")"
    out=$(td status "$run" --json)
    expect_eq "$(json_field state <<<"$out")" completed "run state"
    expect_eq "$(json_field epochs_done <<<"$out")" 3 "epochs"
    expect_eq "$(json_field jobs.1.state <<<"$out")" completed "the restarted job"
    steps=$(td metrics "$run" --csv | awk -F, '$2 == "step" { print $5 }' | tr '\n' ' ')
    expect_eq "$steps" "16 32 48 64 80 96 " "logged steps over both attempts"
}

case_signal() { # scancel --signal at a random step, several seeds: the run resumes and completes, no line lost
    use_prebuilt_trainer
    local seed run id out steps expected target
    expected=$(seq 250 250 7500 | tr '\n' ' ') # 2 epochs of 60,000 samples, 2 ranks x 8
    for seed in 1 2 3; do
        run=$(td submit torchdeck-sandbox --tasks-per-node 2 --time 00:10:00 --model ae --batch-size 8 --threads 1 \
              --log-every 250 --epochs 2 --seed "$seed" --name "signal-$seed" --json | json_field run)
        id=$(td status "$run" --json | json_field jobs.0.job)
        # Somewhere in the first epoch or the second, by the steps logged, whatever this machine's pace (an
        # idle fast one trains both epochs in 3 s): at least 2500 of the 7500 steps are left to interrupt.
        target=$(( (1 + RANDOM % 20) * 250 ))
        for _ in $(seq 1200); do
            grep -q "\"step\":$target," "$home/work/runs/$run/metrics-0.jsonl" 2>/dev/null && break
            sleep 0.05
        done
        scancel --batch --signal=USR1 "$id"
        timeout 240 setsid -w "$TORCHDECK_BIN" watch "$run" --interval 0.5 </dev/null >/dev/null 2>&1 || fail "watch (seed $seed)"
        out=$(td status "$run" --json)
        expect_eq "$(json_field state <<<"$out")" completed "seed $seed: state"
        expect_eq "$(json_field jobs.1.state <<<"$out" 2>/dev/null || echo "no second job")" completed \
            "seed $seed: the job after the signal"
        steps=$(td metrics "$run" --csv | awk -F, '$2 == "step" { print $5 }' | tr '\n' ' ')
        expect_eq "$steps" "$expected" "seed $seed: every logged step once, in order"
    done
}

case_corrupt() { # a torn latest checkpoint: the restart resumes from the one before, and the run says so
    use_prebuilt_trainer
    local common=("${job[@]}" --epochs 3 --seed 7) ref run id newest out
    ref=$(td submit torchdeck-sandbox "${common[@]}" --name reference --json | json_field run)
    run=$(td submit torchdeck-sandbox "${common[@]}" --name torn --trainer-arg --signal-at-step \
          --trainer-arg 40 --json | json_field run)
    # The agent would restart the run as soon as it sees the job's end: not before its checkpoint is torn.
    td auto-restart "$run" off >/dev/null
    id=$(td status "$run" --offline --json | json_field jobs.0.job)
    for _ in $(seq 300); do [[ -z "$(squeue -h -j "$id" 2>/dev/null)" ]] && break; sleep 0.2; done
    newest=$(final_checkpoint "$run")
    expect_eq "${newest##*/}" checkpoint-0000000041.pt "the checkpoint the signal wrote"
    truncate -s 1000 "$newest"
    td auto-restart "$run" on >/dev/null
    timeout 240 setsid -w "$TORCHDECK_BIN" watch "$ref" "$run" --interval 0.5 </dev/null >/dev/null 2>&1 || fail "watch"
    out=$(td status "$run" --json)
    expect_eq "$(json_field state <<<"$out")" completed "run state"
    grep -q 'warning: resumed from checkpoint-0000000032.pt; 1 newer checkpoint(s) were torn or corrupt' \
        <<<"$(json_field message <<<"$out")" || fail "no warning in: $out"
    same_parameters "$(final_checkpoint "$ref")" "$(final_checkpoint "$run")" || fail "the run ended elsewhere"
}

case_branch() { # resume from an older checkpoint: the newer ones are set aside, and later restarts continue the branch
    use_prebuilt_trainer
    local run out line
    line="$home/work/runs"
    # Attempt 0 stops after step 81 (the signal at 80; the ranks agree on the next step) and attempt 1 finishes
    # at 96, keeping 64, 81 and 96; the branch from 64 meets the same signal, and its automatic restart must
    # resume from the branch's 81, not the old line's 96.
    run=$(td submit torchdeck-sandbox "${job[@]}" --epochs 3 --seed 7 --name branch --trainer-arg --signal-at-step \
          --trainer-arg 80 --json | json_field run)
    timeout 240 setsid -w "$TORCHDECK_BIN" watch "$run" --interval 0.5 </dev/null >/dev/null 2>&1 || fail "watch"
    expect_eq "$(td status "$run" --json | json_field state)" completed "the first line"
    out=$(td resume "$run" --from 32 2>&1) && fail "resumed from a pruned checkpoint: $out"
    grep -q 'checkpoint-0000000032.pt is no longer on the cluster' <<<"$out" || fail "message: $out"
    out=$(td resume "$run" --from 64 --json)
    expect_eq "$(json_field attempt <<<"$out")" 2 "the branch's attempt"
    line="$line/$run/checkpoints"
    expect_eq "$(cd "$line/superseded-a2" && ls -- *.pt | tr '\n' ' ')" \
        "checkpoint-0000000081.pt checkpoint-0000000096.pt " "set aside"
    grep -qE 'checkpoint-0000000096\.pt +\(.*set aside by a resume from an older one: superseded-a2\)' \
        <<<"$(td checkpoints "$run")" || fail "checkpoints: $(td checkpoints "$run")"
    timeout 240 setsid -w "$TORCHDECK_BIN" watch "$run" --interval 0.5 </dev/null >"$home/watch.txt" 2>&1 || fail "watch the branch: $(tail -n 20 "$home/watch.txt"; squeue)"
    out=$(td status "$run" --json)
    expect_eq "$(json_field state <<<"$out")" completed "the branch"
    expect_eq "$(json_field jobs.3.state <<<"$out" 2>/dev/null || echo missing)" completed "the branch's restart"
    td logs "$run" --attempt 3 | grep -q "resumed from $line/checkpoint-0000000081.pt" ||
        fail "the restart did not continue the branch: $(td logs "$run" --attempt 3)"
    out=$(td metrics "$run" --csv)
    expect_eq "$(awk -F, '$2 == "step" { print $1 ":" $5 ($12 ? "x" : "") }' <<<"$out" | tr '\n' ' ')" \
        "0:16 0:32 0:48 0:64 0:80x 1:96x 2:80 3:96 " "steps by attempt, the old line's after 64 discarded"
    /usr/bin/python3 - "$(td metrics "$run" --json)" <<'PY' || fail "metrics --json of the branch: $(td metrics "$run" --json)"
import json, sys
rows = json.loads(sys.argv[1])
steps = [f'{r["attempt"]}:{r["step"]}' + ("x" if r["discarded"] else "") for r in rows if r["event"] == "step"]
assert steps == "0:16 0:32 0:48 0:64 0:80x 1:96x 2:80 3:96".split(), steps
PY
    same_parameters "$line/superseded-a2/checkpoint-0000000096.pt" "$line/checkpoint-0000000096.pt" ||
        fail "the branch ended elsewhere than the line it replayed"
}

case_auto_restart() { # switched off, a job that stops to be requeued is left as it is; on again, restarted at once
    use_prebuilt_trainer
    local run id out rc
    run=$(td submit torchdeck-sandbox "${job[@]}" --epochs 3 --seed 7 --name switched --trainer-arg --signal-at-step \
          --trainer-arg 40 --json | json_field run)
    grep -q "automatic restart off" <<<"$(td auto-restart "$run" off)" || fail "auto-restart off"
    id=$(td status "$run" --offline --json | json_field jobs.0.job)
    for _ in $(seq 300); do [[ -z "$(squeue -h -j "$id" 2>/dev/null)" ]] && break; sleep 0.2; done
    # The agent's state is at most a poll old (a second, while a command asks): until its pass saw the end.
    for _ in $(seq 50); do
        out=$(td status "$run" --json)
        [[ "$(json_field state <<<"$out")" == failed ]] && break
        sleep 0.2
    done
    expect_eq "$(json_field state <<<"$out")" failed "state while off"
    expect_eq "$(json_field auto_restart <<<"$out")" False "auto_restart"
    grep -q 'automatic restart is off for this run' <<<"$(json_field message <<<"$out")" || fail "message: $out"
    expect_eq "$(json_field jobs.1.job <<<"$out" 2>/dev/null || echo none)" none "a second job while off"
    grep -qE '^restarts off for this run, 0 of 3 used' <<<"$(td status "$run")" || fail "status: $(td status "$run")"
    out=$(td auto-restart "$run" on)
    grep -q "restarted as job" <<<"$out" || fail "auto-restart on: $out"
    td logs "$run" -f >/dev/null || fail "the restarted job: $(td logs "$run")"
    out=$(td status "$run" --json)
    expect_eq "$(json_field state <<<"$out")" completed "state after the restart"
    expect_eq "$(json_field jobs.1.state <<<"$out")" completed "the restarted job"
    rc=0; td auto-restart "$run" maybe >/dev/null 2>&1 || rc=$?
    expect_eq "$rc" 2 "a bad setting"
}

case_lost_reply() { # sbatch submits, then the connection breaks before its reply: no second job, the job found
    use_prebuilt_trainer
    local out run id wrapper="$TORCHDECK_SANDBOX_DIR/bin/sbatch" marker="$TORCHDECK_SANDBOX_DIR/drop-next-reply"
    # A wrapper first on the sandbox sessions' PATH: the real sbatch, then (once, with the marker) the sshd
    # process serving this connection is killed before the reply leaves.
    cat >"$wrapper" <<'WRAPPER'
#!/bin/bash
out=$(/usr/bin/sbatch "$@"); rc=$?
if (( rc == 0 )) && rm "$TORCHDECK_SANDBOX_DIR/drop-next-reply" 2>/dev/null; then
    echo "$out" >"$TORCHDECK_SANDBOX_DIR/dropped-reply"
    p=$PPID
    while [[ "$(cat "/proc/$p/comm")" != sshd ]]; do p=$(cut -d' ' -f4 "/proc/$p/stat"); done
    kill -KILL "$p"
fi
echo "$out"
exit $rc
WRAPPER
    chmod +x "$wrapper"
    # shellcheck disable=SC2064 # expand now
    trap "rm -f '$wrapper' '$marker'; stop_agent" EXIT
    touch "$marker"
    out=$(td submit torchdeck-sandbox "${job[@]}" --epochs 1 --name lost-reply --json 2>"$home/submit.txt") ||
        fail "submit: $(cat "$home/submit.txt")"
    [[ ! -e "$marker" ]] || fail "the wrapper did not run"
    id=$(cat "$TORCHDECK_SANDBOX_DIR/dropped-reply")
    expect_eq "$(json_field job <<<"$out")" "$id" "the job id, found again after the lost reply"
    grep -q "looking for the job" "$home/submit.txt" || fail "progress: $(cat "$home/submit.txt")"
    run=$(json_field run <<<"$out")
    expect_eq "$(squeue -h -t all --name="lost-reply-${run:0:8}-a0" -o %i | wc -l)" 1 "jobs of that name in Slurm"
    expect_eq "$(td status "$run" --offline --json | json_field jobs.1.job 2>/dev/null || echo none)" none "a second job"
    td logs "$run" -f >/dev/null || fail "the job: $(td logs "$run")"
}

case_refused_restart() { # the scheduler refuses the restart: the run says why, waits, and is restarted later
    use_prebuilt_trainer
    local run wrapper="$TORCHDECK_SANDBOX_DIR/bin/sbatch" marker="$TORCHDECK_SANDBOX_DIR/refuse-submissions" out
    cat >"$wrapper" <<'WRAPPER'
#!/bin/bash
if [[ -e "$TORCHDECK_SANDBOX_DIR/refuse-submissions" ]]; then
    echo "sbatch: error: QOSMaxSubmitJobPerUserLimit" >&2
    exit 1
fi
exec /usr/bin/sbatch "$@"
WRAPPER
    chmod +x "$wrapper"
    # shellcheck disable=SC2064 # expand now
    trap "rm -f '$wrapper' '$marker'; stop_agent" EXIT
    run=$(td submit torchdeck-sandbox "${job[@]}" --epochs 3 --seed 7 --name refused --trainer-arg --signal-at-step \
          --trainer-arg 40 --json | json_field run)
    touch "$marker"
    timeout 240 setsid -w "$TORCHDECK_BIN" watch "$run" --interval 0.5 </dev/null >"$home/watch.txt" 2>&1 &
    local watcher=$!
    for _ in $(seq 300); do
        out=$(td status "$run" --offline --json)
        grep -q 'trying again in 30s' <<<"$(json_field message <<<"$out")" && break
        sleep 0.2
    done
    grep -q 'QOSMaxSubmitJobPerUserLimit' <<<"$(json_field message <<<"$out")" || fail "the run does not say why: $out"
    expect_eq "$(json_field jobs.1.job <<<"$out" 2>/dev/null || echo none)" none "a second job while refused"
    rm -f "$marker" # the queue has room again: the next try, 30 s later, goes through
    wait "$watcher" || fail "watch: $(cat "$home/watch.txt")"
    out=$(td status "$run" --json)
    expect_eq "$(json_field state <<<"$out")" completed "run state"
    expect_eq "$(json_field jobs.1.state <<<"$out")" completed "the job restarted after the refusal"
    expect_eq "$(json_field jobs.2.job <<<"$out" 2>/dev/null || echo none)" none "a third job"
}

case_two_fronts() { # the window, two watch and a status loop on one store restart a run once
    use_prebuilt_trainer
    local run name pids=() i
    run=$(td submit torchdeck-sandbox "${job[@]}" --epochs 3 --seed 7 --name fronts --trainer-arg --signal-at-step \
          --trainer-arg 40 --json | json_field run)
    if [[ -n "${TORCHDECK_GUI_FRONT:-}" ]]; then # the desktop window (its test binary), offscreen
        TORCHDECK_FRONT_RUN=$run QT_QPA_PLATFORM=offscreen timeout 240 "$TORCHDECK_GUI_FRONT" \
            followsARunAsOneOfSeveralFronts >"$home/window.txt" 2>&1 &
        pids+=($!)
    fi
    for i in 1 2; do
        timeout 240 setsid -w "$TORCHDECK_BIN" watch "$run" --interval 0.3 </dev/null >"$home/watch-$i.txt" 2>&1 &
        pids+=($!)
    done
    ( for _ in $(seq 600); do td status "$run" --json >/dev/null 2>&1; sleep 0.2; done ) &
    local poller=$!
    for i in "${pids[@]}"; do wait "$i" || fail "a front failed: $(cat "$home"/watch-*.txt "$home"/window.txt 2>/dev/null)"; done
    [[ -z "${TORCHDECK_GUI_FRONT:-}" ]] || grep -q 'PASS   : TestGuiSession::followsARunAsOneOfSeveralFronts' "$home/window.txt" ||
        fail "the window: $(cat "$home/window.txt")"
    kill "$poller" 2>/dev/null || true
    expect_eq "$(td status "$run" --json | json_field state)" completed "run state"
    expect_eq "$(td status "$run" --json | json_field jobs.2.job 2>/dev/null || echo none)" none "a third job"
    # Slurm's own record of ended jobs (sacct -c: the sandbox's completion file): one job per attempt.
    name="fronts-${run:0:8}"
    expect_eq "$(sacct -c -n -X -o JobName%40 | grep -c "$name-a0")" 1 "jobs of attempt 0"
    expect_eq "$(sacct -c -n -X -o JobName%40 | grep -c "$name-a1")" 1 "jobs of attempt 1"
    expect_eq "$(td metrics "$run" --csv | awk -F, '$2 == "step" { print $5 }' | tr '\n' ' ')" "16 32 48 64 80 96 " \
        "every step once"
    grep -q "restarted as job" "$home"/watch-*.txt "$home"/window.txt 2>/dev/null ||
        td status "$run" | grep -q 'restart 1 of 3' || fail "no front restarted the run"
}

case_run_files() { # files, pull (a hostile name; interrupted and repeated), delete: refused, --dry-run, --remote
    td profile torchdeck-sandbox --work-dir "$home/work" >/dev/null
    local run keep long busy out rc dir pulled="$home/pulled" project="$home/project" part sftp session size lines
    mkdir -p "$project" && echo 'print("hi")' >"$project/train.py"
    run=$(td submit torchdeck-sandbox --name files --launch local --code "$project" --command true --json | json_field run)
    keep=$(td submit torchdeck-sandbox --name keep --launch local --code "$project" --command true --json | json_field run)
    # A log longer than the 8 MiB kept of it (lines of 200 characters), its last line a loss.
    long=$(td submit torchdeck-sandbox --name long --launch local --log-pattern '^train (?<loss>[0-9.]+)$' \
        --command 'yes "$(printf "%0200d" 0)" | head -c 9000000; echo; echo train 0.5' --json | json_field run)
    wait_final "$run" >/dev/null
    wait_final "$keep" >/dev/null
    wait_final "$long" >/dev/null
    dir=$home/work/runs/$run
    head -c 67108864 /dev/urandom >"$dir/big.bin"
    echo weights >"$dir/it's a \"model\" \$(x).pt"
    ln -s /etc "$dir/escape"
    out=$(td files files)
    grep -qE '^64\.0 MiB .* - +big\.bin$' <<<"$out" || fail "files: $out"
    grep -qE ' 0 +attempt-0-[0-9]+\.out$' <<<"$out" || fail "files, the attempt: $out"
    rc=0; out=$(td files files ../.. 2>&1) || rc=$?
    expect_eq "$rc" 1 "files ../.." && grep -q "'..' is refused" <<<"$out" || fail "files ../..: $out"
    rc=0; out=$(td pull files escape/passwd --to "$pulled" 2>&1) || rc=$?
    expect_eq "$rc" 1 "pull through a symlink out" && grep -q 'outside the run' <<<"$out" || fail "pull: $out"
    [[ ! -e "$pulled/passwd" ]] || fail "passwd was pulled"
    out=$(td pull files "it's a \"model\" \$(x).pt" --to "$pulled" --json)
    expect_eq "$(cat "$pulled/it's a \"model\" \$(x).pt")" weights "the pulled file with a hostile name"
    rc=0; out=$(td pull files attempt-0.job ./attempt-0.job --to "$pulled" 2>&1) || rc=$?
    expect_eq "$rc" 1 "two files of one name" && grep -q 'two of the files are called attempt-0.job' <<<"$out" || fail "$out"
    mkdir -p "$home/clash/attempt-0.job"
    rc=0; out=$(td pull files attempt-0.job --to "$home/clash" 2>&1) || rc=$?
    expect_eq "$rc" 1 "a pull onto a directory" && grep -q 'is there already and is no file' <<<"$out" || fail "$out"
    expect_eq "$(ls -A "$home/clash")" attempt-0.job "what the pull onto a directory left"
    # A different file of the name is moved aside, not replaced.
    echo "another run's" >"$pulled/attempt-0.job"
    out=$(td pull files attempt-0.job --to "$pulled")
    grep -q "a different file was there: kept as $pulled/attempt-0.job.~1~" <<<"$out" || fail "pull over a file: $out"
    expect_eq "$(cat "$pulled/attempt-0.job.~1~")" "another run's" "the file kept aside"
    cmp -s "$pulled/attempt-0.job" "$dir/attempt-0.job" || fail "the pulled attempt-0.job differs from the cluster's"
    # A pull broken mid-way: the agent's SFTP server is let run 5 ms at a time until some bytes arrived, then its
    # connection is killed. The same pull again goes on from there and ends with the cluster's checksum.
    sftp=$(for p in $(sshd_sessions); do grep -q '@internal-sftp' "/proc/$p/cmdline" && echo "$p"; done || true)
    [[ "$sftp" =~ ^[0-9]+$ ]] || fail "the agent's SFTP server: '$sftp'"
    session=$(ps -o ppid= -p "$sftp" | tr -d ' ')
    kill -STOP "$sftp"
    part="$pulled/big.bin.torchdeck-part"
    td pull files big.bin --to "$pulled" >"$home/pull.out" 2>&1 & local pull=$!
    until [[ -e "$part" ]]; do kill -0 "$pull" 2>/dev/null || fail "pull: $(cat "$home/pull.out")"; sleep 0.01; done
    until (( $(stat -c %s "$part") > 0 )); do kill -CONT "$sftp"; sleep 0.005; kill -STOP "$sftp"; done
    kill -KILL "$session"
    kill -KILL "$sftp" 2>/dev/null || true
    rc=0; wait "$pull" || rc=$?
    expect_eq "$rc" 1 "the broken pull" && grep -q 'stopped at' "$home/pull.out" || fail "$(cat "$home/pull.out")"
    size=$(stat -c %s "$part")
    (( size > 0 && size < 67108864 )) || fail "the part kept: $size bytes"
    [[ ! -e "$pulled/big.bin" ]] || fail "a partial file under the final name"
    out=$(td pull files big.bin --to "$pulled" --json)
    expect_eq "$(json_field 0.resumed_at <<<"$out")" "$size" "where the pull went on"
    expect_eq "$(sha256sum <"$pulled/big.bin")" "$(sha256sum <"$dir/big.bin")" "the resumed file"
    [[ ! -e "$part" ]] || fail "the part is left"
    expect_eq "$(td pull files big.bin --to "$pulled" --json | json_field 0.already_there)" True "pulled again"
    # Delete: refused while a job goes on; --dry-run removes nothing; --remote removes the run's directory only.
    busy=$(td submit torchdeck-sandbox --name busy --launch local --command 'sleep 300' --json | json_field run)
    rc=0; out=$(td delete busy 2>&1) || rc=$?
    expect_eq "$rc" 1 "delete of a running run" && grep -q 'torchdeck cancel' <<<"$out" || fail "delete: $out"
    # A command inside the running job: its job id and node, its exit code as the command's.
    local job
    job=$(td status busy --offline --json | json_field jobs.0.job)
    until [[ "$(squeue -h -j "$job" -o %T)" == RUNNING ]]; do sleep 0.2; done
    rc=0; out=$(td shell busy --command 'echo "$SLURM_JOB_ID $SLURMD_NODENAME"; exit 3') || rc=$?
    expect_eq "$rc" 3 "the command's exit code"
    expect_eq "$out" "$job $(squeue -h -j "$job" -o %N)" "the job and node the command ran in"
    # An interactive shell in the job through the agent's connection, in tmux: what is typed runs there, on a
    # terminal of the pane's size; `exit 4` ends it with the command's exit code 4.
    local socket="torchdeck-shell-$$" pane size
    tm() { tmux -L "$socket" "$@"; }
    # shellcheck disable=SC2064 # expand now
    trap "tmux -L '$socket' kill-server 2>/dev/null || true; stop_agent" EXIT
    tm new-session -d -x 100 -y 30 "env TORCHDECK_CONFIG_DIR=$TORCHDECK_CONFIG_DIR TORCHDECK_DATA_DIR=$TORCHDECK_DATA_DIR \
        TORCHDECK_SSH_CONFIG=$TORCHDECK_SSH_CONFIG $TORCHDECK_BIN shell $busy; echo shell-exit=\$? >$home/shell-exit; sleep 60"
    size=$(tm display -p '#{pane_height} #{pane_width}')
    tm send-keys 'echo "in-job-$SLURM_JOB_ID-$(stty size | tr " " x)"' Enter
    for _ in $(seq 150); do pane=$(tm capture-pane -p); grep -q "^in-job-$job-${size/ /x}" <<<"$pane" && break; sleep 0.2; done
    grep -q "^in-job-$job-${size/ /x}" <<<"$pane" || fail "the shell in the job showed: $pane"
    tm send-keys 'exit 4' Enter
    for _ in $(seq 150); do [[ -s "$home/shell-exit" ]] && break; sleep 0.2; done
    expect_eq "$(cat "$home/shell-exit" 2>/dev/null)" shell-exit=4 "the interactive shell's exit code"
    tm kill-server
    td cancel busy >/dev/null
    out=$(td delete files --remote --dry-run)
    grep -qE "^would delete run ${run:0:8} \(files\): its record and $dir on torchdeck-sandbox \(6[0-9.]+ MiB\)$" \
        <<<"$out" || fail "dry run: $out"
    [[ -d "$dir" ]] && td status files --offline >/dev/null || fail "the dry run removed something"
    # On a terminal it asks first; "n" deletes nothing.
    tm new-session -d -x 200 -y 20 "env TORCHDECK_CONFIG_DIR=$TORCHDECK_CONFIG_DIR TORCHDECK_DATA_DIR=$TORCHDECK_DATA_DIR \
        TORCHDECK_SSH_CONFIG=$TORCHDECK_SSH_CONFIG $TORCHDECK_BIN delete files --remote; echo delete-exit=\$? >$home/delete-exit; sleep 60"
    for _ in $(seq 150); do pane=$(tm capture-pane -p); grep -q 'their directories? \[y/N\]' <<<"$pane" && break; sleep 0.2; done
    grep -q "^would delete run ${run:0:8} (files)" <<<"$pane" || fail "the question: $pane"
    tm send-keys n Enter
    for _ in $(seq 150); do [[ -s "$home/delete-exit" ]] && break; sleep 0.2; done
    expect_eq "$(cat "$home/delete-exit" 2>/dev/null)" delete-exit=1 "delete answered no"
    [[ -d "$dir" ]] || fail "answering no removed the directory"
    tm kill-server
    out=$(td delete files --remote)
    grep -q "^deleted run ${run:0:8}" <<<"$out" || fail "delete: $out"
    [[ ! -e "$dir" ]] || fail "$dir is still there"
    rc=0; td status "$run" --offline >/dev/null 2>&1 || rc=$?
    expect_eq "$rc" 1 "status of the deleted run"
    [[ -d "$home/work/runs/$keep" ]] || fail "the other run's directory went"
    expect_eq "$(cat "$home/work/runs/$keep/code/train.py")" 'print("hi")' "the other run's code"
    [[ -n "$(ls -A "$home/work/code")" ]] || fail "the code store went"
    # Notes, tags and names, kept with the run; runs --tag finds it.
    td note keep 'baseline: lr 1e-3, "no" $(warmup)' >/dev/null
    expect_eq "$(td note keep)" 'baseline: lr 1e-3, "no" $(warmup)' "the note"
    td tag keep baseline paper-fig3 >/dev/null
    td rename keep 'the baseline' >/dev/null
    rc=0; out=$(td rename "$keep" $'red\e[31m' 2>&1) || rc=$?
    expect_eq "$rc" 1 "a name with an escape sequence" && grep -q 'cannot hold control characters (U+001b)' <<<"$out" ||
        fail "rename: $out"
    out=$(td runs --tag baseline --tag paper-fig3 --offline --json)
    expect_eq "$(json_field 0.name <<<"$out")" "the baseline" "the run found by its tags"
    expect_eq "$(json_field 0.tags <<<"$out")" "['baseline', 'paper-fig3']" "its tags"
    grep -q '^tags     baseline, paper-fig3$' <<<"$(td status "$keep" --offline)" || fail "status: $(td status "$keep" --offline)"
    td tag "$keep" paper-fig3 --remove >/dev/null
    expect_eq "$(td runs --tag paper-fig3 --offline)" "No runs tagged paper-fig3" "runs --tag after --remove"
    rc=0; out=$(td tag "$keep" 'no spaces' 2>&1) || rc=$?
    expect_eq "$rc" 2 "a tag with a space" && grep -q 'cannot be a tag' <<<"$out" || fail "tag: $out"
    # An agent stopped between a job's end and the keep of its logs leaves the run ended with nothing kept (as if
    # the logs were removed): the next agent keeps them, at its first pass over the run while connected.
    stop_agent
    rm -r "$TORCHDECK_DATA_DIR/logs/$keep"
    td files "$keep" >/dev/null # connects it: a whole pass
    for _ in $(seq 100); do [[ -f "$TORCHDECK_DATA_DIR/logs/$keep/attempt-0.out" ]] && break; sleep 0.2; done
    cmp -s "$TORCHDECK_DATA_DIR/logs/$keep/attempt-0.out" "$home/work/runs/$keep"/attempt-0-*.out ||
        fail "the log was not kept again by the next agent: $(ls -l "$TORCHDECK_DATA_DIR/logs/$keep" 2>&1)"
    # The connection dropped in the middle of the keep (the sshd serving it killed as `tail` reads the log): no
    # half log and no "none" mark are kept; the next connected pass keeps it whole.
    local wrapper="$TORCHDECK_SANDBOX_DIR/bin/tail" marker="$TORCHDECK_SANDBOX_DIR/drop-keep"
    cat >"$wrapper" <<'WRAPPER'
#!/bin/bash
# The keep's read (`tail -c BYTES -- FILE`), not the log follower's (`tail -c +OFFSET -- FILE`).
if [[ "$1" == -c && "$2" != +* && "$3" == -- ]] && rm "$TORCHDECK_SANDBOX_DIR/drop-keep" 2>/dev/null; then
    p=$PPID
    while (( p > 1 )) && [[ "$(cat "/proc/$p/comm")" != sshd ]]; do p=$(cut -d' ' -f4 "/proc/$p/stat"); done
    (( p > 1 )) && kill -KILL "$p"
    exit 1
fi
exec /usr/bin/tail "$@"
WRAPPER
    chmod +x "$wrapper"
    # shellcheck disable=SC2064 # expand now
    trap "rm -f '$wrapper' '$marker'; tmux -L '$socket' kill-server 2>/dev/null || true; stop_agent" EXIT
    stop_agent
    rm -r "$TORCHDECK_DATA_DIR/logs/$keep"
    touch "$marker"
    td files "$keep" >/dev/null 2>&1 || true # connects it; the keep's read loses the connection
    for _ in $(seq 100); do [[ -e "$marker" ]] || break; sleep 0.2; done
    [[ ! -e "$marker" ]] || fail "the keep did not run tail"
    rm "$wrapper"
    td files "$keep" >/dev/null || fail "files after the dropped keep"
    for _ in $(seq 100); do [[ -f "$TORCHDECK_DATA_DIR/logs/$keep/attempt-0.out" ]] && break; sleep 0.2; done
    cmp -s "$TORCHDECK_DATA_DIR/logs/$keep/attempt-0.out" "$home/work/runs/$keep"/attempt-0-*.out ||
        fail "the log was not kept whole after the dropped keep: $(ls -l "$TORCHDECK_DATA_DIR/logs/$keep" 2>&1)"
    [[ ! -e "$TORCHDECK_DATA_DIR/logs/$keep/attempt-0.none" ]] || fail "a dropped read marked the log as none"
    # The long log: explained from the cluster's whole copy while it can be read, its line numbered from the start.
    lines=$(wc -l <"$home/work/runs/$long"/attempt-0-*.out)
    grep -q "^line $lines: pattern" <<<"$(td logs long --explain)" || fail "explain, connected: $(td logs long --explain)"
    for _ in $(seq 100); do [[ -f "$TORCHDECK_DATA_DIR/logs/$long/attempt-0.out" ]] && break; sleep 0.2; done
    [[ -f "$TORCHDECK_DATA_DIR/logs/$long/attempt-0.out" ]] || fail "the long log was not kept"
    # The cluster out of reach (its port closed, for a new agent): an ended run's record goes without it; its
    # directory cannot, and a deletion with --remote fails and keeps the run.
    close_sandbox_port
    # The long log's kept end: shown and explained, each saying so (the explanation's numbers count from its start).
    expect_eq "$(td logs long 2>"$home/said" | tail -n 1)" "train 0.5" "the kept end's last line"
    grep -qE "^\(the last [0-9.]+ MiB of [0-9.]+ MiB, kept on this machine; all of it: torchdeck pull ${long:0:8} attempt-0-" \
        "$home/said" || fail "logs of the kept end said: $(cat "$home/said")"
    out=$(td logs long --explain 2>"$home/said")
    grep -q "^line $(wc -l <"$TORCHDECK_DATA_DIR/logs/$long/attempt-0.out"): pattern" <<<"$out" ||
        fail "explain of the kept end: $out"
    grep -q '^(line numbers count from the first line kept' "$home/said" || fail "explain said: $(cat "$home/said")"
    rc=0; out=$(td delete "$keep" --remote 2>&1) || rc=$?
    expect_eq "$rc" 1 "delete --remote with the cluster out of reach" &&
        grep -q 'cannot connect to torchdeck-sandbox' <<<"$out" || fail "delete --remote: $out"
    td status "$keep" --offline >/dev/null || fail "the run went with its cluster out of reach"
    [[ -f "$TORCHDECK_DATA_DIR/logs/$keep/attempt-0.out" ]] || fail "the ended run's log was not kept"
    out=$(td delete "$keep") || fail "delete of the record with the cluster out of reach: $out"
    grep -q "^deleted run ${keep:0:8} (the baseline): its record$" <<<"$out" || fail "delete: $out"
    [[ ! -e "$TORCHDECK_DATA_DIR/logs/$keep" ]] || fail "the deleted run's kept logs are left"
    [[ -d "$home/work/runs/$keep" ]] || fail "the directory went without --remote"
}

case_no_restart() { # a real error is not restarted, and the run says why
    use_prebuilt_trainer
    local run out
    run=$(td submit torchdeck-sandbox "${job[@]}" --epochs 1 --data mnist:/nonexistent --name broken --json | json_field run)
    timeout 120 setsid -w "$TORCHDECK_BIN" watch "$run" --interval 0.5 </dev/null >/dev/null 2>&1 || true
    out=$(td status "$run" --json)
    expect_eq "$(json_field state <<<"$out")" failed "state"
    expect_eq "$(json_field jobs.1.job <<<"$out" 2>/dev/null || echo none)" none "a second job"
    grep -q 'nonexistent' <<<"$(json_field message <<<"$out")" || fail "the error is not shown: $out"
}

case_shape_stalls() { # sinfo hangs: seven submissions at once wait one read's deadline, each is sent unchecked, saying so
    local wrapper="$TORCHDECK_SANDBOX_DIR/bin/sinfo" out run
    # shellcheck disable=SC2064 # expand now
    trap "rm -f '$wrapper'; pkill -f torchdeck-stalled-sinfo || true; stop_agent" EXIT
    printf '#!/bin/bash\necho "$*" >>%q\nexec -a torchdeck-stalled-sinfo sleep 90\n' "$home/sinfo-calls" >"$wrapper"
    chmod +x "$wrapper"
    # Seven fronts at once (each may start the agent): one read of the shape serves them all.
    local i pids=()
    for i in 1 2 3 4 5 6; do
        td submit torchdeck-sandbox --name "flood-$i" --launch local --command true --json >"$home/flood-$i" \
            2>"$home/flood-$i.said" &
        pids+=($!)
    done
    out=$(td submit torchdeck-sandbox --name unchecked --launch local --command true --json 2>"$home/said") ||
        fail "submit: $(cat "$home/said")"
    grep -q "Not checked against the partitions and limits of torchdeck-sandbox: sinfo did not answer" "$home/said" ||
        fail "no word of the unchecked job: $(cat "$home/said")"
    for i in 1 2 3 4 5 6; do
        wait "${pids[i - 1]}" || fail "submission flood-$i: $(cat "$home/flood-$i.said")"
        grep -q "Not checked against the partitions" "$home/flood-$i.said" ||
            fail "no word of flood-$i unchecked: $(cat "$home/flood-$i.said")"
    done
    expect_eq "$(wc -l <"$home/sinfo-calls")" 1 "sinfo calls for seven submissions at once: $(cat "$home/sinfo-calls")"
    rm -f "$wrapper"
    run=$(json_field run <<<"$out")
    expect_eq "$(wait_final "$run" 120)" completed "the job sent unchecked"
    for i in 1 2 3 4 5 6; do
        expect_eq "$(wait_final "$(json_field run <"$home/flood-$i")" 120)" completed "flood-$i"
    done
    # The read is not tried again at once: the next submission goes straight on, saying the same.
    td submit torchdeck-sandbox --name again --launch local --command true >/dev/null 2>"$home/said" ||
        fail "submit again: $(cat "$home/said")"
    grep -q "Not checked against the partitions" "$home/said" || fail "the second submission: $(cat "$home/said")"
}

"case_$1"
remove_home
