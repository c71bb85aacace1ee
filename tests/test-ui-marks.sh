#!/usr/bin/env bash
# Marks and bookmarks in the real `weft` under X (Xvfb), with real keys
# (xdotool), on a 2-rank `weft-cli sample`:
#
#  1. M with an event selected marks its span; M again clears it;
#  2. M with a range dragged on the ruler marks the range;
#  3. Alt+1 / Alt+2 store two views; after zooming and panning, 1 and 2
#     bring each back (visible range and selection).
#
# Skips (77) without a display, xdotool, python3 or the binaries.
set -euo pipefail

. "$(dirname "$0")/ui-lib.sh"
CLI=${WEFT_BUILD_DIR:?}/weft-cli
[ -x "$WEFT" ] && [ -x "$CLI" ] || { echo "weft / weft-cli not built: skipped"; exit 77; }

fail () { echo "FAIL: $*"; [ -f "${STATE:-/nonexistent}" ] && cat "$STATE"; [ -f "$TMP/weft.log" ] && cat "$TMP/weft.log"; exit 1; }
q () { qfile "$STATE" "$1"; }
wait_for () { wait_for_file "$STATE" "$@"; }

"$CLI" sample "$TMP/trace" >/dev/null
export WEFT_RESTORE=no
launch "$TMP/state.json" "$TMP/trace"
wait_for 'd["loaded"] and d["frames"] > 0 and "body" in d' "the sample is open"
WID=$(window_id "trace — Weft")
focus "$WID"
BX=$(q 'd["body"]["x"]'); BY=$(q 'd["body"]["y"]'); BW=$(q 'd["body"]["w"]')

# ---- 1. M marks the selected event's span ----------------------------------------
xdotool mousemove --window "$WID" $((BX + 50)) $((BY + 50))
xdotool key ctrl+f
sleep 0.3
xdotool type --delay 15 "ncclDevKernel_AllReduce"
wait_for 'd["selection"] is not None and "AllReduce" in d["selection"]["name"]' "Ctrl+F selects an all-reduce"
xdotool key Escape
sleep 0.3
[ "$(q 'd["mark"] is None')" = 1 ] || fail "a mark before M"
xdotool key m
wait_for 'd["mark"] is not None and d["mark"]["begin"] == d["selection"]["start"] and d["mark"]["end"] == d["selection"]["end"]' "M marks the selected op's span"
ok "M marks the all-reduce: $(q 'd["mark"]["end"] - d["mark"]["begin"]') ns"
xdotool key m
wait_for 'd["mark"] is None' "M again clears the mark"
ok "M again clears it"

# ---- 2. M marks a range ---------------------------------------------------------------
drag "$WID" $((BX + BW / 4)) $((BY - 12)) $((BX + BW / 2)) $((BY - 12))
wait_for 'd["range"] is not None' "a range on the ruler"
xdotool key m
wait_for 'd["mark"] is not None and d["mark"] == d["range"]' "M marks the range"
ok "M marks the dragged range ($(q 'd["mark"]["end"] - d["mark"]["begin"]') ns)"
xdotool key Escape
wait_for 'd["range"] is None and d["mark"] is not None' "Escape clears the range, the mark stays"
ok "the mark stays when the range is cleared"

# ---- 3. bookmarks ----------------------------------------------------------------------------
xdotool key 0
sleep 0.3
V1=$(q '(d["visible"]["begin"], d["visible"]["end"])')
xdotool key alt+1
wait_for 'any(b["slot"] == 1 for b in d["bookmarks"])' "Alt+1 stores bookmark 1"
for _ in 1 2 3 4; do xdotool key w; done
xdotool key d
wait_for "(d['visible']['begin'], d['visible']['end']) != $V1" "W / D change the view"
V2=$(q '(d["visible"]["begin"], d["visible"]["end"])')
xdotool key alt+2
wait_for 'any(b["slot"] == 2 for b in d["bookmarks"])' "Alt+2 stores bookmark 2"
xdotool key a a
wait_for "(d['visible']['begin'], d['visible']['end']) not in ($V1, $V2)" "A pans to a third view"
xdotool key 1
wait_for "(d['visible']['begin'], d['visible']['end']) == $V1" "1 goes back to bookmark 1"
ok "1 goes back to bookmark 1 $V1"
xdotool key 2
wait_for "(d['visible']['begin'], d['visible']['end']) == $V2" "2 goes back to bookmark 2"
ok "2 goes back to bookmark 2 $V2"
if grep -E "CRITICAL|WARNING|runtime error|AddressSanitizer" "$TMP/weft.log"; then
  fail "weft logged warnings or errors (above)"
fi
echo "all mark checks passed"
