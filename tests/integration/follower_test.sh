#!/usr/bin/env bash
# Issue 40: the login-node follower (remote/follower/) reads a running job's files on the sandbox's login node and
# sends only new bytes: every metrics line reaches the store once, in order, through two killed connections, a
# killed follower and a stopped one; a log truncated under it is read from its new start, said once; where no C
# compiler builds it, its bash form does the same. Usage: follower_test.sh CASE
set -euo pipefail
# A stopped follower is found out after 3 missed heartbeats: 3.5 s here (set before the agent starts).
[[ ${1:-} == lines ]] && export TORCHDECK_FOLLOWER_HEARTBEAT_MS=500
# shellcheck source=term_helpers.sh
source "$(dirname "${BASH_SOURCE[0]}")/term_helpers.sh"
td profile torchdeck-sandbox --work-dir "$home/work" >/dev/null

# A job's wait for the test (the file go<N> in the case's home), at most 2 minutes.
gate() { echo "for _ in \$(seq 1200); do [ -e \"$home/go$1\" ] && break; sleep 0.1; done"; }
steps() { td metrics "$1" --csv | awk -F, '$2 == "step" { print $5 }'; }
wait_steps() { # RUN N: the store holds N steps of the run
    for _ in $(seq 600); do (( $(steps "$1" | wc -l) >= $2 )) && return; sleep 0.2; done
    fail "the store holds $(steps "$1" | wc -l) steps of run $1, not $2"
}
wait_following() { # FORM: the agent says its files on the sandbox are followed by that form of the follower
    local said
    for _ in $(seq 300); do
        said=$(td agent status | grep "files followed by" || true)
        [[ "$said" == *"files followed by: login-node follower ($1)" ]] && return
        sleep 0.2
    done
    fail "the agent's files are not followed by the $1 follower: ${said:-nothing said}"
}
# A job of N metrics lines written at random intervals (0 to 90 ms), that waits for go<k> after line 50*k.
lines_job() {
    local n=$1 name=$2
    # shellcheck disable=SC2016 # the gate's number is the job's
    td submit torchdeck-sandbox --name "$name" --launch local --time 00:10:00 \
        --log-pattern 'it (?<step>\d+) cost (?<loss>[0-9.]+)' \
        --command "for i in \$(seq $n); do echo \"it \$i cost 0.\$i\"; case \$i in 50|100|150) $(gate '$((i / 50))');; esac; sleep 0.0\$((RANDOM % 10)); done" \
        --json | json_field run
}
expect_every_step_once() { # RUN N
    expect_eq "$(steps "$1" | tr '\n' ' ')" "$(seq "$2" | tr '\n' ' ')" "the steps in the store"
}

follower_pid() { pgrep -n -f "$home/work/follower/.*/torchdeck-follow" || true; }

case_lines() { # every line once through two killed connections, a killed follower and a stopped one
    local run before pids killed stopped
    run=$(lines_job 200 followed)
    # shellcheck disable=SC2064 # expand now
    trap "td cancel '$run' >/dev/null 2>&1 || true; stop_agent" EXIT
    wait_following compiled
    wait_steps "$run" 50
    for k in 1 2; do # the agent's connection dies (its sshd processes killed) while the job writes
        before=$(logins)
        mapfile -t pids < <(sshd_sessions)
        (( ${#pids[@]} > 0 )) || fail "no sshd serves the agent"
        kill -KILL "${pids[@]}" 2>/dev/null || true
        touch "$home/go$k"
        for _ in $(seq 300); do (( $(logins) > before )) && break; sleep 0.2; done
        (( $(logins) > before )) || fail "no new login after kill $k"
        wait_steps "$run" $(( 50 * (k + 1) ))
    done
    wait_following compiled # started again with the new connection
    killed=$(follower_pid)
    [[ -n "$killed" ]] || fail "no follower runs on the login node"
    kill -KILL "$killed"
    for _ in $(seq 300); do stopped=$(follower_pid); [[ -n "$stopped" && "$stopped" != "$killed" ]] && break; sleep 0.2; done
    [[ -n "$stopped" && "$stopped" != "$killed" ]] || fail "no follower was started after the kill"
    wait_following compiled
    kill -STOP "$stopped" # stopped, not gone: only its silence tells
    touch "$home/go3"
    expect_eq "$(wait_final "$run" 300)" completed "the run's state"
    expect_every_step_once "$run" 200
    grep -q "the follower on torchdeck-sandbox stopped: the follower ended" "$home/data/agent.log" ||
        fail "the killed follower was not seen: $(grep -i follow "$home/data/agent.log")"
    grep -q "the follower on torchdeck-sandbox stopped: the follower was silent" "$home/data/agent.log" ||
        fail "the stopped follower was not seen: $(grep -i follow "$home/data/agent.log")"
    wait_following compiled # and started again
    kill -CONT "$stopped" # its channel is closed: it reads the end of its input and exits
    for _ in $(seq 100); do kill -0 "$stopped" 2>/dev/null || break; sleep 0.1; done
    ! kill -0 "$stopped" 2>/dev/null || fail "the stopped follower went on after its channel closed"
    remove_home
}

case_truncated() { # a job that starts its log again: read from the new start, said once
    local run tail_pid
    run=$(td submit torchdeck-sandbox --name rewrites --launch local --time 00:10:00 \
          --command "for i in 1 2 3 4 5 6; do echo \"first line \$i\"; done; $(gate 1); exec >\"\$(readlink /proc/\$\$/fd/1)\"; echo 'second 1'; echo 'second 2'; $(gate 2)" \
          --json | json_field run)
    # shellcheck disable=SC2064 # expand now
    trap "td cancel '$run' >/dev/null 2>&1 || true; stop_agent" EXIT
    wait_following compiled
    td logs "$run" -f >"$home/out" 2>"$home/err" &
    tail_pid=$!
    for _ in $(seq 600); do grep -q "first line 6" "$home/out" && break; sleep 0.1; done
    grep -q "first line 6" "$home/out" || fail "logs -f: $(cat "$home/out" "$home/err")"
    touch "$home/go1"
    for _ in $(seq 600); do grep -q "second 2" "$home/out" && break; sleep 0.1; done
    touch "$home/go2"
    wait "$tail_pid" || fail "logs -f ended with $?: $(cat "$home/err")"
    expect_eq "$(grep -c "^-- the log was replaced" "$home/err")" 1 "what logs -f said of the truncation"
    expect_eq "$(grep -E '^(first line|second) ' "$home/out" | tr '\n' ' ')" \
        "first line 1 first line 2 first line 3 first line 4 first line 5 first line 6 second 1 second 2 " \
        "the lines logs -f showed"
    remove_home
}

case_fallback() { # a login node with no working C compiler: the bash follower
    local run c
    for c in cc gcc clang; do printf '#!/bin/sh\nexit 1\n' >"$TORCHDECK_SANDBOX_DIR/bin/$c"; chmod +x "$TORCHDECK_SANDBOX_DIR/bin/$c"; done
    trap 'rm -f "$TORCHDECK_SANDBOX_DIR"/bin/{cc,gcc,clang}; stop_agent' EXIT
    touch "$home/go1" # no wait after its last line
    run=$(lines_job 50 shell-followed)
    # shellcheck disable=SC2064 # expand now
    trap "td cancel '$run' >/dev/null 2>&1 || true; rm -f '$TORCHDECK_SANDBOX_DIR'/bin/{cc,gcc,clang}; stop_agent" EXIT
    wait_following shell
    expect_eq "$(wait_final "$run" 300)" completed "the run's state"
    expect_every_step_once "$run" 50
    remove_home
}

"case_$1"
