#!/usr/bin/env bash
# UI test of New from Template in the real `weft` binary under X (Xvfb):
# real key input with xdotool, checked through the state files the window
# (WEFT_TEST_STATE) and the template dialog (WEFT_TEST_STATE.template.json)
# write, see src/app/weft-window-teststate.c and src/app/weft-template-dialog.c.
#
#  1. Ctrl+Shift+N on the empty window opens the dialog; the default (FSDP,
#     dp 8) is composed, solved and previewed: 8 ranks, a step time, overlap
#     and exposed communication, a drawn preview; the screenshot of the
#     dialog is not blank;
#  2. dp 8 -> 4 (Alt+A, typed): the preview is recomposed for 4 ranks;
#  3. ticking EP on a dense model gives the composer's validation message
#     inline and disables Create; unticking clears it;
#  4. Create (Alt+R) opens the previewed step in the window as a new,
#     unsaved trace: 4 rank groups, solved metrics equal to the preview's,
#     no file behind it, not modified; the dialog is gone;
#  5. Apply a Strategy (Ctrl+Shift+A) on that trace: blocks found (4 + 4),
#     a degree that does not divide the ranks refused inline, TP x 2 applied
#     (one undo entry, longer step in the window), one Ctrl+Z undoes it; the
#     palette's Strategies section: a strategy's collective dragged onto a
#     GPU lane is inserted (then undone);
#  6. Ctrl+Shift+N on a window that shows a composed trace starts from its
#     parameters (the "weft" key: re-compose with changes), offers its kernel
#     times (its op shapes) and recomposes with them; Create pressed right
#     after a change waits for its preview, then opens the step in a new window (TP 2 x FSDP 4 = 8 ranks, title fsdp+tp-...);
#  7. Ctrl+S there asks for a folder (no file behind a new trace) and writes
#     rank0..7_trace.json.gz (the default format), which weft-cli info reads as 8 ranks;
#  8. Apply FSDP x 8 on a one-rank profile (data/samples) replicates it into a
#     new 8-rank trace in a new window, the Apply undoable there.
#
# Skips (77) without a display, xdotool, python3 or the binary.
set -euo pipefail

. "$(dirname "$0")/ui-lib.sh"
[ -x "$WEFT" ] || { echo "$WEFT not built: skipped"; exit 77; }
UI_WINDOW_PICK=tail   # of several windows so titled, the newest
UI_FOCUS_SETTLE=0.2

STATE=$TMP/state.json
TSTATE=$STATE.template.json
SHOT=$TMP/shot.png
TSHOT=$TMP/shot-template.png

fail () {
  echo "FAIL: $*"
  for f in "$STATE" "$TSTATE"; do [ -f "$f" ] && { echo "== $f"; cat "$f"; }; done
  [ -f "$TMP/weft.log" ] && { echo "== log"; cat "$TMP/weft.log"; }
  exit 1
}
q () { qfile "$@"; }            # q FILE EXPR
wait_for () { wait_for_file "$@"; }  # wait_for FILE EXPR [what]

WEFT_TEST_SCREENSHOT=$SHOT launch "$STATE"
wait_for "$STATE" 'd["page"] == "empty"' "the empty window"

# ---- 1. open the dialog: the default step is previewed ------------------------------
WID=$(window_id "^Weft$")
focus "$WID"
xdotool key ctrl+shift+n
TWID=$(window_id "^New from Template$")
wait_for "$TSTATE" 'd["open"] and d.get("preview") and d["preview"]["up_to_date"] and d["frames"] > 0' \
  "the default step composed and drawn"
[ "$(q "$TSTATE" 'd["preview"]["world"] == 8 and d["preview"]["n_ranks"] == 8')" = 1 ] || fail "default: 8 ranks expected"
[ "$(q "$TSTATE" 'd["preview"]["step_time"] > 0 and 0 < d["preview"]["overlap_pct"] <= 100 and 0 < d["preview"]["exposed_comm"] < d["preview"]["comm"] < d["preview"]["step_time"]')" = 1 ] \
  || fail "preview metrics out of range"
