#!/usr/bin/env bash
# Explanations in the real `weft` under X (Xvfb), with real input (xdotool):
#
#  1. on the simulated FSDP2 step (../shared/traces): an all-gather picked
#     in the collectives table lists what it waits for and what waits on it;
#     a click on a cross-stream dependent (the compute op that needs the
#     gathered weights) selects that op, whose own list has the all-gather
#     as a cross-stream dependency: a click follows it back;
#  2. an op on the critical path says why, in words (the last-arriving rank
#     of its collective, or what its start waited for);
#  3. on a 2-rank sample with an all-reduce moved onto the compute stream
#     (as test-ui-edit.sh), dragging it down onto the NCCL stream updates the
#     metric chips while the button is still held (a shorter GPU span), and
#     releasing keeps the move.
#
# Skips (77) without a display, xdotool, python3, the binaries or the traces.
set -euo pipefail

. "$(dirname "$0")/ui-lib.sh"
CLI=${WEFT_BUILD_DIR:?}/weft-cli
[ -x "$WEFT" ] && [ -x "$CLI" ] || { echo "weft / weft-cli not built: skipped"; exit 77; }
TRACE=${WEFT_TRACES_DIR:-$HERE/../../shared/traces}/synthetic/fsdp8/profiling/traces/iteration_10

fail () { echo "FAIL: $*"; [ -f "${STATE:-/nonexistent}" ] && cat "$STATE"; [ -f "$TMP/weft.log" ] && cat "$TMP/weft.log"; exit 1; }
q () { qfile "$STATE" "$1"; }
wait_for () { wait_for_file "$STATE" "$@"; }
click () { xdotool mousemove --window "$WID" "$1" "$2" click 1; }

# reveal_edge PY-FILTER: scrolls the inspector (wheel over it) until the
# first edge button matching the filter (a Python expression over e) lies
# inside the inspector's box; prints its index.
reveal_edge () {
  local i idx
  # from the top of the pane
  xdotool mousemove --window "$WID" "$(q 'd["inspector_box"]["x"] + 40')" "$(q 'd["inspector_box"]["y"] + d["inspector_box"]["h"] // 2')"
  for i in $(seq 1 30); do xdotool click 4; done
  sleep 0.3
  for i in $(seq 1 40); do
    idx=$(q "next((k for k, e in enumerate(d['inspector_edges']) if ($1) and 'y' in e and e['y'] >= d['inspector_box']['y'] and e['y'] + e['h'] <= d['inspector_box']['y'] + d['inspector_box']['h']), -1)")
    if [ "$idx" != -1 ]; then
      # the state is written once the pane has settled: the same again later;
      # the pointer off the pane (no button's tooltip over the target)
      xdotool mousemove --window "$WID" 300 12
      local y0; y0=$(q "d['inspector_edges'][$idx]['y']")
      sleep 0.5
      [ "$(q "d['inspector_edges'][$idx]['y']")" = "$y0" ] && { echo "$idx"; return 0; }
      continue
    fi
    xdotool mousemove --window "$WID" "$(q 'd["inspector_box"]["x"] + 40')" "$(q 'd["inspector_box"]["y"] + d["inspector_box"]["h"] // 2')" click 5
    sleep 0.25
  done
  fail "no edge ($1) scrolled into view" >&2
}

# follow_edge PY-FILTER RANK EVENT: reveals the edge, clicks it and waits
# until (RANK, EVENT) is selected; tries again (the pane may still have been
# settling) up to 4 times.
follow_edge () {
  local try k end
  for try in 1 2 3 4; do
    k=$(reveal_edge "$1")
    click "$(q "d['inspector_edges'][$k]['x'] + 30")" "$(q "d['inspector_edges'][$k]['y'] + d['inspector_edges'][$k]['h'] // 2")"
    end=$((SECONDS + 5))
    while [ $SECONDS -lt $end ]; do
      [ "$(q "d['selection'] is not None and d['selection']['rank'] == $2 and d['selection']['event'] == $3")" = 1 ] && return 0
      sleep 0.2
    done
    echo "# the click on edge $k did not follow it (try $try)"
  done
  fail "clicking the edge ($1) does not select rank $2 event $3"
}

