#!/usr/bin/env bash
# UI test of the real `weft` binary under X (Xvfb): real pointer and key
# input with xdotool, checked through the state the window reports
# (WEFT_TEST_STATE, see src/app/weft-window-teststate.c).
#
#  1. the DLRM folder (8 ranks) opens with 8 rank groups and their stream
#     lanes; a screenshot is written and is not blank;
#  2. W/S zoom at the pointer, A/D pan, Ctrl+wheel zooms, wheel scrolls the
#     lanes, Shift+wheel pans, a drag on the ruler selects a range, F focuses
#     it, 0 fits all, Ctrl+F finds events by name, Esc clears, a click selects;
#  3. a bad file gives an error dialog naming the file and the byte offset,
#     the app keeps running, and opening a good file (Ctrl+O, typed path)
#     then works;
#  4. without a path the window starts empty and lists the recent trace.
#
# Skips (77) without a display, xdotool, python3, the binary or the traces.
set -euo pipefail

. "$(dirname "$0")/ui-lib.sh"
[ -x "$WEFT" ] || { echo "$WEFT not built: skipped"; exit 77; }
DLRM=${WEFT_TRACES_DIR:-}/param/et_replay/tests/inputs/dlrm_kineto
[ -d "$DLRM" ] || { echo "shared traces not found ($DLRM): skipped"; exit 77; }
export WEFT_TEST_SCREENSHOT=$TMP/shot.png   # every launch writes its screenshot there

fail () { echo "FAIL: $*"; [ -f "${STATE:-/nonexistent}" ] && cat "$STATE"; exit 1; }

# q EXPR: evaluates a Python expression over the state JSON d.
q () { qfile "$STATE" "$1"; }

# wait_for EXPR [what]: polls the state until EXPR is true.
wait_for () { wait_for_file "$STATE" "$@"; }

# ---- 1. the DLRM folder --------------------------------------------------------
launch "$TMP/state.json" "$DLRM"
wait_for 'd["loaded"] and d["frames"] > 0 and d["screenshots"] > 0 and "body" in d' "DLRM loaded, drawn, screenshot"
[ "$(q 'd["n_groups"]')" = 8 ] || fail "expected 8 rank groups"
[ "$(q 'sorted(g["rank"] for g in d["groups"]) == list(range(8))')" = 1 ] || fail "rank groups are not ranks 0..7"
[ "$(q 'all(g["gpu_lanes"] >= 2 and g["rows"] > g["gpu_lanes"] for g in d["groups"])')" = 1 ] \
  || fail "each rank should show its GPU stream lanes (compute and NCCL) plus its CPU row"
ok "8 rank groups with their stream lanes: $(q '[g["gpu_lanes"] for g in d["groups"]]')"

read -r W H NCOL < <(python3 "$HERE/ui-pngstat.py" "$TMP/shot.png")
[ "$W" -ge 800 ] && [ "$H" -ge 500 ] || fail "screenshot is ${W}x${H}"
[ "$NCOL" -ge 50 ] || fail "screenshot has only $NCOL colours (blank?)"
ok "screenshot ${W}x${H} with $NCOL distinct colours"

WID=$(window_id "dlrm_kineto — Weft")
focus "$WID"
BX=$(q 'd["body"]["x"]'); BY=$(q 'd["body"]["y"]'); BW=$(q 'd["body"]["w"]'); BH=$(q 'd["body"]["h"]')
PX=$((BX + BW / 2)); PY=$((BY + BH / 2))
xdotool mousemove --window "$WID" "$PX" "$PY"
sleep 0.2

span () { q 'd["visible"]["end"] - d["visible"]["begin"]'; }
V0B=$(q 'd["visible"]["begin"]'); V0E=$(q 'd["visible"]["end"]'); S0=$((V0E - V0B))
# time under the pointer before zooming
T0=$(q "d['visible']['begin'] + ($PX - d['body']['x']) * (d['visible']['end'] - d['visible']['begin']) / d['body']['w']")

# W zooms in at the pointer
xdotool key w
wait_for "d['visible']['end'] - d['visible']['begin'] < $S0" "W zooms in"
S1=$(span)
[ "$(q "0.7 < $S1 / $S0 < 0.9")" = 1 ] || fail "W: span $S0 -> $S1, expected about x0.8"
T1=$(q "d['visible']['begin'] + ($PX - d['body']['x']) * (d['visible']['end'] - d['visible']['begin']) / d['body']['w']")
[ "$(q "abs($T1 - $T0) < 0.01 * $S0")" = 1 ] || fail "W did not zoom at the pointer ($T0 -> $T1)"
ok "W zooms in at the pointer (span $S0 -> $S1 ns)"

