#!/usr/bin/env bash
# Comparing two traces in the real `weft` under X (Xvfb) with real input:
#
#  1. weft-cli composes an FSDP step (llama3-8b, dp 4, 2 layers) and the same
#     without prefetch; `weft --compare A B` shows both: the test state lists
#     both timelines drawn (frames, 4 rank groups each), the summary is
#     `weft-cli diff`'s, the chips have both values, the breakdown a row per
#     rank, the two views show the same range from their origins; in a
#     screenshot (Ctrl+Shift+F12) both halves are drawn (many colours, not
#     background) and differ;
#  2. a click on a kernel of A selects its counterpart in B and the side
#     pane shows both and their difference;
#  3. zooming A (W) zooms B to the same range from its origin;
#  4. Ctrl+Shift+K closes the comparison.
# (Compare with the Trace as Loaded and the template's Create Compared:
# test-ui-compare-loaded.sh.)
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
"$CLI" compose -s fsdp --dp 4 -p llama3-8b --layers 2 --no-prefetch --out "$TMP/noprefetch" >/dev/null
"$CLI" diff "$TMP/fsdp" "$TMP/noprefetch" --json >"$TMP/diff.json"
SUMMARY=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"])' "$TMP/diff.json")
MATCHED=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["matched"]["total"])' "$TMP/diff.json")
ok "weft-cli diff: $SUMMARY"

# ---- 1. weft --compare A B ----------------------------------------------------------------
export WEFT_TEST_SCREENSHOT=$TMP/shot.png WEFT_RESTORE=no
launch "$TMP/state.json" --compare "$TMP/fsdp" "$TMP/noprefetch"
C='d.get("compare", {})'
wait_for "d['page'] == 'compare' and $C['a']['frames'] > 0 and $C['b']['frames'] > 0 and 'x' in $C['a']['body'] and 'x' in $C['b']['body'] and $C['a'].get('probe') is not None" \
  "the compare page with both timelines drawn"
[ "$(q "$C['summary']")" = "$SUMMARY" ] || fail "the window's summary '$(q "$C['summary']")' is not weft-cli diff's"
[ "$(q "$C['a']['n_groups'] == 4 and $C['b']['n_groups'] == 4 and $C['a']['n_ranks'] == 4 and $C['b']['n_ranks'] == 4")" = 1 ] \
  || fail "not 4 rank groups on both sides"
[ "$(q "$C['matched'] == $MATCHED and $C['only_a'] == 0 and $C['only_b'] == 0 and $C['breakdown_rows'] == 4")" = 1 ] \
  || fail "matched $(q "$C['matched']") (weft-cli: $MATCHED), only $(q "$C['only_a']") / $(q "$C['only_b']"), breakdown rows $(q "$C['breakdown_rows']")"
[ "$(q "'Step:' in $C['chips'] and ' -> ' in $C['chips'] and '+' in $C['chips'].splitlines()[0]")" = 1 ] \
  || fail "the step chip does not show both values and the difference: $(q "$C['chips']")"
SAME="$C['a']['visible_begin'] - $C['a']['origin'] == $C['b']['visible_begin'] - $C['b']['origin'] and $C['a']['visible_end'] - $C['a']['origin'] == $C['b']['visible_end'] - $C['b']['origin']"
[ "$(q "$SAME")" = 1 ] || fail "the two views do not show the same range from their origins"
[ "$(q "$C['a']['body']['y'] + $C['a']['body']['h'] <= $C['b']['body']['y']")" = 1 ] || fail "A is not above B"
ok "weft --compare: both timelines drawn, A above B, the same range; $(q "$C['chips'].splitlines()[0]")"

# a smaller window: the screenshot's pure-python PNG decoding below takes
# about 2 s per million pixels
WID=$(window_id "Weft")
W0=$(q "$C['a']['body']['w']")
xdotool windowsize "$WID" 1000 720
wait_for "$C['a']['body']['w'] < $W0 and $C['b']['body']['y'] + $C['b']['body']['h'] <= 760" "the smaller window"

