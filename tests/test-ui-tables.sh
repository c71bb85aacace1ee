#!/usr/bin/env bash
# The bottom panel's tables in the real `weft` under X (Xvfb), with real
# input (xdotool), on the simulated 8-rank FSDP2 step (../shared/traces):
#
#  1. Ctrl+J shows the panel; its collectives table lists the step's
#     instances (as many as `weft-cli analyze --json` for the same step);
#  2. clicks on the "Max wait" title sort by it, longest first; the top row
#     is the instance analyze reports with the longest wait, with the same
#     last-arriving rank;
#  3. a click on a row selects that rank's kernel in the timeline and
#     scrolls it into view;
#  4. the kernels page lists kernels by name; a drag on the ruler fills the
#     slices page with the slices of that range.
#
# Skips (77) without a display, xdotool, python3, the binaries or the traces.
set -euo pipefail

. "$(dirname "$0")/ui-lib.sh"
CLI=${WEFT_BUILD_DIR:?}/weft-cli
[ -x "$WEFT" ] && [ -x "$CLI" ] || { echo "weft / weft-cli not built: skipped"; exit 77; }
TRACE=${WEFT_TRACES_DIR:-$HERE/../../shared/traces}/synthetic/fsdp8/profiling/traces/iteration_10
[ -d "$TRACE" ] || { echo "no $TRACE: skipped"; exit 77; }

fail () { echo "FAIL: $*"; [ -f "${STATE:-/nonexistent}" ] && cat "$STATE"; [ -f "$TMP/weft.log" ] && cat "$TMP/weft.log"; exit 1; }
q () { qfile "$STATE" "$1"; }
wait_for () { wait_for_file "$STATE" "$@"; }
click () { xdotool mousemove --window "$WID" "$1" "$2" click 1; }

# A duration cell ("812 ns", "12.345 µs", "3.200 ms", "1.250 s") in ns
cat >"$TMP/dur.py" <<'PY'
import re
def ns(text):
    m = re.match(r"^(-?[0-9.]+) *(ns|µs|us|ms|s)$", text.strip())
    if not m:
        return None
    return float(m.group(1)) * {"ns": 1, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}[m.group(2)]
PY
qd () { python3 - "$STATE" "$1" <<'EOF2'
import json, sys
sys.path.insert(0, sys.argv[1].rsplit("/", 1)[0])
from dur import ns
d = json.load(open(sys.argv[1]))
v = eval(sys.argv[2], {"d": d, "ns": ns})
print(int(v) if isinstance(v, bool) else v)
EOF2
}

launch "$TMP/state.json" "$TRACE"
wait_for 'd["loaded"] and d["frames"] > 0 and "body" in d and "metrics" in d' "the trace is open"
WID=$(window_id "iteration_10.* — Weft")
focus "$WID"
[ "$(q 'd["tables"]["shown"]')" = 0 ] || fail "the tables are shown before Ctrl+J"
# the legend and whole lane labels at the default width
wait_for '"all-gather" in d["legend"] and "GEMM" in d["legend"] and d["legend_box"] is not None and d["legend_box"]["h"] > 0' "the colour legend"
wait_for 'any("fsdp reduce-scatter" in r["label"] for r in d["rows"]) and d["label_width"] > 0 and d["label_width"] <= d["header_width"]' "whole lane labels"
ok "legend ($(q 'len(d["legend"])') entries); the lane labels fit ($(q 'int(d["label_width"])') <= $(q 'int(d["header_width"])') px)"

# ---- 1. Ctrl+J: the collectives of the step ---------------------------------------
xdotool key ctrl+j
wait_for 'd["tables"]["shown"] and d["tables"]["page"] == "collectives" and len(d["tables"]["rows"]) > 3 and "Max wait" in d["tables"]["titles"]' "Ctrl+J shows the collectives table"
STEP=$(q 'd["metrics"]["step"]')
STEP_ARG=(); [ "$STEP" -ge 0 ] && STEP_ARG=(--step "$STEP")
"$CLI" analyze --json --top 100000 "${STEP_ARG[@]}" "$TRACE" >"$TMP/analyze.json"
N_CLI=$(python3 -c "import json; print(len(json.load(open('$TMP/analyze.json'))['collectives']))")
[ "$(q 'd["tables"]["n_rows"]')" = "$N_CLI" ] || fail "the table lists $(q 'd["tables"]["n_rows"]') collectives, analyze $N_CLI"
ok "Ctrl+J: the collectives table lists the step's $N_CLI instances (as weft-cli analyze)"

# ---- 2. sort by the longest wait ----------------------------------------------------
sorted_desc () { qd '(lambda w: len(w) > 3 and all(a >= b for a, b in zip(w, w[1:])) and w[0] > w[-1])([ns(r["cells"][6]) for r in d["tables"]["rows"]])'; }
for _ in 1 2 3; do
  T=$(q 'd["tables"]["titles"]["Max wait"]["x"] + d["tables"]["titles"]["Max wait"]["w"] // 2'),$(q 'd["tables"]["titles"]["Max wait"]["y"] + d["tables"]["titles"]["Max wait"]["h"] // 2')
  click "${T%,*}" "${T#*,}"
  sleep 0.5
  [ "$(sorted_desc)" = 1 ] && break
