#!/usr/bin/env bash
# Issue 16 (in part): a user's own command, not the bundled trainer, is plotted. Its log is read with log
# patterns (the built-in ones cover seed 001's line; --log-pattern adds the user's), every rank's repeat of a
# line counts once, and a command that writes TORCHDECK_METRICS_FILE is plotted from it. Real Python on the
# sandbox (Debian's python3-torch, Fashion-MNIST from dataset-fashion-mnist). Usage: anyjob_test.sh CASE
set -euo pipefail
# shellcheck source=term_helpers.sh
source "$(dirname "${BASH_SOURCE[0]}")/term_helpers.sh"
scripts=$TORCHDECK_SOURCE_DIR/tests/data/scripts
td profile torchdeck-sandbox --work-dir "$home/work" >/dev/null

epoch_rows() { # RUN: "epoch loss" of the run's visible epoch rows, one line each
    td metrics "$1" --csv | awk -F, '$2 == "epoch" && $12 == 0 { print $4, $6 }'
}

wait_final() { # RUN: polls its status until the run has ended; prints the states seen
    local state states=""
    for _ in $(seq 300); do
        state=$(td status "$1" --json | json_field state)
        [[ "${states##* }" == "$state" ]] || states="$states $state"
        [[ "$state" == completed || "$state" == failed || "$state" == cancelled ]] && { echo "$states"; return; }
        sleep 1
    done
    fail "run $1 still $state after 5 minutes"
}

case_spawn() { # seed 001's script: mp.spawn, 2 ranks, each printing "epoch: E/3, loss = L", sent with --code
    /usr/bin/python3 -c 'import torch.distributed' 2>/dev/null || { echo "SKIP: no python3-torch"; exit 77; }
    local run out live="" epochs project="$home/my project"
    # The user's project folder: the script, a cache and data that stay behind.
    mkdir -p "$project/__pycache__" "$project/data"
    cp "$scripts/spawn_fashion_mnist.py" "$project/"
    echo junk >"$project/__pycache__/x.pyc"
    head -c 100000 /dev/urandom >"$project/data/big.bin"
    echo 'data/' >"$project/.torchdeckignore"
    run=$(td submit torchdeck-sandbox --name spawn --launch local --tasks-per-node 2 --time 00:10:00 \
          --code "$project" --command "/usr/bin/python3 spawn_fashion_mnist.py 2 3 6000 2" \
          --json 2>"$home/submit.err" | json_field run) || fail "submit --code: $(cat "$home/submit.err")"
    grep -q "Code snapshot [0-9a-f]\{20\}: 2 file(s), 2 uploaded" "$home/submit.err" ||
        fail "the code upload: $(cat "$home/submit.err")"
    expect_eq "$(cd "$home/work/runs/$run/code" && find . -type f | sort | tr '\n' ' ')" \
        "./.torchdeckignore ./spawn_fashion_mnist.py " "the run's copy of the code"
    # Live: status shows the epochs while the job runs (each epoch takes 2 s more than its training).
    for _ in $(seq 240); do
        out=$(td status "$run" --json)
        [[ "$(json_field state <<<"$out")" == running && "$(json_field epochs_done <<<"$out")" -ge 1 ]] &&
            { live=$(json_field epochs_done <<<"$out"); break; }
        [[ "$(json_field state <<<"$out")" == completed ]] && break
        sleep 0.5
    done
    [[ -n "$live" ]] || fail "status never showed an epoch while the job ran: $out"
    echo "while running: $live epoch(s) done"
    wait_final "$run" >/dev/null
    out=$(td status "$run" --json)
    expect_eq "$(json_field state <<<"$out")" completed "the run's state"
    expect_eq "$(json_field epochs_done <<<"$out")" 3 "epochs done"
    epochs=$(epoch_rows "$run")
    echo "$epochs"
    expect_eq "$(cut -d' ' -f1 <<<"$epochs" | tr '\n' ' ')" "1 2 3 " "the epochs, once each (both ranks printed them)"
    # Every line of the metrics: no discarded repeats either.
    expect_eq "$(td metrics "$run" --csv | awk -F, '$2 == "epoch"' | wc -l)" 3 "epoch rows in all"
    grep -qE "^${run:0:8} +spawn +torchdeck-sandbox +completed +3/3 " <<<"$(td runs)" || fail "runs: $(td runs)"
    code_snapshots "$run" "$project"
}