focus "$WID"
N0=$(q 'd["screenshots"]')
xdotool key ctrl+shift+F12
wait_for "d['screenshots'] > $N0" "the screenshot"
python3 - "$TMP/shot.png" "$STATE" <<'EOF' || fail "both halves of the screenshot are not drawn"
import json, struct, sys, zlib
png, state = sys.argv[1], json.load(open(sys.argv[2]))
data = open(png, "rb").read()
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        W, H, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
bpp = 4 if ctype == 6 else 3
raw, stride, rows, prev, i = zlib.decompress(idat), W * bpp, [], bytes(W * bpp), 0
for _ in range(H):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
    if f == 1:
        for x in range(bpp, stride):
            line[x] = (line[x] + line[x - bpp]) & 255
    elif f == 2:
        line = bytearray(map(lambda u, v: (u + v) & 255, line, prev))
    elif f == 3:
        for x in range(stride):
            line[x] = (line[x] + ((line[x - bpp] if x >= bpp else 0) + prev[x]) // 2) & 255
    elif f == 4:
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line)); prev = line
def crop(r):
    # the middle of the lanes, 20 px in from each edge
    out = []
    for y in range(r["y"] + 20, min(H, r["y"] + r["h"] - 20)):
        row = rows[y]
        out += [row[x * bpp:x * bpp + 3] for x in range(r["x"] + 20, min(W, r["x"] + r["w"] - 20))]
    return out
ok = True
halves = {}
for side in ("a", "b"):
    px = crop(state["compare"][side]["body"])
    colours = set(px)
    bg = max(colours, key=px.count)
    drawn = sum(1 for p in px if p != bg) / max(1, len(px))
    halves[side] = px
    print("%s: %d pixels, %d colours, %.0f%% not background" % (side, len(px), len(colours), 100 * drawn))
    if len(px) < 5000 or len(colours) < 8 or drawn < 0.05:
        ok = False
if halves["a"] == halves["b"]:
    print("the two halves are the same picture")
    ok = False
sys.exit(0 if ok else 1)
EOF
ok "screenshot: both halves drawn, and different"

# ---- 2. a click on a kernel of A selects its counterpart in B -----------------------------------
PX=$(q "$C['a']['probe']['x']"); PY=$(q "$C['a']['probe']['y']")
PA=$(q "$C['a']['probe']['a']"); PB=$(q "$C['a']['probe']['b']")
xdotool mousemove --window "$WID" "$PX" "$PY" click 1
wait_for "$C['a']['selection'] == '$PA' and $C['b']['selection'] == '$PB' and 'B − A' in $C['detail']" \
  "the counterpart selected in B and the differences shown"
ok "click on A's $PA: B's $PB selected; $(q "$C['detail'].splitlines()[-1]")"

# ---- 3. zoom A (it has the focus): B follows --------------------------------------------------------------------
SPAN0=$(q "$C['a']['visible_end'] - $C['a']['visible_begin']")
AX=$(q "$C['a']['body']['x'] + $C['a']['body']['w'] // 2"); AY=$(q "$C['a']['body']['y'] + 8")
xdotool mousemove --window "$WID" "$AX" "$AY"
xdotool key w w w
wait_for "$C['a']['visible_end'] - $C['a']['visible_begin'] < $SPAN0 * 0.7 and $SAME" "B zooms with A"
ok "zoom: A $SPAN0 -> $(q "$C['a']['visible_end'] - $C['a']['visible_begin']") ns, B the same range"

# ---- 4. Ctrl+Shift+K closes the comparison ------------------------------------------------------
xdotool key ctrl+shift+k
wait_for 'd["page"] == "trace" and "compare" not in d' "Ctrl+Shift+K closes the comparison"
ok "closed: the trace page again"
[ "$(q 'd["n_errors"]')" = 0 ] || fail "an error was shown: $(q 'd["last_error"]')"
echo "PASS"