if [ -d "$TRACE" ]; then
  # ---- 1. both directions; a click follows an edge, and back ------------------------
  launch "$TMP/state.json" "$TRACE"
  wait_for 'd["loaded"] and d["frames"] > 0 and "body" in d' "the trace is open"
  WID=$(window_id "iteration_10.* — Weft")
  # room for the inspector's lists; again if the window's first configure
  # (late on a busy machine) undid it
  for try in 1 2 3 4 5; do
    xdotool windowsize "$WID" 1400 1150
    sleep 1
    [ "$(q 'd["height"] > 900')" = 1 ] && break
  done
  wait_for 'd["height"] > 900' "the window at 1400x1150"
  focus "$WID"
  xdotool key ctrl+j
  wait_for 'd["tables"]["shown"] and len(d["tables"]["rows"]) > 3' "the collectives table"
  # an all-gather: its gathered weights are what the compute stream waits for
  ROW=$(q '[i for i, r in enumerate(d["tables"]["rows"]) if r["cells"][1] == "all_gather"][1]')
  click "$(q "d['tables']['rows'][$ROW]['x'] + 10")" "$(q "d['tables']['rows'][$ROW]['y'] + d['tables']['rows'][$ROW]['h'] // 2")"
  wait_for 'd["selection"] is not None and any(e["dir"] == "succ" and e["kind"] == "cross-stream" for e in d["inspector_edges"]) and any(e["dir"] == "pred" for e in d["inspector_edges"])' "the all-gather lists what it waits for and what waits on it"
  A_RANK=$(q 'd["selection"]["rank"]'); A_EVENT=$(q 'd["selection"]["event"]')
  xdotool key ctrl+j   # the tables away: the inspector gets the height
  wait_for 'not d["tables"]["shown"]' "Ctrl+J hides the tables"
  ok "rank $A_RANK's all-gather: waits for $(q 'sum(e["dir"] == "pred" for e in d["inspector_edges"])') ops, $(q 'sum(e["dir"] == "succ" for e in d["inspector_edges"])') wait on it"
  K=$(q '[k for k, e in enumerate(d["inspector_edges"]) if e["dir"] == "succ" and e["kind"] == "cross-stream"][0]')
  T_RANK=$(q "d['inspector_edges'][$K]['rank']"); T_EVENT=$(q "d['inspector_edges'][$K]['event']")
  follow_edge "e['dir'] == 'succ' and e['kind'] == 'cross-stream' and e['rank'] == $T_RANK and e['event'] == $T_EVENT" "$T_RANK" "$T_EVENT"
  wait_for '"selection_box" in d' "the followed op is scrolled into view"
  ok "followed the cross-stream edge to $(q 'd["selection"]["name"][:50]') (rank $T_RANK)"
  # its long mangled name: one line, ellipsized, whole in the tooltip
  wait_for 'd["inspector_title"] is not None and d["inspector_title"]["tooltip"] == d["selection"]["name"] and d["inspector_title"]["w"] > 0' "the heading's tooltip is the whole name, and the heading laid out"
  [ "$(q 'len(d["selection"]["name"]) > 100 and d["inspector_title"]["ellipsized"] and d["inspector_title"]["h"] < 40 and d["inspector_title"]["x"] + d["inspector_title"]["w"] <= d["inspector_box"]["x"] + d["inspector_box"]["w"]')" = 1 ] \
    || fail "the heading of a $(q 'len(d["selection"]["name"])')-character name is not one ellipsized line: $(q 'd["inspector_title"]')"
  ok "the $(q 'len(d["selection"]["name"])')-character name's heading is one ellipsized line ($(q 'd["inspector_title"]["h"]') px), whole in its tooltip"
  wait_for "any(e['dir'] == 'pred' and e['kind'] == 'cross-stream' and e['rank'] == $A_RANK and e['event'] == $A_EVENT for e in d['inspector_edges'])" "the dependent lists the all-gather among what it waits for"
  follow_edge "e['dir'] == 'pred' and e['kind'] == 'cross-stream' and e['rank'] == $A_RANK and e['event'] == $A_EVENT" "$A_RANK" "$A_EVENT"
  ok "and back to the all-gather"

  # ---- 2. an op on the critical path says why -------------------------------------------
  xdotool key ctrl+j
  wait_for 'd["tables"]["shown"] and len(d["tables"]["rows"]) > 3' "the collectives table again"
  N=$(q 'len(d["tables"]["rows"])'); FOUND=""; OTHER=""
  for i in $(seq 0 $((N - 1))); do
    click "$(q "d['tables']['rows'][$i]['x'] + 10")" "$(q "d['tables']['rows'][$i]['y'] + d['tables']['rows'][$i]['h'] // 2")"
    R=$(q "d['tables']['rows'][$i]['rank']"); E=$(q "d['tables']['rows'][$i]['event']")
    wait_for "d['selection'] is not None and d['selection']['rank'] == $R and d['selection']['event'] == $E" "row $i selects its kernel"
    # a transfer on the path: its reason names the row's last-arriving rank
    if [ "$(q 'any("arrives last" in w for w in d["inspector_reasons"])')" = 1 ]; then FOUND=$i; break; fi
    # another segment of the op (its launch): the reason names the op's rank
    if [ -z "$OTHER" ] && [ "$(q 'len(d["inspector_reasons"]) > 0')" = 1 ]; then
      [ "$(q "all(w.startswith('rank %d' % d['selection']['rank']) for w in d['inspector_reasons'])")" = 1 ] \
        || fail "a reason does not start with the op's rank: $(q 'd["inspector_reasons"]')"
      OTHER="$(q 'd["inspector_reasons"][0]')"
    fi
  done
  [ -n "$FOUND$OTHER" ] || fail "no collective of the table is on the critical path with a reason"
  [ -n "$OTHER" ] && ok "critical-path reason (a launch): $OTHER"
  if [ -n "$FOUND" ]; then
    [ "$(q "any(('rank %d arrives last' % int(d['tables']['rows'][$FOUND]['cells'][7])) in w for w in d['inspector_reasons'])")" = 1 ] \
      || fail "the reason does not name the row's last-arriving rank: $(q 'd["inspector_reasons"]')"
    ok "critical-path reason (a transfer): $(q '[w for w in d["inspector_reasons"] if "arrives last" in w][0]')"
  fi
  kill "$APP"; wait "$APP" 2>/dev/null || true
