#!/usr/bin/env bash
# Issue 28's notifications against a real notification server: dunst on a private D-Bus session and an Xvfb
# display of the test's own (both stopped by PID), the agent started by the case's first command on that bus.
# A run that completes while `watch` runs, and one killed at its wall time with no front open: each tells the
# desktop once, the profile's notify_command once (its JSON), and `watch` shows the first with the bell.
# Usage: notify_test.sh CASE (exit 77: no dbus-run-session, Xvfb or dunst; scripts/install-deps installs them)
set -euo pipefail
for tool in dbus-run-session Xvfb dunst dunstctl; do
    command -v "$tool" >/dev/null || { echo "notify_test: $tool is missing (scripts/install-deps)"; exit 77; }
done
if [[ -z ${TORCHDECK_NOTIFY_BUS:-} ]]; then # a bus of the test's own, ended with it
    export TORCHDECK_NOTIFY_BUS=1
    exec dbus-run-session -- bash "$0" "$@"
fi
# shellcheck source=term_helpers.sh
source "$(dirname "${BASH_SOURCE[0]}")/term_helpers.sh"

start_notification_server() {
    local display
    for display in $(seq 90 140); do [[ -e /tmp/.X11-unix/X$display ]] || break; done
    Xvfb ":$display" -nolisten tcp >"$home/xvfb.log" 2>&1 &
    xvfb=$!
    for _ in $(seq 100); do [[ -e /tmp/.X11-unix/X$display ]] && break; sleep 0.1; done
    export DISPLAY=":$display"
    printf '[global]\n    history_length = 100\n' >"$home/dunstrc"
    dunst -config "$home/dunstrc" >"$home/dunst.log" 2>&1 &
    dunst=$!
    for _ in $(seq 100); do
        dbus-send --session --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.NameHasOwner \
            string:org.freedesktop.Notifications 2>/dev/null | grep -q "boolean true" && return 0
        sleep 0.1
    done
    fail "dunst did not start: $(cat "$home/dunst.log")"
}
stop_all() {
    stop_agent
    kill "${dunst:-}" "${xvfb:-}" 2>/dev/null || true
    wait 2>/dev/null || true
}
trap stop_all EXIT

notifications() { # the summaries and bodies dunst was given, one "SUMMARY|BODY" a line
    dunstctl close-all
    dunstctl history | /usr/bin/python3 -c 'import json, sys
for n in json.load(sys.stdin)["data"][0]:
    print(n["summary"]["data"] + "|" + n["body"]["data"] + "|" + n["appname"]["data"])'
}

wait_state() { # RUN STATE SECONDS: from the store only (no front attached)
    local deadline=$(( SECONDS + $3 )) state
    while :; do
        state=$(td status "$1" --offline --json | json_field state)
        [[ "$state" == "$2" ]] && return 0
        (( SECONDS < deadline )) || fail "run $1 is $state, not $2"
        sleep 1
    done
}

case_desktop() {
    start_notification_server
    use_prebuilt_trainer
    td profile torchdeck-sandbox --notify-command "cat >>'$home/notices.jsonl'" >/dev/null
    local base=(--tasks-per-node 1 --model ae --data fashion-mnist --batch-size 64 --threads 1 --log-every 100 --seed 5)
    local run out job
    # Completed, with watch running: one notification, one notify_command line, watch shows it and rings.
    run=$(td submit torchdeck-sandbox "${base[@]}" --epochs 1 --limit 2000 --time 00:10:00 --name tells --json |
          json_field run)
    timeout 180 setsid -w "$TORCHDECK_BIN" watch "$run" --interval 0.5 </dev/null >"$home/watch.txt" 2>&1 ||
        fail "watch: $(cat "$home/watch.txt")"
    wait_state "$run" completed 60
    for _ in $(seq 100); do [[ -s "$home/notices.jsonl" ]] && break; sleep 0.1; done
    grep -q "run tells completed: job [0-9]* on torchdeck-sandbox: 1 of 1 epochs" "$home/watch.txt" ||
        fail "watch did not show it: $(cat "$home/watch.txt")"
    grep -q $'\a' "$home/watch.txt" || fail "watch did not ring the bell"
    out=$(notifications)
    expect_eq "$(grep -c '^run tells completed|' <<<"$out")" 1 "desktop notifications of the completed run"
    grep -q '^run tells completed|job [0-9]* on torchdeck-sandbox: 1 of 1 epochs|torchdeck$' <<<"$out" || fail "$out"
    expect_eq "$(wc -l <"$home/notices.jsonl")" 1 "notify_command's lines"
    expect_eq "$(json_field event <"$home/notices.jsonl")" completed "notify_command's event"
    expect_eq "$(json_field run <"$home/notices.jsonl")" "$run" "notify_command's run"

    # Killed at its wall time with no front open and no restart left: the agent alone tells why.
    out=$(td submit torchdeck-sandbox "${base[@]}" --epochs 500 --time 00:01:00 --no-checkpoint-signal \
          --max-restarts 0 --name overtime --json)
    run=$(json_field run <<<"$out")
    job=$(json_field job <<<"$out")
    end_job_in "$job" 2 # Slurm's own TIMEOUT, without waiting out the minute
    wait_state "$run" timeout 240
    for _ in $(seq 100); do (( $(wc -l <"$home/notices.jsonl") >= 2 )) && break; sleep 0.1; done
    out=$(notifications)
    expect_eq "$(grep -c '^run overtime failed|' <<<"$out")" 1 "desktop notifications of the run out of time"
    grep -q '^run overtime failed|job [0-9]* on torchdeck-sandbox: wall time' <<<"$out" || fail "$out"
    expect_eq "$(sed -n 2p "$home/notices.jsonl" | json_field event)" failed "notify_command's second event"
    grep -q "notify.*failed ${run:0:8} job [0-9]* on torchdeck-sandbox: wall time" "$TORCHDECK_DATA_DIR/agent.log" ||
        fail "agent.log: $(cat "$TORCHDECK_DATA_DIR/agent.log")"
    remove_home
}

"case_$1"