code_snapshots() { # RUN PROJECT: unchanged files are not sent again; `code` lists and prunes snapshots
    local run=$1 project=$2 out snapshot again changed
    again=$(td submit torchdeck-sandbox --name again --launch local --code "$project" --command true --json \
        2>"$home/submit.err" | json_field run)
    grep -q "Code snapshot [0-9a-f]\{20\}: 2 file(s), 0 uploaded" "$home/submit.err" ||
        fail "unchanged files were sent again: $(cat "$home/submit.err")"
    echo "print('changed')" >>"$project/spawn_fashion_mnist.py"
    changed=$(td submit torchdeck-sandbox --name changed --launch local --code "$project" --command true --json \
        2>"$home/submit.err" | json_field run)
    grep -q "Code snapshot [0-9a-f]\{20\}: 2 file(s), 1 uploaded" "$home/submit.err" ||
        fail "a changed file: $(cat "$home/submit.err")"
    wait_final "$again" >/dev/null
    wait_final "$changed" >/dev/null
    out=$(td code torchdeck-sandbox)
    echo "$out"
    snapshot=$(grep -F "${run:0:8} spawn" <<<"$out" | cut -d' ' -f1)
    [[ "$snapshot" =~ ^[0-9a-f]{20}$ ]] || fail "code does not list the run's snapshot: $out"
    expect_eq "$(grep -c '^[0-9a-f]\{20\} ' <<<"$out")" 2 "snapshots (the first two runs share one)"
    /usr/bin/python3 - "$(td code torchdeck-sandbox --json)" "$snapshot" "$run" <<'PY' || fail "code --json"
import json, sys
[shared] = [s for s in json.loads(sys.argv[1]) if s["id"] == sys.argv[2]]
assert {"run": sys.argv[3], "name": "spawn"} in shared["runs"], shared
PY
    # Snapshots are kept for an hour (a submission may be uploading one); these are made older.
    touch -d '2 hours ago' "$home/work/code/manifests/"* "$home/work/code/objects/"*
    out=$(td code torchdeck-sandbox --prune)
    echo "$out"
    grep -q "^deleted snapshot $snapshot\$" <<<"$out" || fail "the ended run's snapshot was not pruned: $out"
    grep -q "^deleted 2 snapshot(s) and 3 file(s)" <<<"$out" || fail "prune summary: $out"
    [[ -z "$(ls "$home/work/code/objects")" ]] || fail "objects left: $(ls "$home/work/code/objects")"
    [[ -f "$home/work/runs/$run/code/spawn_fashion_mnist.py" ]] || fail "the prune took the run's own copy"
    expect_eq "$(td code torchdeck-sandbox)" "no code snapshots on torchdeck-sandbox (submit --code DIR makes one)" \
        "code after the prune"
}

case_metrics_file() { # a script writing TORCHDECK_METRICS_FILE is plotted from it, its log left alone
    local run epochs log
    run=$(td submit torchdeck-sandbox --name own-metrics --launch local --time 00:10:00 \
          --command "/usr/bin/python3 '$scripts/metrics_file.py' 3" --json | json_field run)
    wait_final "$run" >/dev/null
    epochs=$(epoch_rows "$run")
    expect_eq "$(tr '\n' ' ' <<<"$epochs")" "1 1 2 0.5 3 0.3333333333 " "the file's epochs and losses"
    # The visible rows only: a pass can read the log's epoch line before the file's (the script writes both
    # between two reads), and that log row, superseded by the file's, stays in the CSV marked discarded.
    expect_eq "$(td metrics "$run" --csv | awk -F, '$2 == "epoch" && $12 == 0 { print $9 }' | head -n1)" 1.1 \
        "val_loss"
    log=$(td logs "$run")
    grep -q "^run $run attempt 0 checkpoints in $home/work/runs/$run/checkpoints\$" <<<"$log" ||
        fail "the TORCHDECK_* variables: $log"
}

