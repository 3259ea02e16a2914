#!/usr/bin/env bash
# The real `torchdeck check` against the 2FA sshd of scripts/lib/auth-sshd, in a terminal (tmux): it asks for
# the password, then for the one-time code, both without echo, and checks the cluster. Then the window and three
# more commands use the agent's connection: the code was asked once, and the sshd logged one login.
# Needs TORCHDECK_BIN and TORCHDECK_AUTH_SSHD_DIR (set by ctest). Exit 77: skipped (not root).
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
(( EUID == 0 )) || { echo "skipped: the PAM sshd needs root (scripts/lib/auth-sshd)"; exit 77; }
dir=$TORCHDECK_AUTH_SSHD_DIR
[[ -s "$dir/pids" ]] || fail "scripts/lib/auth-sshd is not running in $dir"

home=$(mktemp -d)
socket=torchdeck-auth-check-$$
tm() { tmux -L "$socket" "$@"; }
# The check started the agent of this store: stopped before the store goes.
trap 'tm kill-server 2>/dev/null || true; TORCHDECK_DATA_DIR=$home/data TORCHDECK_CONFIG_DIR=$home/config \
      timeout 60 "$TORCHDECK_BIN" agent stop >/dev/null 2>&1; rm -rf "$home"' EXIT

screen_has() { # TEXT SECONDS: wait until the terminal shows TEXT
    local i
    for (( i = 0; i < $2 * 10; i++ )); do
        tm capture-pane -p | grep -qF "$1" && return 0
        sleep 0.1
    done
    fail "the terminal never showed '$1'; it shows: $(tm capture-pane -p)"
}

logins() { grep -c "Accepted keyboard-interactive/pam" "$dir/sshd-otp/log" || true; }
before=$(logins)

# The check's lines go to a file; its questions go to the terminal (/dev/tty), as for a user.
tm new-session -d -x 200 -y 50 "env TORCHDECK_CONFIG_DIR=$home/config TORCHDECK_DATA_DIR=$home/data \
    TORCHDECK_SSH_CONFIG=$dir/ssh_config $TORCHDECK_BIN check torchdeck-auth-otp --scheduler local \
    --work-dir $home/work >$home/out 2>&1; echo \$? >$home/rc; sleep 600"

password=$(cat "$dir/password")
screen_has "torchdeck-auth-otp: Password:" 20
tm send-keys -l "$password"
tm send-keys Enter

# pam_oath refuses a code of a step at or before the last one used (its code is the 6th field of users.oath;
# the C++ tests may have used a step ahead of now): the next step after it, within the window of 10.
key=$(cat "$dir/otp.key")
now=$(( $(date +%s) / 30 ))
step=$now
last_code=$(awk '{print $6}' "$dir/users.oath")
mapfile -t codes < <(oathtool --totp -w 20 --now="@$(( (now - 10) * 30 ))" "$key")
for i in "${!codes[@]}"; do
    [[ -n "$last_code" && "${codes[i]}" == "$last_code" ]] && (( now - 10 + i >= step )) && step=$(( now - 10 + i + 1 ))
done
code=$(oathtool --totp --now="@$(( step * 30 ))" "$key")
screen_has "One-time password (OATH) for" 20
tm send-keys -l "$code"
tm send-keys Enter

for _ in $(seq 600); do [[ -s "$home/rc" ]] && break; sleep 0.1; done
[[ -s "$home/rc" ]] || fail "check did not end: $(cat "$home/out")"
out=$(cat "$home/out")
screen=$(tm capture-pane -p)
[[ "$(cat "$home/rc")" == 0 ]] || fail "check failed (exit $(cat "$home/rc")): $out"
grep -qF "✓ Connection: reachable, host key known, authenticated" <<<"$out" || fail "not authenticated: $out"
grep -qF "✓ SFTP" <<<"$out" || fail "no SFTP on the authenticated connection: $out"
[[ "$screen" != *"$password"* ]] || fail "the password was echoed: $screen"
[[ "$screen" != *"$code"* ]] || fail "the code was echoed: $screen"
echo "check asked twice, without echo, and authenticated:"
echo "$out"

# A day of fronts on the agent's one login: the window (offscreen) and three commands with no terminal, which
# could not answer a question if one came.
export TORCHDECK_CONFIG_DIR=$home/config TORCHDECK_DATA_DIR=$home/data TORCHDECK_SSH_CONFIG=$dir/ssh_config
QT_QPA_PLATFORM=offscreen setsid "$TORCHDECK_BIN" </dev/null >"$home/window.txt" 2>&1 &
window=$!
trap 'kill $window 2>/dev/null; tm kill-server 2>/dev/null || true; timeout 60 "$TORCHDECK_BIN" agent stop >/dev/null 2>&1
      rm -rf "$home"' EXIT
for _ in $(seq 100); do "$TORCHDECK_BIN" agent status | grep -q "^  window $window" && break; sleep 0.1; done
"$TORCHDECK_BIN" agent status | grep -q "^  window $window" || fail "the window did not attach: $("$TORCHDECK_BIN" agent status)"
for _ in 1 2; do
    out=$(setsid -w "$TORCHDECK_BIN" check torchdeck-auth-otp --scheduler local --work-dir "$home/work" </dev/null 2>&1) ||
        fail "a later check: $out"
done
out=$(setsid -w "$TORCHDECK_BIN" code torchdeck-auth-otp </dev/null 2>&1) || fail "code: $out"
[[ "$(( $(logins) - before ))" == 1 ]] || fail "$(( $(logins) - before )) logins for a window and four commands"
echo "one login, one code for the window and four commands"