[ "$(q "$TSTATE" 'd["valid"] and d["create_sensitive"] and not d["error_shown"]')" = 1 ] || fail "default parameters should be valid"
[ "$(q "$TSTATE" 'd["preview"]["peak_memory_gib"] > 0 and d["preview"]["memory_over"] == (d["preview"]["peak_memory_gib"] > d["preview"]["device_memory_gib"]) and "Peak memory" in d["preview"]["memory_chip"] and ("c01c28" in d["preview"]["memory_chip"]) == d["preview"]["memory_over"]')" = 1 ] \
  || fail "preview peak memory: $(q "$TSTATE" 'd["preview"]')"
ok "preview peak memory $(q "$TSTATE" 'round(d["preview"]["peak_memory_gib"], 2)') GiB of $(q "$TSTATE" 'round(d["preview"]["device_memory_gib"], 1)') GiB (over: $(q "$TSTATE" 'd["preview"]["memory_over"]'))"
ok "default FSDP step: $(q "$TSTATE" 'd["preview"]["name"]'), step $(q "$TSTATE" 'd["preview"]["step_time"]') ns, overlap $(q "$TSTATE" 'round(d["preview"]["overlap_pct"], 1)') %, composed in $(q "$TSTATE" 'd["preview"]["compose_ms"]') ms"

wait_for "$TSTATE" 'd["screenshots"] >= 1' "a screenshot of the dialog"
read -r W H NCOL < <(python3 "$HERE/ui-pngstat.py" "$TSHOT")
[ "$W" -ge 700 ] && [ "$H" -ge 400 ] || fail "dialog screenshot is ${W}x${H}"
[ "$NCOL" -ge 50 ] || fail "dialog screenshot has only $NCOL colours (no preview drawn?)"
ok "dialog screenshot ${W}x${H} with $NCOL colours"

# ---- 2. dp 8 -> 4: recomposed ------------------------------------------------------------
focus "$TWID"
P0=$(q "$TSTATE" 'd["previews"]')
xdotool key alt+a ctrl+a
xdotool type 4
xdotool key Tab
wait_for "$TSTATE" "d['dp'] == 4 and d['previews'] > $P0 and d['preview']['up_to_date'] and d['preview']['world'] == 4" \
  "the preview recomposed for dp 4"
ok "dp 4: preview of $(q "$TSTATE" 'd["preview"]["n_ranks"]') ranks, step $(q "$TSTATE" 'd["preview"]["step_time"]') ns"
STEP4=$(q "$TSTATE" 'd["preview"]["step_time"]')
EXP4=$(q "$TSTATE" 'd["preview"]["exposed_comm"]')
MEM4=$(q "$TSTATE" 'd["preview"]["peak_memory_gib"]')

# ---- 3. an invalid combination is reported inline ----------------------------------------
xdotool key alt+e
wait_for "$TSTATE" 'not d["valid"] and d["error_shown"] and not d["create_sensitive"] and "MoE" in (d["error"] or "")' \
  "EP on a dense model is refused inline"
# beside Create, on screen at the default 1180x720, in the window's words
wait_for "$TSTATE" '"error_box" in d and "create_box" in d' "the explanation is laid out"
[ "$(q "$TSTATE" 'd["error_box"]["x"] + d["error_box"]["w"] <= d["create_box"]["x"] + 1 and d["error_box"]["y"] < d["create_box"]["y"] + d["create_box"]["h"] and d["create_box"]["y"] < d["error_box"]["y"] + d["error_box"]["h"] and d["error_box"]["y"] + d["error_box"]["h"] <= d["height"] and d["error_box"]["w"] > 50')" = 1 ] \
  || fail "the explanation is not beside Create: $(q "$TSTATE" '(d["error_box"], d["create_box"], d["width"], d["height"])')"
