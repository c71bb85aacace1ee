#!/usr/bin/env bash
# UI test of Save As for a multi-rank trace in the real `weft` under X
# (Xvfb), driven with xdotool and checked through WEFT_TEST_STATE:
#
#  1. a 4-rank trace stored as .json.zst opens; Ctrl+Shift+S asks for a
#     folder and offers the format as a choice: json.gz (the default), json,
#     json.zst, the labels saying that HTA and Perfetto read .json and
#     .json.gz, not .json.zst;
#  2. accepting a new folder writes rank0..3_trace.json.gz (the default, not
#     the input's .json.zst), which weft-cli info reads as 4 ranks; no
#     recovery or temporary file is left beside the trace or in the folder.
#
# Skips (77) without a display, xdotool, python3 or the binaries.
set -euo pipefail

. "$(dirname "$0")/ui-lib.sh"
CLI=$WEFT_BUILD_DIR/weft-cli
[ -x "$WEFT" ] && [ -x "$CLI" ] || { echo "weft or weft-cli not built: skipped"; exit 77; }
UI_FOCUS_SETTLE=0.2
STATE=$TMP/state.json

fail () {
  echo "FAIL: $*"
  [ -f "$STATE" ] && { echo "== $STATE"; cat "$STATE"; }
  [ -f "$TMP/weft.log" ] && { echo "== log"; cat "$TMP/weft.log"; }
  exit 1
}
q () { qfile "$STATE" "$1"; }
wait_for () { wait_for_file "$STATE" "$@"; }

"$CLI" sample "$TMP/sample" --ranks 4 --layers 2 >/dev/null
"$CLI" convert "$TMP/sample/profiling/traces/iteration_1" "$TMP/trace" --format json.zst >/dev/null

# ---- 1. the format choice -------------------------------------------------------
launch "$STATE" "$TMP/trace"
wait_for 'd["loaded"] and d["frames"] > 0 and d["editable"]' "the 4-rank trace is open"
WID=$(window_id "trace — Weft")
focus "$WID"
xdotool key ctrl+shift+s
wait_for '"save_dialog" in d' "Save As opens"
[ "$(q 'd["save_dialog"]["folder"]')" = 1 ] || fail "Save As of a multi-rank trace does not ask for a folder"
[ "$(q 'd["save_dialog"]["formats"] == ["json.gz", "json", "json.zst"]')" = 1 ] \
  || fail "formats offered: $(q 'd["save_dialog"].get("formats")')"
[ "$(q 'd["save_dialog"]["format"]')" = "json.gz" ] || fail "default format $(q 'd["save_dialog"]["format"]'), expected json.gz"
[ "$(q '"not .json.zst" in d["save_dialog"]["format_labels"][2] and "HTA and Perfetto" in d["save_dialog"]["format_labels"][0]')" = 1 ] \
  || fail "the labels do not say which formats HTA and Perfetto read: $(q 'd["save_dialog"]["format_labels"]')"
ok "Save As offers json.gz (default), json, json.zst; the labels say HTA and Perfetto read .json and .json.gz"

# ---- 2. save into a new folder: the default format --------------------------------
SAVED=$TMP/saved
mkdir -p "$SAVED"
FWID=$(window_id "Save the Trace into a Folder")
focus "$FWID"
sleep 0.5
xdotool key ctrl+l
sleep 0.3
xdotool type --delay 10 "$SAVED/"
sleep 0.3
xdotool key Return
wait_for '"save_dialog" not in d' "the dialog closes"
end=$((SECONDS + TIMEOUT))
while [ ! -s "$SAVED/rank3_trace.json.gz" ] && [ $SECONDS -lt $end ]; do sleep 0.2; done
[ "$(ls -A "$SAVED" | tr '\n' ' ')" = "rank0_trace.json.gz rank1_trace.json.gz rank2_trace.json.gz rank3_trace.json.gz " ] \
  || fail "Save As wrote $(ls -A "$SAVED"), expected rank0..3_trace.json.gz only"
"$CLI" info "$SAVED" >"$TMP/info.txt" 2>&1 || { cat "$TMP/info.txt"; fail "weft-cli info cannot read the saved trace"; }
grep -q "ranks: 4," "$TMP/info.txt" || { cat "$TMP/info.txt"; fail "the saved trace does not have 4 ranks"; }
[ -z "$(ls -A "$TMP/trace" | grep -v '^rank[0-3]_trace.json.zst$' || true)" ] || fail "files beside the trace: $(ls -A "$TMP/trace")"
ok "Save As wrote rank0..3_trace.json.gz; weft-cli info reads 4 ranks; nothing left beside the trace"

kill "$APP"; wait "$APP" 2>/dev/null || true
if grep -E "CRITICAL|runtime error|AddressSanitizer" "$TMP/weft.log"; then
  fail "warnings in the log"
fi
echo "all Save As checks passed"