metrics_json() { # RUN FIELD EVENT SOURCE: "x:value" of the visible rows of that event and source
    td metrics "$1" --json | /usr/bin/python3 -c '
import json, sys
field, event, source = sys.argv[1:]
rows = [r for r in json.load(sys.stdin) if r["event"] == event and r["source"] == source]
x = "epoch" if event == "epoch" else "step"
value = lambda r: r["extras"].get(field[7:]) if field.startswith("extras.") else r.get(field)
print(" ".join(f"{r[x]}:{value(r):g}" for r in rows if value(r) is not None))' "$2" "$3" "$4"
}

logger_files_case() { # MODE: a script whose own logger writes its files; the log fills what they lack
    local mode=$1 run project="$home/logger-$1"
    /usr/bin/python3 -c 'import csv' || { echo "SKIP: no python3"; exit 77; }
    mkdir -p "$project"
    cp "$scripts/logger_files.py" "$scripts/tfevents_writer.py" "$project/"
    run=$(td submit torchdeck-sandbox --name "logger-$mode" --launch local --time 00:10:00 --code "$project" \
          --command "/usr/bin/python3 logger_files.py $mode 3 2" --json 2>"$home/submit.err" | json_field run) ||
        fail "submit: $(cat "$home/submit.err")"
    wait_final "$run" >/dev/null
    expect_eq "$(metrics_json "$run" val_loss epoch logger_files)" "1:1 2:0.5 3:0.333333" "val loss from the $mode files"
    expect_eq "$(metrics_json "$run" val_accuracy epoch logger_files)" "1:0.51 2:0.52 3:0.53" "accuracy"
    expect_eq "$(metrics_json "$run" loss step logger_files)" "1:2 2:1 3:0.666667 4:0.5 5:0.4 6:0.333333" \
        "loss by step from the $mode files"
    expect_eq "$(metrics_json "$run" extras.grad_norm step logger_files)" "1:11 2:12 3:13 4:14 5:15 6:16" \
        "grad_norm, an extra series"
    expect_eq "$(metrics_json "$run" loss epoch log)" "1:3 2:1.5 3:1" "train loss by epoch from the log"
    # The charts draw both: the file's val loss and the log's train loss (neither row superseded).
    expect_eq "$(td metrics "$run" --csv | awk -F, '$2 == "epoch" && $12 == 0 { print $13 }' | sort | uniq -c |
        tr -s ' ' | tr '\n' ';')" " 3 log; 3 logger_files;" "visible epoch rows by source"
    grep -q ",grad_norm" <<<"$(td metrics "$run" --csv | head -n1)" || fail "no grad_norm column in the CSV"
}

case_lightning_csv() { logger_files_case csv; }
case_tensorboard() { logger_files_case tensorboard; }

