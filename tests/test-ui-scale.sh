#!/usr/bin/env bash
# The window opens a composed step at torchtitan's largest scale (issue 14,
# item 5), in the real `weft` under X (Xvfb):
#
#  1. FSDP 64 x TP 8 = 512 ranks (Llama-3-8B, one block), composed with the
#     real CLI, opens with every rank's group and draws frames;
#  2. its metric chips show what `weft-cli analyze --json` reports for the
#     same files and step (step time, exposed communication, critical path);
#  3. zooming in repaints (frames keep coming) and the view stays loaded.
#
# Load time and frame times at this size are figures, not assertions:
# docs/benchmarks.md. Skips (77) without a display, xdotool, python3 or the
# binaries.
set -euo pipefail

. "$(dirname "$0")/ui-lib.sh"
CLI=${WEFT_BUILD_DIR:?}/weft-cli
[ -x "$WEFT" ] && [ -x "$CLI" ] || { echo "weft / weft-cli not built: skipped"; exit 77; }

fail () { echo "FAIL: $*"; [ -f "${STATE:-/nonexistent}" ] && head -c 3000 "$STATE"; [ -f "$TMP/weft.log" ] && tail -20 "$TMP/weft.log"; exit 1; }

q () { qfile "$STATE" "$1"; }

wait_for () { wait_for_file "$STATE" "$@"; }

"$CLI" compose -q -s fsdp,tp --dp 64 --tp 8 -p llama3-8b --layers 1 --out "$TMP/c512"
ok "composed 512 ranks"

export WEFT_RESTORE=no
TIMEOUT=${TIMEOUT:-240}
launch "$TMP/state.json" "$TMP/c512"
wait_for 'd["loaded"] and d["frames"] > 0 and "metrics" in d' "the 512-rank trace is open and drawn"

# ---- 1. every rank ----------------------------------------------------------------------
[ "$(q 'd["n_ranks"]')" = 512 ] || fail "expected 512 ranks, the window has $(q 'd["n_ranks"]')"
[ "$(q 'sorted(g["rank"] for g in d["groups"]) == list(range(512))')" = 1 ] || fail "not every rank has its group"
ok "512 rank groups"

# ---- 2. the chips = analyze -------------------------------------------------------------------
STEP=$(q 'd["metrics"]["step"]')
if [ "$STEP" -ge 0 ]; then
  "$CLI" analyze --json --step "$STEP" "$TMP/c512" >"$TMP/analyze.json"
else
  "$CLI" analyze --json "$TMP/c512" >"$TMP/analyze.json"
fi
python3 - "$STATE" "$TMP/analyze.json" <<'PY' || fail "the chips do not show analyze's figures"
import json, sys
m = json.load(open(sys.argv[1]))["metrics"]
w = json.load(open(sys.argv[2]))["whole"]
for chip, field in (("step_time", "step_time_us"), ("exposed_comm", "exposed_communication_us"),
                    ("critical_path", "critical_path_us")):
    shown, want = m[chip] / 1000.0, w[field]
    assert abs(shown - want) <= max(0.001 * abs(want), 0.01), (chip, shown, field, want)
    print("ok - chip %s %.1f us = analyze whole.%s %.1f us" % (chip, shown, field, want))
PY

# ---- 3. zoom in: frames keep coming -------------------------------------------------------
F0=$(q 'd["frames"]')
WID=$(window_id "c512")
focus "$WID"
xdotool key w w w
wait_for "d[\"frames\"] > $F0 and d[\"loaded\"]" "frames after zooming in"
ok "zoomed in: $(q 'd["frames"]') frames"

echo "test-ui-scale: passed"
