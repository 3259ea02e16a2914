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
    expect_eq "$(td agent status --json | /usr/bin/python3 -c 'import json,sys
print(" ".join(c["state"] for c in json.load(sys.stdin)["clusters"]))')" connected "the state of its connection"
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

# A one-epoch run of the bundled trainer: it ends on its own within seconds.
short_job=(--tasks-per-node 1 --time 00:10:00 --model ae --data fashion-mnist --batch-size 64 --threads 1 --epochs 1
           --limit 2000)

case_takeover() { # killed right after sbatch answered, or just before it ran: one job for the attempt either way
    use_prebuilt_trainer
    local wrapper="$TORCHDECK_SANDBOX_DIR/bin/sbatch" calls="$home/sbatch-calls" kill="$TORCHDECK_SANDBOX_DIR/kill-agent"
    local conf="$TORCHDECK_SANDBOX_DIR/slurm/slurm.conf" out run job pid
    # sbatch as usual, but the agent named in kill-agent is SIGKILLed before it (or after it, and before its answer
    # reaches the agent). Every call is logged.
    { printf '#!/bin/bash\ncalls=%q\n' "$calls"; cat <<'WRAPPER'; } >"$wrapper"
kill=$TORCHDECK_SANDBOX_DIR/kill-agent
pid='' when=''
# A run's script only (not the requeue probe a first submission may send).
[[ $* == */runs/*/job-*.sh ]] && read -r pid when <"$kill" 2>/dev/null && rm -f "$kill"
if [[ $when == before ]]; then
    echo "killed before: $*" >>"$calls"
    kill -9 "$pid"
    exit 1
fi
out=$(/usr/bin/sbatch "$@")
echo "sent $out: $*" >>"$calls"
[[ $when == after ]] && kill -9 "$pid"
printf '%s\n' "$out"
WRAPPER
    chmod +x "$wrapper"
    # Ended jobs leave the controller's memory in seconds, not five minutes; the cluster keeps no accounting.
    cp "$conf" "$conf.saved"
    sed -i 's/^MinJobAge=.*/MinJobAge=2/' "$conf"
    scontrol reconfigure
    # shellcheck disable=SC2064 # expand now
    trap "rm -f '$wrapper' '$kill'; mv '$conf.saved' '$conf'; scontrol reconfigure; stop_agent" EXIT
    td profile torchdeck-sandbox --slurm-history controller >/dev/null

    # After sbatch answered: the front hears what may have happened; no torchdeck runs until the job has ended
    # and the controller has forgotten it.
    td check torchdeck-sandbox >/dev/null # starts the agent
    pid=$(agent_pid)
    echo "$pid after" >"$kill"
    out=$(td submit torchdeck-sandbox "${short_job[@]}" --name cut-after 2>&1) && fail "submitted: $out"
    grep -q "while submitting: the job may have reached the scheduler" <<<"$out" || fail "the front was told: $out"
    gone "$pid" || fail "agent $pid still runs"
    job=$(sed -n 's|^sent \([0-9]*\): .*/runs/.*|\1|p' "$calls")
    run=$(sed -n 's|^sent .*/runs/\([^/]*\)/job-0.sh$|\1|p' "$calls")
    [[ -n "$job" && -n "$run" ]] || fail "no job was sent: $(cat "$calls")"
    # Bounded well inside the test's timeout: its trap puts the sandbox's slurm.conf and sbatch back.
    for _ in $(seq 120); do squeue -h -j "$job" >/dev/null 2>&1 || break; sleep 1; done
    squeue -h -j "$job" >/dev/null 2>&1 && fail "job $job is still known to the controller"
    # The next agent takes the dead one's claim over at once, finds the job by its own record, and settles the run.
    expect_eq "$(wait_final "$run" 120)" completed "the run after the takeover"
    out=$(td status "$run" --json)
    expect_eq "$(json_field jobs.0.job <<<"$out")" "$job" "the run's job"
    # Found by its own record (queue and controller had forgotten it), and settled by it.
    expect_eq "$(json_field message <<<"$out")" \
        "the scheduler no longer knows job $job; its own record says it ended with exit code 0" "the run's message"
    expect_eq "$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(sys.stdin)["jobs"]))' <<<"$out")" 1 \
        "jobs of the run"
    expect_eq "$(grep -c '^sent .*/runs/' "$calls")" 1 "jobs sent: $(cat "$calls")"

    # Just before sbatch: nothing reached the scheduler, and the takeover (with the completion file as history)
    # sends the attempt once.
    td profile torchdeck-sandbox --slurm-history completion-file >/dev/null
    : >"$calls"
    pid=$(agent_pid)
    echo "$pid before" >"$kill"
    out=$(td submit torchdeck-sandbox "${short_job[@]}" --name cut-before 2>&1) && fail "submitted: $out"
    gone "$pid" || fail "agent $pid still runs"
    run=$(sed -n 's|^killed before: .*/runs/\([^/]*\)/job-0.sh$|\1|p' "$calls")
    [[ -n "$run" ]] || fail "sbatch was not reached: $(cat "$calls")"
    expect_eq "$(wait_final "$run" 120)" completed "the run sent by the takeover"
    job=$(sed -n 's|^sent \([0-9]*\): .*/runs/.*|\1|p' "$calls")
    expect_eq "$(grep -c '^sent .*/runs/' "$calls")" 1 "jobs sent: $(cat "$calls")"
    expect_eq "$(td status "$run" --json | json_field jobs.0.job)" "$job" "the run's job"
}

# The agent's wire for the scripts below, written once: a frame of a CBOR map (a hand-made encoder: no module here).
agent_wire() {
    cat >"$home/agentwire.py" <<'PY'
import struct
def cbor(v):
    def head(major, n):
        return bytes([major << 5 | n]) if n < 24 else bytes([major << 5 | 25]) + struct.pack(">H", n)
    if isinstance(v, bool): return b"\xf5" if v else b"\xf4"
    if isinstance(v, int): return head(0, v)
    if isinstance(v, str): b = v.encode(); return head(3, len(b)) + b
    return head(5, len(v)) + b"".join(cbor(k) + cbor(x) for k, x in v.items())
def frame(i, op, args):
    body = cbor({"v": 2, "k": "req", "id": i, "op": op, "a": args})
    return struct.pack(">I", len(body)) + body
PY
}

flood() { # SOCKET COUNT HELLO: COUNT connections, each saying hello (1) or nothing (0), held until all are made
    PYTHONPATH=$home /usr/bin/python3 - "$@" <<'PY'
import resource, socket, sys
from agentwire import frame
path, count, hello = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
resource.setrlimit(resource.RLIMIT_NOFILE, (count + 64, count + 64))
held, refused = [], 0
for _ in range(count):
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(path)
        if hello: s.sendall(frame(1, "hello", {"front": "flood", "pid": 1}))
        held.append(s)
    except OSError:
        refused += 1
print(f"{len(held)} connections made, {refused} refused")
for s in held: s.close()
PY
}

cluster_count() { td agent status --json | /usr/bin/python3 -c 'import json,sys; print(len(json.load(sys.stdin)["clusters"]))'; }

case_bounded() { # floods, a stopped agent, unknown operations, a lost socket: bounded, and it recovers alone
    local pid socket threads clusters out
    agent_wire
    (ulimit -n 1024 && td check torchdeck-sandbox >/dev/null) # the agent starts with the front's limit
    pid=$(agent_pid)
    socket=$(td agent status --json | json_field socket)
    expect_eq "$(awk '/open files/ {print $4}' "/proc/$pid/limits")" 1024 "the agent's descriptor limit"
    # 1100 fronts that never say hello, then 1100 that do: past its descriptors, the agent refuses and goes on.
    flood "$socket" 1100 0
    flood "$socket" 1100 1
    out=$(timeout 30 "$TORCHDECK_BIN" agent status 2>&1) || fail "agent status after the floods: $out"
    expect_eq "$(agent_pid)" "$pid" "the agent after the floods"
    # Unknown operations and unconfigured clusters: answered, and no session (nor its thread) made for them.
    threads=$(ls "/proc/$pid/task" | wc -l)
    clusters=$(cluster_count)
    PYTHONPATH=$home /usr/bin/python3 - "$socket" <<'PY' || fail "the agent's answers to unknown requests"
import socket, sys, time
from agentwire import frame
def ask():
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    s.sendall(frame(1, "hello", {"front": "test", "pid": 1}))
    for i in range(50):
        s.sendall(frame(2 + i, "no_such_op", {"cluster": f"cluster{i}"}))
        s.sendall(frame(100 + i, "open", {"cluster": f"nosuch{i}"}))
    s.settimeout(30) # not shut for writing: a front never half-closes, and the agent closes a peer that does
    reply = b""
    while True:
        chunk = s.recv(65536)
        if not chunk: break
        reply += chunk
        if reply.count(b"is no cluster of") == 50 and reply.count(b"unknown request") == 50: break
    return reply
for _ in range(40): # right after a flood the agent may refuse for a moment, saying so: a front tries again
    reply = ask()
    if b"busy" not in reply[:200]: break
    time.sleep(0.25)
assert reply.count(b"unknown request 'no_such_op'") == 50, reply[-400:]
assert reply.count(b"is no cluster of") == 50, reply[-400:]
PY
    expect_eq "$(cluster_count)" "$clusters" "clusters the agent holds"
    expect_eq "$(ls "/proc/$pid/task" | wc -l)" "$threads" "the agent's threads"
    # Stopped (a debugger, a machine swapping): a command says so within its deadline, and works once it runs again.
    kill -STOP "$pid"
    out=$(timeout 60 "$TORCHDECK_BIN" check torchdeck-sandbox 2>&1) && fail "check with the agent stopped: $out"
    grep -q "the agent, pid $pid, does not answer: stopped?" <<<"$out" || fail "check with the agent stopped: $out"
    kill -CONT "$pid"
    td check torchdeck-sandbox >/dev/null || fail "check after SIGCONT"
    expect_eq "$(agent_pid)" "$pid" "the agent after SIGCONT"
    # Stopped while a command waits on it (logs -f of a running job): the command says so once the agent has been
    # silent for TORCHDECK_AGENT_SILENCE_MS, asked meanwhile; the job goes on, and so does the agent after SIGCONT.
    local run follow
    td profile torchdeck-sandbox --work-dir "$home/work" >/dev/null
    run=$(td submit torchdeck-sandbox --name sleeper --launch local --command 'echo started; sleep 300' --json |
        json_field run)
    TORCHDECK_AGENT_SILENCE_MS=2000 td logs "$run" -f >"$home/follow.out" 2>&1 & follow=$!
    until grep -q '^started$' "$home/follow.out"; do kill -0 "$follow" 2>/dev/null || fail "logs -f: $(cat "$home/follow.out")"; sleep 0.1; done
    kill -STOP "$pid"
    wait "$follow" && fail "logs -f went on with the agent stopped"
    kill -CONT "$pid"
    grep -q "the agent, pid $pid, has not answered for 2 s: stopped?" "$home/follow.out" ||
        fail "logs -f with the agent stopped: $(cat "$home/follow.out")"
    expect_eq "$(td status "$run" --json | json_field state)" running "the run after the agent was stopped"
    td cancel "$run" >/dev/null
    # Ended (SIGTERM) while the agent has its submission (sbatch held by a wrapper): the command says the agent goes
    # on with it, and it does.
    local submit rc=0 wrapper="$TORCHDECK_SANDBOX_DIR/bin/sbatch" hold="$TORCHDECK_SANDBOX_DIR/hold-sbatch"
    printf '#!/bin/bash\nwhile [[ -e %q ]]; do sleep 0.1; done\nexec /usr/bin/sbatch "$@"\n' "$hold" >"$wrapper"
    chmod +x "$wrapper"
    # shellcheck disable=SC2064 # expand now
    trap "rm -f '$wrapper' '$hold'; stop_agent" EXIT
    touch "$hold"
    setsid -w "$TORCHDECK_BIN" submit torchdeck-sandbox --name interrupted --launch local --command true \
        >"$home/submit.out" 2>&1 & submit=$!
    until grep -q '^Submitting' "$home/submit.out"; do
        kill -0 "$submit" 2>/dev/null || fail "submit: $(cat "$home/submit.out")"; sleep 0.05
    done
    kill -TERM "$submit"
    wait "$submit" || rc=$?
    rm "$hold"
    expect_eq "$rc" 143 "submit ended by SIGTERM"
    grep -q 'interrupted; the agent goes on with the submission' "$home/submit.out" ||
        fail "submit ended by SIGTERM said: $(cat "$home/submit.out")"
    until td status interrupted --offline >/dev/null 2>&1; do sleep 0.2; done
    expect_eq "$(wait_final interrupted 120)" completed "the submission the agent went on with"
    rm "$wrapper"
    # `agent stop` and `agent status` do not take a stopped agent for none; `agent restart` replaces it.
    kill -STOP "$pid"
    out=$(td agent stop 2>&1) && fail "agent stop of a stopped agent: $out"
    grep -q "the agent, pid $pid, does not answer: stopped?" <<<"$out" || fail "agent stop of a stopped agent: $out"
    out=$(td agent status --json 2>"$home/said") && fail "agent status of a stopped agent: $out"
    expect_eq "$out" "" "agent status --json of a stopped agent (stdout)"
    grep -q "the agent, pid $pid, does not answer: stopped?" "$home/said" || fail "agent status: $(cat "$home/said")"
    out=$(td agent restart 2>&1) || fail "agent restart: $out"
    grep -q "agent $pid does not answer" <<<"$out" || fail "agent restart: $out"
    gone "$pid" || fail "agent $pid still runs after the restart"
    pid=$(agent_pid)
    grep -q "replaced by agent $pid" <<<"$out" || fail "agent restart: $out"
    # Its socket deleted: it exits, and the next front starts a new one.
    rm -f "$socket"
    gone "$pid" || for _ in $(seq 10); do gone "$pid" && break; done
    kill -0 "$pid" 2>/dev/null && fail "agent $pid still runs without its socket"
    td check torchdeck-sandbox >/dev/null || fail "check after the socket was lost"
    [[ "$(agent_pid)" != "$pid" ]] || fail "no new agent"
}

"case_$1"
remove_home
