#!/usr/bin/env bash
# Issue 43: one run across clusters, with a second sandbox cluster (torchdeck-b) beside the suite's. Usage:
# clusters_test.sh CASE. Needs what term_test.sh needs.
set -euo pipefail
# shellcheck source=term_helpers.sh
source "$(dirname "${BASH_SOURCE[0]}")/term_helpers.sh"
job=(--tasks-per-node 2 --time 00:10:00 --model ae --data fashion-mnist --limit 4096 --batch-size 64 --threads 1
     --log-every 16)

# A second cluster, torchdeck-b, in the case's home: its own sshd, munge and Slurm, in a copy of the ssh config (the
# suite's stays as it was), a profile with its own work directory. The agent is started again to read that config.
start_second_cluster() {
    cp "$TORCHDECK_SSH_CONFIG" "$home/ssh-config"
    export TORCHDECK_SSH_CONFIG=$home/ssh-config
    trap 'stop_agent; "$sandbox" --dir "$home/b" stop >/dev/null 2>&1 || true' EXIT
    "$sandbox" --dir "$home/b" --name torchdeck-b start >/dev/null
    stop_agent
    td profile torchdeck-b --min-poll 1 --slurm-history completion-file --work-dir "$home/work-b" \
        --trainer-binary "$TORCHDECK_TRAIN_BINARY" >/dev/null
}

case_soonest() { # submit A,B while A's node is held: the run goes to B and says why; script shows both; a skip
    use_prebuilt_trainer
    start_second_cluster
    local out run blocker
    # A long job holds the suite's cluster (A): a new job there would start in about an hour.
    printf '#!/bin/bash\nsleep 3600\n' >"$home/blocker.sh"
    blocker=$(sbatch --parsable --exclusive -N 1 --time 60 -J blocker -o /dev/null "$home/blocker.sh")
    for _ in $(seq 100); do [[ "$(squeue -h -j "$blocker" -o %T)" == RUNNING ]] && break; sleep 0.2; done
    expect_eq "$(squeue -h -j "$blocker" -o %T)" RUNNING "the blocking job"

    out=$(td script torchdeck-sandbox,torchdeck-b "${job[@]}" --epochs 1 --name soonest)
    expect_eq "$(grep -c '^# ==> ' <<<"$out")" 2 "one script per candidate"
    grep -q "^# ==> torchdeck-b <==" <<<"$out" || fail "no script for torchdeck-b: $out"
    grep -q "$home/work-b/runs/" <<<"$out" || fail "torchdeck-b's script does not use its work directory: $out"
    grep -q "$home/work/runs/" <<<"$out" || fail "torchdeck-sandbox's script does not use its work directory: $out"
    # A custom command's variant for one cluster (--command-on) is that cluster's; the others run --command.
    out=$(td script torchdeck-sandbox,torchdeck-b --launch local --command 'echo everywhere' \
          --command-on 'torchdeck-b=echo only-on-b' --name variants)
    expect_eq "$(awk '/^# ==> torchdeck-sandbox/{on=1} /^# ==> torchdeck-b/{on=0} on' <<<"$out" |
                 grep -c 'echo only-on-b\|echo everywhere')" 1 "commands in torchdeck-sandbox's script"
    awk '/^# ==> torchdeck-sandbox/{on=1} /^# ==> torchdeck-b/{on=0} on' <<<"$out" | grep -q 'echo everywhere' ||
        fail "torchdeck-sandbox does not run --command: $out"
    awk '/^# ==> torchdeck-b/{on=1} on' <<<"$out" | grep -q 'echo only-on-b' || fail "torchdeck-b's variant: $out"
    awk '/^# ==> torchdeck-b/{on=1} on' <<<"$out" | grep -q 'echo everywhere' && fail "torchdeck-b runs --command: $out"

    out=$(td submit torchdeck-sandbox,torchdeck-b "${job[@]}" --epochs 1 --name soonest --json 2>"$home/said")
    run=$(json_field run <<<"$out")
    expect_eq "$(json_field cluster <<<"$out")" torchdeck-b "where the run went"
    expect_eq "$(json_field placement.chosen <<<"$out")" torchdeck-b "the placement kept"
    grep -qE '^  torchdeck-sandbox +20[0-9-]+ [0-9:]+ \(in (1h00m|[0-9]+m[0-9]+s)\)$' "$home/said" ||
        fail "A's estimate: $(cat "$home/said")"
    grep -qE '^  torchdeck-b +now +\(chosen\)$' "$home/said" || fail "B's estimate: $(cat "$home/said")"
    out=$(td status "$run")
    grep -qE '^name +soonest on torchdeck-b$' <<<"$out" || fail "status: $out"
    grep -qE '^placed +chose torchdeck-b, where it would start soonest: torchdeck-sandbox in (1h00m|[0-9]+m[0-9]+s), torchdeck-b now$' \
        <<<"$out" || fail "status does not say why: $out"
    expect_eq "$(wait_final "$run" 240)" completed "the run on torchdeck-b"
    compgen -G "$home/work-b/runs/$run/checkpoints/checkpoint-*.pt" >/dev/null || fail "no checkpoint on torchdeck-b"
    expect_eq "$(squeue -h -o %j | grep -c "^soonest-")" 0 "jobs of the run on torchdeck-sandbox"

    # A cluster that cannot run the job is skipped with its reason: torchdeck-b has no GPUs, A has 2 a node.
    out=$(td submit torchdeck-b,torchdeck-sandbox "${job[@]}" --epochs 1 --gpus-per-task 1 --name gpus --json \
          2>"$home/said")
    run=$(json_field run <<<"$out")
    expect_eq "$(json_field cluster <<<"$out")" torchdeck-sandbox "where the GPU run went"
    grep -qiE '^  torchdeck-b +skipped: .*(gpu|gres)' "$home/said" || fail "B's skip: $(cat "$home/said")"
    td cancel "$run" >/dev/null
    scancel "$blocker"
    # None can: both skipped, nothing submitted.
    local rc=0
    out=$(td submit torchdeck-b,torchdeck-sandbox "${job[@]}" --epochs 1 --partition nosuch --name none 2>&1) || rc=$?
    expect_eq "$rc" 1 "no candidate can run it"
    grep -q "none of torchdeck-b,torchdeck-sandbox can run the job" <<<"$out" || fail "$out"
    "$sandbox" --dir "$home/b" stop >/dev/null
    remove_home
}

