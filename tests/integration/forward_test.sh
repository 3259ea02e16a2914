#!/usr/bin/env bash
# Issue 28 (in part): `torchdeck forward` relays a local port over the agent's one SSH connection to a port on a
# running job's node (the address Slurm gives: the sandbox's node names resolve nowhere), several connections at
# once, and goes on after that connection is killed and the agent reconnects. Usage: forward_test.sh CASE
set -euo pipefail
# shellcheck source=term_helpers.sh
source "$(dirname "${BASH_SOURCE[0]}")/term_helpers.sh"
td profile torchdeck-sandbox --work-dir "$home/work" >/dev/null

free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
fetch() { # URL: the body, or fail within 60 s
    /usr/bin/python3 - "$1" <<'PY'
import sys, urllib.request
sys.stdout.buffer.write(urllib.request.urlopen(sys.argv[1], timeout=60).read())
PY
}

case_http() { # a job's python3 -m http.server, reached through the forward before and after the connection dies
    local run out www="$home/www" rport lport pids before i
    mkdir -p "$www"
    echo "hello from the job" >"$www/hello.txt"
    head -c 3000000 /dev/urandom >"$www/big.bin"
    rport=$(free_port)
    lport=$(free_port)
    run=$(td submit torchdeck-sandbox --name served --launch local --tasks-per-node 1 --time 00:05:00 \
          --command "/usr/bin/python3 -m http.server $rport --bind 127.0.0.1 --directory $www" --json |
          json_field run)
    # shellcheck disable=SC2064 # expand now
    trap "td cancel '$run' >/dev/null 2>&1 || true; stop_agent" EXIT
    # The job's server listens (on loopback, where the sandbox's node lives) before anything is forwarded.
    for _ in $(seq 300); do
        /usr/bin/python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' \
            "$rport" 2>/dev/null && break
        sleep 0.2
    done
    # A port nothing listens on is refused in words, and no forward is kept.
    out=$(td forward "$run" "$(free_port)" 2>&1) && fail "a forward to a closed port: $out"
    grep -q "node1 port [0-9]* (at 127.0.0.1) does not answer through torchdeck-sandbox" <<<"$out" ||
        fail "the refusal: $out"
    expect_eq "$(td forward --list)" "no forwards" "forwards after the refusal"

    out=$(td forward "$run" "$rport" "$lport")
    expect_eq "${out%% (*}" "forwarding localhost:$lport to node1:$rport for run ${run:0:8}" "forward's reply"
    expect_eq "$(fetch "http://127.0.0.1:$lport/hello.txt")" "hello from the job" "a file through the forward"
    # Several connections at once, each a stream of its own.
    pids=()
    for i in 1 2 3 4; do
        fetch "http://127.0.0.1:$lport/big.bin" >"$home/big.$i" &
        pids+=($!)
    done
    for i in "${pids[@]}"; do wait "$i" || fail "a parallel fetch failed"; done
    for i in 1 2 3 4; do cmp -s "$home/big.$i" "$www/big.bin" || fail "parallel fetch $i differs"; done
    grep -qE "^localhost:$lport -> node1:$rport \(127.0.0.1\)  run ${run:0:8} on torchdeck-sandbox  [0-9]+ open, 5 served$" \
        <<<"$(td forward --list)" || fail "forward --list: $(td forward --list)"

    # The agent's SSH connection dies (every sshd process serving it, killed); the forward outlived the front
    # that asked for it, and the next connection through it waits for the agent's new login.
    before=$(logins)
    mapfile -t pids < <(sshd_sessions)
    (( ${#pids[@]} > 0 )) || fail "no sshd serves the agent"
    kill -KILL "${pids[@]}" 2>/dev/null || true # a command's process may have ended since it was listed
    expect_eq "$(fetch "http://127.0.0.1:$lport/hello.txt")" "hello from the job" "a file after the connection died"
    (( $(logins) > before )) || fail "no new login after the kill"
    fetch "http://127.0.0.1:$lport/big.bin" | cmp -s - "$www/big.bin" || fail "the big file after the reconnect"

    out=$(td forward --stop "$lport")
    expect_eq "$out" "stopped forwarding localhost:$lport to node1:$rport for run ${run:0:8}" "forward --stop"
    fetch "http://127.0.0.1:$lport/hello.txt" >/dev/null 2>&1 && fail "the port still answers after --stop"
    expect_eq "$(td forward --list)" "no forwards" "forwards after --stop"
    # A forward goes with its run's end.
    td forward "$run" "$rport" >/dev/null
    [[ "$(td forward --list)" == "localhost:"* ]] || fail "the second forward: $(td forward --list)"
    td cancel "$run" >/dev/null
    for _ in $(seq 150); do [[ "$(td forward --list)" == "no forwards" ]] && break; sleep 0.2; done
    expect_eq "$(td forward --list)" "no forwards" "forwards after the run was cancelled"
    remove_home
}

"case_$1"
