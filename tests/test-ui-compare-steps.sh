#!/usr/bin/env bash
# The compared step of each side of a comparison, in the real `weft` under X
# (Xvfb) with real input, on a real profile of six ProfilerSteps (HTA's
# trace_diff control) against the same profile with its GEMMs at half
# their time (`weft-cli edit`):
#
#  1. `weft --compare A B`: both sides offer their six steps and compare
#     the first, as the main view's metrics bar does; the summary and the
#     step chip are `weft-cli diff --step N --json`'s;
#  2. B's drop-down (a click, Home, Down three times, Return): B's third step against
#     A's first, the summary and the chip `weft-cli diff --step N --step-b
#     M`'s, and B's origin moves to that step's start;
#  3. both drop-downs to "whole trace": `weft-cli diff`'s default (the
#     whole traces);
#  4. `weft A`, its metrics bar's step drop-down to the fourth step, then
#     Compare with the Trace as Loaded (Ctrl+Shift+L): both sides compare
#     that step, not the first (the summary and the step times
#     `weft-cli diff A A --step N`'s).
# At each stage the sides' step times are the CLI's (to the ns).
#
# Skips (77) without a display, xdotool, python3, the binaries or the
# shared traces.
set -euo pipefail

. "$(dirname "$0")/ui-lib.sh"
CLI=${WEFT_BUILD_DIR:?}/weft-cli
[ -x "$WEFT" ] && [ -x "$CLI" ] || { echo "weft / weft-cli not built: skipped"; exit 77; }
A=${WEFT_TRACES_DIR:-}/HolisticTraceAnalysis/trace_diff/control/control.json.gz
[ -f "$A" ] || { echo "shared trace $A missing: skipped"; exit 77; }

fail () { echo "FAIL: $*"; [ -f "${STATE:-/nonexistent}" ] && cat "$STATE"; [ -f "$TMP/weft.log" ] && cat "$TMP/weft.log"; exit 1; }
q () { qfile "$STATE" "$1"; }
wait_for () { wait_for_file "$STATE" "$@"; }

