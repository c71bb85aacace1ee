#!/usr/bin/env bash
# Compare with the Trace as Loaded and New from Template's Create Compared in
# the real `weft` under X (Xvfb) with real input:
#
#  1. weft opens a composed FSDP step (llama3-8b, dp 4, 2 layers); a kernel
#     is deleted in the session (Ctrl+F, Delete), then Compare with the
#     Trace as Loaded (Ctrl+Shift+L): the kernel is of A (the files as
#     loaded) only, every other op matched, labels "(as loaded)" and
#     "(edited)";
#  2. New from Template in an empty window: Use as A (8 ranks), dp 4, Create
#     Compared: the two configurations compared (ranks 4-7 of A only), A
#     labelled with the kept configuration.
#
# Skips (77) without a display, xdotool, python3 or the binaries.
set -euo pipefail

. "$(dirname "$0")/ui-lib.sh"
CLI=${WEFT_BUILD_DIR:?}/weft-cli
[ -x "$WEFT" ] && [ -x "$CLI" ] || { echo "weft / weft-cli not built: skipped"; exit 77; }

fail () { echo "FAIL: $*"; [ -f "${STATE:-/nonexistent}" ] && cat "$STATE"; [ -f "$TMP/weft.log" ] && cat "$TMP/weft.log"; exit 1; }
q () { qfile "$STATE" "$1"; }
wait_for () { wait_for_file "$STATE" "$@"; }

"$CLI" compose -s fsdp --dp 4 -p llama3-8b --layers 2 --out "$TMP/fsdp" >/dev/null
MATCHED=$("$CLI" analyze "$TMP/fsdp" --json --top 0 | python3 -c 'import json,sys; print(json.load(sys.stdin)["graph"]["gpu_ops"])')

# ---- 1. Compare with the Trace as Loaded, after a delete ------------------------------------------
export WEFT_RESTORE=no
launch "$TMP/state.json" "$TMP/fsdp"
C='d.get("compare", {})'
wait_for 'd["loaded"] and d["frames"] > 0 and d["editable"] and "body" in d' "the trace is open and editable"
WID=$(window_id "fsdp — Weft")
focus "$WID"
xdotool mousemove --window "$WID" "$(q 'd["body"]["x"] + 50')" "$(q 'd["body"]["y"] + 50')"
xdotool key ctrl+f
sleep 0.3
xdotool type --delay 15 "flash_fwd"
wait_for 'd["selection"] is not None and "flash_fwd" in d["selection"]["name"]' "Ctrl+F finds a flash_fwd kernel"
xdotool key Escape
sleep 0.3
xdotool key Delete
wait_for 'd["modified"] and d["can_undo"]' "Delete removes it"
xdotool key ctrl+shift+l
wait_for "d['page'] == 'compare' and $C['a']['frames'] > 0 and $C['b']['frames'] > 0" "the comparison with the trace as loaded"
[ "$(q "$C['only_a'] == 1 and $C['only_b'] == 0 and $C['a']['n_only'] == 1 and $C['matched'] == $MATCHED - 1")" = 1 ] \
  || fail "after deleting one kernel: matched $(q "$C['matched']"), only in A $(q "$C['only_a']"), only in B $(q "$C['only_b']")"
[ "$(q "'(as loaded)' in $C['a']['label'] and '(edited)' in $C['b']['label']")" = 1 ] || fail "labels: $(q "$C['a']['label']") / $(q "$C['b']['label']")"
ok "as loaded against edited: $(q "$C['summary']")"
[ "$(q 'd["n_errors"]')" = 0 ] || fail "an error was shown: $(q 'd["last_error"]')"
kill "$APP" 2>/dev/null || true
wait "$APP" 2>/dev/null || true

# ---- 2. New from Template: Use as A, dp 8 -> 4, Create Compared ----------------------------------
launch "$TMP/state2.json"
TSTATE=$TMP/state2.json.template.json
wait_for 'd["page"] == "empty"' "the empty window"
WID=$(window_id "Weft")
focus "$WID"
xdotool key ctrl+shift+n
wait_for_file "$TSTATE" 'd["open"] and d.get("preview") and d["preview"]["up_to_date"] and d["keep_sensitive"]' "the template's preview"
TWID=$(window_id "^New from Template$")
focus "$TWID"
xdotool key alt+u
wait_for_file "$TSTATE" 'd["kept"] is not None and d["preview"] and d["preview"]["up_to_date"]' "Use as A"
KEPT=$(qfile "$TSTATE" 'd["kept"]')
xdotool key alt+a ctrl+a
xdotool type 4
xdotool key Tab
wait_for_file "$TSTATE" 'd["dp"] == 4 and d["preview"]["up_to_date"] and d["preview"]["world"] == 4' "the preview of dp 4"
xdotool key alt+r
wait_for "d['page'] == 'compare' and $C['a']['frames'] > 0 and $C['b']['frames'] > 0" "Create Compared opens both compared"
[ "$(q "$C['a']['n_ranks'] == 8 and $C['b']['n_ranks'] == 4 and $C['only_a'] > 0 and $C['only_b'] == 0 and $C['breakdown_rows'] == 8")" = 1 ] \
  || fail "template compare: ranks $(q "$C['a']['n_ranks']") / $(q "$C['b']['n_ranks']"), only $(q "$C['only_a']") / $(q "$C['only_b']")"
[ "$(q "$C['a']['label']")" = "$KEPT" ] || fail "A is not the kept configuration ($KEPT): $(q "$C['a']['label']")"
ok "New from Template, Keep as A ($KEPT) against dp 4: $(q "$C['summary']")"
echo "PASS"
