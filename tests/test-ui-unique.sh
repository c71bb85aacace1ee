#!/usr/bin/env bash
# UI test of the real `weft` as a unique application (GApplication, one
# instance per session bus), in a private session bus (dbus-run-session):
#
#  1. `weft A` starts and shows A; a second `weft B` exits soon, on its own,
#     with status 0 and no window of its own, and the first process now has
#     two windows, showing A and B (its test state: pid, app_windows,
#     app_paths);
#  2. `weft --new-instance C` is a process of its own with one window while
#     the first keeps its two;
#  (and the accessible roles of the timeline and the metric chips);
#  3. without a session bus (an address nobody listens on) every `weft` is
#     its own process: GApplication falls back to non-unique (how the other
#     UI tests run under xvfb-run).
#
# Skips (77) without a display, xdotool, python3, the binaries or
# dbus-run-session.
set -euo pipefail

if [ -z "${WEFT_UNIQUE_IN_BUS:-}" ]; then
  command -v dbus-run-session >/dev/null || { echo "dbus-run-session missing (package dbus): skipped"; exit 77; }
  WEFT_UNIQUE_IN_BUS=1 exec dbus-run-session -- bash "$0" "$@"
fi

. "$(dirname "$0")/ui-lib.sh"
CLI=${WEFT_BUILD_DIR:?}/weft-cli
[ -x "$WEFT" ] && [ -x "$CLI" ] || { echo "weft / weft-cli not built: skipped"; exit 77; }
[ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ] || fail "dbus-run-session gave no DBUS_SESSION_BUS_ADDRESS"

fail () { echo "FAIL: $*"; for f in "$TMP"/state-*.json; do [ -f "$f" ] && { echo "$f:"; cat "$f"; }; done; exit 1; }

for x in a b c d e; do "$CLI" sample "$TMP/$x" --ranks 2 >/dev/null; done
A=$TMP/a/profiling/traces/iteration_1
B=$TMP/b/profiling/traces/iteration_1

# start NAME STATEFILE ARGS...: weft in the background (not through launch:
# that adds --new-instance); PID_<NAME> is its pid
start () {
  local name=$1 state=$2; shift 2
  rm -f "$state"
  WEFT_TEST_STATE=$state "$WEFT" "$@" >>"$TMP/weft.log" 2>&1 &
  PIDS+=("$!")
  printf -v "PID_$name" '%s' "$!"
}

# ---- 1. a second weft opens its window in the first --------------------------------------
start first "$TMP/state-1.json" "$A"
APP=$PID_first
wait_for_file "$TMP/state-1.json" 'd["loaded"] and d["app_windows"] == 1' "the first weft shows A"
[ "$(qfile "$TMP/state-1.json" "d['pid'] == $PID_first")" = 1 ] || fail "state-1.json is not the first process's"
# the roles GTK gives screen readers: the timeline a picture, the chips a live status
[ "$(qfile "$TMP/state-1.json" 'd["a11y_roles"] == {"timeline": "img", "metrics": "status"}')" = 1 ] ||
  fail "accessible roles: $(qfile "$TMP/state-1.json" 'd["a11y_roles"]')"

t0=$(date +%s%N)
WEFT_TEST_STATE=$TMP/state-2.json timeout "$TIMEOUT" "$WEFT" "$B" >>"$TMP/weft.log" 2>&1 || fail "the second weft exited with $?"
ms=$((($(date +%s%N) - t0) / 1000000))
ok "the second weft exited by itself after $ms ms"
[ ! -e "$TMP/state-2.json" ] || fail "the second weft showed a window of its own"
wait_for_file "$TMP/state-1.json" \
  "d['pid'] == $PID_first and d['app_windows'] == 2 and sorted(d['app_paths']) == sorted(['$A', '$B'])" \
  "the first weft shows A and B in two windows"
ok "the first process ($PID_first) has two windows: $(qfile "$TMP/state-1.json" 'd["app_paths"]')"
n_x=0
for _ in $(seq 1 50); do
  n_x=$(xdotool search --onlyvisible --pid "$PID_first" --name "." 2>/dev/null | wc -l || true)
  [ "$n_x" -ge 2 ] && break
  sleep 0.1
done
[ "$n_x" -ge 2 ] || fail "X shows $n_x visible windows of the first process, expected 2"

# ---- 2. --new-instance: a process of its own ------------------------------------------------
start second "$TMP/state-3.json" --new-instance "$TMP/c/profiling/traces/iteration_1"
APP=$PID_second
wait_for_file "$TMP/state-3.json" "d['loaded'] and d['pid'] == $PID_second and d['app_windows'] == 1" \
  "weft --new-instance shows C in its own process"
kill -0 "$PID_first" || fail "the first weft exited"
[ "$(qfile "$TMP/state-1.json" 'd["app_windows"]')" = 2 ] || fail "the first weft's windows changed"
ok "--new-instance: pid $PID_second, one window; the first keeps two"

# ---- 3. no session bus: non-unique --------------------------------------------------------------
NOBUS="unix:path=$TMP/no-bus-here"
DBUS_SESSION_BUS_ADDRESS=$NOBUS start nobus1 "$TMP/state-4.json" "$TMP/d/profiling/traces/iteration_1"
DBUS_SESSION_BUS_ADDRESS=$NOBUS start nobus2 "$TMP/state-5.json" "$TMP/e/profiling/traces/iteration_1"
APP=$PID_nobus1
wait_for_file "$TMP/state-4.json" "d['loaded'] and d['pid'] == $PID_nobus1 and d['app_windows'] == 1" "no bus: D"
APP=$PID_nobus2
wait_for_file "$TMP/state-5.json" "d['loaded'] and d['pid'] == $PID_nobus2 and d['app_windows'] == 1" "no bus: E"
ok "without a session bus each weft is its own process"

for p in "$PID_nobus2" "$PID_nobus1" "$PID_second" "$PID_first"; do kill "$p"; wait "$p" 2>/dev/null || true; done
if grep -E "CRITICAL|WARNING|runtime error|AddressSanitizer" "$TMP/weft.log"; then
  fail "weft logged warnings or errors (above)"
fi
ok "no warnings or criticals in weft's log"
echo "all unique-application checks passed"