echo '{"ops": [{"op": "scale", "class": "gemm", "factor": 0.5}]}' >"$TMP/half.json"
"$CLI" edit "$A" --script "$TMP/half.json" --out "$TMP/b" >/dev/null
B=$(ls "$TMP"/b/*)
STEPS=$("$CLI" analyze "$A" --json --top 0 | python3 -c 'import json,sys; print(" ".join(map(str, json.load(sys.stdin)["steps"])))')
read -r -a S <<<"$STEPS"
[ "${#S[@]}" -ge 4 ] || fail "the control trace has fewer than 4 steps: $STEPS"
# diff_field ARGS... : the summary of weft-cli diff --json ARGS
diff_field () {
  "$CLI" diff "$A" "$B" --json --top 0 "$@" | python3 -c 'import json, sys; print(json.load(sys.stdin)["summary"])'
}
# diff_times ARGS... : A's and B's step time (ns) of weft-cli diff --json ARGS, as a Python test of the state
diff_times () {
  "$CLI" diff "$A" "$B" --json --top 0 "$@" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("abs(%s[\"a\"][\"step_time\"] - %.0f) <= 1 and abs(%s[\"b\"][\"step_time\"] - %.0f) <= 1"
      % (sys.argv[1], d["a"]["step_time_us"] * 1000, sys.argv[1], d["b"]["step_time_us"] * 1000))' "$C"
}
C='d.get("compare", {})'

# ---- 1. the first step of each -------------------------------------------------------------
export WEFT_RESTORE=no
launch "$TMP/state.json" --compare "$A" "$B"
wait_for "d['page'] == 'compare' and $C['a']['frames'] > 0 and $C['b']['frames'] > 0 and 'step_drop' in $C['b']" \
  "the compare page with both timelines drawn"
[ "$(q "$C['a']['steps'] == [${STEPS// /, }] and $C['b']['steps'] == [${STEPS// /, }]")" = 1 ] \
  || fail "the sides do not offer the trace's steps ($STEPS): $(q "$C['a']['steps']") / $(q "$C['b']['steps']")"
[ "$(q "$C['a']['step'] == ${S[0]} and $C['b']['step'] == ${S[0]}")" = 1 ] \
  || fail "the sides do not compare the first step ${S[0]}: $(q "$C['a']['step']") / $(q "$C['b']['step']")"
WANT=$(diff_field --step "${S[0]}")
[ "$(q "$C['summary']")" = "$WANT" ] || fail "summary '$(q "$C['summary']")' is not weft-cli diff --step ${S[0]}'s '$WANT'"
WHOLE=$(diff_field)
[ "$WANT" != "$WHOLE" ] || fail "the first step's summary equals the whole trace's: the check could not tell them apart"
[ "$(q "$(diff_times --step "${S[0]}")")" = 1 ] || fail "step times $(q "$C['a']['step_time']") / $(q "$C['b']['step_time']") are not weft-cli diff --step ${S[0]}'s"
ok "both sides compare step ${S[0]} of $STEPS: $WANT"

# pick SIDE N: opens a side's drop-down with a click and picks its item N
# (0: the whole trace, 1: its first step) with the keyboard: Home (twice:
# the first key can go to focusing the list), N times Down, Return
pick () { pick_at "$C['$1']['step_drop']" "$2"; }
# pick_at BOX N: the same for the drop-down whose box (in the state) is the
# Python expression BOX
pick_at () {
  local x y
  x=$(q "$1['x'] + $1['w'] // 2")
  y=$(q "$1['y'] + $1['h'] // 2")
  xdotool mousemove --window "$WID" "$x" "$y" click 1
  sleep 0.5
  xdotool key Home
  sleep 0.2
  xdotool key Home
  for _ in $(seq "$2"); do xdotool key Down; done
  xdotool key Return
}
# ---- 2. B's third step, chosen with the mouse and the keyboard -------------------------------
WID=$(window_id "Weft")
focus "$WID"
ORIGIN_B=$(q "$C['b']['origin']")
pick b 3
wait_for "$C['b']['step'] == ${S[2]}" "B compares step ${S[2]}"
WANT=$(diff_field --step "${S[0]}" --step-b "${S[2]}")
wait_for "$C['summary'] == '''$WANT'''" "the summary of step ${S[0]} against ${S[2]}"
[ "$(q "$C['a']['step'] == ${S[0]} and $C['b']['origin'] > $ORIGIN_B")" = 1 ] \
  || fail "A's step changed or B's origin did not move on: A $(q "$C['a']['step']"), B origin $(q "$C['b']['origin']") (was $ORIGIN_B)"
[ "$(q "$(diff_times --step "${S[0]}" --step-b "${S[2]}")")" = 1 ] || fail "step times are not weft-cli diff's for ${S[0]} / ${S[2]}"
ok "B's drop-down: step ${S[0]} against ${S[2]}: $WANT"

# ---- 3. the whole traces ---------------------------------------------------------------------
pick a 0
wait_for "$C['a']['step'] is None and $C['b']['step'] == ${S[2]}" "A compares the whole trace"
pick b 0
wait_for "$C['b']['step'] is None" "B compares the whole trace"
wait_for "$C['summary'] == '''$WHOLE'''" "the summary of the whole traces"
[ "$(q "$(diff_times)")" = 1 ] || fail "step times are not weft-cli diff's for the whole traces"
ok "both drop-downs at the whole trace: $WHOLE"

# ---- 4. the main view's step carried into a comparison opened from the window --------------
kill "$APP" 2>/dev/null || true
wait "$APP" 2>/dev/null || true
launch "$TMP/state4.json" "$A"
wait_for "d['page'] == 'trace' and d.get('metrics', {}).get('step') == ${S[0]} and 'step_drop' in d['metrics']" \
  "the trace page, its metrics bar at the first step"
WID=$(window_id "Weft")
focus "$WID"
pick_at "d['metrics']['step_drop']" 4
wait_for "d['metrics']['step'] == ${S[3]}" "the metrics bar at step ${S[3]}"
xdotool key ctrl+shift+l
wait_for "d['page'] == 'compare' and $C['a']['frames'] > 0 and $C['b']['frames'] > 0" "the comparison with the trace as loaded"
[ "$(q "$C['a']['step'] == ${S[3]} and $C['b']['step'] == ${S[3]}")" = 1 ] \
  || fail "the comparison does not start at the main view's step ${S[3]}: $(q "$C['a']['step']") / $(q "$C['b']['step']")"
B=$A
WANT=$(diff_field --step "${S[3]}")
[ "$WANT" != "$(diff_field --step "${S[0]}")" ] || fail "steps ${S[0]} and ${S[3]} have the same summary: the check could not tell them apart"
wait_for "$C['summary'] == '''$WANT'''" "the summary of step ${S[3]}"
[ "$(q "$(diff_times --step "${S[3]}")")" = 1 ] || fail "step times are not weft-cli diff's for step ${S[3]}"
ok "the main view's step ${S[3]} opens the comparison at that step: $WANT"