[ "$(q "$TSTATE" '"--" not in d["error_text"] and "MoE" in d["error_text"]')" = 1 ] || fail "the explanation names CLI flags: $(q "$TSTATE" 'd["error_text"]')"
ok "inline error: $(q "$TSTATE" 'd["error"]')"
ok "shown beside Create ($(q "$TSTATE" 'd["width"]')x$(q "$TSTATE" 'd["height"]')) as: $(q "$TSTATE" 'd["error_text"]')"
xdotool key alt+e
wait_for "$TSTATE" 'd["valid"] and not d["error_shown"] and d["create_sensitive"] and d["preview"]["up_to_date"]' \
  "unticking EP makes it valid again"
ok "unticked: valid again"

# ---- 4. Create opens it as a new unsaved trace ---------------------------------------------
xdotool key alt+r
wait_for "$STATE" 'd["loaded"] and d["n_groups"] == 4 and d["frames"] > 0 and "metrics" in d' "the composed step opens"
wait_for "$TSTATE" 'not d["open"]' "the dialog closes"
[ "$(q "$STATE" 'd["n_ranks"] == 4 and d["path"] is None and d["editable"] and not d["modified"]')" = 1 ] \
  || fail "expected an editable, unmodified 4-rank trace with no file behind it"
case "$(q "$STATE" 'd["title"]')" in "fsdp-llama3-8b-4ranks (new) — Weft") ;; *) fail "title: $(q "$STATE" 'd["title"]')" ;; esac
[ "$(q "$STATE" "d['metrics']['step_time'] == $STEP4")" = 1 ] || fail "step time differs from the preview ($STEP4)"
[ "$(q "$STATE" "d['metrics']['baseline_step_time'] == d['metrics']['step_time']")" = 1 ] || fail "a new trace has no edits yet"
wait_for "$STATE" "d['memory']['peak_gib'] == $MEM4" "the window's memory rows give the preview's peak ($MEM4 GiB)"
ok "Create: '$(q "$STATE" 'd["title"]')', $(q "$STATE" 'd["n_groups"]') rank groups, step $(q "$STATE" 'd["metrics"]["step_time"]') ns (preview $STEP4, exposed $EXP4)"

# ---- 5. Apply TP (degree 2) to the open trace, then undo it ----------------------------------
ASTATE=$STATE.apply.json
focus "$WID"
xdotool key ctrl+shift+a
AWID=$(window_id "^Apply a Strategy$")
wait_for "$ASTATE" 'd["open"] and d["valid"] and d["planned"] > 0' "the Apply dialog (FSDP, degree 4)"
case "$(q "$ASTATE" 'd["blocks"]')" in *"4 forward + 4 backward"*) ;; *) fail "blocks of the composed 4-layer step: $(q "$ASTATE" 'd["blocks"]')" ;; esac
focus "$AWID"
xdotool key alt+g ctrl+a
xdotool type 3
xdotool key Tab
wait_for "$ASTATE" 'not d["valid"] and not d["apply_sensitive"] and "divide" in (d["error"] or "")' "degree 3 on 4 ranks is refused inline"
ok "Apply: $(q "$ASTATE" 'd["blocks"]'); degree 3: $(q "$ASTATE" 'd["error"]')"
xdotool key alt+t alt+g ctrl+a
xdotool type 2
xdotool key Tab
wait_for "$ASTATE" 'd["valid"] and d["apply_sensitive"] and d["planned"] > 0' "TP degree 2 is valid"
xdotool key alt+a
wait_for "$ASTATE" 'd["applied"] == 1 and d["report"]["n_collectives"] > 0 and not d["apply_sensitive"]' "TP applied"
wait_for "$STATE" "d['can_undo'] and d['modified'] and d['metrics']['step_time'] > $STEP4" "the window shows the applied TP (longer step)"
ok "Apply TP x2: $(q "$ASTATE" 'd["report"]["n_collectives"]') collective instances in $(q "$ASTATE" 'd["report"]["n_groups"]') groups, step $(q "$ASTATE" 'd["report"]["step_before"]') -> $(q "$ASTATE" 'd["report"]["step_after"]') ns (window: $(q "$STATE" 'd["metrics"]["step_time"]'))"
xdotool key Escape
wait_for "$ASTATE" 'not d["open"]' "Escape closes the Apply dialog"
focus "$WID"
xdotool key ctrl+z
wait_for "$STATE" "not d['can_undo'] and d['metrics']['step_time'] == $STEP4" "one undo removes the whole Apply"
ok "Ctrl+Z: back to the composed step ($STEP4 ns)"

