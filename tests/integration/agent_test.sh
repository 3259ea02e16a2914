#!/usr/bin/env bash
# Issue 25: one torchdeck agent per user and run store, the fronts its clients, against the real sandbox.
# Usage: agent_test.sh CASE   (needs what term_helpers.sh needs, and TORCHDECK_TRAIN_BINARY)
set -euo pipefail
# shellcheck source=term_helpers.sh
source "$(dirname "${BASH_SOURCE[0]}")/term_helpers.sh"

agent_pid() { td agent status --json 2>/dev/null | json_field pid; }
gone() { # PID: the process has ended (within 10 s)
    for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
    return 1
}

# A Slurm job that waits while the fronts come and go (cancelled at the end).
long_job=(--tasks-per-node 1 --time 00:10:00 --command "sleep 300")

case_lifecycle() { # started by the first front that needs it, quiet, private, stopped on request, at login
    local out err pid
    # A fresh store: its migrations say nothing; an unknown cluster is named as such, with the config's clusters.
    err=$(td runs 2>&1 >/dev/null)
    expect_eq "$err" "" "stderr of the first command on a fresh store"
    expect_eq "$(stat -c %a "$TORCHDECK_DATA_DIR")" 700 "the data folder's mode"
    expect_eq "$(stat -c %a "$TORCHDECK_DATA_DIR/runs.sqlite")" 600 "the run store's mode"
    out=$(td submit nosuchcluster --model ae 2>&1) && fail "submitted to an unknown cluster: $out"
    grep -q "'nosuchcluster' is no cluster of $TORCHDECK_SSH_CONFIG; its clusters: .*torchdeck-sandbox" <<<"$out" ||
        fail "the unknown cluster: $out"
    grep -q "ssh-agent\|no terminal to ask on" <<<"$out" && fail "a hint about keys for an unknown name: $out"
    # That command started the agent; another finds it, and its status says what it holds.
    pid=$(agent_pid) || fail "no agent after a command that needed one"
    td check torchdeck-sandbox >/dev/null || fail "check: $(td check torchdeck-sandbox 2>&1)"
    expect_eq "$(agent_pid)" "$pid" "the agent of the second command"
    out=$(td agent status)
    echo "$out"
    grep -qE "^  torchdeck-sandbox +connected" <<<"$out" || fail "agent status: $out"
    grep -q "^  term .*(this command)" <<<"$out" || fail "agent status lists no front: $out"
    expect_eq "$(stat -c %a "$(td agent status --json | json_field socket)")" 700 "the socket's mode"
    # Garbage on the socket: an error and a closed client, and the agent serves the next front as before.
    /usr/bin/python3 - "$(td agent status --json | json_field socket)" <<'PY' || fail "the agent's answer to garbage"
import socket, struct, sys
for frame, said in ((struct.pack(">I", 5) + b"\xff\xfe\xfd\xfc\xfb", b"an unreadable message"),
                    (struct.pack(">I", 1 << 30), b"over the limit")):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    s.sendall(frame)
    reply = b""
    while chunk := s.recv(4096):
        reply += chunk
    assert said in reply, reply
PY
    expect_eq "$(agent_pid)" "$pid" "the agent after garbage"
    out=$(td agent stop)
    expect_eq "$out" "agent $pid stopped" "agent stop"
    kill -0 "$pid" 2>/dev/null && fail "agent $pid still runs after agent stop"
    expect_eq "$(td agent status 2>&1 | head -n1)" \
        "no agent runs for $TORCHDECK_DATA_DIR (no torchdeck agent runs for $TORCHDECK_DATA_DIR)" "status with no agent"
    # Started at login: an autostart entry here (no user manager), gone when switched off.
    export XDG_CONFIG_HOME=$home/xdg XDG_RUNTIME_DIR=
    out=$(td agent on)
    grep -q "the agent starts when you log in ($home/xdg/autostart/org.torchdeck.torchdeck-agent.desktop)" <<<"$out" ||
        fail "agent on: $out"
    desktop-file-validate "$home/xdg/autostart/org.torchdeck.torchdeck-agent.desktop"
    grep -qF "TORCHDECK_DATA_DIR=$TORCHDECK_DATA_DIR" "$home/xdg/autostart/org.torchdeck.torchdeck-agent.desktop" ||
        fail "the entry does not name this store"
    td agent off >/dev/null
    [[ ! -e "$home/xdg/autostart/org.torchdeck.torchdeck-agent.desktop" ]] || fail "agent off left the entry"
}