# S zooms out
xdotool key s
wait_for "d['visible']['end'] - d['visible']['begin'] > $S1" "S zooms out"
ok "S zooms out (span -> $(span) ns)"

# D pans right, A pans left
B1=$(q 'd["visible"]["begin"]')
xdotool key d
wait_for "d['visible']['begin'] > $B1" "D pans right"
B2=$(q 'd["visible"]["begin"]')
[ "$(q "0.05 < ($B2 - $B1) / (d['visible']['end'] - d['visible']['begin']) < 0.5")" = 1 ] || fail "D panned by $((B2 - B1)) ns"
xdotool key a
wait_for "d['visible']['begin'] < $B2" "A pans left"
ok "D/A pan ($B1 -> $B2 -> $(q 'd["visible"]["begin"]'))"

# Ctrl+wheel zooms
S2=$(span)
xdotool keydown ctrl click 4 keyup ctrl
wait_for "d['visible']['end'] - d['visible']['begin'] < $S2" "Ctrl+wheel up zooms in"
ok "Ctrl+wheel zooms in (span $S2 -> $(span))"

# wheel scrolls the lanes; Shift+wheel pans
Y0=$(q 'd["scroll_y"]')
xdotool click 5
wait_for "d['scroll_y'] > $Y0" "wheel scrolls the lanes"
ok "wheel scrolls the lanes (scroll_y $Y0 -> $(q 'd["scroll_y"]'))"
B3=$(q 'd["visible"]["begin"]')
xdotool keydown shift click 5 keyup shift
wait_for "d['visible']['begin'] > $B3" "Shift+wheel pans"
ok "Shift+wheel pans"

# 0 fits everything again
xdotool key 0
wait_for "d['visible']['begin'] <= d['trace_span']['begin'] and d['visible']['end'] >= d['trace_span']['end']" "0 fits all"
ok "0 fits the whole trace"

# drag on the ruler selects a range
RY=$((BY - 12)); RX0=$((BX + BW / 4)); RX1=$((BX + BW / 2))
SPAN=$(span); VB=$(q 'd["visible"]["begin"]')
xdotool mousemove --window "$WID" "$RX0" "$RY" mousedown 1
for x in $(seq $((RX0 + 10)) 20 "$RX1") "$RX1"; do xdotool mousemove --window "$WID" "$x" "$RY"; sleep 0.02; done
xdotool mouseup 1
wait_for 'd["range"] is not None' "a range after dragging on the ruler"
EXP_B=$(q "$VB + ($RX0 - $BX) * $SPAN / $BW"); EXP_E=$(q "$VB + ($RX1 - $BX) * $SPAN / $BW")
[ "$(q "abs(d['range']['begin'] - $EXP_B) < 0.01 * $SPAN and abs(d['range']['end'] - $EXP_E) < 0.01 * $SPAN")" = 1 ] \
  || fail "range $(q 'd["range"]') is not the dragged pixels ($EXP_B..$EXP_E)"
[ "$(q 'd["inspector"]')" = "Range" ] || fail "the inspector does not show the range breakdown"
ok "drag on the ruler selects $(q 'd["range"]["end"] - d["range"]["begin"]') ns; the inspector shows its breakdown"

# F focuses the range
xdotool mousemove --window "$WID" "$PX" "$PY"
xdotool key f
wait_for "d['visible']['begin'] <= d['range']['begin'] and d['visible']['end'] >= d['range']['end'] and (d['visible']['end'] - d['visible']['begin']) < 1.5 * (d['range']['end'] - d['range']['begin'])" "F focuses the range"
ok "F focuses the range"
xdotool key Escape
wait_for 'd["range"] is None' "Esc clears the range"
ok "Esc clears the range"