# the palette's Strategies section: drag the first strategy collective onto a lane
xdotool key ctrl+2
wait_for "$STATE" 'd["side_page"] == "palette" and len(d.get("palette_items", [])) > 0' "Ctrl+2 shows the palette"
xdotool mousemove --window "$WID" "$(q "$STATE" 'd["palette_items"][0]["x"] + 40')" "$(q "$STATE" 'd["palette_items"][0]["y"] + 5')"
for _ in $(seq 1 80); do xdotool click 5; done
sleep 0.3
xdotool key ctrl+2   # the state again, with the scrolled palette
wait_for "$STATE" "'palette_strategy_item' in d and d['body']['y'] < d['palette_strategy_item']['y'] < d['body']['y'] + d['body']['h'] - 20" \
  "the Strategies section scrolled into view"
PX=$(q "$STATE" 'd["palette_strategy_item"]["x"] + 40'); PY=$(q "$STATE" 'd["palette_strategy_item"]["y"] + d["palette_strategy_item"]["h"] // 2')
TY=$(q "$STATE" "[r for r in d['rows'] if r.get('stream') == 7 and r['rank'] == 1][0]['y'] + 8")
TX=$(q "$STATE" 'd["body"]["x"] + d["body"]["w"] // 2')
E0=$(q "$STATE" 'd["edits"]')
drag "$WID" "$PX" "$PY" "$TX" "$TY"
wait_for "$STATE" "d['edits'] == $E0 + 1 and d['last_edit']['op'] == 'insert_collective' and len(d['last_edit']['ranks']) == 4 and d['selection'] is not None and d['selection']['stream'] == 7" \
  "the strategy collective is inserted (on every rank of its group)"
ok "palette Strategies: dropped '$(q "$STATE" 'd["palette_strategy_item"]["payload"]')' on rank 1 stream 7: $(q "$STATE" 'd["selection"]["name"][:50]')"
xdotool key ctrl+z
wait_for "$STATE" "not d['can_undo'] and d['metrics']['step_time'] == $STEP4" "undo of the insert"

# ---- 6. from a window with a trace: a new window --------------------------------------------
WID=$(window_id "fsdp-llama3-8b-4ranks")
focus "$WID"
xdotool key ctrl+shift+n
TWID=$(window_id "^New from Template$")
wait_for "$TSTATE" 'd["open"] and d.get("preview") and d["preview"]["up_to_date"]' "the dialog again"
[ "$(q "$TSTATE" 'd["calibrate_available"] and d["calibrate_shapes"] > 0 and not d["calibrate"]')" = 1 ] \
  || fail "the open (composed) trace has op shapes: calibration should be offered"
wait_for "$TSTATE" 'd["preview"]["up_to_date"]' "the prefilled preview"
[ "$(q "$TSTATE" "d['prefilled'] and d['dp'] == 4 and d['preview']['world'] == 4 and d['preview']['step_time'] == $STEP4")" = 1 ] \
  || fail "the dialog should start from the open composed trace's parameters (dp 4, the same step: $STEP4 ns)"