done
[ "$(sorted_desc)" = 1 ] || fail "clicking 'Max wait' does not sort by the longest wait: $(q '[r["cells"][6] for r in d["tables"]["rows"]]')"
read -r TOP_INST TOP_RANK < <(python3 -c "
import json
c = max(json.load(open('$TMP/analyze.json'))['collectives'], key=lambda c: (c['max_wait_us'], -c['instance']))
print(c['instance'], c['last_arriving_rank'])")
[ "$(q 'int(d["tables"]["rows"][0]["cells"][0])')" = "$TOP_INST" ] \
  || fail "top row $(q 'd["tables"]["rows"][0]["cells"]') is not analyze's longest wait, instance $TOP_INST"
[ "$(q 'int(d["tables"]["rows"][0]["cells"][7])')" = "$TOP_RANK" ] \
  || fail "top row's last rank $(q 'd["tables"]["rows"][0]["cells"]') != analyze's $TOP_RANK (instance $TOP_INST)"
ok "'Max wait' sorts longest first: $(q 'd["tables"]["rows"][0]["cells"][1]') #$(q 'd["tables"]["rows"][0]["cells"][0]') waits $(q 'd["tables"]["rows"][0]["cells"][6]'), rank $TOP_RANK last (as analyze)"

# ---- 3. a click selects the straggler's kernel and scrolls to it ----------------------
ROW=1
R_RANK=$(q "d['tables']['rows'][$ROW]['rank']"); R_EVENT=$(q "d['tables']['rows'][$ROW]['event']")
click "$(q "d['tables']['rows'][$ROW]['x'] + 10")" "$(q "d['tables']['rows'][$ROW]['y'] + d['tables']['rows'][$ROW]['h'] // 2")"
wait_for "d['selection'] is not None and d['selection']['rank'] == $R_RANK and d['selection']['event'] == $R_EVENT" "a click on the row selects rank $R_RANK's kernel"
wait_for '"selection_box" in d and d["selection_box"]["y"] >= d["body"]["y"] - 2 and d["selection_box"]["y"] + d["selection_box"]["h"] <= d["body"]["y"] + d["body"]["h"] + 2 and d["selection_box"]["x"] + d["selection_box"]["w"] >= d["body"]["x"] and d["selection_box"]["x"] <= d["body"]["x"] + d["body"]["w"]' "the selected kernel is scrolled into view"
ok "a click on row $ROW selects rank $R_RANK's $(q 'd["selection"]["name"][:40]') and shows it"

# ---- 4. kernels by name; the slices of a range ------------------------------------------------
T=$(q 'd["tables"]["titles"]["Kernels"]["x"] + 10'),$(q 'd["tables"]["titles"]["Kernels"]["y"] + d["tables"]["titles"]["Kernels"]["h"] // 2')
click "${T%,*}" "${T#*,}"
wait_for 'd["tables"]["page"] == "kernels" and len(d["tables"]["rows"]) > 3' "the kernels page"
qd '[r["cells"][:6] for r in d["tables"]["rows"][:3]]'
[ "$(qd 'all(ns(a["cells"][3]) >= ns(b["cells"][3]) for a, b in zip(d["tables"]["rows"], d["tables"]["rows"][1:]))')" = 1 ] \
  || fail "kernels are not by total, longest first"
ok "kernels page: $(q 'd["tables"]["n_rows"]') names, longest total first"
xdotool key Escape
T=$(q 'd["tables"]["titles"]["Slices in range"]["x"] + 10'),$(q 'd["tables"]["titles"]["Slices in range"]["y"] + d["tables"]["titles"]["Slices in range"]["h"] // 2')
click "${T%,*}" "${T#*,}"
wait_for 'd["tables"]["page"] == "slices" and d["tables"]["n_rows"] == 0' "the slices page, empty without a range"
BX=$(q 'd["body"]["x"]'); BY=$(q 'd["body"]["y"]'); BW=$(q 'd["body"]["w"]')
drag "$WID" $((BX + BW / 3)) $((BY - 12)) $((BX + BW / 2)) $((BY - 12))
wait_for 'd["range"] is not None and d["tables"]["n_rows"] > 0 and len(d["tables"]["rows"]) > 0' "a range fills the slices page"
ok "a drag on the ruler lists $(q 'd["tables"]["n_rows"]') slices of the range"

xdotool key ctrl+j
wait_for 'not d["tables"]["shown"]' "Ctrl+J hides the tables"
ok "Ctrl+J hides them again"
if grep -E "CRITICAL|WARNING|runtime error|AddressSanitizer" "$TMP/weft.log"; then
  fail "weft logged warnings or errors (above)"
fi
echo "all table checks passed"
