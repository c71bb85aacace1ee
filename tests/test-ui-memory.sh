#!/usr/bin/env bash
# The memory lane in the real `weft` under X (Xvfb) with real input
# (issue 14, item 2; docs/user-guide.md, "Memory"):
#
#  1. a composed 8-rank FSDP trace opens with a memory row per rank, drawn
#     with the peak `weft-cli analyze --json` reports;
#  2. prefetching an all-gather earlier: the first all-gather of the
#     backward on rank 0 waits for its copy-in kernel; Ctrl+F finds the
#     copy-ins, Right steps along rank 0's copy-in stream to that one and
#     Delete removes it (the all-gather then starts as early as its stream
#     allows): rank 0's peak rises to what `weft-cli edit --json` of the
#     same edit reports, and the row is drawn with it;
#     then that all-gather is dragged 40 ms later (0 fits the trace; a real
#     button drag): its buffer no longer overlaps the loss and the peak
#     falls back; Ctrl+Z gives the prefetched peak again;
#  3. Ctrl+Z gives the loaded peak back exactly; Shift+M hides the memory rows
#     and shows them again.
#
# Skips (77) without a display, xdotool, python3 or the binaries.
set -euo pipefail

. "$(dirname "$0")/ui-lib.sh"
CLI=${WEFT_BUILD_DIR:?}/weft-cli
[ -x "$WEFT" ] && [ -x "$CLI" ] || { echo "weft / weft-cli not built: skipped"; exit 77; }

fail () { echo "FAIL: $*"; [ -f "${STATE:-/nonexistent}" ] && cat "$STATE"; [ -f "$TMP/weft.log" ] && cat "$TMP/weft.log"; exit 1; }

q () { qfile "$STATE" "$1"; }

wait_for () { wait_for_file "$STATE" "$@"; }

"$CLI" compose -s fsdp --dp 8 -p llama3-8b --layers 4 --out "$TMP/fsdp" >/dev/null
TRACE=$TMP/fsdp/profiling/traces/iteration_10
PEAK=$("$CLI" analyze --json "$TRACE" | python3 -c "import json, sys; print(json.load(sys.stdin)['peak_memory_gib'])")
# the edit the window makes below, through the CLI: rank 0's 7th copy-in
# (stream 13), the one the first all-gather of the backward waits for
echo '[{"op": "delete", "match": {"rank": 0, "stream": 13, "nth": 6}}]' >"$TMP/prefetch.json"
"$CLI" edit "$TRACE" --script "$TMP/prefetch.json" --out "$TMP/edited" --json >"$TMP/edit.json"
EDITED=$(python3 -c "import json, sys; d = json.load(open(sys.argv[1])); assert d['before']['peak_memory_gib'] == $PEAK; print(d['after']['peak_memory_gib'])" "$TMP/edit.json")
EV=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['edits'][0]['event'])" "$TMP/edit.json")
python3 -c "import sys; sys.exit(0 if $EDITED > $PEAK else 1)" || fail "weft-cli edit: peak $PEAK -> $EDITED GiB, expected a rise"
ok "weft-cli: analyze peak $PEAK GiB; without the copy-in's wait (edit --json) $EDITED GiB"

# ---- 1. the memory rows, drawn with analyze's peak ----------------------------------
export WEFT_RESTORE=no
launch "$TMP/state.json" "$TRACE"
wait_for 'd["loaded"] and d["frames"] > 0 and d["editable"] and "body" in d and "memory" in d' "the trace is open"
WID=$(window_id "Weft")
focus "$WID"
xdotool mousemove --window "$WID" "$(q 'd["body"]["x"] + 50')" "$(q 'd["body"]["y"] + 50')"
xdotool key w   # a view change: the state is written after the frame that shows it
wait_for 'd["memory"]["rows_drawn"] > 0 and any(r["kind"] == "memory" for r in d["rows"])' "memory rows are drawn"
wait_for "abs(d['memory']['peak_gib'] - $PEAK) < 1e-9 and abs(d['memory']['drawn_peak_gib'] - $PEAK) < 1e-9" "the rows show analyze's peak"
[ "$(q 'len(d["memory"]["ranks"])')" = 8 ] || fail "expected a memory timeline per rank"
[ "$(q '[r["label"] for r in d["rows"] if r["kind"] == "memory"][0]')" = "GPU memory" ] || fail "memory row label"
ok "memory rows drawn ($(q 'd["memory"]["rows_drawn"]') in view), peak $(q 'd["memory"]["drawn_peak_gib"]') GiB = analyze"

# ---- 2. prefetch rank 0's first backward all-gather earlier -------------------------
xdotool key ctrl+f
sleep 0.3
xdotool type --delay 15 "TensorListMetadata<2>"
wait_for 'd["selection"] is not None and "TensorListMetadata<2>" in d["selection"]["name"]' "Ctrl+F finds a copy-in kernel"
for _ in $(seq 1 20); do
  [ "$(q 'd["selection"]["rank"] == 0 and d["selection"].get("stream") == 13')" = 1 ] && break
  N=$(q '(d["selection"]["rank"], d["selection"]["event"])')
  xdotool key Return
  wait_for "(d['selection']['rank'], d['selection']['event']) != $N" "the next match"