ok "re-compose: the dialog starts from the open trace's parameters ($(q "$TSTATE" 'd["preview"]["name"]'))"
focus "$TWID"
P1=$(q "$TSTATE" 'd["previews"]')
xdotool key alt+i   # kernel times from the open trace
wait_for "$TSTATE" "d['calibrate'] and d['previews'] > $P1 and d['preview']['up_to_date']" "recomposed with the open trace's kernel times"
ok "kernel times from the open trace: $(q "$TSTATE" 'd["calibrate_shapes"]') op shapes, step $(q "$TSTATE" 'd["preview"]["step_time"]') ns"
xdotool key alt+t   # TP on (tp 2); dp 8 x tp 2 would be 16 ranks: dp 4 -> 8 ranks
xdotool key alt+a ctrl+a
xdotool type 4
xdotool key Tab
# Create at once, before the preview of the change is composed: it waits for it
xdotool key alt+r
NWID=$(window_id "fsdp\+tp-llama3-8b-8ranks")
[ -n "$NWID" ] || fail "no new window"
wait_for "$TSTATE" 'not d["open"]' "the dialog closes"
# the first window still shows its own trace (the state file is the last writer's: poll the title)
xdotool search --onlyvisible --name "fsdp-llama3-8b-4ranks" >/dev/null || fail "the first window lost its trace"
ok "from a window with a trace: FSDP x TP opens in a new window"

# ---- 7. Save (Ctrl+S) of a new trace asks for a folder and writes one file per rank ------------
SAVED=$TMP/saved
mkdir -p "$SAVED"
focus "$NWID"
xdotool key ctrl+s
FWID=$(window_id "Save the Trace into a Folder")
focus "$FWID"
sleep 0.5
xdotool key ctrl+l
sleep 0.3
xdotool type --delay 10 "$SAVED/"
sleep 0.3
xdotool key Return
end=$((SECONDS + TIMEOUT))
while [ ! -s "$SAVED/rank7_trace.json.gz" ] && [ $SECONDS -lt $end ]; do sleep 0.2; done
[ "$(ls "$SAVED" | grep -c "^rank[0-7]_trace.json.gz$")" = 8 ] || fail "Save did not write rank0..7_trace.json.gz (the default format) into $SAVED: $(ls "$SAVED")"
window_id "^saved — Weft$" >/dev/null
"$WEFT_BUILD_DIR/weft-cli" info "$SAVED" >"$TMP/info.txt" 2>&1 || { cat "$TMP/info.txt"; fail "weft-cli info cannot read the saved trace"; }
grep -q "ranks: 8," "$TMP/info.txt" || { cat "$TMP/info.txt"; fail "the saved trace does not have 8 ranks"; }
ok "Ctrl+S on the new trace: Save As a folder, 8 rank files, weft-cli info reads them; the window is now 'saved'"

kill "$APP"; wait "$APP" 2>/dev/null || true

# ---- 8. Apply on a one-rank profile: replicated into a new trace -----------------------------------
ONE=$(ls "${WEFT_SOURCE_DIR:?}"/data/samples/fsdp-llama3-8b/profiling/traces/iteration_*/rank0_trace.json* | head -1)
rm -f "$ASTATE"
launch "$STATE" "$ONE"
wait_for "$STATE" 'd["loaded"] and d["n_ranks"] == 1 and d["frames"] > 0' "the one-rank profile"
WID=$(window_id "^rank0_trace")
focus "$WID"
xdotool key ctrl+shift+a
AWID=$(window_id "^Apply a Strategy$")
wait_for "$ASTATE" 'd["open"] and d["valid"] and d["planned"] > 0' "the Apply dialog (FSDP x 8 on one rank)"
focus "$AWID"
xdotool key alt+a
NWID=$(window_id "fsdp x 8 \(new\)")
wait_for "$STATE" 'd["loaded"] and d["n_ranks"] == 8 and d["can_undo"] and d["metrics"]["step_time"] != d["metrics"]["baseline_step_time"]' \
  "the replicated 8-rank trace with FSDP applied (undoable)"
ok "Apply FSDP x 8 on a one-rank profile: a new window '$(q "$STATE" 'd["title"]')', step $(q "$STATE" 'd["metrics"]["baseline_step_time"]') -> $(q "$STATE" 'd["metrics"]["step_time"]') ns"
kill "$APP"; wait "$APP" 2>/dev/null || true
if grep -E "CRITICAL|WARNING|runtime error|AddressSanitizer" "$TMP/weft.log"; then
  fail "weft logged warnings or errors (above)"
fi
ok "no warnings or criticals in weft's log"
echo "all template UI checks passed"
