#!/usr/bin/env bash
# Runs a test inside its own D-Bus session with a fresh gnome-keyring-daemon (Secret Service), unlocked with
# a test password. HOME and the XDG dirs point into STATE_DIR, so the user's own keyring is never touched.
# The daemon is stopped by its PID; the bus ends with dbus-run-session.
# Usage: keychain_test.sh STATE_DIR TEST_BINARY [TEST_ARGS...]   (exit 77: no dbus-run-session/gnome-keyring)
set -euo pipefail
state=$1
shift
for tool in dbus-run-session dbus-send gnome-keyring-daemon; do
  command -v "$tool" >/dev/null || { echo "keychain_test: $tool is missing (scripts/install-deps)"; exit 77; }
done
rm -rf "$state"
mkdir -p "$state/home" "$state/data" "$state/config" "$state/runtime"
chmod 700 "$state/runtime"
export HOME=$state/home XDG_DATA_HOME=$state/data XDG_CONFIG_HOME=$state/config XDG_RUNTIME_DIR=$state/runtime

exec dbus-run-session -- bash -c '
  set -u
  printf test | gnome-keyring-daemon --foreground --unlock --components=secrets >"$XDG_RUNTIME_DIR/keyring.log" 2>&1 &
  keyring=$!
  trap "kill $keyring 2>/dev/null; wait $keyring 2>/dev/null" EXIT
  for _ in $(seq 100); do
    dbus-send --session --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.NameHasOwner \
      string:org.freedesktop.secrets 2>/dev/null | grep -q "boolean true" && break
    sleep 0.1
  done
  "$@"
' keychain-test "$@"