case_log_pattern() { # --log-pattern: the user's own line format; a broken pattern is refused by name
    local run steps out rc=0 profile
    run=$(td submit torchdeck-sandbox --name own-pattern --launch local --time 00:10:00 \
          --log-pattern 'it (?<step>\d+) cost (?<loss>[0-9.]+)' \
          --command 'for i in 1 2 3; do echo "it $i cost 0.$i"; done' --json | json_field run)
    wait_final "$run" >/dev/null
    steps=$(td metrics "$run" --csv | awk -F, '$2 == "step" { print $5 ":" $6 }' | tr '\n' ' ')
    expect_eq "$steps" "1:0.1 2:0.2 3:0.3 " "the steps the user's pattern read"
    out=$(td submit torchdeck-sandbox --name bad-pattern --launch local --log-pattern 'loss=(?<loss>[0-9.]+' \
          --command true 2>&1) || rc=$?
    [[ $rc -ne 0 ]] || fail "a broken pattern was accepted: $out"
    grep -qF -- '--log-pattern: pattern "loss=(?<loss>[0-9.]+": missing closing parenthesis' <<<"$out" ||
        fail "the refusal does not name the pattern: $out"
    # The cluster's own pattern, from its profile, for every custom command there.
    td profile torchdeck-sandbox --log-pattern 'round (?<epoch>\d+) of (?<epochs>\d+): (?<loss>[0-9.]+)' >/dev/null
    run=$(td submit torchdeck-sandbox --name profile-pattern --launch local --time 00:10:00 \
          --command 'echo "round 1 of 2: 0.7"; echo "round 2 of 2: 0.4"' --json | json_field run)
    wait_final "$run" >/dev/null
    expect_eq "$(epoch_rows "$run" | tr '\n' ' ')" "1 0.7 2 0.4 " "the epochs the profile's pattern read"
    rc=0
    out=$(td profile torchdeck-sandbox --log-pattern '(?<speed>\d+)' 2>&1) || rc=$?
    expect_eq "$rc" 2 "exit code of a profile with a broken pattern"
    grep -qF 'log_patterns: pattern "(?<speed>\d+)": unknown group "speed"' <<<"$out" || fail "profile refusal: $out"
    profile=$(td profile torchdeck-sandbox --json)
    grep -qF 'round (?<epoch>' <<<"$profile" || fail "the refused change replaced the saved pattern: $profile"
}

plotted_summary() { # RUN: what tst_logcorpus computes, from the run's visible CSV rows (expected.tsv's columns)
    td metrics "$1" --csv | /usr/bin/python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(sys.stdin) if r["discarded"] == "0"]
g = lambda v: format(float(v), ".4g")
steps = [(int(r["step"]), r["loss"]) for r in rows if r["event"] == "step" and r["loss"]]
def by_epoch(field):
    seen = {}
    for r in rows:
        if r["event"] == "epoch" and r[field]:
            seen[int(r["epoch"])] = r[field]
    return " ".join(f"{e}:{g(v)}" for e, v in sorted(seen.items())) or "-"
first = f"{len(steps)} {steps[0][0]}:{g(steps[0][1])} {steps[-1][0]}:{g(steps[-1][1])}" if steps else "-"
print("\t".join([first] + [by_epoch(f) for f in ("loss", "val_loss", "val_accuracy", "seconds")]))'
}