# Ctrl+F search by name, next match, Esc
xdotool key ctrl+f
sleep 0.3
xdotool type --delay 20 "AllReduce"
wait_for 'd["selection"] is not None and "allreduce" in d["selection"]["name"].lower()' "Ctrl+F selects a match"
FIRST=$(q '(d["selection"]["rank"], d["selection"]["event"])')
xdotool key Return
wait_for "(d['selection']['rank'], d['selection']['event']) != $FIRST and 'allreduce' in d['selection']['name'].lower()" "Return goes to the next match"
ok "Ctrl+F finds '$(q 'd["selection"]["name"][:40]')', Return moves to the next match"
xdotool key Escape   # closes the search bar, focus back on the timeline
sleep 0.3
# F focuses the selected event: it fills most of the view
xdotool key f
wait_for '"selection_box" in d and d["selection_box"]["w"] > d["body"]["w"] / 2' "F focuses the selected event"
ok "F focuses the selected event"
SEL=$(q '(d["selection"]["rank"], d["selection"]["event"])')
SX=$(q 'd["selection_box"]["x"] + d["selection_box"]["w"] // 2'); SY=$(q 'd["selection_box"]["y"] + d["selection_box"]["h"] // 2')
xdotool key Escape
wait_for 'd["selection"] is None' "Esc clears the selection"
ok "Esc clears the selection"

# a click on the event's box selects it again
xdotool mousemove --window "$WID" "$SX" "$SY" click 1
wait_for "d['selection'] is not None and (d['selection']['rank'], d['selection']['event']) == $SEL" "a click selects the event"
[ "$(q 'd["inspector"] == d["selection"]["name"]')" = 1 ] || fail "the inspector does not show the clicked event"
ok "a click at ($SX,$SY) selects rank $(q 'd["selection"]["rank"]') '$(q 'd["selection"]["name"][:40]')'"

# keys reach the timeline wherever the focus is (here: moved off it with Tab)
xdotool key Tab Tab
sleep 0.3
xdotool key ctrl+shift+F12   # any state write: the focus is reported
sleep 0.5
[ "$(q 'd["focus"]')" != "WeftTimelineView" ] || fail "Tab did not move the focus off the timeline"
S3=$(span)
xdotool key w
wait_for "d['visible']['end'] - d['visible']['begin'] < $S3" "W zooms with the focus on $(q 'd["focus"]')"
ok "W zooms with the focus on a $(q 'd["focus"]')"

# Ctrl+Shift+F12 writes another screenshot
N=$(q 'd["screenshots"]')
xdotool key ctrl+shift+F12
wait_for "d['screenshots'] > $N" "screenshot on Ctrl+Shift+F12"
ok "screenshot after interaction"
# Ctrl+E exports the view as PNG through the file chooser
focus "$WID"
xdotool key ctrl+e
XWID=$(window_id "Export the View as png")
focus "$XWID"
sleep 0.5
xdotool key ctrl+a
xdotool type --delay 10 "$TMP/export-view.png"
xdotool key Return
end=$((SECONDS + TIMEOUT))
while [ ! -s "$TMP/export-view.png" ] && [ $SECONDS -lt $end ]; do sleep 0.2; done
[ -s "$TMP/export-view.png" ] || fail "Ctrl+E did not write $TMP/export-view.png"
sleep 0.5
read -r EW EH ENCOL < <(python3 "$HERE/ui-pngstat.py" "$TMP/export-view.png")
[ "$ENCOL" -ge 20 ] || fail "the exported PNG has only $ENCOL colours"
ok "Ctrl+E exports the view: ${EW}x${EH} PNG with $ENCOL colours"
kill "$APP"; wait "$APP" 2>/dev/null || true

# ---- 3. a bad file, then a good one -----------------------------------------------
BAD=$TMP/broken_trace.json
printf '{"schemaVersion": 1, "traceEvents": [\n  {"ph": "X", "name": "k", "ts": 1.0, "dur": 2, "pid": 0, "tid": 7},\n  {"ph": "X", "name": ' >"$BAD"
launch "$TMP/state-bad.json" "$BAD"
wait_for 'd["error_dialog_open"] and d["n_errors"] == 1' "an error dialog for the bad file"
ERR=$(q 'd["last_error"]')
case "$ERR" in *broken_trace.json*) ;; *) fail "the error does not name the file: $ERR" ;; esac
case "$ERR" in *byte*) ;; *) fail "the error does not give the byte offset: $ERR" ;; esac
[ "$(q 'd["page"]')" = "empty" ] || fail "the window should be back on the empty page"
ok "bad file: error dialog '$ERR'"
DWID=$(window_id "Weft error")
focus "$DWID"
xdotool key Return
wait_for 'not d["error_dialog_open"]' "the error dialog closes"
kill -0 "$APP" || fail "weft exited after the error"
ok "the dialog closes and the app keeps running"

