#!/usr/bin/env bash
# Issue 30 (in part): `torchdeck sweep` on the 2-node sandbox (launch_test.sh starts it): a scaling sweep of the
# trainer over 1 and 2 nodes and 1 and 2 tasks per node, its table against the epoch times in the store (JSON,
# Markdown, CSV); a custom command's sweep over an env: value, timed from its log; a point the cluster cannot
# run stops the sweep before anything is sent; a learning-rate sweep goes as one job array. Usage: sweep_test.sh CASE
set -euo pipefail
# shellcheck source=term_helpers.sh
source "$(dirname "${BASH_SOURCE[0]}")/term_helpers.sh"

runs_of() { # SWEEP_JSON: the run ids `sweep --json` printed, one a line
    /usr/bin/python3 -c 'import json, sys
for r in json.load(sys.stdin)["runs"]: print(r["run"])'
}

# The table's seconds per epoch, speedup and efficiency, recomputed from each run's epoch times in the store.
check_table() { # SWEEP
    local expected=""
    local run
    for run in $(td sweeps "$1" --json | /usr/bin/python3 -c 'import json, sys
for p in json.load(sys.stdin)["points"]: print(p["run"])'); do
        expected+="$run $(td metrics "$run" --json | /usr/bin/python3 -c 'import json, sys
s = [r["seconds"] for r in json.load(sys.stdin) if r["event"] == "epoch" and r.get("seconds") is not None]
print(sum(s[1:]) / len(s[1:]) if len(s) > 1 else s[0])')"$'\n'
    done
    td sweeps "$1" --json | /usr/bin/python3 -c '
import json, sys
table = json.load(sys.stdin)
measured = dict(line.split() for line in sys.argv[1].splitlines())
points = table["points"]
base = min((p for p in points), key=lambda p: (p["ranks"], p["nodes"]))
t0 = float(measured[base["run"]])
for p in points:
    t = float(measured[p["run"]])
    assert abs(p["seconds_per_epoch"] - t) <= 1e-9 * t, (p, t)
    assert abs(p["speedup"] - t0 / t) <= 1e-9 * (t0 / t), (p, t0, t)
    assert abs(p["efficiency"] - (t0 / t) / (p["ranks"] / base["ranks"])) <= 1e-9, p
print("table matches the store:", ", ".join("{} ranks {:.2f}x".format(p["ranks"], p["speedup"]) for p in points))' "$expected"
}

case_scaling() {
    use_prebuilt_trainer
    local out sweep run state
    out=$(td sweep torchdeck-sandbox --name scaling --model ae --data fashion-mnist --batch-size 64 --threads 1 \
          --limit 2000 --epochs 3 --log-every 100 --seed 5 --time 00:10:00 \
          --vary nodes=1,2 --vary tasks-per-node=1,2 --json 2>"$home/sweep.err") ||
        fail "sweep: $(cat "$home/sweep.err")"
    grep -q "4 points on torchdeck-sandbox, 1.00 node-hours at most" "$home/sweep.err" || fail "$(cat "$home/sweep.err")"
    sweep=$(json_field sweep <<<"$out")
    expect_eq "$(runs_of <<<"$out" | wc -l)" 4 "runs of the sweep"
    for run in $(runs_of <<<"$out"); do
        state=$(wait_final "$run")
        expect_eq "$state" completed "run $run ($(td status "$run" --json | json_field name))"
    done
    td sweeps "$sweep" --json >"$home/table.json"
    expect_eq "$(json_field kind <"$home/table.json")" scaling "the sweep's kind"
    expect_eq "$(/usr/bin/python3 -c 'import json, sys
print(" ".join("{}x{}".format(p["nodes"], p["ranks"]) for p in json.load(sys.stdin)["points"]))' <"$home/table.json")" \
        "1x1 1x2 2x2 2x4" "points by ranks, then nodes"
    check_table "$sweep"
    out=$(td sweeps "$sweep" --markdown)
    expect_eq "$(sed -n 1p <<<"$out")" \
        "| tasks-per-node | nodes | ranks | s/epoch | samples/s | speedup | efficiency | train loss | val loss | state | run |" \
        "the Markdown header"
    expect_eq "$(grep -c '| completed |' <<<"$out")" 4 "Markdown rows"
    grep -q '^| 1 | 1 | 1 | [0-9.]* | [0-9]* | 1.00 | 1.00 | ' <<<"$out" || fail "the base row: $out"
    out=$(td sweeps "$sweep" --csv)
    expect_eq "$(wc -l <<<"$out")" 5 "CSV lines"
    expect_eq "$(sed -n 1p <<<"$out")" \
        "tasks-per-node,nodes,ranks,s/epoch,samples/s,speedup,efficiency,train loss,val loss,state,run" "the CSV header"
    out=$(td sweeps "$sweep")
    echo "$out"
    expect_eq "$(sed -n 1p <<<"$out")" \
        "sweep ${sweep:0:8} (scaling) on torchdeck-sandbox: speedup against the fewest ranks, 4 completed" "the text table"
    grep -q "speedup.*measured.*ideal" <<<"$out" || fail "no speedup chart: $out"
    grep -qE '⣀|⠉|⠒|⠤|⡇|⢸|⠁|⠈|⡀|⢀' <<<"$out" || fail "the chart has no curve: $out"
    td sweeps | grep -q "^${sweep:0:8}  scaling  torchdeck-sandbox  .*  varies nodes, tasks-per-node: 4 completed$" ||
        fail "sweeps: $(td sweeps)"
    remove_home
}

case_custom() { # env: values of a custom command, timed from its log's epoch lines (the built-in patterns)
    td profile torchdeck-sandbox --work-dir "$home/work" >/dev/null
    local out sweep run
    # shellcheck disable=SC2016 # expanded by the job's shell
    out=$(td sweep torchdeck-sandbox --name pause --launch local --time 00:05:00 \
          --command 'for e in 1 2 3; do echo "epoch: $e/3, loss = 0.$PAUSE$e, val_loss = 0.$PAUSE$e, time = $PAUSE.5s, 10.0 samples/s"; done' \
          --vary env:PAUSE=2,1 --json 2>"$home/sweep.err") || fail "sweep: $(cat "$home/sweep.err")"
    sweep=$(json_field sweep <<<"$out")
    for run in $(runs_of <<<"$out"); do
        expect_eq "$(wait_final "$run")" completed "run $run"
    done
    td sweeps "$sweep" --json >"$home/table.json"
    expect_eq "$(json_field kind <"$home/table.json")" hyperparameters "the sweep's kind"
    # One row a point, the best validation loss first, each timed from its log.
    expect_eq "$(/usr/bin/python3 -c 'import json, sys
print(" ".join("{}:{:g}:{:g}".format(p["varied"]["env:PAUSE"], p["seconds_per_epoch"], p["best_val_loss"])
               for p in json.load(sys.stdin)["points"]))' <"$home/table.json")" \
        "1:1.5:0.11 2:2.5:0.21" "points (value:s/epoch:best val loss)"
    remove_home
}

case_whole() { # a sweep's id stands for its runs: cancelled at once, watched together, resumed, deleted
    td profile torchdeck-sandbox --work-dir "$home/work" >/dev/null
    local out sweep run
    out=$(td sweep torchdeck-sandbox --name long --launch local --time 00:05:00 --command 'sleep 300' \
          --vary env:X=1,2 --json 2>"$home/sweep.err") || fail "sweep: $(cat "$home/sweep.err")"
    sweep=$(json_field sweep <<<"$out")
    for run in $(runs_of <<<"$out"); do
        for _ in $(seq 120); do [[ "$(td status "$run" --json | json_field state)" == running ]] && break; sleep 0.5; done
    done
    td sweeps "${sweep:0:8}" --delete >"$home/delete.out" 2>&1 && fail "a sweep that goes on was deleted"
    grep -q "2 of the sweep's runs still go on" "$home/delete.out" || fail "delete: $(cat "$home/delete.out")"
    td cancel "${sweep:0:8}" >"$home/cancel.out" 2>&1 || fail "cancel: $(cat "$home/cancel.out")"
    for run in $(runs_of <<<"$out"); do
        expect_eq "$(wait_final "$run")" cancelled "run $run after cancelling its sweep"
    done
    # No epoch times: each point is timed by how long its job ran, as the scheduler says.
    td sweeps "${sweep:0:8}" --json | /usr/bin/python3 -c 'import json, sys
points = json.load(sys.stdin)["points"]
assert len(points) == 2 and all(p["timed_by"] == "job" and p["seconds_per_epoch"] >= 0 for p in points), points' ||
        fail "the points are not timed by their jobs: $(td sweeps "${sweep:0:8}" --json)"
    local runs
    runs=$(runs_of <<<"$out")
    out=$(timeout 60 "$TORCHDECK_BIN" watch "${sweep:0:8}" --plain </dev/null) || fail "watch: $out"
    for run in $runs; do
        grep -q "^run ${run:0:8} CANCELLED" <<<"$out" || fail "watch of the sweep does not show run $run: $out"
    done
    # Resumed at once: each run goes on as its second job; then cancelled again.
    td sweeps "${sweep:0:8}" --resume >"$home/resume.out" 2>&1 || fail "resume: $(cat "$home/resume.out")"
    for run in $runs; do
        expect_eq "$(td status "$run" --json | json_field jobs.1.attempt)" 1 "run $run's second job"
    done
    td sweeps "${sweep:0:8}" --cancel >/dev/null 2>&1 || fail "sweeps --cancel"
    for run in $runs; do
        expect_eq "$(wait_final "$run")" cancelled "run $run after sweeps --cancel"
    done
    # Deleted at once once nothing goes on: the sweep and its runs leave the store.
    td sweeps "${sweep:0:8}" --delete >"$home/delete.out" 2>&1 || fail "delete: $(cat "$home/delete.out")"
    grep -q "deleted with its 2 runs" "$home/delete.out" || fail "delete: $(cat "$home/delete.out")"
    expect_eq "$(td sweeps --json)" '{"sweeps":[]}' "sweeps after deleting the sweep"
    expect_eq "$(td runs --offline --json)" "[]" "runs after deleting the sweep"
    remove_home
}

case_array() { # a learning-rate sweep as one job array: one sbatch, task ids N_0..N_2, three runs, cancelled at once
    use_prebuilt_trainer
    local out sweep runs run jobs array state
    out=$(td sweep torchdeck-sandbox --name lrs --model ae --data fashion-mnist --batch-size 64 --threads 1 \
          --limit 2000 --epochs 500 --log-every 10 --time 00:10:00 --max-running 2 \
          --vary lr=0.1,0.01,0.001 --json 2>"$home/sweep.err") || fail "sweep: $(cat "$home/sweep.err")"
    grep -q "one job array of 3 tasks, at most 2 running at a time" "$home/sweep.err" || fail "$(cat "$home/sweep.err")"
    sweep=$(json_field sweep <<<"$out")
    runs=$(runs_of <<<"$out")
    jobs=$(/usr/bin/python3 -c 'import json, sys
print(" ".join(r["job"] for r in json.load(sys.stdin)["runs"]))' <<<"$out")
    array=${jobs%%_*}
    expect_eq "$jobs" "${array}_0 ${array}_1 ${array}_2" "the runs' jobs: the tasks of one array"
    # Two tasks run (--max-running 2), each writing its own run's log and metrics; the third waits for them.
    local running=0
    for _ in $(seq 240); do
        running=0
        for run in $runs; do
            state=$(td status "$run" --json | json_field state)
            [[ $state == running ]] && running=$((running + 1))
        done
        ((running == 2)) && break
        sleep 0.5
    done
    expect_eq "$running" 2 "runs running at once"
    local waiting=""
    for run in $runs; do
        state=$(td status "$run" --json | json_field state)
        if [[ $state == pending ]]; then
            waiting=$(td status "$run" --json | json_field reason)
            continue
        fi
        for _ in $(seq 240); do
            td metrics "$run" --json | grep -q '"event": *"step"' && break
            sleep 0.5
        done
        td metrics "$run" --json | grep -q '"event": *"step"' || fail "run $run has no step metrics"
        [[ -s "$(td status "$run" --json | json_field jobs.0.stdout)" ]] ||
            fail "run $run's log is not where its job says: $(td status "$run" --json)"
        # Seen inside: a step beside the task's (srun wants its own job number, not N_i) reads its processes.
        expect_eq "$(td status "$run" --json | json_field resources.via)" proc "where run $run's resources were read"
    done
    expect_eq "$waiting" JobArrayTaskLimit "why the third task waits"
    td cancel "${sweep:0:8}" >"$home/cancel.out" 2>&1 || fail "cancel: $(cat "$home/cancel.out")"
    for run in $runs; do
        expect_eq "$(wait_final "$run")" cancelled "run $run after cancelling its sweep"
    done
    remove_home
}

case_invalid() { # a point the cluster cannot run: nothing is sent, no run is kept
    td profile torchdeck-sandbox --work-dir "$home/work" >/dev/null
    local out
    # Refused by the agent, which reads the partitions first (none known here yet): its words, with the sweep's
    # count, name the option.
    out=$(td sweep torchdeck-sandbox --name hour --partition short --time 01:00:00 --launch local --command true \
          --vary env:X=1,2 2>&1) && fail "an hour on short was submitted: $out"
    grep -qF "the sweep stopped, 0 of 2 points submitted: the job cannot be submitted:" <<<"$out" || fail "$out"
    grep -qF -- "--time: Partition 'short' allows at most 00:30:00" <<<"$out" || fail "$out"
    out=$(td sweep torchdeck-sandbox --name wide --launch local --command true --vary nodes=1,2 2>&1) &&
        fail "a sweep with a point the local method cannot run was submitted: $out"
    grep -q "1 of 2 points cannot run on torchdeck-sandbox, so none is sent" <<<"$out" || fail "$out"
    grep -q "nodes=2: .*one node" <<<"$out" || fail "the point and why: $out"
    expect_eq "$(td runs --offline --json)" "[]" "runs after the refused sweep"
    expect_eq "$(td sweeps --json)" '{"sweeps":[]}' "sweeps after the refused sweep"
    out=$(td sweep torchdeck-sandbox --lr 0.1 --vary lr=0.1,0.2 2>&1) && fail "lr given and varied: $out"
    grep -q "lr is given and varied" <<<"$out" || fail "$out"
    # Each point's trainer arguments as the trainer reads them; a dry run in JSON lists the points.
    out=$(td sweep torchdeck-sandbox --vary lr=abc,0.1 --dry-run 2>&1) && fail "a learning rate that is no number: $out"
    grep -qF "lr=abc: the trainer's options: The trainer would refuse it: --lr: 'abc' is not a number" <<<"$out" || fail "$out"
    out=$(td sweep torchdeck-sandbox --name lrs --vary lr=0.2,0.1 --dry-run --json 2>/dev/null)
    /usr/bin/python3 - "$out" <<'PY' || fail "sweep --dry-run --json: $out"
import json, sys
plan = json.loads(sys.argv[1])
assert plan["cluster"] == "torchdeck-sandbox" and plan["array"] is True, plan
assert [(r["name"], r["point"]) for r in plan["runs"]] == [("lrs.lr0.2", {"lr": "0.2"}), ("lrs.lr0.1", {"lr": "0.1"})], plan
PY
    remove_home
}

"case_$1"
