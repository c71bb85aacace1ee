#!/usr/bin/env bash
# bench-ui-drag: pointer-motion-to-frame latency while dragging a collective
# in the real `weft` (solver re-solve + redraw), on a generated 8-rank FSDP
# trace with >= 200k GPU ops. Run by hand (not by ctest):
#
#   xvfb-run -a -s "-screen 0 1920x1200x24 -noreset" bash tests/bench/bench-ui-drag.sh BUILD_DIR
#
# The window measures, for each pointer motion of an edit drag, the time from
# the drag-update event to the end of the frame that shows the re-solved
# schedule (GdkFrameClock after-paint), and reports them in WEFT_TEST_STATE.
# xdotool drives a real drag in 3 px steps. Prints n, median, p90 and max.
set -euo pipefail
BUILD=${1:-${WEFT_BUILD_DIR:-build}}
WEFT=$BUILD/weft
CLI=$BUILD/weft-cli
STEPS=${WEFT_BENCH_DRAG_STEPS:-120}
[ -n "${DISPLAY:-}" ] || { echo "no DISPLAY: run under xvfb-run"; exit 77; }
TMP=$(mktemp -d)
APP=""
trap '[ -n "$APP" ] && kill "$APP" 2>/dev/null; rm -rf "$TMP"' EXIT
export GDK_BACKEND=x11 GSK_RENDERER=${GSK_RENDERER:-cairo} GTK_A11Y=none GSETTINGS_BACKEND=memory NO_AT_BRIDGE=1
export XDG_DATA_HOME=$TMP/data XDG_CACHE_HOME=$TMP/cache WEFT_RESTORE=no
STATE=$TMP/state.json

q () { python3 -c "import json, sys; d = json.load(open('$STATE')); print($1)"; }
wait_for () {
  local end=$((SECONDS + 600))
  while [ $SECONDS -lt $end ]; do
    [ -f "$STATE" ] && [ "$(q "int($1)" 2>/dev/null || echo 0)" = 1 ] && return 0
    sleep 0.2
  done
  echo "timed out: $1"; exit 1
}

"$CLI" compose -s fsdp --dp 8 --layers 64 --steps 9 -o "$TMP/big" -q
N_OPS=$("$CLI" info --json "$TMP/big" | python3 -c "
import json, sys
d = json.load(sys.stdin)
cats = ('kernel', 'gpu_memcpy', 'gpu_memset')
print(sum(r['events_by_category'].get(c, 0) for r in d['ranks'] for c in cats))" 2>/dev/null || echo "?")
echo "trace: 8-rank FSDP (llama3-8b shapes, 64 layers, 9 steps), GPU ops: $N_OPS"

WEFT_TEST_STATE=$STATE "$WEFT" --new-instance "$TMP/big" >"$TMP/weft.log" 2>&1 &
APP=$!
wait_for 'd["loaded"] and d["frames"] > 0 and d["editable"] and "body" in d'
echo "loaded in $(q 'd["load_ms"]') ms, solved in $(q 'd["solve_ms"]') ms, first frame $(q 'd["first_frame_ms"]') ms after start"
WID=$(xdotool search --onlyvisible --name "big — Weft" | head -1)
xdotool windowfocus --sync "$WID" 2>/dev/null || true
xdotool mousemove --window "$WID" "$(q 'd["body"]["x"] + 40')" "$(q 'd["body"]["y"] + 40')"
xdotool key ctrl+f; sleep 0.3
xdotool type --delay 10 "ncclDevKernel_AllGather"
wait_for 'd["selection"] is not None and d["selection"].get("gpu_op")'
xdotool key Escape; sleep 0.3
xdotool key f
wait_for '"selection_box" in d and d["selection_box"]["w"] > d["body"]["w"] / 2'
for _ in 1 2 3 4 5 6 7 8; do xdotool key s; done
wait_for '"selection_box" in d and d["selection_box"]["w"] < d["body"]["w"] / 4'
SX=$(q 'd["selection_box"]["x"] + d["selection_box"]["w"] // 2'); SY=$(q 'd["selection_box"]["y"] + d["selection_box"]["h"] // 2')
xdotool mousemove --window "$WID" "$SX" "$SY" mousedown 1
for i in $(seq 1 "$STEPS"); do
  xdotool mousemove --window "$WID" $((SX + 3 * i)) "$SY"
  sleep 0.03
done
xdotool mouseup 1
wait_for '"drag_latency" in d and not d["dragging"]'
[ -n "${WEFT_BENCH_LOG:-}" ] && cp "$TMP/weft.log" "$WEFT_BENCH_LOG"
echo "drag of $(q 'd["selection"]["name"][:50]') on rank $(q 'd["selection"]["rank"]'), $STEPS motions of 3 px:"
echo "  motion -> frame latency: n $(q 'd["drag_latency"]["n"]'), median $(q '"%.1f" % d["drag_latency"]["median_ms"]') ms, p90 $(q '"%.1f" % d["drag_latency"]["p90_ms"]') ms, max $(q '"%.1f" % d["drag_latency"]["max_ms"]') ms"