# A run of --code (NAME, a script that prints TEXT) that ended on torchdeck-sandbox, its folder changed since; its id.
coded_run() {
    local run
    mkdir -p "$home/$1"
    echo "$2" >"$home/$1/hello.txt"
    printf '#!/bin/sh\ncat hello.txt\n' >"$home/$1/show.sh"
    chmod +x "$home/$1/show.sh"
    run=$(td submit torchdeck-sandbox --launch local --command ./show.sh --code "$home/$1" --name "$1" --json |
          json_field run)
    expect_eq "$(wait_final "$run" 120)" completed "the run of --code on torchdeck-sandbox" >&2
    echo "changed since" >"$home/$1/hello.txt"
    echo "$run"
}

case_resume_on() { # a run ended on A goes on on B from A's checkpoint (one run, one curve, each attempt labelled); --code
    use_prebuilt_trainer
    start_second_cluster
    local out run on_a copied straight
    run=$(td submit torchdeck-sandbox "${job[@]}" --epochs 1 --name mover --json | json_field run)
    straight=$(td submit torchdeck-sandbox "${job[@]}" --epochs 1 --name straight --json | json_field run)
    expect_eq "$(wait_final "$run" 240)" completed "the first attempt on torchdeck-sandbox"
    on_a=$(final_checkpoint "$run")
    # B's login node cannot reach A the way its profile says: the copy goes through this machine instead.
    td profile torchdeck-b --reach "torchdeck-sandbox=-p 1 127.0.0.1" >/dev/null
    # What a copy broken off by a dropped connection left there goes with the next copy.
    copied="$home/work-b/runs/$run/checkpoints/${on_a##*/}"
    mkdir -p "${copied%/*}" && echo torn >"$copied.part-0badc0de"
    out=$(td resume mover --on torchdeck-b --epochs 2 --json 2>"$home/said")
    [[ ! -e "$copied.part-0badc0de" ]] || fail "the part of a broken copy is left"
    expect_eq "$(json_field cluster <<<"$out")" torchdeck-b "where the run went on"
    expect_eq "$(json_field attempt <<<"$out")" 1 "the attempt"
    grep -q "The straight copy from torchdeck-sandbox failed" "$home/said" || fail "no fallback: $(cat "$home/said")"
    grep -q "checkpoint-0000000032.pt to torchdeck-b 100%" "$home/said" || fail "no copy progress: $(cat "$home/said")"
    expect_eq "$(wait_final "$run" 240)" completed "the run on torchdeck-b"
    expect_eq "$(sha256sum <"$copied")" "$(sha256sum <"$on_a")" "the checkpoint on torchdeck-b (byte for byte)"
    [[ -s "$copied.json" ]] || fail "its sidecar was not copied"
    out=$(td logs mover --attempt 1)
    grep -q "resumed from $copied (epoch 1, step 32)" <<<"$out" || fail "attempt 1 did not resume from the copy: $out"
    grep -q "epoch: 1/1" <<<"$(td logs mover --attempt 0)" || fail "attempt 0's log (on torchdeck-sandbox) unread"
    out=$(td status mover)
    grep -qE '^name +mover on torchdeck-b$' <<<"$out" || fail "status: $out"
    grep -qE '^  attempt 0  job [0-9]+ on torchdeck-sandbox  completed' <<<"$out" || fail "attempt 0's cluster: $out"
    grep -qE '^  attempt 1  job [0-9]+ on torchdeck-b  completed .* from '"$copied"'$' <<<"$out" ||
        fail "attempt 1's cluster: $out"
    out=$(td metrics mover)
    grep -qE '^EPOCH .* ATTEMPT  CLUSTER$' <<<"$out" || fail "metrics header: $out"
    grep -qE '^ +1 .* 0  torchdeck-sandbox$' <<<"$out" || fail "epoch 1 on torchdeck-sandbox: $out"
    grep -qE '^ +2 .* 1  torchdeck-b$' <<<"$out" || fail "epoch 2 on torchdeck-b: $out"
    # One curve: epoch 2 goes on from epoch 1's model (its loss lower), step numbers go on.
    /usr/bin/python3 - "$(td metrics mover --json)" <<'PY' || fail "the curve does not go on"
import json, sys
rows = json.loads(sys.argv[1])
epochs = [r for r in rows if r["event"] == "epoch"]
steps = [r["step"] for r in rows if r["event"] == "step" and r["cluster"] == "torchdeck-b"]
assert [r["cluster"] for r in epochs] == ["torchdeck-sandbox", "torchdeck-b"], epochs
assert epochs[1]["loss"] < epochs[0]["loss"], epochs
assert steps and min(steps) > 32, steps
PY
    expect_eq "$(squeue -h -o %j | grep -c "^mover-")" 0 "jobs of the run left on torchdeck-sandbox"
    # Its checkpoints lie on both clusters: each checked where it lies (not "gone" for not being on B), each
    # cluster with its latest, which a deletion refuses on either.
    out=$(td checkpoints mover --json)
    /usr/bin/python3 - "$out" <<'PY' || fail "the checkpoints of the moved run: $out"
import json, sys
rows = json.loads(sys.argv[1])
for cluster in ("torchdeck-sandbox", "torchdeck-b"):
    here = [r for r in rows if r["cluster"] == cluster]
    assert here and all(r["present"] is True for r in here), (cluster, rows)
    assert sum(r["latest"] for r in here) == 1, (cluster, rows)
PY
    out=$(td checkpoints mover)
    grep -qE "${on_a##*/}  \(latest.*, on torchdeck-sandbox\)$" <<<"$out" || fail "A's checkpoint unmarked: $out"
    grep -q 'gone:' <<<"$out" && fail "a checkpoint listed as gone: $out"
    td checkpoints mover --delete "${on_a##*/}" 2>"$home/said" && fail "A's latest checkpoint was deleted"
    grep -q "the one a resume starts from" "$home/said" || fail "deleting A's latest: $(cat "$home/said")"
    [[ -f "$on_a" ]] || fail "A's latest checkpoint is gone"
    # Named by its file, A's checkpoint is pulled from A (torchdeck-b's session knows only its own); the latest is B's,
    # from the run's directory there.
    out=$(td pull mover --checkpoint "${on_a##*/}" --to "$home/pulled" --json) || fail "pulling A's checkpoint"
    expect_eq "$(sha256sum <"$(json_field 0.local <<<"$out")")" "$(sha256sum <"$on_a")" "A's checkpoint pulled"
    out=$(td pull mover --checkpoint latest --to "$home/pulled-latest" --json) || fail "pulling the latest"
    expect_eq "$(sha256sum <"$(json_field 0.local <<<"$out")")" \
        "$(sha256sum <"$(ls "$home/work-b/runs/$run/checkpoints"/checkpoint-*.pt | sort | tail -n1)")" "B's latest pulled"
    # Its directory on A, where it ran first: listed and pulled from with --on.
    local dir_a dir_b
    dir_a=$(realpath "${on_a%/checkpoints/*}")
    dir_b=$(realpath "$home/work-b/runs/$run")
    out=$(td files mover --on torchdeck-sandbox --json) || fail "files --on torchdeck-sandbox"
    expect_eq "$(json_field directory <<<"$out")" "$dir_a" "the run's directory on torchdeck-sandbox"
    grep -q "\"checkpoints/${on_a##*/}\"" <<<"$out" || fail "A's checkpoint not listed: $out"
    out=$(td pull mover "checkpoints/${on_a##*/}.json" --on torchdeck-sandbox --to "$home/pulled-a" --json) ||
        fail "pull --on torchdeck-sandbox"
    expect_eq "$(sha256sum <"$(json_field 0.local <<<"$out")")" "$(sha256sum <"$on_a.json")" "A's sidecar pulled"
    td files mover --on nowhere >/dev/null 2>"$home/said" && fail "files --on a cluster it never ran on"
    grep -q "never ran on nowhere (it ran on torchdeck-b, torchdeck-sandbox)" "$home/said" ||
        fail "files --on nowhere: $(cat "$home/said")"
    # Deleted with --remote, its directories go on both clusters, A's first; one that is refused keeps the run (and
    # B's directory) for another try.
    out=$(td delete mover --remote --dry-run --json) || fail "the dry run of the deletion"
    /usr/bin/python3 - "$out" "$dir_a" "$dir_b" <<'PY' || fail "what the deletion would remove: $out"
import json, sys
[d] = json.loads(sys.argv[1])
assert (d["cluster"], d["directory"], d["removed_record"]) == ("torchdeck-b", sys.argv[3], False), d
assert d["bytes"] > 0, d
[e] = d["elsewhere"]
assert (e["cluster"], e["directory"], e["removed_directory"]) == ("torchdeck-sandbox", sys.argv[2], False), e
assert e["bytes"] > 0 and not e["problem"], e
PY
    mv "$dir_a" "$dir_a.real" && ln -s "$dir_a.real" "$dir_a" # no longer a run's directory: refused
    out=$(td delete mover --remote 2>"$home/said") && fail "deleted though A's directory could not go: $out"
    rm "$dir_a" && mv "$dir_a.real" "$dir_a"
    grep -q "not removed on torchdeck-sandbox: $dir_a" "$home/said" || fail "the refusal: $(cat "$home/said")"
    [[ -d "$dir_b" ]] && td status mover --offline >/dev/null || fail "the run or B's directory went with A's refusal"
    out=$(td delete mover --remote) || fail "the deletion on both clusters"
    grep -qE "^deleted run ${run:0:8} \(mover\): its record and $dir_b on torchdeck-b \([0-9.]+ [KM]iB\) and $dir_a on torchdeck-sandbox \((already gone|[0-9.]+ [KM]iB)\)$" \
        <<<"$out" || fail "the deletion said: $out"
    [[ ! -e "$dir_a" && ! -e "$dir_b" ]] || fail "a directory of the deleted run is left: $(ls -d "$dir_a" "$dir_b" 2>&1)"

    # Where B's login node reaches A (its own ssh and keys), the checkpoint goes straight from A to B.
    td profile torchdeck-b --reach "torchdeck-sandbox=-F $TORCHDECK_SSH_CONFIG torchdeck-sandbox" >/dev/null
    expect_eq "$(wait_final "$straight" 240)" completed "the run to copy straight"
    on_a=$(final_checkpoint "$straight")
    td resume straight --on torchdeck-b --epochs 2 >/dev/null 2>"$home/said" || fail "resume: $(cat "$home/said")"
    grep -q "Copied checkpoints/${on_a##*/} straight from torchdeck-sandbox to torchdeck-b" "$home/said" ||
        fail "no straight copy: $(cat "$home/said")"
    grep -q "to torchdeck-b 100%" "$home/said" && fail "it went through this machine: $(cat "$home/said")"
    expect_eq "$(wait_final "$straight" 240)" completed "the run copied straight"
    copied="$home/work-b/runs/$straight/checkpoints/${on_a##*/}"
    expect_eq "$(sha256sum <"$copied")" "$(sha256sum <"$on_a")" "the checkpoint copied straight (byte for byte)"
    [[ -s "$copied.json" ]] || fail "its sidecar was not copied straight"
    grep -q "resumed from $copied (epoch 1, step 32)" <<<"$(td logs straight --attempt 1)" ||
        fail "attempt 1 did not resume from the straight copy: $(td logs straight --attempt 1)"

    # A run of --code takes its snapshot along: the code it ran, not what the folder holds now. Through this machine
    # where B cannot reach A, else straight from A (only the objects B lacks).
    td profile torchdeck-b --reach "torchdeck-sandbox=-p 1 127.0.0.1" >/dev/null
    run=$(coded_run coded "from the snapshot")
    td resume coded --on torchdeck-b --from none >/dev/null 2>"$home/said" || fail "resume --on: $(cat "$home/said")"
    grep -q "The straight copy of the code from torchdeck-sandbox failed" "$home/said" ||
        fail "no fallback for the code: $(cat "$home/said")"
    grep -q "Copying the code to torchdeck-b" "$home/said" || fail "no copy of the code: $(cat "$home/said")"
    expect_eq "$(wait_final "$run" 120)" completed "the run of --code on torchdeck-b"
    grep -q "^from the snapshot$" <<<"$(td logs coded --attempt 1)" || fail "the code on B: $(td logs coded --attempt 1)"
    expect_eq "$(find "$home/work-b/code/objects" -type f | wc -l)" 2 "objects on torchdeck-b"
    expect_eq "$(find "$home/work-b/code/objects" -type f -name '*x' -perm 555 | wc -l)" 1 "the executable's object"
    td profile torchdeck-b --reach "torchdeck-sandbox=-F $TORCHDECK_SSH_CONFIG torchdeck-sandbox" >/dev/null
    run=$(coded_run straight-code "straight from the snapshot")
    td resume straight-code --on torchdeck-b --from none >/dev/null 2>"$home/said" ||
        fail "resume --on: $(cat "$home/said")"
    grep -q "Copied 1 object(s) of the code straight from torchdeck-sandbox to torchdeck-b" "$home/said" ||
        fail "no straight copy of the code: $(cat "$home/said")"
    expect_eq "$(wait_final "$run" 120)" completed "the run of --code copied straight"
    grep -q "^straight from the snapshot$" <<<"$(td logs straight-code --attempt 1)" ||
        fail "the code copied straight: $(td logs straight-code --attempt 1)"
    expect_eq "$(find "$home/work-b/code/objects" -type f -perm 444 | wc -l)" 2 "read-only objects on torchdeck-b"

    # A run continued from B on A, with B down: a dry run says B was not asked; a deletion fails and keeps it all.
    local back
    back=$(td submit torchdeck-b "${job[@]}" --epochs 1 --name back --json | json_field run)
    expect_eq "$(wait_final "$back" 240)" completed "the run on torchdeck-b"
    td resume back --on torchdeck-sandbox --from none >/dev/null 2>"$home/said" || fail "resume: $(cat "$home/said")"
    expect_eq "$(wait_final "$back" 240)" completed "the run continued on torchdeck-sandbox"
    "$sandbox" --dir "$home/b" stop >/dev/null
    stop_agent # a new one finds B down at once (the one connected would try to reconnect for a minute)
    out=$(td delete back --remote --dry-run --json) || fail "the dry run with torchdeck-b down"
    /usr/bin/python3 - "$out" <<'PY' || fail "the dry run with torchdeck-b down: $out"
import json, sys
[d] = json.loads(sys.argv[1])
assert d["cluster"] == "torchdeck-sandbox" and d["bytes"] > 0, d
[e] = d["elsewhere"]
assert e["cluster"] == "torchdeck-b" and e["bytes"] == -1 and e["problem"], e
PY
    td delete back --remote >/dev/null 2>"$home/said" && fail "deleted with torchdeck-b down"
    grep -q "torchdeck-b" "$home/said" || fail "the failure does not name torchdeck-b: $(cat "$home/said")"
    [[ -d "$home/work/runs/$back" && -d "$home/work-b/runs/$back" ]] && td status back --offline >/dev/null ||
        fail "the run or a directory of it went with torchdeck-b down"
    remove_home
}