case_handover() { # a front of another build asks the old agent to hand over; a killed agent is started again
    use_prebuilt_trainer
    local run old new other="$home/bin/torchdeck"
    run=$(td submit torchdeck-sandbox "${long_job[@]}" --name handed-over --json | json_field run)
    old=$(agent_pid)
    # Another build of torchdeck: the same program, a later executable.
    mkdir -p "$home/bin" && cp "$TORCHDECK_BIN" "$other" && touch -d '+1 minute' "$other"
    TORCHDECK_BIN=$other td status "$run" --json >/dev/null || fail "status through the new build"
    new=$(TORCHDECK_BIN=$other td agent status --json | json_field pid)
    [[ "$new" != "$old" ]] || fail "the old agent $old was not handed over"
    gone "$old" || fail "the old agent $old still runs"
    expect_eq "$(TORCHDECK_BIN=$other td agent status --json | json_field executable)" "$other" "the new agent's program"
    # Killed with SIGKILL during the run: the next command starts an agent that picks the run up.
    kill -9 "$new"
    out=$(td status "$run" --json) || fail "status after the agent was killed: $out"
    [[ "$(agent_pid)" != "$new" ]] || fail "no new agent"
    expect_eq "$(td agent status --json | /usr/bin/python3 -c 'import json,sys
print(sum(c["runs"] for c in json.load(sys.stdin)["clusters"]))')" 1 "runs the new agent watches"
    td cancel "$run" >/dev/null
}

case_fronts() { # the window, a watch and five commands: one login, one squeue per interval
    use_prebuilt_trainer
    local run calls="$TORCHDECK_SANDBOX_DIR/squeue-calls" before after
    window='' watcher='' # globals: the EXIT trap ends them
    local wrapper="$TORCHDECK_SANDBOX_DIR/bin/squeue"
    cat >"$wrapper" <<'WRAPPER'
#!/bin/bash
date +%s.%N >>"$TORCHDECK_SANDBOX_DIR/squeue-calls"
exec /usr/bin/squeue "$@"
WRAPPER
    chmod +x "$wrapper"
    # shellcheck disable=SC2064 # expand now
    trap "rm -f '$wrapper' '$calls'; kill \${window:-} \${watcher:-} 2>/dev/null || true; stop_agent" EXIT
    before=$(grep -c "Accepted publickey" "$TORCHDECK_SANDBOX_DIR/log/sshd.out" || true)
    run=$(td submit torchdeck-sandbox "${long_job[@]}" --name watched --json | json_field run)
    # The window (the real binary, offscreen) attaches; so does a watch, at 1 s.
    QT_QPA_PLATFORM=offscreen setsid "$TORCHDECK_BIN" </dev/null >"$home/window.txt" 2>&1 &
    window=$!
    setsid "$TORCHDECK_BIN" watch "$run" --plain --interval 1 </dev/null >"$home/watch.txt" 2>&1 &
    watcher=$!
    for _ in $(seq 100); do
        td agent status | grep -q "^  window $window" && td agent status | grep -q "polled every 1 s" && break
        sleep 0.2
    done
    td agent status | grep -q "^  window $window" || fail "the window did not attach: $(td agent status)"
    : >"$calls"
    for command in status runs metrics checkpoints logs; do
        if [[ $command == runs ]]; then td runs >/dev/null; else td "$command" "$run" >/dev/null; fi
        sleep 1
    done
    sleep 3
    after=$(grep -c "Accepted publickey" "$TORCHDECK_SANDBOX_DIR/log/sshd.out")
    expect_eq "$(( after - before ))" 1 "logins to the sandbox's sshd for the window, the watch and six commands"
    # One squeue per interval (1 s, the watch's) whatever the number of fronts: a pass every second, give or
    # take the jitter of a command over ssh, and never two in the same second.
    /usr/bin/python3 - "$calls" <<'PY' || fail "squeue ran more often than once a second: $(cat "$calls")"
import sys
times = [float(t) for t in open(sys.argv[1]).read().split()]
gaps = [b - a for a, b in zip(times, times[1:])]
span = times[-1] - times[0]
print(f"{len(times)} squeue calls in {span:.1f} s, shortest gap {min(gaps):.2f} s")
sys.exit(0 if len(times) >= 5 and len(times) <= span + 2 and min(gaps) >= 0.5 else 1)
PY
    td cancel "$run" >/dev/null
    # The window and the watch end before the agent: a front left running starts a new agent once it is stopped.
    kill "$window" "$watcher" 2>/dev/null || true
    wait "$window" "$watcher" 2>/dev/null || true
}

"case_$1"
remove_home
