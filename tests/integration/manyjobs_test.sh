#!/usr/bin/env bash
# 100 jobs writing lines at once on a sandbox of their own (scripts/sandbox start --cpus), watched by the window
# and a `watch` together through the agent: the scheduler is asked at most once per min_poll_seconds, and every
# line of every job arrives once (the store, the window's chart and the watch agree).
# Needs TORCHDECK_SOURCE_DIR, TORCHDECK_BIN and TORCHDECK_GUI_FRONT (the window's test binary; set by ctest).
set -euo pipefail
jobs=100
steps=20
min_poll=5
dir=$(mktemp -d /tmp/torchdeck-many.XXXXXX)
sandbox_script="$TORCHDECK_SOURCE_DIR/scripts/sandbox"
"$sandbox_script" --dir "$dir" --no-ssh-config --cpus $((jobs + 4)) start >/dev/null
export TORCHDECK_SANDBOX_DIR=$dir TORCHDECK_SSH_CONFIG=$dir/ssh/config
# shellcheck source=term_helpers.sh
source "$(dirname "${BASH_SOURCE[0]}")/term_helpers.sh"
# The fronts first: a watch left running would start a new agent when this one stops, on runs that never end.
fronts=()
trap 'kill "${fronts[@]}" 2>/dev/null || true; wait; stop_agent; "$sandbox_script" --dir "$dir" stop >/dev/null; rm -rf "$dir"' EXIT
td profile torchdeck-sandbox --min-poll "$min_poll" --work-dir "$home/work" >/dev/null

# Each job waits for the go, then writes a metrics line and a log line a second, $steps of each.
go=$dir/go
# shellcheck disable=SC2016 # expanded by the job
writer='until [ -e '"$go"' ]; do sleep 1; done; i=0
while [ $i -lt '"$steps"' ]; do i=$((i+1)); echo "{\"schema\":1,\"event\":\"step\",\"step\":$i,\"loss\":0.5}" >>"$TORCHDECK_METRICS_FILE"; echo "step $i"; sleep 1; done'
seq "$jobs" | xargs -P 4 -I{} setsid -w "$TORCHDECK_BIN" submit torchdeck-sandbox --launch local --time 00:10:00 \
    --name "writer{}" --command "$writer" --json >"$home/submitted.json" 2>"$home/submit.err" ||
    fail "a submission failed: $(tail -n 5 "$home/submit.err")"
mapfile -t runs < <(td runs --json | python3 -c 'import json,sys; [print(r["run"]) for r in json.load(sys.stdin)]')
expect_eq "${#runs[@]}" "$jobs" "runs submitted"
for _ in $(seq 120); do (( $(squeue -h -t R | wc -l) >= jobs )) && break; sleep 1; done
expect_eq "$(squeue -h -t R | wc -l)" "$jobs" "jobs running at once"

queries() { td agent status --json | json_field clusters.0.load.scheduler_queries; }
queries_before=$(queries)
started=$(date +%s)
TORCHDECK_FRONT_RUN=${runs[0]} TORCHDECK_FRONT_STEPS=$steps QT_QPA_PLATFORM=offscreen timeout 280 \
    "$TORCHDECK_GUI_FRONT" showsOneOfManyRuns >"$home/window.txt" 2>&1 &
window=$!
fronts+=("$window")
timeout 280 "$TORCHDECK_BIN" watch --interval 1 </dev/null >"$home/watch.txt" 2>&1 & # timeout passes a kill on
watch=$!
fronts+=("$watch")
touch "$go"
wait "$window" || fail "the window: $(tail -n 20 "$home/window.txt")"
grep -q 'PASS   : TestGuiSession::showsOneOfManyRuns' "$home/window.txt" || fail "the window: $(cat "$home/window.txt")"
wait "$watch" || fail "watch: $(tail -n 20 "$home/watch.txt")"
queries_after=$(queries)
elapsed=$(( $(date +%s) - started ))

# The scheduler: at most one query per min_poll_seconds (and the one the window's attach may bring forward).
asked=$(( queries_after - queries_before ))
allowed=$(( elapsed / min_poll + 1 ))
(( asked <= allowed )) || fail "$asked scheduler queries in $elapsed s; at most $allowed at one per $min_poll s"
echo "$asked scheduler queries in $elapsed s for $jobs running jobs"
# Every run completed, with every step once, in order; the watch saw each run end.
for run in "${runs[@]}"; do
    expect_eq "$(td metrics "$run" --csv | awk -F, '$2 == "step" { print $5 }' | tr '\n' ' ')" "$(seq -s ' ' "$steps") " \
        "the steps of run $run"
    grep -qE "run ${run:0:8} COMPLETED" "$home/watch.txt" || fail "watch did not see run $run end: $(tail "$home/watch.txt")"
done
remove_home