done
[ "$(q 'd["selection"]["rank"] == 0 and d["selection"].get("stream") == 13')" = 1 ] || fail "no copy-in of rank 0 found"
xdotool key Escape
sleep 0.3
# along rank 0's copy-in stream (written in time order) to the CLI's op
for _ in $(seq 1 12); do
  N=$(q 'd["selection"]["event"]')
  [ "$N" = "$EV" ] && break
  if [ "$N" -lt "$EV" ]; then xdotool key Right; else xdotool key Left; fi
  wait_for "d['selection']['event'] != $N" "Right / Left selects the next copy-in"
done
[ "$(q 'd["selection"]["event"]')" = "$EV" ] || fail "could not select event $EV on rank 0's copy-in stream"
ok "selected rank 0's 7th copy-in (event $EV), the one the first backward all-gather waits for"
xdotool key Delete
wait_for 'd["edits"] > 0 and d["can_undo"]' "Delete removes it"
wait_for "d['memory']['peak_gib'] > $PEAK + 0.1" "the peak rises"
[ "$(q "abs(d['memory']['peak_gib'] - $EDITED) < 1e-9")" = 1 ] || fail "window peak $(q 'd["memory"]["peak_gib"]') GiB != weft-cli edit's $EDITED GiB"
xdotool key s   # a view change after the repaint
wait_for "abs(d['memory']['drawn_peak_gib'] - $EDITED) < 1e-9" "the row is drawn with the new peak"
R0=$(q '[r["peak_gib"] for r in d["memory"]["ranks"] if r["rank"] == 0][0]')
ok "prefetched earlier: rank 0 peak $PEAK -> $R0 GiB (= weft-cli edit), drawn"

# ---- 2b. drag that all-gather back later: its buffer leaves the loss, the peak falls ---
AGEV=$(python3 -c 'import gzip, json, sys; ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]; print([i for i, e in enumerate(ev) if e.get("cat") == "kernel" and "AllGather" in e["name"]][6])' "$TRACE/rank0_trace.json.gz")
xdotool key ctrl+f
sleep 0.3
xdotool key ctrl+a
xdotool type --delay 15 "ncclDevKernel_AllGather"
wait_for 'd["selection"] is not None and "AllGather" in d["selection"]["name"]' "Ctrl+F finds an all-gather"
for _ in $(seq 1 20); do
  [ "$(q 'd["selection"]["rank"] == 0')" = 1 ] && break
  N=$(q '(d["selection"]["rank"], d["selection"]["event"])')
  xdotool key Return
  wait_for "(d['selection']['rank'], d['selection']['event']) != $N" "the next match"
done
xdotool key Escape
sleep 0.3
for _ in $(seq 1 12); do
  N=$(q 'd["selection"]["event"]')
  [ "$N" = "$AGEV" ] && break
  if [ "$N" -lt "$AGEV" ]; then xdotool key Right; else xdotool key Left; fi
  wait_for "d['selection']['event'] != $N" "Right / Left selects the next all-gather"
done
[ "$(q 'd["selection"]["event"]')" = "$AGEV" ] || fail "could not select rank 0's all-gather $AGEV"
xdotool key 0
wait_for '"selection_box" in d and d["visible"]["begin"] <= d["trace_span"]["begin"]' "0 fits the trace, the all-gather in view"
START=$(q 'd["selection"]["start"]')
SX=$(q 'd["selection_box"]["x"] + d["selection_box"]["w"] // 2'); SY=$(q 'd["selection_box"]["y"] + d["selection_box"]["h"] // 2')
DX=$(q 'int(40e6 * d["body"]["w"] / (d["visible"]["end"] - d["visible"]["begin"]))')   # 40 ms later
E0=$(q 'd["edits"]')
drag "$WID" "$SX" "$SY" $((SX + DX)) "$SY"
wait_for "d['edits'] > $E0 and d['selection']['start'] > $START + 30000000" "the drag moves the all-gather 30+ ms later"
wait_for "d['memory']['peak_gib'] < $EDITED - 0.1" "the peak falls back"
ok "dragged rank 0's all-gather $AGEV $(( ($(q 'd["selection"]["start"]') - START) / 1000 )) us later: peak $EDITED -> $(q 'd["memory"]["peak_gib"]') GiB"
xdotool key ctrl+z
wait_for "abs(d['memory']['peak_gib'] - $EDITED) < 1e-9" "Ctrl+Z undoes the drag: the prefetched peak again"

# ---- 3. undo; hide and show the rows --------------------------------------------------
xdotool key ctrl+z
wait_for "d['can_redo'] and d['memory']['peak_gib'] == $PEAK" "Ctrl+Z restores the loaded peak exactly"
xdotool key w
wait_for "d['memory']['drawn_peak_gib'] == $PEAK" "drawn with the loaded peak again"
ok "Ctrl+Z: peak $(q 'd["memory"]["peak_gib"]') GiB, as loaded"
xdotool key shift+m
wait_for 'not any(r["kind"] == "memory" for r in d["rows"])' "M hides the memory rows"
xdotool key shift+m
wait_for 'any(r["kind"] == "memory" for r in d["rows"])' "M shows them again"
ok "M hides and shows the memory rows"
[ "$(q 'd["n_errors"]')" = 0 ] || fail "an error was shown: $(q 'd["last_error"]')"
kill "$APP"; wait "$APP" 2>/dev/null || true
if grep -E "CRITICAL|WARNING|runtime error|AddressSanitizer" "$TMP/weft.log"; then
  fail "weft logged warnings or errors (above)"
fi
echo "all memory lane checks passed"