else
  echo "no $TRACE: parts 1 and 2 skipped"
fi

# ---- 3. live chips while dragging to another stream -------------------------------------
"$CLI" sample "$TMP/sample" >/dev/null
echo '[{"op": "move_stream", "match": {"collective": "all_reduce", "nth": 1}, "stream": 7}]' >"$TMP/to7.json"
"$CLI" edit "$TMP/sample" --script "$TMP/to7.json" --out "$TMP/trace" >/dev/null
export WEFT_RESTORE=no
launch "$TMP/state2.json" "$TMP/trace"
wait_for 'd["loaded"] and d["frames"] > 0 and d["editable"] and "body" in d and "metrics" in d' "the sample is open and editable"
WID=$(window_id "trace — Weft")
focus "$WID"
xdotool mousemove --window "$WID" "$(q 'd["body"]["x"] + 50')" "$(q 'd["body"]["y"] + 50')"
xdotool key ctrl+f
sleep 0.3
xdotool type --delay 15 "ncclDevKernel_AllReduce"
wait_for 'd["selection"] is not None and "AllReduce" in d["selection"]["name"]' "Ctrl+F finds an all-reduce kernel"
for _ in $(seq 1 10); do
  [ "$(q 'd["selection"].get("stream")')" = 7 ] && break
  N=$(q '(d["selection"]["rank"], d["selection"]["event"])')
  xdotool key Return
  wait_for "(d['selection']['rank'], d['selection']['event']) != $N" "the next match"
done
[ "$(q 'd["selection"].get("stream")')" = 7 ] || fail "no all-reduce found on stream 7"
xdotool key Escape
sleep 0.3
xdotool key f
wait_for '"selection_box" in d and d["selection_box"]["w"] > d["body"]["w"] / 2' "F focuses the all-reduce"
RANK=$(q 'd["selection"]["rank"]')
GPU0=$(q 'd["metrics"]["gpu_span"]')
SX=$(q 'd["selection_box"]["x"] + d["selection_box"]["w"] // 2'); SY=$(q 'd["selection_box"]["y"] + d["selection_box"]["h"] // 2')
TY=$(q "[r for r in d['rows'] if r.get('stream') == 20 and r['rank'] == $RANK][0]['y'] + 8")
xdotool mousemove --window "$WID" "$SX" "$SY" mousedown 1
for i in 1 2 3 4 5 6 7 8 9 10; do
  xdotool mousemove --window "$WID" "$SX" $((SY + (TY - SY) * i / 10)); sleep 0.05
done
# the button is still held: the chips already show the move
wait_for "d['dragging'] and d['selection'] is not None and d['selection'].get('stream') == 20 and d['metrics']['gpu_span'] < $GPU0" "the chips show the shorter GPU span while the drag is held"
ok "while dragging onto stream 20: GPU span $GPU0 -> $(q 'd["metrics"]["gpu_span"]') ns (button still held)"
# back onto stream 7, still held: the move is taken back
xdotool mousemove --window "$WID" "$SX" $((SY + 2)); sleep 0.1; xdotool mousemove --window "$WID" "$SX" "$SY"
wait_for "d['dragging'] and d['selection'].get('stream') == 7 and d['metrics']['gpu_span'] == $GPU0" "back over stream 7 the chips show the trace as before"
ok "back over stream 7 (held): GPU span back to $GPU0 ns"
for i in 1 2 3 4 5 6 7 8 9 10; do
  xdotool mousemove --window "$WID" "$SX" $((SY + (TY - SY) * i / 10)); sleep 0.05
done
sleep 0.3
xdotool mouseup 1
wait_for "not d['dragging'] and d['modified'] and d['selection'].get('stream') == 20 and d['metrics']['gpu_span'] < $GPU0 and d['edits'] > 0" "released on stream 20: the move is kept"
ok "released on stream 20: one edit ($(q 'd["last_edit"]["op"]')), GPU span $(q 'd["metrics"]["gpu_span"]') ns"
xdotool key ctrl+z
wait_for "not d['modified'] and d['metrics']['gpu_span'] == $GPU0" "one Ctrl+Z undoes the whole drag"
ok "one Ctrl+Z undoes the whole drag"
if grep -E "CRITICAL|WARNING|runtime error|AddressSanitizer" "$TMP/weft.log"; then
  fail "weft logged warnings or errors (above)"
fi
echo "all explanation checks passed"
