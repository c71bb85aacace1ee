#!/usr/bin/env bash
# Microbatches and schedules of a composed pipeline in the real `weft`
# under X (Xvfb), driven with xdotool (issue 17, item 3):
#
#  1. a composed PP step (pp 4, 8 layers, 8 microbatches, 1F1B) opens with the
#     Schedule menu shown (its parameters read from the files' "weft" key);
#     P (real key) turns on the colour by
#     microbatch: in screenshots, the forward GEMMs of microbatches 0..3 of
#     rank 0 have one colour before and four different colours after, each
#     the painter's hue of its microbatch; the legend lists the
#     microbatches instead of the compute classes;
#  2. the Schedule menu (a real click, then the keyboard) composes the same
#     step under another schedule and opens the compare page, A the trace,
#     B the new schedule: what it shows is `weft-cli diff --json`'s (summary, matched and one-side counts, the four chips' A and
#     B values) for the same two steps composed by the CLI; keys on the
#     compare page move A's view and never the hidden main view;
#  3. New from Template with PP (real keys: FSDP off, PP on, 2 stages,
#     micro-batch 4 = 4 microbatches, 1F1B): the preview has a bubble chip;
#     the created trace's bubble chip equals `weft-cli analyze --json`'s
#     bubble_pct of the same step composed by the CLI (the same composer
#     parameters: the dialog's against the files' "weft" key).
#
# Skips (77) without a display, xdotool, python3 or the binaries.
set -euo pipefail

. "$(dirname "$0")/ui-lib.sh"
CLI=${WEFT_BUILD_DIR:?}/weft-cli
[ -x "$WEFT" ] && [ -x "$CLI" ] || { echo "weft / weft-cli not built: skipped"; exit 77; }

fail () { echo "FAIL: $*"; [ -f "${STATE:-/nonexistent}" ] && head -c 3000 "$STATE"; [ -f "$TMP/weft.log" ] && cat "$TMP/weft.log"; exit 1; }
q () { qfile "$STATE" "$1"; }
wait_for () { wait_for_file "$STATE" "$@"; }
shot () {
  local n
  n=$(q 'd["screenshots"]')
  xdotool key ctrl+shift+F12
  wait_for "d[\"screenshots\"] > $n" "screenshot $1"
  cp "$TMP/shot.png" "$TMP/$1.png"
  cp "$STATE" "$TMP/$1.json"   # where the ops were in that picture
}

COMPOSE=(-q -s pp --pp 4 -p llama3-8b --layers 8 --mbs 8)
"$CLI" compose "${COMPOSE[@]}" --out "$TMP/a"
A=$(echo "$TMP"/a/profiling/traces/iteration_*)

export WEFT_RESTORE=no WEFT_TEST_SCREENSHOT=$TMP/shot.png
TIMEOUT=${TIMEOUT:-90}
launch "$TMP/state.json" "$A"
wait_for 'd["loaded"] and d["frames"] > 0 and d["pipeline_ui"]["composed"]' "the composed trace is open with its schedule menu"
WID=$(window_id "$(q 'd["title"]')")
focus "$WID"
# zoom (Ctrl+wheel at the pointer) into the first ~6 %: rank 0's forwards
# of microbatches 0..3 come first under 1F1B
BX=$(q 'd["body"]["x"] + 12')
BY=$(q 'd["body"]["y"] + 40')
xdotool mousemove --window "$WID" "$BX" "$BY"
xdotool keydown ctrl
for _ in $(seq 1 12); do xdotool click 4; sleep 0.05; done
xdotool keyup ctrl
xdotool mousemove --window "$WID" 5 5
wait_for 'len(d["pipeline_ui"]["probes"]) == 4' "forward GEMMs of microbatches 0..3 of rank 0 in view"

# ---- 1. colour by microbatch -----------------------------------------------------------
[ "$(q 'd["pipeline_ui"]["schedule"]')" = 1f1b ] || fail "the menu does not know the trace's schedule"
[ "$(q 'not d["pipeline_ui"]["color_microbatch"]')" = 1 ] || fail "colour by microbatch is on at start"
[ "$(q '"GEMM" in d["legend"]')" = 1 ] || fail "the legend has no compute classes"
# the critical path's outline (C) off: the fills alone
xdotool key c
sleep 0.3
shot off
xdotool key p
wait_for 'd["pipeline_ui"]["color_microbatch"] and "microbatch 0" in d["legend"]' "colour by microbatch on (P)"
shot on
[ "$(q '"GEMM" not in d["legend"] and "microbatch 7" in d["legend"] and "microbatch 8" not in d["legend"] and "send / recv" in d["legend"]')" = 1 ] \
  || fail "the legend does not list the 8 microbatches: $(q 'd["legend"]')"