# A run of two epochs whose first job stops at step 40 (its checkpoint signal), with A's nodes taken the moment it ends
# (a blocker waiting on it), so that its restart waits on A: it moves to B after `--move-after`. $1: its name, $2:
# the move's wait. Its run id is left in `run`.
run_to_move() {
    local out first nodes
    out=$(td submit torchdeck-sandbox,torchdeck-b "${job[@]}" --epochs 2 --name "$1" --move-after "$2" \
          --trainer-arg --signal-at-step --trainer-arg 40 --json 2>"$home/said")
    run=$(json_field run <<<"$out")
    first=$(json_field job <<<"$out")
    expect_eq "$(json_field cluster <<<"$out")" torchdeck-sandbox "where it started (a tie: the first named)"
    nodes=$(sinfo -h -p debug -o %D)
    [[ -e "$home/blocker.sh" ]] || printf '#!/bin/bash\nsleep 3600\n' >"$home/blocker.sh"
    blocker=$(sbatch --parsable --exclusive -N "$nodes" --time 60 -J blocker -o /dev/null \
              --dependency "afterany:$first" "$home/blocker.sh")
}

# The moved run's jobs: attempt 0 and the cancelled attempt 1 on A, attempt 2 on B from A's checkpoint, each once.
expect_moved() {
    /usr/bin/python3 - "$(td status "$1" --json)" <<'PY' || fail "the jobs: $(td status "$1")"
import json, re, sys
jobs = json.loads(sys.argv[1])["jobs"]
assert [j["cluster"] for j in jobs] == ["torchdeck-sandbox", "torchdeck-sandbox", "torchdeck-b"], jobs
assert [j["attempt"] for j in jobs] == [0, 1, 2], jobs
assert len({(j["cluster"], j["job"]) for j in jobs}) == 3, jobs  # one job per attempt
assert jobs[1]["state"] == "cancelled" and jobs[1]["why"] == "moved to torchdeck-b", jobs[1]
assert jobs[2]["state"] == "completed" and re.search(r"checkpoint-00000000(40|41)\.pt$", jobs[2]["resume_from"]), jobs[2]
PY
    expect_eq "$(squeue -h -o %j | grep -c "^$2-")" 0 "jobs of the run left on torchdeck-sandbox"
    compgen -G "$TORCHDECK_DATA_DIR/moving/$1/held-*" >/dev/null && fail "the note of the mover's hold was left" || true
}