GOOD=$(ls "$DLRM"/*.json | head -1)
MWID=$(window_id "^Weft$")
focus "$MWID"
xdotool key ctrl+o
FWID=$(window_id "Open Trace Files")
focus "$FWID"
sleep 0.5
xdotool type --delay 10 "$GOOD"
sleep 0.3
xdotool key Return
wait_for 'd["loaded"] and d["n_groups"] == 1 and d["frames"] > 0' "the good file opens after the error"
[ "$(q "d['path'] == '$GOOD'")" = 1 ] || fail "opened $(q 'd["path"]'), expected $GOOD"
ok "then Ctrl+O opens $(basename "$GOOD"): 1 rank group"
kill "$APP"; wait "$APP" 2>/dev/null || true

# ---- 3b. cancelling a load --------------------------------------------------------
WEFT_TEST_LOAD_DELAY_MS=20000 launch "$TMP/state-cancel.json" "$DLRM"
wait_for 'd["page"] == "loading" and d["loading"]' "the loading page with its progress bar"
CWID=$(window_id "Loading dlrm_kineto — Weft")
focus "$CWID"
xdotool key ctrl+period
wait_for 'not d["loading"] and d["page"] == "empty" and not d["loaded"]' "Ctrl+. cancels the load"
[ "$(q 'd["n_errors"]')" = 0 ] || fail "cancelling showed an error: $(q 'd["last_error"]')"
ok "Ctrl+. cancels a load: back on the empty page, no error"
kill "$APP"; wait "$APP" 2>/dev/null || true

# ---- 3c. the loading page while the solver is built -------------------------------------
# it says how long the phase has lasted, and it does not redraw on every frame (a pulsing
# bar did: on a software renderer that took most of a core from the load's threads)
WEFT_TEST_SOLVE_DELAY_MS=4000 launch "$TMP/state-solve.json" "$DLRM"
wait_for 'd["page"] == "loading" and d["progress_text"].startswith("Solving dependencies")' "the loading page while solving"
F1=$(q 'd["window_frames"]')
sleep 2
F2=$(q 'd["window_frames"]')
TEXT=$(q 'd["progress_text"]')
case "$TEXT" in "Solving dependencies… "[1-9]" s") ;; *) fail "the solving phase's label: $TEXT";; esac
[ $((F2 - F1)) -le 16 ] || fail "the loading page drew $((F2 - F1)) frames in 2 s of solving (<= 16 expected: 4 label updates a second)"
wait_for 'd["loaded"] and d["frames"] > 0' "the trace opens after the solve"
ok "solving: '$TEXT', $((F2 - F1)) window frames in 2 s"
kill "$APP"; wait "$APP" 2>/dev/null || true

# ---- 4. empty start with recent files ----------------------------------------------
launch "$TMP/state-empty.json"
wait_for 'd["page"] == "empty" and d["recent"] >= 1' "the empty page lists the recent trace"
[ "$(q 'd["title"]')" = "Weft" ] || fail "title of the empty window: $(q 'd["title"]')"
ok "no path: empty page, $(q 'd["recent"]') recent trace(s)"

# New from Template (Ctrl+Shift+N): the composer's default (FSDP, 8 ranks), Create opens it
EWID=$(window_id "^Weft$")
focus "$EWID"
xdotool key ctrl+shift+n
TWID=$(window_id "New from Template")
eval "$(xdotool getwindowgeometry --shell "$TWID")"   # WIDTH, HEIGHT of the dialog
for _ in $(seq 1 40); do
  # Create: the suggested button at the right end of the dialog's header bar
  xdotool mousemove --window "$TWID" $((WIDTH - 40)) 20 click 1 2>/dev/null || true
  sleep 0.5
  [ "$(q 'd["loaded"]')" = 1 ] && break
  kill -0 "$APP" 2>/dev/null || fail "weft exited"
done
wait_for 'd["loaded"] and d["n_groups"] == 8 and d["frames"] > 0' "the composed 8-rank FSDP step opens"
case "$(q 'd["title"]')" in fsdp-*) ;; *) fail "title of the composed trace: $(q 'd["title"]')" ;; esac
ok "New from Template: '$(q 'd["title"]')' with 8 rank groups"
kill "$APP"; wait "$APP" 2>/dev/null || true
if grep -E "CRITICAL|WARNING|runtime error|AddressSanitizer" "$TMP/weft.log"; then
  fail "weft logged warnings or errors (above)"
fi
ok "no warnings or criticals in weft's log"
echo "all UI checks passed"
