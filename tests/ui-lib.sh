# ui-lib.sh: sourced by the tests/test-ui-*.sh tests of the real `weft`
# under X (Xvfb), driven with xdotool. (Not named test-*.sh: ctest would
# run it as a test.)
# Usage: . "$(dirname "$0")/ui-lib.sh"
# Skips (exit 77) without a display, xdotool or python3. Sets WEFT (the
# binary, not checked here), HERE (the tests folder), TMP (a temporary
# folder, removed at exit unless WEFT_KEEP_TMP is set), PIDS (the launched
# processes, killed at exit with signal UI_KILL_SIGNAL, default TERM) and
# TIMEOUT; gives weft a private, reproducible GTK/XDG environment.
# The test defines fail (called here on a timeout or when weft exits).

[ -n "${DISPLAY:-}" ] || { echo "no DISPLAY: skipped (run under xvfb-run, see tests/check.sh)"; exit 77; }
command -v xdotool >/dev/null || { echo "xdotool missing: skipped"; exit 77; }
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }
WEFT=${WEFT_BUILD_DIR:?}/weft
HERE=$(cd "$(dirname "$0")" && pwd)

TMP=$(mktemp -d)
PIDS=()
cleanup () {
  for p in "${PIDS[@]}"; do kill -s "${UI_KILL_SIGNAL:-TERM}" "$p" 2>/dev/null || true; done
  [ -n "${WEFT_KEEP_TMP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT

export GDK_BACKEND=x11 GSK_RENDERER=cairo GTK_A11Y=none GSETTINGS_BACKEND=memory NO_AT_BRIDGE=1
export XDG_DATA_HOME=$TMP/data XDG_CONFIG_HOME=$TMP/config XDG_CACHE_HOME=$TMP/cache XDG_STATE_HOME=$TMP/state
export WEFT_COLOR_SCHEME=light
mkdir -p "$XDG_DATA_HOME" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME" "$XDG_STATE_HOME"
TIMEOUT=${WEFT_UI_TIMEOUT:-60}

ok () { echo "ok - $*"; }

# qfile FILE EXPR: evaluates a Python expression over the JSON d of FILE.
qfile () { python3 - "$1" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
v = eval(sys.argv[2], {"d": d})
print(int(v) if isinstance(v, bool) else v)
EOF
}

# wait_for_file FILE EXPR [what]: polls FILE until EXPR is true; fails when
# weft ($APP) exits or after TIMEOUT seconds.
wait_for_file () {
  local end=$((SECONDS + TIMEOUT))
  while [ $SECONDS -lt $end ]; do
    if [ -f "$1" ] && [ "$(qfile "$1" "$2" 2>/dev/null || echo 0)" = "1" ]; then return 0; fi
    kill -0 "$APP" 2>/dev/null || fail "weft exited while waiting for: ${3:-$2}"
    sleep 0.1
  done
  fail "timed out waiting for: ${3:-$2}"
}

# launch STATEFILE [ARGS...]: starts weft in the background with
# WEFT_TEST_STATE=STATEFILE (removed first; STATE is set to it), its output
# appended to $TMP/weft.log; APP is its pid. --new-instance: each launch
# is a process of its own even where a session bus would make a second
# weft open its window in the first (test-ui-unique.sh tests that).
launch () {
  STATE=$1; shift
  rm -f "$STATE"
  WEFT_TEST_STATE=$STATE "$WEFT" --new-instance "$@" >>"$TMP/weft.log" 2>&1 &
  APP=$!
  PIDS+=("$APP")
}

# window_id TITLE-REGEX: the id of a visible window so titled, waiting for
# it; of several, the first (UI_WINDOW_PICK=tail: the last) xdotool lists.
window_id () {
  local end=$((SECONDS + TIMEOUT)) wid=""
  while [ $SECONDS -lt $end ]; do
    wid=$(xdotool search --onlyvisible --name "$1" 2>/dev/null | "${UI_WINDOW_PICK:-head}" -1 || true)
    [ -n "$wid" ] && { echo "$wid"; return 0; }
    sleep 0.1
  done
  fail "no window titled '$1'"
}

# focus WID: gives the window the keyboard focus (then sleeps
# UI_FOCUS_SETTLE seconds where set).
focus () {
  xdotool windowfocus --sync "$1" 2>/dev/null || xdotool windowfocus "$1"
  [ -z "${UI_FOCUS_SETTLE:-}" ] || sleep "$UI_FOCUS_SETTLE"
}

# drag WID X0 Y0 X1 Y1: a real button-1 drag in small steps
drag () {
  local wid=$1 x0=$2 y0=$3 x1=$4 y1=$5 i
  xdotool mousemove --window "$wid" "$x0" "$y0" mousedown 1
  for i in 1 2 3 4 5 6 7 8 9 10; do
    xdotool mousemove --window "$wid" $((x0 + (x1 - x0) * i / 10)) $((y0 + (y1 - y0) * i / 10))
    sleep 0.03
  done
  sleep 0.2
  xdotool mouseup 1
}