case_corpus() { # every log of tests/data/logs/ printed by a job with every option but --time defaulted
    local logs=$TORCHDECK_SOURCE_DIR/tests/data/logs file expected run runs=() files=() i
    while IFS=$'\t' read -r file expected; do
        [[ "$file" == \#* || -z "$file" ]] && continue
        run=$(td submit torchdeck-sandbox --time 00:05:00 --command "cat '$logs/$file'" --json 2>"$home/submit.err" |
              json_field run) || fail "a five-minute job with the defaults was refused: $(cat "$home/submit.err")"
        runs+=("$run") files+=("$file")
    done <"$logs/expected.tsv"
    for i in "${!runs[@]}"; do
        wait_final "${runs[$i]}" >/dev/null
        expected=$(grep -P "^\Q${files[$i]}\E\t" "$logs/expected.tsv" | cut -f2-)
        expect_eq "$(plotted_summary "${runs[$i]}")" "$expected" "what ${files[$i]} plots"
    done
    echo "${#runs[@]} logs plotted as expected"
}

case_two_line() { # the common two-line summary, read with two patterns of the user's, one a context pattern
    local run
    run=$(td submit torchdeck-sandbox --name two-line --launch local --time 00:05:00 \
          --log-pattern '^== epoch (?<epoch>\d+) done in (?<seconds>[0-9.]+) s' \
          --log-pattern '^train (?<loss>[0-9.]+) / val (?<val_loss>[0-9.]+)$' \
          --command 'printf "== epoch 1 done in 12.5 s\ntrain 0.9 / val 0.8\n== epoch 2 done in 11.5 s\ntrain 0.7 / val 0.6\n"' \
          --json 2>"$home/submit.err" | json_field run) || fail "submit: $(cat "$home/submit.err")"
    grep -qF 'pattern "^== epoch (?<epoch>\d+) done in (?<seconds>[0-9.]+) s" is a context pattern' "$home/submit.err" ||
        fail "submit did not say which pattern is a context pattern: $(cat "$home/submit.err")"
    wait_final "$run" >/dev/null
    expect_eq "$(plotted_summary "$run")" "$(printf -- '-\t1:0.9 2:0.7\t1:0.8 2:0.6\t-\t1:12.5 2:11.5')" \
        "the epochs, losses and times of the two-line summary"
    expect_eq "$(td metrics "$run" --json | /usr/bin/python3 -c 'import json, sys
rows = [r for r in json.load(sys.stdin) if r["event"] == "epoch"]
print(" ".join("%s:%s/%s/%s" % (r["epoch"], r["loss"], r["val_loss"], r["seconds"]) for r in rows))')" \
        "1:0.9/0.8/12.5 2:0.7/0.6/11.5" "metrics --json: one row per epoch, its seconds once"
    grep -q "line 1: pattern .*: context" <<<"$(td logs "$run" --explain)" || fail "explain: $(td logs "$run" --explain)"
}

case_restart() { # stopped by the warning signal at its wall time, restarted from outside, resumed
    local run out rows job project="$home/resumable"
    mkdir -p "$project" && cp "$scripts/resumable.py" "$project/"
    # 50 epochs of 1 s. Its end 61 s after it starts: Slurm's warning (lead 60 s) comes within 30 s, well before the
    # epochs end; the restart's 2 minutes hold the rest.
    out=$(td submit torchdeck-sandbox --name resumable --launch local --time 00:02:00 --signal-lead 60 \
          --code "$project" --command "/usr/bin/python3 resumable.py 50 1" --json)
    run=$(json_field run <<<"$out")
    job=$(json_field job <<<"$out")
    end_job_in "$job" 61
    # The restart runs the code the run was submitted with, not what the folder holds by then.
    echo 'raise SystemExit("not the submitted code")' >"$project/resumable.py"
    timeout 280 setsid -w "$TORCHDECK_BIN" watch "$run" --interval 0.5 </dev/null >"$home/watch.txt" 2>&1 ||
        fail "watch: $(tail -n 20 "$home/watch.txt")"
    out=$(td status "$run" --json)
    expect_eq "$(json_field state <<<"$out")" completed "the run's state"
    expect_eq "$(json_field jobs.0.exit_code <<<"$out")" 75 "the first job's exit code"
    grep -q "restarted as job " "$home/watch.txt" || fail "no restart in watch: $(tail -n 20 "$home/watch.txt")"
    grep -q '^checkpointed at epoch [0-9]* on SIGUSR1, exit code 75$' <<<"$(td logs "$run" --attempt 0)" ||
        fail "the first job did not stop for the signal: $(td logs "$run" --attempt 0)"
    grep -q '^resumed at epoch [0-9]*$' <<<"$(td logs "$run" --attempt 1)" ||
        fail "the second job did not resume (TORCHDECK_RESUME): $(td logs "$run" --attempt 1)"
    rows=$(epoch_rows "$run" | cut -d' ' -f1 | tr '\n' ' ')
    expect_eq "$rows" "$(seq 1 50 | tr '\n' ' ')" "the visible epochs across both jobs"
    expect_eq "$(json_field epochs_done <<<"$out")" 50 "epochs done"
}

"case_$1"
remove_home
