#!/usr/bin/env bash
# The view follows the edited trace (issue 11, item 3), in the real `weft`
# under X (Xvfb) with real input:
#
#  1. a 2-rank sample opens fitted: the visible range is the trace's span;
#  2. an all-reduce is dragged to the right edge of the view: the step gets
#     longer, and the content span (what Fit, panning and the summary use)
#     now ends later than the trace as loaded;
#     Ctrl+S, and weft-cli analyze of the saved files gives the step, overlap,
#     exposed communication and critical path the window showed;
#  3. 0 (Fit) shows the whole edited trace, its new end included;
#  4. D (pan right) held down never pans past the content: something of the
#     trace stays in view.
#
# Skips (77) without a display, xdotool, python3 or the binaries.
set -euo pipefail

. "$(dirname "$0")/ui-lib.sh"
CLI=${WEFT_BUILD_DIR:?}/weft-cli
[ -x "$WEFT" ] && [ -x "$CLI" ] || { echo "weft / weft-cli not built: skipped"; exit 77; }

fail () { echo "FAIL: $*"; [ -f "${STATE:-/nonexistent}" ] && cat "$STATE"; [ -f "$TMP/weft.log" ] && cat "$TMP/weft.log"; exit 1; }

q () { qfile "$STATE" "$1"; }

wait_for () { wait_for_file "$STATE" "$@"; }

"$CLI" sample "$TMP/sample" >/dev/null
export WEFT_RESTORE=no
launch "$TMP/state.json" "$TMP/sample"
wait_for 'd["loaded"] and d["frames"] > 0 and d["editable"] and "body" in d and d["visible"] is not None' "the trace is open"
WID=$(window_id "sample — Weft")
focus "$WID"

# ---- 1. fitted as loaded ----------------------------------------------------------
xdotool mousemove --window "$WID" "$(q 'd["body"]["x"] + 50')" "$(q 'd["body"]["y"] + 50')"
xdotool key 0
wait_for 'd["visible"]["begin"] <= d["trace_span"]["begin"] and d["visible"]["end"] >= d["trace_span"]["end"]' "0 fits the trace"
END0=$(q 'd["trace_span"]["end"]')
ok "fitted: visible $(q 'd["visible"]') covers the trace span $(q 'd["trace_span"]')"

# ---- 2. an all-reduce dragged to the right edge: a longer step ------------------------
# the last all-reduce of rank 0, from the file (its time on the view's
# clock: baseTimeNanoseconds + ts; rank 0 is the clock reference)
AR=$(python3 - "$TMP/sample" <<'EOF'
import glob, json, sys
d = json.load(open(glob.glob(sys.argv[1] + "/**/rank0_trace.json", recursive=True)[0]))
base = int(d.get("baseTimeNanoseconds", 0))
ars = [e for e in d["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "kernel" and "AllReduce" in e["name"]]
last = max(ars, key=lambda e: float(e["ts"]))
print(base + int(round((float(last["ts"]) + float(last["dur"]) / 2) * 1000)), last["tid"])
EOF
)
read -r ARMID ARTID <<<"$AR"
SX=$(q "int(d['body']['x'] + ($ARMID - d['visible']['begin']) * d['body']['w'] / (d['visible']['end'] - d['visible']['begin']))")
SY=$(q "[r for r in d['rows'] if r.get('stream') == $ARTID and r['rank'] == 0][0]['y'] + 8")
TX=$(q 'd["body"]["x"] + d["body"]["w"] - 4')
drag "$WID" "$SX" "$SY" "$TX" "$SY"
wait_for "d['modified'] and d['can_undo'] and not d['dragging'] and d['trace_span']['end'] > $END0" "the drag makes the trace longer"
END1=$(q 'd["trace_span"]["end"]')
ok "dragged the all-reduce ($SX,$SY -> $TX,$SY): the content now ends $(( (END1 - END0) / 1000 )) us later"

# ---- what you save is what you saw: the window's Ctrl+S, then weft-cli analyze --------
wait_for '"metrics" in d' "the metrics bar has figures"
sleep 0.5
cp "$STATE" "$TMP/shown.json"
xdotool key ctrl+s
wait_for 'not d["modified"]' "Ctrl+S saves"
STEPN=$(qfile "$TMP/shown.json" 'd["metrics"]["step"]')
STEPARG=(); [ "$STEPN" -ge 0 ] 2>/dev/null && STEPARG=(--step "$STEPN")
"$CLI" analyze --json "${STEPARG[@]}" "$TMP/sample" >"$TMP/saved.json"
python3 - "$TMP/shown.json" "$TMP/saved.json" <<'EOF' || fail "the saved trace does not give the figures the window showed"
import json, sys
shown = json.load(open(sys.argv[1]))["metrics"]
w = json.load(open(sys.argv[2]))["whole"]
tol = max(1000, shown["step_time"] / 1000)   # ns: 0.1 % of the step
pairs = [("step_time", w["step_time_us"] * 1000), ("exposed_comm", w["exposed_communication_us"] * 1000),
         ("critical_path", w["critical_path_us"] * 1000)]
for key, saved in pairs:
    assert abs(shown[key] - saved) <= tol, (key, shown[key], saved)
assert abs(shown["overlap_pct"] - w["overlap_pct"]) <= 0.1, (shown["overlap_pct"], w["overlap_pct"])
print("ok - saved and reopened: step %.1f us, overlap %.2f %%, exposed %.1f us, critical path %.1f us as shown"
      % (w["step_time_us"], w["overlap_pct"], w["exposed_communication_us"], w["critical_path_us"]))
EOF

# ---- 3. Fit shows the edited trace -----------------------------------------------------
xdotool key 0
wait_for "d['visible']['begin'] <= d['trace_span']['begin'] and d['visible']['end'] >= $END1" "0 fits the edited trace, its new end included"
ok "fitted again: visible $(q 'd["visible"]') covers the edited span $(q 'd["trace_span"]')"
xdotool key Home
wait_for "d['visible']['end'] >= $END1" "Home fits the edited trace too"

# ---- 4. panning stops at the content ----------------------------------------------------
for _ in $(seq 1 40); do xdotool key d; done
sleep 1
wait_for 'd["visible"]["begin"] < d["trace_span"]["end"]' "D never pans past the end of the content"
ok "after 40 x D: visible $(q 'd["visible"]'), content ends at $(q 'd["trace_span"]["end"]')"
echo "test-ui-fit: passed"