python3 - "$TMP" "$HERE/ui-contrast.py" <<'PY' || fail "the ops are not coloured by microbatch"
import collections, importlib.util, json, sys
spec = importlib.util.spec_from_file_location("c", sys.argv[2]); c = importlib.util.module_from_spec(spec); spec.loader.exec_module(c)
tmp = sys.argv[1]
probes = {k: json.load(open("%s/%s.json" % (tmp, k)))["pipeline_ui"]["probes"] for k in ("off", "on")}
assert [p["event"] for p in probes["off"]] == [p["event"] for p in probes["on"]], probes
pngs = {}
def mode(png, p):
    if png not in pngs:
        pngs[png] = c.decode(png)
    w, h, bpp, rows = pngs[png]
    cnt = collections.Counter()
    for y in range(p["y"] + 12, p["y"] + p["h"] - 1):
        for x in range(p["x"] + 2, p["x"] + p["w"] - 2):
            cnt[tuple(rows[y][x * bpp:x * bpp + 3])] += 1
    return cnt.most_common(1)[0][0]
off = [mode(tmp + "/off.png", p) for p in probes["off"]]
on = [mode(tmp + "/on.png", p) for p in probes["on"]]
assert len(set(off)) == 1, ("the GEMMs differ without the mode", off)
assert len(set(on)) == 4, ("microbatches share a colour", on)
assert off[0] not in on, (off, on)
# Tableau 10's first four hues, forward: 45 % towards the white background
hues = [0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2]
for p, got in zip(probes["on"], on):
    h = hues[p["microbatch"]]
    want = [((h >> s) & 255) + (255 - ((h >> s) & 255)) * 0.45 for s in (16, 8, 0)]
    assert all(abs(g - w) <= 3 for g, w in zip(got, want)), (p["microbatch"], got, want)
print("ok - forward GEMMs of microbatches 0..3: one colour %s without the mode, %s with it" % (off[0], on))
PY

# ---- 2. switch the schedule: compare ---------------------------------------------------------
X=$(q 'd["pipeline_ui"]["button"]["x"] + d["pipeline_ui"]["button"]["w"] // 2')
Y=$(q 'd["pipeline_ui"]["button"]["y"] + d["pipeline_ui"]["button"]["h"] // 2')
FIRST=$(q 'd["pipeline_ui"]["items"][0]')
xdotool mousemove --window "$WID" "$X" "$Y" click 1
sleep 0.5
xdotool key Down Return
wait_for '"compare" in d and d["pipeline_ui"]["switches"] > 0 and d["compare"]["a"]["frames"] > 0 and d["compare"]["b"]["frames"] > 0' "the compare page with the other schedule"
SCHED=$(q 'd["compare"]["b"]["label"].split(" · ")[-1]')
case " $(q '" ".join(d["pipeline_ui"]["items"])') " in *" $SCHED "*) ;; *) fail "B is not a schedule of the menu: $SCHED";; esac
[ "$SCHED" != 1f1b ] || fail "B has the trace's own schedule"
ok "Schedule menu (click, Down, Return): A 1f1b above B $SCHED (first item $FIRST)"
"$CLI" compose "${COMPOSE[@]}" --pp-schedule "$SCHED" --out "$TMP/b"
B=$(echo "$TMP"/b/profiling/traces/iteration_*)
"$CLI" diff "$A" "$B" --json >"$TMP/diff.json"
python3 - "$STATE" "$TMP/diff.json" <<'PY' || fail "the compare page does not show weft-cli diff's figures"
import json, sys
c = json.load(open(sys.argv[1]))["compare"]
d = json.load(open(sys.argv[2]))
assert c["summary"] == d["summary"], (c["summary"], d["summary"])
assert c["matched"] == d["matched"]["total"] and c["only_a"] == d["unmatched"]["a"]["total"] \
    and c["only_b"] == d["unmatched"]["b"]["total"], (c, d["matched"], d["unmatched"])
chips = dict(l.split(": ", 1) for l in c["chips"].splitlines())
def us(text):
    v, unit = text.strip().split(" ")[:2]
    return float(v) * {"ns": 1e-3, "µs": 1, "us": 1, "ms": 1e3, "s": 1e6}[unit]
def pair(chip):
    a, b = chip.split(" -> ")
    return a, b.split(" (")[0]