case_move_after() { # --move-after 30s: A is full when the restart comes, so it moves to B by itself
    use_prebuilt_trainer
    start_second_cluster
    td profile torchdeck-sandbox --notify-command "cat >>'$home/notices.jsonl'" >/dev/null
    local run blocker waited
    run_to_move moving 30s
    grep -q "restarts: restarted from outside by the torchdeck agent, which may move a restart that waits" \
        "$home/said" || fail "the mechanism: $(cat "$home/said")"
    expect_eq "$(wait_final "$run" 300)" completed "the run"
    scancel "$blocker"
    expect_moved "$run" moving
    grep -q '"event":"moved"' "$home/notices.jsonl" || fail "no notice of the move: $(cat "$home/notices.jsonl")"
    waited=$(grep -oE '"body":"job [0-9]+ on torchdeck-sandbox: moved to torchdeck-b as job [0-9]+ after waiting ([0-9]+m)?[0-9]+s' \
             "$home/notices.jsonl" | grep -oE '([0-9]+m)?[0-9]+s$') || fail "the notice: $(cat "$home/notices.jsonl")"
    [[ "$waited" == *m* ]] || (( ${waited%s} >= 30 )) ||
        fail "moved after $waited, before its 30 s: $(cat "$home/notices.jsonl")"
    grep -qE "resumed from $home/work-b/runs/$run/checkpoints/checkpoint-00000000(40|41).pt" \
        <<<"$(td logs moving --attempt 2)" || fail "attempt 2 did not resume from the copy: $(td logs moving --attempt 2)"
    "$sandbox" --dir "$home/b" stop >/dev/null
    remove_home
}