for chip, key in (("Step", "step_time_us"), ("Exposed comm", "exposed_communication_us"),
                  ("Critical path", "critical_path_us")):
    a, b = pair(chips[chip])
    for text, side in ((a, "a"), (b, "b")):
        want = d[side][key]
        assert abs(us(text) - want) <= max(1.0, want * 1e-3), (chip, side, text, want)
a, b = pair(chips["Overlap"])
assert abs(float(a.split()[0]) - d["a"]["overlap_pct"]) <= 0.05 and abs(float(b.split()[0]) - d["b"]["overlap_pct"]) <= 0.05, chips
print("ok - compare page = weft-cli diff --json: %s; %s" % (d["summary"], "; ".join(c["chips"].splitlines())))
PY
shot compare
MAIN_SPAN=$(q '(d["visible"]["begin"], d["visible"]["end"])')
A_SPAN=$(q '(d["compare"]["a"]["visible_begin"], d["compare"]["a"]["visible_end"])')
xdotool key w w
wait_for "(d['compare']['a']['visible_begin'], d['compare']['a']['visible_end']) != $A_SPAN" "W zooms A on the compare page"
[ "$(q '(d["visible"]["begin"], d["visible"]["end"])')" = "$MAIN_SPAN" ] || fail "a key on the compare page moved the hidden main view"
ok "keys on the compare page go to its timelines, not the hidden main view"

# ---- 3. New from Template with PP -------------------------------------------------------------
kill "$APP" 2>/dev/null || true
launch "$TMP/state2.json"
TSTATE=$STATE.template.json
wait_for 'd["page"] == "empty"' "an empty window"
WID=$(window_id "Weft")
focus "$WID"
xdotool key ctrl+shift+n
TWID=$(window_id "^New from Template$")
wait_for_file "$TSTATE" 'd["open"] and d["valid"] and "preview" in d and d["preview"]["up_to_date"]' "the template dialog's first preview"
focus "$TWID"
xdotool key alt+f alt+n            # FSDP off, PP on: pp x 1 ranks
xdotool key alt+g ctrl+a
xdotool type 2
xdotool key Tab alt+b ctrl+a       # micro-batch 4: 4 microbatches of 1
xdotool type 4
xdotool key Tab
wait_for_file "$TSTATE" 'd["valid"] and d["preview"]["up_to_date"] and not d["busy"] and d["preview"]["world"] == 2 and d["preview"]["microbatches"] == 4 and d["preview"]["bubble_pct"] > 0' \
  "the PP preview (2 stages, 4 microbatches) with its bubble chip"
SCHED=$(qfile "$TSTATE" 'd["preview"]["pp_schedule"]')
PREVIEW_BUBBLE=$(qfile "$TSTATE" 'd["preview"]["bubble_pct"]')
ok "template preview: pp 2, $SCHED, 4 microbatches, bubble $PREVIEW_BUBBLE %"
cp "$TMP/shot-template.png" "$TMP/template.png" 2>/dev/null || true
python3 -c 'import json,sys; json.dump(json.load(open(sys.argv[1]))["preview"]["params"], open(sys.argv[2], "w"))' "$TSTATE" "$TMP/params.json"
xdotool key alt+r
wait_for 'd["loaded"] and d["frames"] > 0 and "pipeline" in d and d["pipeline"]["bubble_pct"] >= 0' "the created trace with its bubble chip"
"$CLI" compose -q -s pp --pp 2 --pp-schedule "$SCHED" -p llama3-8b --layers 4 --mbs 4 --out "$TMP/t"
"$CLI" analyze --json "$TMP/t" >"$TMP/t.json"
python3 - "$STATE" "$TMP/t.json" "$TMP/params.json" "$TMP"/t/profiling/traces/iteration_*/rank0_trace.json* <<'PY' || fail "the created trace's bubble chip is not analyze's"
import gzip, json, sys
shown = json.load(open(sys.argv[1]))["pipeline"]["bubble_pct"]
want = json.load(open(sys.argv[2]))["whole"]["bubble_pct"]
path = sys.argv[4]
rank0 = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
# the same composer parameters as the dialog's (so the same step)
assert rank0["weft"] == json.load(open(sys.argv[3])), (rank0["weft"], json.load(open(sys.argv[3])))
assert abs(shown - want) <= 0.05, (shown, want)
print("ok - created from the template: bubble chip %.2f %% = weft-cli analyze --json bubble_pct %.2f %% (same parameters)" % (shown, want))
PY

echo "test-ui-pipeline-switch: passed"