# A run that moves after 15 s while the wrapper that reads KILLFILE kills its agent: NAME KILLFILE WHEN.
moved_though_killed() {
    local run blocker
    run_to_move "$1" 15s
    td agent status --json | json_field pid >"$2"
    expect_eq "$(wait_final "$run" 300)" completed "the run whose agent was killed after $3"
    [[ -e "$2" ]] && fail "the agent was never killed after $3"
    scancel "$blocker"
    expect_moved "$run" "$1"
}

# The agent killed right after it held the waiting job, then A freed: the agent started again finds A no later than B,
# so the run stays and its job is released where it waited (one job per attempt, none on B, the hold's note gone).
stayed_though_killed() {
    local run blocker
    run_to_move stays 15s
    td agent status --json | json_field pid >"$home/kill-after-hold"
    for _ in $(seq 900); do [[ -e "$home/kill-after-hold" ]] || break; sleep 0.2; done
    [[ -e "$home/kill-after-hold" ]] && fail "the agent was never killed after the hold"
    scancel "$blocker"
    expect_eq "$(wait_final "$run" 300)" completed "the run whose move was killed after the hold"
    /usr/bin/python3 - "$(td status stays --json)" <<'PY' || fail "the jobs: $(td status stays)"
import json, sys
jobs = json.loads(sys.argv[1])["jobs"]
assert [(j["cluster"], j["attempt"]) for j in jobs] == [("torchdeck-sandbox", 0), ("torchdeck-sandbox", 1)], jobs
assert jobs[1]["state"] == "completed", jobs[1]
PY
    compgen -G "$TORCHDECK_DATA_DIR/moving/$run/held-*" >/dev/null && fail "the note of the mover's hold was left" || true
}

case_move_killed() { # the agent killed right after it held the waiting job, after B's sbatch answered; after the hold
    # with A freed meanwhile (it stays, released)
    use_prebuilt_trainer
    start_second_cluster
    local a_bin="$TORCHDECK_SANDBOX_DIR/bin" b_bin="$home/b/bin"
    # shellcheck disable=SC2064 # expand now
    trap "rm -f '$a_bin/scontrol'; stop_agent; '$sandbox' --dir '$home/b' stop >/dev/null 2>&1 || true" EXIT
    # Each wrapper kills the agent whose PID its file names, once, after the real command ran (and before sbatch's
    # answer reaches the agent).
    { printf '#!/bin/bash\nkill=%q\n' "$home/kill-after-hold"; cat <<'WRAPPER'; } >"$a_bin/scontrol"
/usr/bin/scontrol "$@"
rc=$?
if [[ $1 == hold && -s $kill ]]; then kill -9 "$(cat "$kill")"; rm -f "$kill"; fi
exit $rc
WRAPPER
    { printf '#!/bin/bash\nkill=%q\n' "$home/kill-after-sbatch"; cat <<'WRAPPER'; } >"$b_bin/sbatch"
out=$(/usr/bin/sbatch "$@")
rc=$?
if [[ $* == */runs/*/job-*.sh && -s $kill ]]; then kill -9 "$(cat "$kill")"; rm -f "$kill"; fi
printf '%s\n' "$out"
exit $rc
WRAPPER
    chmod +x "$a_bin/scontrol" "$b_bin/sbatch"

    moved_though_killed held "$home/kill-after-hold" "the hold"
    moved_though_killed sent "$home/kill-after-sbatch" "B's sbatch"
    stayed_though_killed
    "$sandbox" --dir "$home/b" stop >/dev/null
    remove_home
}

"case_$1"
